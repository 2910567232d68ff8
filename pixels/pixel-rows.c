/* How the engine sees a drawable's pixels, and rows moved between GEGL
 * buffers and the engine's images (pixel-rows.h). */
#include "config.h"

#include <math.h>

#include <glib/gi18n-lib.h>

#include "pixel-engine.h"
#include "pixel-rows.h"

GeglRectangle
blur_rectangle_at_level (const GeglRectangle *rect, gint level)
{
  GeglRectangle scaled = { rect->x >> level, rect->y >> level, 0, 0 };

  scaled.width = ((rect->x + rect->width) >> level) - scaled.x;
  scaled.height = ((rect->y + rect->height) >> level) - scaled.y;
  return scaled;
}

/* Whether the image's space encodes with the sRGB curve (gray, or each RGB
 * channel), so that the engine's own decoding is exact: babl decodes every
 * 8-bit value in that space and in its built-in sRGB, and they must agree.
 * Numeric rather than by name: an sRGB profile read from a file is a space
 * of its own. */
static gboolean
space_has_srgb_curve (const Babl *drawable_format, gboolean gray)
{
  const char *encoded_name = gray ? "Y' u8" : "R'G'B' u8";
  const char *linear_name = gray ? "Y float" : "RGB float";
  gint        n = gray ? 1 : 3;
  guint8      encoded[256 * 3];
  gfloat      in_space[256 * 3], in_srgb[256 * 3];

  for (gint i = 0; i < 256 * n; i++)
    encoded[i] = (guint8) (i / n);
  babl_process (babl_fish (babl_format_with_space (encoded_name, drawable_format),
                           babl_format_with_space (linear_name, drawable_format)),
                encoded, in_space, 256);
  babl_process (babl_fish (babl_format (encoded_name), babl_format (linear_name)),
                encoded, in_srgb, 256);
  for (gint i = 0; i < 256 * n; i++)
    if (fabs (in_space[i] - in_srgb[i]) > 1e-5)
      return FALSE;
  return TRUE;
}

/* The GEGL format in the drawable's space: linear or encoded, of
 * `type_name` samples. */
static const Babl *
layout_format (const Babl *drawable_format, gboolean linear_model, gboolean gray, gboolean alpha,
               const char *type_name)
{
  const char *model;
  gchar      *name;
  const Babl *format;

  if (linear_model)
    model = gray ? (alpha ? "YA" : "Y") : (alpha ? "RGBA" : "RGB");
  else
    model = gray ? (alpha ? "Y'A" : "Y'") : (alpha ? "R'G'B'A" : "R'G'B'");
  name = g_strdup_printf ("%s %s", model, type_name);
  format = babl_format_with_space (name, drawable_format);
  g_free (name);
  return format;
}

/* The drawable's sample type, and its name in babl's formats. */
static gblur_sample
stored_sample (const Babl *drawable_format, const char **type_name)
{
  const Babl *type = babl_format_get_type (drawable_format, 0);

  if (type == babl_type ("u8"))
    return *type_name = "u8", GBLUR_U8;
  if (type == babl_type ("u16"))
    return *type_name = "u16", GBLUR_U16;
  return *type_name = "float", GBLUR_F32;
}

/* Whether babl (or the profile's curve) decodes to linear light, rather
 * than the engine decoding the sRGB curve itself. */
static gboolean
babl_decodes (const Babl *drawable_format, gblur_sample sample, gboolean gray)
{
  return sample == GBLUR_F32 || !space_has_srgb_curve (drawable_format, gray);
}

/* 8- and 16-bit data travel in their own precision (so 8-bit gray moves one
 * byte per pixel), encoded with the sRGB curve when that is the image's
 * curve: the engine decodes it when blurring in linear light.  In linear
 * light with another curve (a ProPhoto, Rec.2020 or linear profile), and for
 * float data, babl delivers linear float in the image's own space; except
 * 16-bit data, which the profile's own curve decodes (babl's is too coarse
 * for 16 bits: tone-curve.h).  Alpha is straight in GEGL's formats: the
 * engine premultiplies. */
gboolean
pixel_layout_choose (const Babl *drawable_format, gboolean linear, PixelLayout *layout, GError **error)
{
  gboolean    alpha, babl_linear;
  int         colors;
  const char *type_name;

  if (babl_format_is_palette (drawable_format))
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("Cannot blur an indexed image: convert it to RGB or grayscale first."));
      return FALSE;
    }
  alpha = babl_format_has_alpha (drawable_format);
  colors = babl_format_get_n_components (drawable_format) - (alpha ? 1 : 0);
  layout->sample = stored_sample (drawable_format, &type_name);
  babl_linear = linear && babl_decodes (drawable_format, layout->sample, colors == 1);
  layout->curve = NULL;
  if (babl_linear && layout->sample == GBLUR_U16)
    layout->curve = tone_curve_for_format (drawable_format, colors);
  if (babl_linear)
    layout->sample = GBLUR_F32;
  if (babl_linear && !layout->curve)
    type_name = "float";

  layout->format = layout_format (drawable_format, babl_linear && !layout->curve, colors == 1,
                                  alpha, type_name);
  layout->channels = (colors == 1 ? 1 : 3) + (alpha ? 1 : 0);
  layout->alpha = alpha;
  layout->flags = (linear && !babl_linear ? GBLUR_LINEAR_LIGHT : 0)
                  | (alpha ? GBLUR_PREMULTIPLY_ALPHA : 0);
  return TRUE;
}

/* Bytes per pixel of the engine's images (the GEGL format's may be fewer). */
static gint
layout_bytes_per_pixel (const PixelLayout *layout)
{
  return layout->channels * (gint) gblur_sample_size (layout->sample);
}

/* Reads `rect` (at the shape's mipmap level) of `buffer` into rows at
 * `data`, as the engine takes them. */
void
pixel_rows_read (GeglBuffer *buffer, const GeglRectangle *rect, const BlurShape *shape,
           const PixelLayout *layout, guchar *data, gsize stride)
{
  gegl_buffer_get (buffer, rect, 1.0 / (1 << shape->level), layout->format, data, stride,
                   shape->abyss);
  if (layout->curve)
    for (gint row = 0; row < rect->height; row++)
      tone_curve_decode (layout->curve, data + row * stride, rect->width, layout->alpha);
}

/* Converts the engine's rows at `data` to layout->format, in place. */
void
pixel_rows_encode (const PixelLayout *layout, guchar *data, gsize stride, gint width, gint height)
{
  if (layout->curve)
    for (gint row = 0; row < height; row++)
      tone_curve_encode (layout->curve, data + row * stride, width, layout->alpha);
}

/* Writes the engine's rows at `data` (converted in place) into `rect` of
 * `output`, at mipmap `level`. */
void
pixel_rows_write (GeglBuffer *output, const GeglRectangle *rect, gint level, const PixelLayout *layout,
            guchar *data, gsize stride)
{
  pixel_rows_encode (layout, data, stride, rect->width, rect->height);
  gegl_buffer_set (output, rect, level, layout->format, data, stride);
  gegl_buffer_flush (output);
}

/* The engine's parameters for the shape: always a sigma per axis (the
 * engine shares the taps when both are equal). */
gblur_params
pixel_shape_params (const BlurShape *shape, const PixelLayout *layout, gblur_progress_fn progress,
              gpointer data)
{
  return (gblur_params) { .flags = layout->flags, .progress = progress, .user_data = data,
                          .sigma_x = shape->sigma_x, .sigma_y = shape->sigma_y };
}

/* The rectangle to read for `roi`: grown by the blur's reach on each axis.
 * Cut to the buffer where the abyss is clamped anyway and `roi` lies inside
 * it (the engine clamps as a whole-image blur would), else read whole: GEGL
 * fills what lies outside.  All at the shape's mipmap level. */
static GeglRectangle
halo_of (GeglBuffer *buffer, const GeglRectangle *roi, const BlurShape *shape)
{
  const GeglRectangle *extent = gegl_buffer_get_extent (buffer);
  gint                 rx = gblur_radius (shape->sigma_x), ry = gblur_radius (shape->sigma_y);
  GeglRectangle        halo = { roi->x - rx, roi->y - ry, roi->width + 2 * rx,
                                roi->height + 2 * ry };
  GeglRectangle        bounds = blur_rectangle_at_level (extent, shape->level);

  /* A result that grows past the buffer needs the abyss around it too. */
  if (shape->abyss == GEGL_ABYSS_CLAMP && gegl_rectangle_contains (&bounds, roi))
    gegl_rectangle_intersect (&halo, &halo, &bounds);
  return halo;
}

/* Packed images in layout->format, from the engine's allocator: the halo
 * for `roi` (*src) and the result (*out).  On failure the caller still frees
 * both (either may be NULL). */
gboolean
pixel_window_alloc (gblur_engine *engine, GeglBuffer *buffer, const PixelLayout *layout,
              const GeglRectangle *roi, const BlurShape *shape, GeglRectangle *halo,
              gblur_image *src, gblur_image *out, GError **error)
{
  gint bpp = layout_bytes_per_pixel (layout);

  *halo = halo_of (buffer, roi, shape);
  *src = (gblur_image) { .stride = (size_t) halo->width * bpp, .width = halo->width,
                         .height = halo->height, .channels = layout->channels,
                         .sample = layout->sample };
  *out = (gblur_image) { .stride = (size_t) roi->width * bpp, .width = roi->width,
                         .height = roi->height, .channels = layout->channels,
                         .sample = layout->sample };
  src->data = gblur_engine_alloc_host (engine, src->stride * halo->height);
  out->data = gblur_engine_alloc_host (engine, out->stride * roi->height);
  if (!src->data || !out->data)
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("Not enough memory for a %d×%d image."), halo->width, halo->height);
      return FALSE;
    }
  return TRUE;
}
