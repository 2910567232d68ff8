/* The pixel path: GEGL buffers -> engine -> GEGL buffers, for any GIMP
 * (the front ends and the preview).  No CUDA here: only the engine's API. */
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

/* `rect` at mipmap `level` (GEGL's own blurs scale it so). */
GeglRectangle blur_rectangle_at_level (const GeglRectangle *rect,
                                       gint                 level);

/* Progress sink: fraction in [0,1]. */
typedef void (*BlurProgressFunc) (gdouble fraction, gpointer user_data);

/* Blurs the rectangle (x, y, width, height) of `buffer` (the selection
 * bounds) into the same rectangle of `shadow`, reading a halo of the blur
 * radius around it.  `drawable_format` picks the pixel format.  Reading,
 * blurring and writing overlap (CUDA_GBLUR_OVERLAP=0: one after the other),
 * so on failure `shadow` may hold some finished rows: merge it only when
 * this returns TRUE.  Call from the thread that talks to GIMP. */
gboolean  blur_buffer (gblur_engine     *engine,
                       GeglBuffer       *buffer,
                       GeglBuffer       *shadow,
                       const Babl       *drawable_format,
                       gint              x,
                       gint              y,
                       gint              width,
                       gint              height,
                       gdouble           sigma,
                       gboolean          linear,
                       BlurProgressFunc  progress,
                       gpointer          progress_data,
                       GError          **error);

/* For a preview: blurs `roi` of `buffer` (with its halo, as blur_buffer
 * does) and converts the result to `out_format` in `out`. */
gboolean  blur_to_memory (gblur_engine        *engine,
                          GeglBuffer          *buffer,
                          const Babl          *drawable_format,
                          const GeglRectangle *roi,
                          gdouble              sigma,
                          gboolean             linear,
                          const Babl          *out_format,
                          guchar              *out,
                          gint                 out_rowstride,
                          GError             **error);

/* For the GEGL operation: the format to ask GEGL for, nearest the source's
 * (8-bit data stays 8-bit); NULL for a format the path cannot take. */
const Babl *blur_region_format (const Babl *source_format,
                                gboolean    linear);

/* For the GEGL operation: blurs `roi` of `input` (read with its halo, as the
 * shape says) into the same rectangle of `output`, in one engine run. */
gboolean  blur_region (gblur_engine        *engine,
                       GeglBuffer          *input,
                       const Babl          *source_format,
                       const GeglRectangle *roi,
                       const BlurShape     *shape,
                       GeglBuffer          *output,
                       GError             **error);

#endif
