/* What the GEGL operation renders and lets GEGL cache for a request: GIMP's
 * canvas asks for small chunks of what it shows, a merge or an export for
 * large ones. */
#ifndef CACHE_REGION_H
#define CACHE_REGION_H

#include <gegl.h>

/* What to render and cache for a request `roi` of the layer `box`, for a
 * blur reaching `radius` pixels: for a tile at its top-left corner (where
 * GIMP's merge starts), the whole box; for a chunk at its left or right
 * edge, or nearly as wide (the canvas's rest of the layer, an export), the
 * full-width band from its first row down; for a larger, narrow chunk
 * inside it, its rows from its left edge right; for any other (the canvas's
 * viewport), a view's worth of the box right of and below it, which the
 * view's next chunks reuse instead of each paying an engine run and a
 * halo, or the whole box when that is half of it or more. */
/* A chunk gets the whole layer when one engine run over it is expected
 * within this (GIMP's iteration is 1/15 s, and its own copies of the view
 * need the rest): the view, and mostly the whole layer, show after one
 * iteration. */
#define WHOLE_LAYER_MS 50.0

GeglRectangle operation_cached_region (const GeglRectangle *roi,
                                       const GeglRectangle *box,
                                       gint                 radius);

#endif
