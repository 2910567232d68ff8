/* The pixel path: a window of a GEGL buffer -> one engine run -> memory or
 * a GEGL buffer, for the operation, the preview and the merge check.  No
 * CUDA here: only the engine's API. */
#ifndef PIXEL_PATH_H
#define PIXEL_PATH_H

#include <gegl.h>
#include "gblur.h"

/* How to blur: a standard deviation per axis (0: that axis is not blurred),
 * in linear light or on the stored values, with what lies outside the
 * buffer, at a mipmap level: coordinates and sigmas are that level's, and
 * the input is read at scale 2^-level. */
typedef struct {
  gdouble         sigma_x;
  gdouble         sigma_y;
  gboolean        linear;
  GeglAbyssPolicy abyss;
  gint            level;
} BlurShape;

/* The plug-in's shape: `sigma` on both axes, edges clamped, full size. */
BlurShape blur_shape_uniform (gdouble sigma, gboolean linear);

/* `rect` at mipmap `level` (GEGL's own blurs scale it so). */
GeglRectangle blur_rectangle_at_level (const GeglRectangle *rect, gint level);

/* For a preview: blurs `roi` of `buffer` (with its halo) and converts the
 * result to `out_format` in `out`. */
gboolean blur_to_memory (gblur_engine *engine, GeglBuffer *buffer, const Babl *drawable_format,
                         const GeglRectangle *roi, const BlurShape *shape, const Babl *out_format,
                         guchar *out, gint out_rowstride, GError **error);

/* For the GEGL operation: the format to ask GEGL for, nearest the source's
 * (8-bit data stays 8-bit); NULL for a format the path cannot take. */
const Babl *blur_region_format (const Babl *source_format, gboolean linear);

/* For the GEGL operation: blurs `roi` of `input` (read with its halo, as the
 * shape says) into the same rectangle of `output`, in one engine run;
 * *busy_ms (may be NULL): its milliseconds less getting buffers, what a
 * next run of its size costs.  `lock` (may be NULL): the engine's, which
 * the caller holds; it is let go while `input` is read. */
gboolean blur_region (gblur_engine *engine, GMutex *lock, GeglBuffer *input, const Babl *source_format,
                      const GeglRectangle *roi, const BlurShape *shape, GeglBuffer *output,
                      gdouble *busy_ms, GError **error);

#endif
