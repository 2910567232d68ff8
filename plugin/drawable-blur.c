/* One drawable through the pixel path, for both GIMPs. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "pixel-engine.h"
#include "drawable-blur.h"
#include "pixel-transfer.h"

const Babl *
blur_drawable_format (BlurDrawable drawable)
{
  const Babl *format = gimp_drawable_get_format (drawable);

#if GIMP_MAJOR_VERSION >= 3
  return format;
#else
  if (babl_format_is_palette (format))
    return format;
  return babl_format_with_space (babl_format_get_encoding (format), NULL);
#endif
}

void
blur_gegl_init (gboolean interactive)
{
  /* GEGL's operations live in modules that gegl_init loads (dozens of
   * libraries: a tenth of a second or more per run on a small machine, more
   * than moving a 4096² layer).  Outside the dialog the plug-in uses no
   * operation, only buffers: point GEGL at the plug-in's own folder, which
   * holds none. */
  if (!interactive && !pixel_env ()->gegl_modules)
    {
      gchar *folder = g_path_get_dirname (gimp_get_progname ());
      g_setenv ("GEGL_PATH", folder, TRUE);
      g_free (folder);
    }
  gegl_init (NULL, NULL);
}

static void
show_progress (gdouble fraction, gpointer data)
{
  (void) data;
  gimp_progress_update (fraction);
}

gboolean
blur_drawable (gblur_engine *engine, BlurDrawable drawable, gdouble sigma, gboolean linear,
               GError **error)
{
  gint          x, y, width, height;
  GeglBuffer   *buffer, *shadow;
  gboolean      ok;
  BlurShape     shape = blur_shape_uniform (sigma, linear);
  GeglRectangle roi;

  if (!gimp_drawable_mask_intersect (drawable, &x, &y, &width, &height))
    return TRUE; /* the selection misses this drawable: nothing to do */

  gimp_progress_init (_("CUDA Gaussian Blur"));
  buffer = gimp_drawable_get_buffer (drawable);
  shadow = gimp_drawable_get_shadow_buffer (drawable);
  roi = (GeglRectangle) { x, y, width, height };
  ok = blur_buffer (engine, buffer, shadow, blur_drawable_format (drawable), &roi, &shape,
                    show_progress, NULL, error);
  g_object_unref (buffer);
  g_object_unref (shadow); /* flushes the shadow before the merge */
  if (ok)
    {
      gimp_drawable_merge_shadow (drawable, TRUE);
      gimp_drawable_update (drawable, x, y, width, height);
    }
  return ok;
}
