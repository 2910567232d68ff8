/* How the engine sees a drawable's pixels, and rows moved between GEGL
 * buffers and the engine's images: what pixel-path.c and pixel-transfer.c
 * share.  Internal to pixels/. */
#ifndef PIXEL_ROWS_H
#define PIXEL_ROWS_H

#include "pixel-path.h"
#include "tone-curve.h"

typedef struct {
  const Babl      *format;   /* what GEGL converts to and from */
  const ToneCurve *curve;    /* when set: format is u16, decoded to float for the engine */
  gblur_sample     sample;
  int              channels;
  gboolean         alpha;
  unsigned         flags;
} PixelLayout;

/* The layout for a drawable of `drawable_format`; FALSE (with *error set)
 * for a format the path cannot take. */
gboolean pixel_layout_choose (const Babl *drawable_format, gboolean linear, PixelLayout *layout,
                              GError **error);

/* Reads `rect` (at the shape's mipmap level) of `buffer` into rows at
 * `data`, as the engine takes them. */
void pixel_rows_read (GeglBuffer *buffer, const GeglRectangle *rect, const BlurShape *shape,
                      const PixelLayout *layout, guchar *data, gsize stride);

/* Converts the engine's rows at `data` to layout->format, in place. */
void pixel_rows_encode (const PixelLayout *layout, guchar *data, gsize stride, gint width,
                        gint height);

/* Writes the engine's rows at `data` (converted in place) into `rect` of
 * `output`, at mipmap `level`. */
void pixel_rows_write (GeglBuffer *output, const GeglRectangle *rect, gint level,
                       const PixelLayout *layout, guchar *data, gsize stride);

/* The engine's parameters for the shape. */
gblur_params pixel_shape_params (const BlurShape *shape, const PixelLayout *layout,
                                 gblur_progress_fn progress, gpointer data);

/* Packed images in layout->format, from the engine's allocator: the halo
 * for `roi` (*src, its rectangle in *halo) and the result (*out).  On
 * failure the caller still frees both (either may be NULL). */
gboolean pixel_window_alloc (gblur_engine *engine, GeglBuffer *buffer, const PixelLayout *layout,
                             const GeglRectangle *roi, const BlurShape *shape, GeglRectangle *halo,
                             gblur_image *src, gblur_image *out, GError **error);

#endif
