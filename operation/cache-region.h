/* What the GEGL operation renders and lets GEGL cache for a request: GIMP's
 * canvas asks for small chunks of what it shows, a merge or an export for
 * large ones. */
#ifndef CACHE_REGION_H
#define CACHE_REGION_H

#include <gegl.h>

/* What to render and cache for a request `roi` of the layer `box`, for a
 * blur reaching `radius` pixels: for a large part of the layer, or a tile
 * at its top-left corner (where GIMP's merge starts), the whole box; for a small chunk (the canvas's), `roi`
 * grown to an aligned block, so that the chunks of a view share engine runs
 * and halos instead of each paying its own, unless a view's blocks would
 * cost more than the whole box; for one in between, `roi` itself. */
GeglRectangle operation_cached_region (const GeglRectangle *roi,
                                       const GeglRectangle *box,
                                       gint                 radius);

#endif
