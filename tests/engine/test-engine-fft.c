/* The CPU backend's FFT path for large radii (kernels/cpu/fft-*.c, in a
 * build with FFTW; gblur_config.cpu_fft forces it on or off), against the
 * reference and the direct loops; the large buffers kept between runs.  A
 * build without FFTW runs these cases on the direct loops: they pass there
 * too. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gblur.h"
#include "gblur-internal.h"   /* gblur_kept, checked directly */
#include "reference.h"
#include "test-engine.h"
#include "test-util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* mode: "off" or "always". */
gblur_engine *
new_fft_engine (const char *mode, size_t memory_limit, int threads)
{
  return new_engine_forced (memory_limit, threads,
                            strcmp (mode, "off") == 0 ? GBLUR_FFT_OFF : GBLUR_FFT_ALWAYS, 0);
}

/* A w x h image, every sample 0 but one pixel in `sparse` (and the first
 * and last rows' first pixels): random values, colours and alpha alike
 * (alpha often tiny); mostly transparent when the last channel is alpha. */
static gblur_image
make_sparse_image (int w, int h, int c, gblur_sample s, int sparse)
{
  gblur_image img = make_image (w, h, c, s, 0, 0);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        int keep = (x == 0 && (y == 0 || y == h - 1)) || rng () % (unsigned) sparse == 0;
        for (int ch = 0; ch < c; ch++)
          {
            double u = !keep ? 0.0 : rng () % 4 == 0 ? (double) (1 + rng () % 50) / 65535.0
                                                     : (double) (rng () % 65536) / 65535.0;
            set_sample (&img, x, y, ch, u);
          }
      }
  return img;
}

/* A w x h image all 0 but for its first column, at full value (opaque),
 * and column far, tiny (alpha and colours 1..20 / 65535): the outputs
 * near far are small, the largest value of their lines 65535 times
 * larger. */
static gblur_image
make_far_image (int w, int h, int c, gblur_sample s, int far)
{
  gblur_image img = make_image (w, h, c, s, 0, 0);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int ch = 0; ch < c; ch++)
        {
          double u = x == 0 ? 1.0 : x == far ? (double) (1 + rng () % 20) / 65535.0 : 0.0;
          set_sample (&img, x, y, ch, s == GBLUR_U8 && x == far ? 1.0 / 255.0 : u);
        }
  return img;
}

/* The matrix (every size class from 1x1, sample type, channel count and
 * option), windows and tilings with the FFT path taken whenever the format
 * allows it: everything but premultiplied alpha on 3 channels; in double
 * precision, with outputs of tiny alpha summed again directly, for
 * premultiplied alpha and 16-bit linear light (kernels/cpu/backend.h). */
void
test_fft_forced (void)
{
  static const double sigmas[] = { 0.5, 3, 10, 40 };
  static const int    threads[] = { 1, 3 };
  gblur_params        params[sizeof sigmas / sizeof sigmas[0] + N_AXIS_PAIRS];
  size_t              n = 0;
  gblur_engine       *engine = new_fft_engine ("always", 0, 0);

  for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++)
    params[n++] = (gblur_params) { .sigma = sigmas[i] };
  for (size_t i = 0; i < N_AXIS_PAIRS; i++)
    params[n++] = (gblur_params) { .sigma_x = axis_pairs[i][0], .sigma_y = axis_pairs[i][1] };
  run_matrix (engine, params, n, "fft matrix");
  test_windows (engine, 0);
  test_windows (engine, 1);
  gblur_engine_free (engine);
  for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++)
    {
      engine = new_fft_engine ("always", 0, threads[ti]);
      blur_case (engine, 301, 203, 4, GBLUR_U8, 25, GBLUR_LINEAR_LIGHT, 3, 5, 0, "fft threads");
      blur_case_xy (engine, 257, 149, 1, GBLUR_U8, 60, 0, 0, 0, 0, 1, "fft threads");
      blur_case_xy (engine, 97, 211, 3, GBLUR_U16, 0, 45, 0, 2, 0, 0, "fft threads");
      blur_case_xy (engine, 150, 90, 2, GBLUR_F32, 33, 7, 0, 0, 4, 0, "fft threads");
      gblur_engine_free (engine);
    }
}

/* Float rows of very different magnitudes side by side (an HDR image's
 * bright and dark rows): on the FFT path each row's error stays relative
 * to its own largest value, not its neighbour's (fft-line.c pairs lines only
 * of like magnitude).  Rows alternate between 1e4 and 1e-3 times [0, 1]. */
void
test_fft_hdr_rows (void)
{
  gblur_engine *engine = new_fft_engine ("always", 0, 1);
  gblur_image   src = make_image (301, 12, 1, GBLUR_F32, 0, 0);
  gblur_image   dst = make_poisoned_like (&src, 0);
  gblur_params  params = { .sigma_x = 60, .sigma_y = 0 };
  double       *ref = malloc ((size_t) src.width * src.height * sizeof *ref);
  double        worst = -1;

  for (int y = 0; y < src.height; y++)
    for (int x = 0; x < src.width; x++)
      set_sample (&src, x, y, 0, reference_sample (&src, x, y, 0) * (y % 2 ? 1e4 : 1e-3));
  reference_blur_xy (&src, params.sigma_x, params.sigma_y, 0, ref);
  if (gblur_engine_run (engine, &src, &dst, &params, NULL) == GBLUR_OK)
    {
      worst = 0;
      for (int y = 0; y < src.height; y++)
        for (int x = 0; x < src.width; x++)
          {
            double e = fabs (reference_sample (&dst, x, y, 0) - ref[(size_t) y * src.width + x])
                       / (y % 2 ? 1e4 : 1e-3);
            worst = e > worst || isnan (e) ? e : worst;
          }
    }
  check (worst >= 0 && worst <= 1e-5, "fft hdr rows: largest error %g of a row's scale", worst);
  free (ref);
  free (src.data);
  free (dst.data);
  gblur_engine_free (engine);
}

/* The FFT and direct paths agree (to a level, 1e-5 on float data), and
 * the default choice (the cost model) meets the reference at large radii.
 * --quick: the first three radius pairs, and the reference (the slow part)
 * for every other case. */
void
test_fft_vs_direct (void)
{
  static const double pairs[][2] = { { 40, 40 }, { 60, 0 }, { 0, 60 }, { 25, 90 }, { 150, 150 } };
  gblur_engine *fft = new_fft_engine ("always", 0, 0);
  gblur_engine *direct = new_fft_engine ("off", 0, 0);
  gblur_engine *chosen = new_engine (0, 0);

  const size_t  npairs = quick ? 3 : sizeof pairs / sizeof pairs[0];

  for (size_t pi = 0; pi < npairs; pi++)
    for (int sa = 0; sa < 3; sa++)
      for (int c = 1; c <= 4; c++)
        {
          const gblur_sample s = (gblur_sample) sa;
          const unsigned     flags = s != GBLUR_F32 && c == 3 ? GBLUR_LINEAR_LIGHT : 0;
          gblur_image        src = make_image (257, 181, c, s, 3, (int) (rng () % 2));
          gblur_image        a = make_poisoned_like (&src, 0), b = make_poisoned_like (&src, 0);
          gblur_params       params = { .sigma_x = pairs[pi][0], .sigma_y = pairs[pi][1], .flags = flags };
          double             worst = -1;

          if (gblur_engine_run (fft, &src, &a, &params, NULL) == GBLUR_OK
              && gblur_engine_run (direct, &src, &b, &params, NULL) == GBLUR_OK)
            {
              worst = 0;
              for (int y = 0; y < src.height; y++)
                for (int x = 0; x < src.width; x++)
                  for (int ch = 0; ch < c; ch++)
                    {
                      double d = fabs (reference_sample (&a, x, y, ch) - reference_sample (&b, x, y, ch));
                      worst = d > worst || isnan (d) ? d : worst;
                    }
            }
          check (worst >= 0 && worst <= (s == GBLUR_F32 ? 1e-5 : 1.0),
                 "fft vs direct 257x181 c%d %s sigma_x %g sigma_y %g flags %u: largest difference %g",
                 c, sample_name (s), params.sigma_x, params.sigma_y, flags, worst);
          if (!quick || (sa + c) % 2 == 0)
            check_against_reference (chosen, &src, &params, "default path");
          free (src.data);
          free (a.data);
          free (b.data);
        }
  gblur_engine_free (fft);
  gblur_engine_free (direct);
  gblur_engine_free (chosen);
}

/* Large buffers kept between runs (gblur_kept): the slot gives its buffer
 * back for a request it holds at most twice over, keeps only large ones,
 * and the engine's host buffers go through it; a run on the FFT path's
 * kept region (over 8 MiB here) gives byte for byte what a fresh engine
 * gives, whatever ran before it. */
void
test_kept_buffers (void)
{
  const size_t   mib = (size_t) 1 << 20;
  gblur_kept     slot;
  size_t         capacity = 0, got = 0;
  void          *p, *small;
  gblur_engine  *engine = new_fft_engine ("always", 0, 0);
  gblur_engine  *fresh = new_fft_engine ("always", 0, 0);
  unsigned char *a, *b;
  gblur_params   params = { .sigma = 12, .flags = GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA };
  gblur_image    first = make_image (1100, 700, 4, GBLUR_U8, 0, 1);
  gblur_image    second = make_image (1100, 700, 4, GBLUR_U8, 0, 0);
  gblur_image    out = make_poisoned_like (&second, 0), expected = make_poisoned_like (&second, 0);

  gblur_kept_init (&slot);
  p = gblur_kept_alloc (&slot, 9 * mib, &capacity);
  check (p && capacity == 10 * mib, "a 9 MiB kept buffer: %zu bytes, whole huge pages", capacity);
  gblur_kept_give (&slot, p, capacity);
  check (!gblur_kept_take (&slot, 11 * mib, &got), "the kept 10 MiB do not serve 11 MiB");
  check (!gblur_kept_take (&slot, 4 * mib, &got), "nor 4 MiB (more than twice over)");
  check (gblur_kept_take (&slot, 5 * mib, &got) == p && got == capacity, "but serve 5 MiB");
  check (gblur_kept_empty (&slot), "the slot is empty after take");
  small = gblur_kept_alloc (&slot, mib, &got);
  gblur_kept_give (&slot, small, got);
  check (gblur_kept_empty (&slot), "a 1 MiB buffer is freed, not kept");
  gblur_kept_give (&slot, p, capacity);
  gblur_kept_clear (&slot);
  check (gblur_kept_empty (&slot), "clear empties the slot");

  a = gblur_engine_alloc_host (engine, 16 * mib);
  gblur_engine_free_host (engine, a);
  b = gblur_engine_alloc_host (engine, 16 * mib - 4096);
  check (b == a, "a freed 16 MiB host buffer is the next of about its size");
  gblur_engine_free_host (engine, b);

  check (gblur_engine_run (engine, &first, &out, &params, NULL) == GBLUR_OK
         && gblur_engine_run (engine, &second, &out, &params, NULL) == GBLUR_OK
         && gblur_engine_run (fresh, &second, &expected, &params, NULL) == GBLUR_OK
         && memcmp (out.data, expected.data, expected.stride * expected.height) == 0,
         "FFT path, a run after another on the kept region equals a fresh engine's");
  check_against_reference (engine, &second, &params, "FFT path, kept region");
  free (first.data);
  free (second.data);
  free (out.data);
  free (expected.data);
  gblur_engine_free (engine);
  gblur_engine_free (fresh);
}

/* An 8-bit RGBA image whose alphas are all at least 13 (above the FFT
 * path's single-precision floor, 5% of the largest), most colours near
 * black (where the sRGB curve magnifies errors most), and, left of column
 * `clear`, transparent pixels (whose rows then take double precision). */
static gblur_image
make_floor_alpha_image (int w, int h, int clear)
{
  gblur_image img = make_image (w, h, 4, GBLUR_U8, 0, 0);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        unsigned char *px = (unsigned char *) img.data + (size_t) y * img.stride + (size_t) x * 4;
        for (int ch = 0; ch < 3; ch++)
          px[ch] = (unsigned char) (rng () % 4 == 0 ? rng () % 256 : rng () % 6);
        px[3] = (unsigned char) (x < clear ? 0 : 13 + rng () % 243);
      }
  return img;
}

/* Where FFT error shows: sparse images (a line's largest value far above
 * most outputs), 16-bit data, near black in linear light, and mostly
 * transparent premultiplied images with tiny alphas (which fail by up to
 * 65535 levels in single precision, or without the outputs of tiny alpha
 * summed again). */
void
test_fft_hard (void)
{
  static const double pairs[][2] = { { 100, 100 }, { 500, 0 }, { 0, 500 }, { 300, 40 } };
  gblur_engine *engine = new_fft_engine ("always", 0, 0);

  for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++)
    for (int k = quick; k < 6; k += 1 + quick)  /* --quick: 8-bit, premultiplied, 16-bit linear */
      {
        static const struct { int c; gblur_sample s; unsigned flags; } f[] = {
          { 1, GBLUR_U16, 0 }, { 3, GBLUR_U8, GBLUR_LINEAR_LIGHT }, { 1, GBLUR_F32, 0 },
          { 2, GBLUR_U16, GBLUR_PREMULTIPLY_ALPHA }, { 4, GBLUR_U16, GBLUR_PREMULTIPLY_ALPHA | GBLUR_LINEAR_LIGHT },
          { 3, GBLUR_U16, GBLUR_LINEAR_LIGHT },
        };
        gblur_image  src = make_sparse_image (211, 97, f[k].c, f[k].s, 40);
        gblur_params params = { .sigma_x = pairs[pi][0], .sigma_y = pairs[pi][1], .flags = f[k].flags };

        check_against_reference (engine, &src, &params, "fft sparse");
        free (src.data);
        if (pairs[pi][1] == 0)  /* along rows: a pixel 3 radii from the bright edge */
          {
            src = make_far_image (4 * gblur_radius (pairs[pi][0]), 5, f[k].c, f[k].s,
                                  3 * gblur_radius (pairs[pi][0]));
            check_against_reference (engine, &src, &params, "fft far");
            free (src.data);
          }
      }
  /* 8-bit RGBA with premultiplied alpha (a layer's format): mostly
   * transparent (double precision, and repairs), and with every alpha over
   * the single-precision floor, alone or beside transparent columns. */
  for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++)
    {
      const unsigned flags = GBLUR_PREMULTIPLY_ALPHA | GBLUR_LINEAR_LIGHT;
      gblur_params   params = { .sigma_x = pairs[pi][0], .sigma_y = pairs[pi][1], .flags = flags };
      gblur_image    src = make_sparse_image (211, 97, 4, GBLUR_U8, 40);

      check_against_reference (engine, &src, &params, "fft sparse RGBA8 layer");
      free (src.data);
      if (pairs[pi][1] == 0)  /* a faint pixel 3 radii from an opaque edge */
        {
          src = make_far_image (4 * gblur_radius (pairs[pi][0]), 5, 4, GBLUR_U8,
                                3 * gblur_radius (pairs[pi][0]));
          check_against_reference (engine, &src, &params, "fft far RGBA8 layer");
          free (src.data);
        }
      for (int clear = 0; clear <= 60; clear += 60)
        {
          src = make_floor_alpha_image (233, 151, clear);
          check_against_reference (engine, &src, &params, "fft alpha over the floor");
          free (src.data);
        }
    }
  gblur_engine_free (engine);
}

/* ---- 16-bit data in single precision with the error bound (fft-bounds.c) ---- */

/* A w x h 16-bit image for the bound, in 3 x 3 blocks of three kinds, so
 * that rows and columns cross them all: bright (any code, opaque), a step
 * from dark code k to k + 1 (outputs cross a rounding threshold near
 * black), and, with alpha, nearly transparent (alpha 1 to 3, any colour;
 * without, codes 0 to `dark`).  Opaque alphas are 65532 to 65535. */
static gblur_image
make_bound_image (int w, int h, int c, int alpha, int dark)
{
  gblur_image img = make_image (w, h, c, GBLUR_U16, 0, 0);
  const int   k = 1 + (int) (rng () % (unsigned) dark);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        const int kind = (3 * x / w + 3 * y / h) % 3, step = (3 * x) % w >= w / 2;
        for (int ch = 0; ch < c; ch++)
          {
            int code = kind == 0 ? (int) (rng () % 65536)
                       : kind == 1 ? k + step
                       : alpha ? (int) (rng () % 65536) : (int) (rng () % (unsigned) (dark + 1));
            if (alpha && ch == c - 1)
              code = kind == 2 ? 1 + (int) (rng () % 3) : 65532 + (int) (rng () % 4);
            set_sample (&img, x, y, ch, code / 65535.0);
          }
      }
  return img;
}

/* A w x h 16-bit image of bright (65535) and near-black (0 to 3) blocks,
 * `block` pixels a side, alpha (when c is 2 or 4) half of full scale: the
 * largest alpha-divided error single precision allows, near black. */
static gblur_image
make_margin_image (int w, int h, int c, int block)
{
  gblur_image img = make_image (w, h, c, GBLUR_U16, 0, 0);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int ch = 0; ch < c; ch++)
        {
          const int bright = (x / block + y / block) % 2 == 0;
          int       code = bright ? 65535 : (int) (rng () % 4);
          if (c % 2 == 0 && ch == c - 1)
            code = 32768 + (int) (rng () % 8);
          set_sample (&img, x, y, ch, code / 65535.0);
        }
  return img;
}

/* The bound's own promise, tighter than the contract's level: within the
 * rounding, the budget (fft-bounds.c, 0.3) and the float arithmetic. */
static void
check_bound_margin (gblur_engine *engine, gblur_image *src, const gblur_params *params)
{
  gblur_image dst = make_poisoned_like (src, 0);
  double     *ref = malloc ((size_t) src->width * src->height * src->channels * sizeof *ref);
  double      e = -1;

  reference_blur_xy (src, params->sigma_x, params->sigma_y, params->flags, ref);
  if (gblur_engine_run (engine, src, &dst, params, NULL) == GBLUR_OK)
    e = max_error (&dst, ref, src->height);
  check (e >= 0 && e <= 0.82, "fft bound margin %dx%d c%d sigma_x %g sigma_y %g flags %u: max error %g (0.82)",
         src->width, src->height, src->channels, params->sigma_x, params->sigma_y, params->flags, e);
  free (ref);
  free (dst.data);
}

/* 16-bit runs that need more than single precision at once (linear light,
 * alpha divided) against the reference: near black with bright pixels,
 * across rounding thresholds, alpha near 0 and 1, per-axis sigmas, and
 * the longest lines that stay in single precision (65536-sample
 * transforms) beside longer ones (double precision). */
void
test_fft_bounded (void)
{
  static const double pairs[][2] = { { 12, 12 }, { 40, 4 }, { 5, 25 }, { 0, 20 }, { 35, 0 } };
  static const struct { int c, alpha; unsigned flags; } f[] = {
    { 3, 0, GBLUR_LINEAR_LIGHT }, { 1, 0, GBLUR_LINEAR_LIGHT },
    { 4, 1, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA }, { 2, 1, GBLUR_PREMULTIPLY_ALPHA },
  };
  gblur_engine *engine = new_fft_engine ("always", 0, 0);

  for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++)
    for (size_t fi = 0; fi < sizeof f / sizeof f[0]; fi++)
      {
        gblur_params params = { .sigma_x = pairs[pi][0], .sigma_y = pairs[pi][1], .flags = f[fi].flags };
        gblur_image  src = make_bound_image (quick ? 420 : 600, quick ? 300 : 450, f[fi].c, f[fi].alpha,
                                             pi % 2 ? 4 : 60);

        check_against_reference (engine, &src, &params, "fft bound");
        free (src.data);
      }
  for (int c = 1; c <= 4; c += 3)
    for (int k = 0; k < (quick ? 1 : 3); k++)
      {
        const unsigned flags = GBLUR_LINEAR_LIGHT | (c == 4 ? GBLUR_PREMULTIPLY_ALPHA : 0);
        gblur_params   params = { .sigma_x = 40, .sigma_y = 12, .flags = flags };
        gblur_image    src = make_margin_image (3000, 240, c, 160);

        check_bound_margin (engine, &src, &params);
        free (src.data);
      }
  /* lines whose transforms are 65536 long (single precision), and one
   * sample longer (73728: double) */
  for (int w = 65536 - gblur_radius (200); w <= 65537 - gblur_radius (200); w++)
    {
      gblur_params params = { .sigma_x = 200, .sigma_y = 1, .flags = GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA };
      gblur_image  src = make_bound_image (w, 2, 4, 1, 30);

      check_against_reference (engine, &src, &params, "fft bound, long lines");
      free (src.data);
    }
  gblur_engine_free (engine);
}

/* The bound's thinnest places, in single precision: a small radius on one
 * axis (radii under BOUNDED_MIN_RADIUS are summed directly: their
 * transforms broke the bound's constant, sigma <= 1 most) beside a large
 * one, and rows whose transforms are 65536 long (the longest bounded), all
 * without alpha divided, so that the bound applies (fft-cost.c). */
void
test_fft_bounded_small (void)
{
  static const double pairs[][2] = { { 40, 0.3 }, { 0.5, 40 }, { 60, 1 }, { 1, 0.7 }, { 3.6, 30 }, { 30, 4 } };
  static const struct { int c; unsigned flags; } f[] = {
    { 3, GBLUR_LINEAR_LIGHT }, { 1, GBLUR_LINEAR_LIGHT }, { 4, GBLUR_LINEAR_LIGHT },
  };
  gblur_engine *engine = new_fft_engine ("always", 0, 0);

  for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++)
    for (size_t fi = 0; fi < sizeof f / sizeof f[0]; fi++)
      {
        gblur_params params = { .sigma_x = pairs[pi][0], .sigma_y = pairs[pi][1], .flags = f[fi].flags };
        gblur_image  src = make_bound_image (quick ? 300 : 500, quick ? 200 : 300, f[fi].c, 0, pi % 2 ? 4 : 60);

        check_bound_margin (engine, &src, &params);
        free (src.data);
        src = make_margin_image (quick ? 900 : 1800, 160, f[fi].c, 40);
        check_bound_margin (engine, &src, &params);
        free (src.data);
      }
  /* rows transformed 65536 long in single precision (sigma_y <= 1: summed
   * directly), and one sample longer (double precision) */
  for (int w = 65536 - gblur_radius (200); w <= 65537 - gblur_radius (200); w++)
    for (int c = 1; c <= 3; c += 2)
      {
        gblur_params params = { .sigma_x = 200, .sigma_y = c == 1 ? 0.4 : 1, .flags = GBLUR_LINEAR_LIGHT };
        gblur_image  src = make_margin_image (w, 3, c, 700);

        check_bound_margin (engine, &src, &params);
        free (src.data);
        src = make_bound_image (w, 3, c, 0, 30);
        check_bound_margin (engine, &src, &params);
        free (src.data);
      }
  gblur_engine_free (engine);
}
