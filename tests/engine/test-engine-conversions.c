/* Conversions: premultiplied alpha on opaque images and in a window's
 * halo, and the CPU's linear light -> sRGB 8-bit encoder. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gblur.h"
#include "gblur-internal.h"   /* the sRGB encoder's tables, checked directly */
#include "test-engine.h"
#include "test-util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An opaque image (every alpha at its maximum) premultiplied is the same
 * image straight: the CPU backend then blurs it straight (backend.c), in
 * single precision on the FFT path, so the two runs agree exactly, on the
 * direct loops and on the FFT path.  One transparent pixel in a window's
 * halo (not in the window) must still count: its hidden colour may not
 * bleed in. */
void
test_opaque_alpha (void)
{
  static const char *modes[] = { "off", "always" };
  static const struct { int c; gblur_sample s; unsigned linear; } formats[] = {
    { 4, GBLUR_U8, GBLUR_LINEAR_LIGHT }, { 2, GBLUR_U16, GBLUR_LINEAR_LIGHT }, { 4, GBLUR_U16, 0 },
    { 2, GBLUR_F32, 0 }, { 3, GBLUR_U8, 0 }
  };

  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
    {
      gblur_engine *engine = new_fft_engine (modes[m], 0, 0);

      for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++)
        {
          const int    c = formats[f].c;
          gblur_image  src = make_image (311, 173, c, formats[f].s, 0, 0);
          gblur_image  pre = make_poisoned_like (&src, 0), straight = make_poisoned_like (&src, 0);
          gblur_params params = { .sigma = m ? 30 : 2.5, .flags = formats[f].linear };
          gblur_status st1, st2;

          for (int y = 0; y < src.height; y++)
            for (int x = 0; x < src.width; x++)
              set_sample (&src, x, y, c - 1, 1.0);
          st1 = gblur_engine_run (engine, &src, &straight, &params, NULL);
          params.flags |= GBLUR_PREMULTIPLY_ALPHA;
          st2 = gblur_engine_run (engine, &src, &pre, &params, NULL);
          check (st1 == GBLUR_OK && st2 == GBLUR_OK
                   && memcmp (pre.data, straight.data, src.stride * src.height) == 0,
                 "opaque c%d %s flags %u, FFT %s: premultiplied equals straight", c,
                 sample_name (formats[f].s), params.flags, modes[m]);
          free (src.data);
          free (pre.data);
          free (straight.data);
        }
      gblur_engine_free (engine);
    }
  {
    gblur_engine *engine = new_engine (0, 0);
    gblur_image   src = make_image (64, 32, 4, GBLUR_U8, 0, 0);
    gblur_image   out = make_poisoned (56, 32, &src, 0);
    gblur_params  params = { .sigma = 1, .flags = GBLUR_PREMULTIPLY_ALPHA };   /* radius 3 */
    int           bled = 0;

    for (int y = 0; y < src.height; y++)
      for (int x = 0; x < src.width; x++)
        for (int ch = 0; ch < 4; ch++)
          set_sample (&src, x, y, ch, ch == 3 ? 1.0 : 0.0);
    for (int y = 0; y < src.height; y++)  /* white, hidden: the radius's last column left of the window */
      for (int ch = 0; ch < 4; ch++)
        set_sample (&src, 5, y, ch, ch == 3 ? 0.0 : 1.0);
    check (gblur_engine_run_window (engine, &src, 8, 0, &out, &params, NULL) == GBLUR_OK,
           "opaque but for the halo: run");
    for (int y = 0; y < out.height; y++)
      for (int x = 0; x < out.width; x++)
        for (int ch = 0; ch < 3; ch++)
          bled |= ((unsigned char *) out.data)[y * out.stride + 4 * x + ch];
    check (!bled && ((unsigned char *) out.data)[16 * out.stride + 3] < 255,
           "a transparent pixel in the halo: its colour does not bleed, its alpha does");
    free (src.data);
    free (out.data);
    gblur_engine_free (engine);
  }
}

/* The CPU's linear -> sRGB u8 encoder takes one bin of 1/4096 and one step
 * up: it must give what counting the thresholds gives, and the nearest code
 * of the double-precision curve, for every value near a threshold or a bin
 * edge, out of range, NaN, and random ones.  (All floats in [0, 1] agreed
 * when it was written; this keeps the places where it could break.) */
static int
encode_by_thresholds (const gblur_srgb_tables *t, float v)
{
  int code = 0;

  v = v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f;
  while (code < 255 && t->encode_u8_threshold[code] <= v)
    code++;
  return code;
}

static int
encode_disagrees (const gblur_srgb_tables *t, float v)
{
  const int    code = gblur_encode_u8_linear (t, v);
  const double clamped = v > 0.0f ? (v < 1.0f ? v : 1.0) : 0.0;

  return code != encode_by_thresholds (t, v)
         || fabs (code - 255.0 * gblur_linear_to_srgb (clamped)) > 0.5 + 1e-4;
}

void
test_srgb_encode (void)
{
  const gblur_srgb_tables *t = gblur_srgb_tables_get ();
  const float              odd[] = { 0.0f, -0.0f, 1.0f, -1e-9f, -1.0f, 1.0000001f, 2.0f,
                                     INFINITY, -INFINITY, NAN };
  long                     tried = 0, wrong = 0;

  for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++, tried++)
    wrong += encode_disagrees (t, odd[i]);
  /* 8 floats each side of every threshold, 4 of every bin edge */
  for (int k = 0; k < 255 + 4097; k++)
    {
      const int ulps = k < 255 ? 8 : 4;
      float     up = k < 255 ? t->encode_u8_threshold[k] : (k - 255) / 4096.0f, down = up;
      for (int d = 0; d < ulps; d++, tried += 2)
        {
          wrong += encode_disagrees (t, up) + encode_disagrees (t, down);
          up = nextafterf (up, 2.0f);
          down = nextafterf (down, -1.0f);
        }
    }
  for (int i = 0; i < 100000; i++, tried++)
    wrong += encode_disagrees (t, (float) (rng () >> 40) / 16777216.0f);
  check (wrong == 0, "sRGB encoder: %ld of %ld values near thresholds, bin edges, out of range "
         "and random get another code than the thresholds or the curve", wrong, tried);
}
