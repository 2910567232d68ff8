#include "config.h"

#include <glib/gi18n-lib.h>

#include "blur-preview.h"
#include "pixel-engine.h"
#include "pixel-path.h"

void
blur_preview_init (BlurPreview *bp, gblur_engine *engine, GeglBuffer *buffer,
                   const Babl *drawable_format)
{
  gboolean    alpha = babl_format_has_alpha (drawable_format);
  gint        colors = babl_format_get_n_components (drawable_format) - (alpha ? 1 : 0);
  const char *name = colors == 1 ? (alpha ? "Y'A u8" : "Y' u8")
                                 : (alpha ? "R'G'B'A u8" : "R'G'B' u8");

  bp->engine = engine;
  bp->buffer = g_object_ref (buffer);
  bp->drawable_format = drawable_format;
  bp->display_format = babl_format_with_space (name, drawable_format);
  bp->last_ms = 0;
}

void
blur_preview_render (BlurPreview *bp, GimpPreview *preview, gdouble sigma, gboolean linear)
{
  GeglRectangle roi;
  BlurShape     shape = blur_shape_uniform (sigma, linear);
  gint          bpp = babl_format_get_bytes_per_pixel (bp->display_format);
  guchar       *pixels;
  GError       *error = NULL;
  gint64        start = g_get_monotonic_time ();

  gimp_preview_get_position (preview, &roi.x, &roi.y);
  gimp_preview_get_size (preview, &roi.width, &roi.height);
  pixels = g_malloc ((gsize) roi.width * roi.height * bpp);
  if (blur_to_memory (bp->engine, bp->buffer, bp->drawable_format, &roi, &shape,
                      bp->display_format, pixels, roi.width * bpp, &error))
    {
      gimp_preview_draw_buffer (preview, pixels, roi.width * bpp);
      bp->last_ms = (g_get_monotonic_time () - start) / 1000.0;
      if (pixel_env ()->verbose)
        g_printerr ("cuda-gaussian-blur: preview %dx%d sigma %g: %.1f ms\n",
                    roi.width, roi.height, sigma, bp->last_ms);
    }
  else
    {
      g_message ("%s", error->message);
      g_error_free (error);
    }
  g_free (pixels);
}

void
blur_preview_clear (BlurPreview *bp)
{
  g_clear_object (&bp->buffer);
}
