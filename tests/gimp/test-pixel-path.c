/* The plug-in's pixel path (pixels/) on GEGL buffers whose
 * format carries an ICC profile's space, without GIMP: the whole-selection
 * blur (blur_buffer, what OK writes) and the preview's window blur
 * (blur_to_memory into the drawable's format) must give the same bytes, and
 * in linear light a non-sRGB curve must change the result (the space is
 * used, not sRGB's curve).  Profiles from Ghostscript's libgs-common; without
 * them it is skipped (exit 77).
 *   test-pixel-path [PROFILE_DIR]   (default /usr/share/color/icc/ghostscript) */
#include "config.h"

#include <stdio.h>
#include <math.h>
#include <string.h>

#include <gegl.h>

#include "pixel-engine.h"
#include "pixel-path.h"
#include "pixel-transfer.h"
#include "tone-curve.h"

#define W 90
#define H 70

static int passed, failed;

static void
check (gboolean ok, const char *what)
{
  printf ("%s: %s\n", ok ? "PASS" : "FAIL", what);
  ok ? passed++ : failed++;
}

static const Babl *
space_from_file (const char *path)
{
  gchar      *icc = NULL;
  gsize       length = 0;
  const char *error = NULL;
  const Babl *space;

  if (!g_file_get_contents (path, &icc, &length, NULL))
    return NULL;
  space = babl_space_from_icc (icc, (int) length, BABL_ICC_INTENT_RELATIVE_COLORIMETRIC, &error);
  g_free (icc);
  return space;
}

/* A buffer of the format, filled with steps and noise (alpha varies). */
static GeglBuffer *
make_buffer (const Babl *format)
{
  GeglRectangle rect = { 0, 0, W, H };
  GeglBuffer   *buffer = gegl_buffer_new (&rect, format);
  gint          bpp = babl_format_get_bytes_per_pixel (format);
  guchar       *pixels = g_malloc ((gsize) W * H * bpp);

  for (gint i = 0; i < W * H * bpp; i++)
    pixels[i] = (guchar) ((i % bpp == bpp - 1 ? 128 + i % 97 : (i / bpp % W) < W / 2 ? 30 : 220)
                          + (i * 7919) % 23);
  gegl_buffer_set (buffer, &rect, 0, format, pixels, GEGL_AUTO_ROWSTRIDE);
  g_free (pixels);
  return buffer;
}

/* The whole buffer blurred as OK applies it, read back in `format`. */
static guchar *
blur_whole (gblur_engine *engine, GeglBuffer *buffer, const Babl *format, gdouble sigma)
{
  GeglRectangle rect = { 0, 0, W, H };
  GeglBuffer   *shadow = gegl_buffer_new (&rect, format);
  guchar       *pixels = g_malloc ((gsize) W * H * babl_format_get_bytes_per_pixel (format));
  GError       *error = NULL;
  BlurShape     shape = blur_shape_uniform (sigma, TRUE);

  if (!blur_buffer (engine, buffer, shadow, format, &rect, &shape, NULL, NULL, &error))
    {
      printf ("blur_buffer failed: %s\n", error->message);
      g_clear_error (&error);
    }
  gegl_buffer_get (shadow, &rect, 1.0, format, pixels, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  g_object_unref (shadow);
  return pixels;
}

static void
check_space (gblur_engine *engine, const char *encoding, const Babl *space, const char *label)
{
  const Babl   *format = babl_format_with_space (encoding, space);
  const Babl   *srgb = babl_format_with_space (encoding, NULL);
  gint          bpp = babl_format_get_bytes_per_pixel (format);
  GeglRectangle roi = { 17, 11, 40, 30 };
  GeglBuffer   *buffer = make_buffer (format), *plain = make_buffer (srgb);
  guchar       *whole = blur_whole (engine, buffer, format, 3.0);
  guchar       *whole_srgb = blur_whole (engine, plain, srgb, 3.0);
  guchar       *window = g_malloc ((gsize) roi.width * roi.height * bpp);
  GError       *error = NULL;
  gboolean      same = TRUE;
  gchar        *what;
  BlurShape     shape = blur_shape_uniform (3.0, TRUE);

  if (!blur_to_memory (engine, buffer, format, &roi, &shape, format, window, roi.width * bpp, &error))
    {
      printf ("blur_to_memory failed: %s\n", error->message);
      g_clear_error (&error);
      same = FALSE;
    }
  for (gint y = 0; y < roi.height && same; y++)
    same = memcmp (window + (gsize) y * roi.width * bpp,
                   whole + ((gsize) (roi.y + y) * W + roi.x) * bpp, (gsize) roi.width * bpp) == 0;
  what = g_strdup_printf ("%s, %s: the preview's window equals the applied result", label, encoding);
  check (same, what);
  g_free (what);
  /* The same stored values without the profile: the curve must matter. */
  what = g_strdup_printf ("%s, %s: linear light in the profile's space differs from sRGB's", label,
                          encoding);
  check (memcmp (whole, whole_srgb, (gsize) W * H * bpp) != 0, what);
  g_free (what);
  g_free (window);
  g_free (whole);
  g_free (whole_srgb);
  g_object_unref (buffer);
  g_object_unref (plain);
}

/* The profile's curve at 16 bits: every code decodes and encodes back to
 * itself, and agrees with babl's decoding (which is off by up to 2e-5). */
static void
check_tone_curve (const Babl *space, const char *encoding, gint colors, const char *label)
{
  const Babl      *format = babl_format_with_space (encoding, space);
  const ToneCurve *curve = tone_curve_for_format (format, colors);
  gsize            n = 65536;
  guint16         *codes = g_new (guint16, n * colors);
  gfloat          *data = g_new (gfloat, n * colors), *by_babl = g_new (gfloat, n * colors);
  gboolean         round_trip = TRUE;
  gdouble          worst = 0;
  gchar           *what;

  what = g_strdup_printf ("%s: read from the profile", label);
  check (curve != NULL, what);
  g_free (what);
  if (!curve)
    return;
  for (gsize i = 0; i < n * colors; i++)
    codes[i] = (guint16) (i / colors);
  memcpy (data, codes, n * colors * sizeof *codes);
  tone_curve_decode (curve, data, n, FALSE);
  babl_process (babl_fish (format, babl_format_with_space (colors == 1 ? "Y float" : "RGB float",
                                                           space)),
                codes, by_babl, (long) n);
  for (gsize i = 0; i < n * colors; i++)
    worst = MAX (worst, fabs (data[i] - by_babl[i]));
  tone_curve_encode (curve, data, n, FALSE);
  round_trip = memcmp (data, codes, n * colors * sizeof *codes) == 0;
  what = g_strdup_printf ("%s: every 16-bit code decodes and encodes back to itself", label);
  check (round_trip, what);
  g_free (what);
  what = g_strdup_printf ("%s: decoding within 5e-5 of babl's (%.2g)", label, worst);
  check (worst < 5e-5, what);
  g_free (what);
  g_free (codes);
  g_free (data);
  g_free (by_babl);
}

int
main (int argc, char **argv)
{
  const char   *dir = argc > 1 ? argv[1] : "/usr/share/color/icc/ghostscript";
  gchar        *romm_path = g_build_filename (dir, "rommrgb.icc", NULL);
  gchar        *gray_path = g_build_filename (dir, "sgray.icc", NULL);
  const Babl   *romm, *gray;
  gblur_engine *engine;
  GError       *error = NULL;

  gegl_init (NULL, NULL);
  romm = space_from_file (romm_path);
  gray = space_from_file (gray_path);
  if (!romm || !gray)
    {
      printf ("skipped: no ICC profiles in %s (Debian: libgs-common)\n", dir);
      return 77;
    }
  engine = pixel_engine_new (PIXEL_ENGINE_START_CUDA, &error);
  if (!engine)
    {
      printf ("no engine: %s\n", error->message);
      return 1;
    }
  check_space (engine, "R'G'B'A u8", romm, "ROMM RGB (gamma 1.8)");
  check_space (engine, "R'G'B' u16", romm, "ROMM RGB (gamma 1.8)");
  check_space (engine, "R'G'B'A u16", romm, "ROMM RGB (gamma 1.8)");
  check_space (engine, "Y' u8", gray, "gray, gamma 1.8");
  check_space (engine, "Y'A u16", gray, "gray, gamma 1.8");
  check_tone_curve (romm, "R'G'B' u16", 3, "ROMM RGB's curve");
  check_tone_curve (gray, "Y' u16", 1, "gray 1.8's curve");
  gblur_engine_free (engine);
  g_free (romm_path);
  g_free (gray_path);
  printf ("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
