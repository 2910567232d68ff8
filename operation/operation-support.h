/* What the GEGL operation needs around the pixel path: the process's
 * engines, its translations, and failures that leave the image as it was. */
#ifndef OPERATION_SUPPORT_H
#define OPERATION_SUPPORT_H

#include <gegl.h>
#include "pixel-path.h"

/* Binds the translations in locale/ beside the module. */
void     operation_bind_catalogs (void);

/* Blurs `roi` (at the shape's level) of `input` into `output` with one of
 * the process's engines, made on first use; one run at a time.  A `part`
 * (less than the whole layer) goes to an engine that starts CUDA at once,
 * since a canvas asks again at each slider step; a whole layer to one that
 * starts CUDA only when the CPU would be slower.  A failed run is retried
 * on the CPU in stripes; only when that fails too does `result` of
 * `output` get the input unblurred.  Each warns, saying why: nothing in
 * GIMP's process may crash or lose pixels, and no blur fails silently. */
gboolean operation_blur          (GeglBuffer          *input,
                                  const Babl          *source_format,
                                  const GeglRectangle *roi,
                                  const BlurShape     *shape,
                                  GeglBuffer          *output,
                                  const GeglRectangle *result,
                                  gboolean             part);

/* Whether one run of the engine for parts over `pixels` of output, of
 * `bytes_per_pixel`, with a blur reaching `radius`, is expected within
 * `budget_ms`: from the best rate its runs of that reach and size have had
 * (host side included); before any, when it blurs on a GPU (where the host
 * side, not the blur, costs) and the layer is at most a large one. */
gboolean operation_run_fits      (gint64               pixels,
                                  gint                 bytes_per_pixel,
                                  gint                 radius,
                                  gdouble              budget_ms);

/* Frees the host buffers the engines keep between runs (a filter closed);
 * while a render runs, the last to end does. */
void     operation_release_kept  (void);

#endif
