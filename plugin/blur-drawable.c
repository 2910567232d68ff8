/* The pixel path shared by both GIMP versions. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <libgimp/gimp.h>

#include "blur-drawable.h"

G_DEFINE_QUARK (cuda-gaussian-blur-error-quark, blur_error)

gboolean
blur_check_arguments (gdouble sigma, gboolean drawable_valid, gboolean is_group,
                      gboolean is_indexed, GError **error)
{
  if (!(sigma >= GBLUR_SIGMA_MIN && sigma <= GBLUR_SIGMA_MAX)) /* NaN fails too */
    {
      g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                   _("Sigma must be between %g and %g pixels (got %g)."),
                   GBLUR_SIGMA_MIN, GBLUR_SIGMA_MAX, sigma);
      return FALSE;
    }
  if (!drawable_valid)
    {
      g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                   _("No valid drawable was given."));
      return FALSE;
    }
  if (is_group)
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("Cannot blur a layer group: select one of its layers."));
      return FALSE;
    }
  if (is_indexed)
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("Cannot blur an indexed image: convert it to RGB or grayscale first."));
      return FALSE;
    }
  return TRUE;
}

gblur_engine *
blur_engine_new (GError **error)
{
  gblur_status  status;
  char          msg[300];
  gblur_engine *engine = gblur_engine_new (NULL, &status, msg, sizeof msg);

  if (!engine)
    g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                 _("The blur engine could not start: %s"), msg);
  else if (g_getenv ("CUDA_GBLUR_VERBOSE"))
    g_printerr ("cuda-gaussian-blur: backend %s%s%s\n", gblur_engine_describe (engine),
                *gblur_engine_cuda_unavailable_reason (engine) ? " — " : "",
                gblur_engine_cuda_unavailable_reason (engine));
  return engine;
}

/* How the engine sees the drawable's pixels. */
typedef struct {
  const Babl  *format;   /* what GEGL converts to and from */
  gblur_sample sample;
  int          channels;
  unsigned     flags;
} PixelLayout;

/* 8- and 16-bit data travel in their own precision with the sRGB curve (the
 * engine decodes it when blurring in linear light), so 8-bit gray moves one
 * byte per pixel.  Everything else travels as float, already linear when
 * asked.  Alpha is straight in GEGL's formats: the engine premultiplies. */
static gboolean
choose_layout (const Babl *drawable_format, gboolean linear, PixelLayout *layout, GError **error)
{
  const Babl *type;
  gboolean    alpha;
  int         colors;
  const char *model, *type_name;
  gchar      *name;

  if (babl_format_is_palette (drawable_format))
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("Cannot blur an indexed image: convert it to RGB or grayscale first."));
      return FALSE;
    }
  type = babl_format_get_type (drawable_format, 0);
  alpha = babl_format_has_alpha (drawable_format);
  colors = babl_format_get_n_components (drawable_format) - (alpha ? 1 : 0);

  if (type == babl_type ("u8"))
    layout->sample = GBLUR_U8, type_name = "u8";
  else if (type == babl_type ("u16"))
    layout->sample = GBLUR_U16, type_name = "u16";
  else
    layout->sample = GBLUR_F32, type_name = "float";

  if (layout->sample == GBLUR_F32 && linear)
    model = colors == 1 ? (alpha ? "YA" : "Y") : (alpha ? "RGBA" : "RGB");
  else
    model = colors == 1 ? (alpha ? "Y'A" : "Y'") : (alpha ? "R'G'B'A" : "R'G'B'");

  name = g_strdup_printf ("%s %s", model, type_name);
  layout->format = babl_format_with_space (name, drawable_format);
  g_free (name);
  layout->channels = (colors == 1 ? 1 : 3) + (alpha ? 1 : 0);
  layout->flags = (linear && layout->sample != GBLUR_F32 ? GBLUR_LINEAR_LIGHT : 0)
                  | (alpha ? GBLUR_PREMULTIPLY_ALPHA : 0);
  return TRUE;
}

typedef struct {
  BlurProgressFunc func;
  gpointer         data;
  gint             steps;   /* stripes reported, for the verbose log */
} ProgressRelay;

/* The engine reports rows; the blur is the middle 80% of the bar (reading
 * and writing the pixels are the rest). */
static int
relay_progress (int rows_done, int rows_total, void *user_data)
{
  ProgressRelay *relay = user_data;
  relay->steps++;
  if (relay->func)
    relay->func (0.1 + 0.8 * rows_done / (double) rows_total, relay->data);
  return 0;
}

/* Reads `roi` of `buffer` with a halo of the blur radius (clamped to the
 * buffer, beyond which the engine clamps as a whole-image blur would) and
 * blurs it into *out, a packed image in layout->format allocated with the
 * engine's allocator.  Nothing is written anywhere else. */
static gboolean
blur_window (gblur_engine *engine, GeglBuffer *buffer, const PixelLayout *layout,
             const GeglRectangle *roi, gdouble sigma, BlurProgressFunc progress,
             gpointer progress_data, gblur_image *out, GError **error)
{
  const GeglRectangle *extent = gegl_buffer_get_extent (buffer);
  gint                 r = gblur_radius (sigma);
  gint                 bpp = babl_format_get_bytes_per_pixel (layout->format);
  GeglRectangle        halo;
  gblur_image          src;
  gblur_params         params;
  gblur_result         result;
  ProgressRelay        relay = { progress, progress_data, 0 };
  gblur_status         status;

  halo.x = MAX (extent->x, roi->x - r);
  halo.y = MAX (extent->y, roi->y - r);
  halo.width = MIN (extent->x + extent->width, roi->x + roi->width + r) - halo.x;
  halo.height = MIN (extent->y + extent->height, roi->y + roi->height + r) - halo.y;

  src = (gblur_image) { NULL, (size_t) halo.width * bpp, halo.width, halo.height,
                        layout->channels, layout->sample };
  *out = (gblur_image) { NULL, (size_t) roi->width * bpp, roi->width, roi->height,
                         layout->channels, layout->sample };
  src.data = gblur_engine_alloc_host (engine, src.stride * halo.height);
  out->data = gblur_engine_alloc_host (engine, out->stride * roi->height);
  if (!src.data || !out->data)
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("Not enough memory for a %d×%d image."), halo.width, halo.height);
      goto fail;
    }

  if (progress)
    progress (0.0, progress_data);
  gegl_buffer_get (buffer, &halo, 1.0, layout->format, src.data, src.stride, GEGL_ABYSS_CLAMP);
  if (progress)
    progress (0.1, progress_data);

  params = (gblur_params) { sigma, layout->flags, relay_progress, &relay };
  status = gblur_engine_run_window (engine, &src, roi->x - halo.x, roi->y - halo.y, out,
                                    &params, &result);
  if (status != GBLUR_OK)
    {
      g_set_error (error, BLUR_ERROR,
                   status == GBLUR_E_SIGMA ? BLUR_CALLING_ERROR : BLUR_EXECUTION_ERROR,
                   _("The blur failed: %s"), gblur_engine_last_error (engine));
      goto fail;
    }
  if (result.fell_back_to_cpu)
    g_printerr ("cuda-gaussian-blur: the GPU failed; the CPU finished the blur\n");
  if (g_getenv ("CUDA_GBLUR_VERBOSE"))
    g_printerr ("cuda-gaussian-blur: %d progress steps\n", relay.steps);
  gblur_engine_free_host (engine, src.data);
  return TRUE;

fail:
  gblur_engine_free_host (engine, src.data);
  gblur_engine_free_host (engine, out->data);
  out->data = NULL;
  return FALSE;
}

gboolean
blur_buffer (gblur_engine *engine, GeglBuffer *buffer, GeglBuffer *shadow,
             const Babl *drawable_format, gint x, gint y, gint width, gint height,
             gdouble sigma, gboolean linear, BlurProgressFunc progress,
             gpointer progress_data, GError **error)
{
  PixelLayout   layout;
  GeglRectangle roi = { x, y, width, height };
  gblur_image   out;
  gint64        start = g_get_monotonic_time ();

  if (!choose_layout (drawable_format, linear, &layout, error)
      || !blur_window (engine, buffer, &layout, &roi, sigma, progress, progress_data, &out, error))
    return FALSE;
  gegl_buffer_set (shadow, &roi, 0, layout.format, out.data, out.stride);
  gblur_engine_free_host (engine, out.data);
  if (progress)
    progress (1.0, progress_data);
  if (g_getenv ("CUDA_GBLUR_VERBOSE"))
    g_printerr ("cuda-gaussian-blur: %d×%d %s, sigma %g: %.1f ms (read, blur, write) on %s\n",
                width, height, babl_get_name (layout.format), sigma,
                (g_get_monotonic_time () - start) / 1000.0, gblur_engine_describe (engine));
  return TRUE;
}

gboolean
blur_to_memory (gblur_engine *engine, GeglBuffer *buffer, const Babl *drawable_format,
                const GeglRectangle *roi, gdouble sigma, gboolean linear,
                const Babl *out_format, guchar *out, gint out_rowstride, GError **error)
{
  PixelLayout  layout;
  gblur_image  blurred;
  const Babl  *fish;

  if (!choose_layout (drawable_format, linear, &layout, error)
      || !blur_window (engine, buffer, &layout, roi, sigma, NULL, NULL, &blurred, error))
    return FALSE;
  fish = babl_fish (layout.format, out_format);
  for (gint row = 0; row < roi->height; row++)
    babl_process (fish, (const guchar *) blurred.data + row * blurred.stride,
                  out + row * out_rowstride, roi->width);
  gblur_engine_free_host (engine, blurred.data);
  return TRUE;
}

gchar *
blur_engine_summary (gblur_engine *engine)
{
  if (gblur_engine_backend (engine) == GBLUR_BACKEND_CUDA)
    return g_strdup_printf (_("GPU: %s"), gblur_engine_describe (engine));
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "CPU: %d thread — %s",
                                       "CPU: %d threads — %s",
                                       gblur_engine_cpu_threads (engine)),
                          gblur_engine_cpu_threads (engine),
                          gblur_engine_cuda_unavailable_reason (engine));
}
