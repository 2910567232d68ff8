/* What the GEGL operation renders and lets GEGL cache for a request: GIMP's
 * canvas asks for small chunks of what it shows, a merge or an export for
 * large ones. */
#ifndef CACHE_REGION_H
#define CACHE_REGION_H

#include <gegl.h>

/* What to render and cache for a request `roi` of the layer `box`: for a
 * small part of the layer (a chunk of a zoomed-in canvas), `roi` grown to
 * an aligned block, so that the canvas's chunks share engine runs and halos
 * instead of each paying its own, or the whole layer; otherwise (a merge,
 * an export, a zoomed-out canvas) the whole box. */
GeglRectangle operation_cached_region (const GeglRectangle *roi,
                                       const GeglRectangle *box);

#endif
