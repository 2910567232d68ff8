/* Formats and sizes: the matrix of size classes, sample types, channel
 * counts, options and sigmas, and the sizes and radii around the CUDA
 * kernels' blocks (8-bit RGBA, 8-bit gray). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gblur.h"
#include "test-engine.h"
#include "test-util.h"

#include <stdlib.h>

/* Every size class, sample type, channel count and option, with each of
 * the n sigma settings (flags are the matrix's). */
void
run_matrix (gblur_engine *engine, const gblur_params *sigmas, size_t n, const char *label)
{
  static const int sizes[][2] = { { 1, 1 }, { 1, 23 }, { 23, 1 }, { 13, 7 }, { 61, 37 }, { 127, 3 }, { 5, 131 } };
  static const gblur_sample samples[] = { GBLUR_U8, GBLUR_U16, GBLUR_F32 };
  int n_sizes = sizeof sizes / sizeof sizes[0];

  for (int si = 0; si < n_sizes; si++)
    for (size_t gi = 0; gi < n; gi++)
      for (int sa = 0; sa < 3; sa++)
        for (int c = 1; c <= 4; c++)
          for (unsigned flags = 0; flags < 4; flags++)
            {
              gblur_params params = sigmas[gi];

              if (!format_valid (samples[sa], c, flags))
                continue;
              if (quick && (rng () % 4) != 0)
                continue;
              size_t pad = (si + gi + c) % 2 ? 0 : 1 + rng () % 13;
              params.flags = flags;
              blur_case_params (engine, sizes[si][0], sizes[si][1], c, samples[sa], &params, pad,
                                (si + c) % 3 ? 0 : 7, (int) (rng () % 2), label);
            }
}

void
test_matrix (gblur_engine *engine)
{
  static const double sigmas[] = { 0.1, 0.5, 1, 2.5, 10, 50, 500, 1500 };
  gblur_params params[sizeof sigmas / sizeof sigmas[0]];

  for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++)
    params[i] = (gblur_params) { .sigma = sigmas[i] };
  run_matrix (engine, params, sizeof sigmas / sizeof sigmas[0], "matrix");
}

/* 8-bit RGBA stored as is, which CUDA blurs on the tensor cores
 * (kernels/cuda/kernels-mma.cu): sizes across its blocks' edges (128
 * columns, 8 rows), unaligned rows (padding), radii from 2 to past its
 * largest (512), and windows at odd offsets (against the reference: the CPU's
 * FFT path rounds a window's lines apart from the whole image's). */
void
test_rgba8 (gblur_engine *engine)
{
  static const int    sizes[][2] = { { 129, 9 }, { 300, 17 }, { 1, 50 }, { 50, 1 }, { 257, 33 } };
  static const double sigmas[] = { 0.5, 1, 3, 9, 60, 170, 171 };

  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (size_t gi = 0; gi < sizeof sigmas / sizeof sigmas[0]; gi++)
      {
        if (quick && (si + gi) % 3)
          continue;
        blur_case (engine, sizes[si][0], sizes[si][1], 4, GBLUR_U8, sigmas[gi], 0,
                   (si + gi) % 2 ? 3 : 0, gi % 3 ? 0 : 5, (int) (gi % 2), "rgba8");
      }
  for (int i = 0; i < (quick ? 2 : 6); i++)
    {
      const int    w = 140 + 37 * i, h = 30 + 11 * i, ww = w / 2 + i, wh = h / 2 + 1;
      const int    wx = 1 + 2 * i, wy = 3 + i;
      gblur_image  src = make_image (w, h, 4, GBLUR_U8, (size_t) i % 3, i % 2);
      gblur_image  part = make_poisoned (ww, wh, &src, (size_t) i);
      gblur_params params = { .sigma = 2.5 + 7 * i };
      gblur_status st;
      double       e = window_error (engine, &src, wx, wy, &part, &params, NULL, &st);

      check (st == GBLUR_OK && e >= 0 && e <= tolerance (GBLUR_U8),
             "rgba8 window %dx%d at (%d,%d) of %dx%d sigma %g: status %d, max error %g",
             ww, wh, wx, wy, w, h, params.sigma, st, e);
      free (src.data);
      free (part.data);
    }
}

/* 8-bit images of `channels` at each radius 1..last (sigma (r - 0.5) / 3,
 * so ceil (3 sigma) = r) on each of n sizes, some with padded rows. */
static void
radius_sweep (gblur_engine *engine, const int (*sizes)[2], size_t n, int channels, int last,
              const char *label)
{
  for (int r = 1; r <= last; r++)
    for (size_t si = 0; si < n; si++)
      {
        if (quick && (r + (int) si) % 3)
          continue;
        blur_case (engine, sizes[si][0], sizes[si][1], channels, GBLUR_U8, (r - 0.5) / 3.0, 0,
                   si % 2 ? 4 : 0, si % 3 ? 0 : 8, (int) (si + r) % 2, label);
      }
}

/* 8-bit RGBA at each radius of CUDA's small-radius kernel (1..12) and the
 * first past it: widths and heights on both sides of its tiles' (56, 112 or
 * 104 pixels by 32 rows), so every edge of a block and of the image is hit. */
void
test_rgba8_small_radii (gblur_engine *engine)
{
  static const int sizes[][2] = { { 57, 33 }, { 48, 32 }, { 105, 31 }, { 209, 65 }, { 7, 5 }, { 112, 1 } };

  radius_sweep (engine, sizes, sizeof sizes / sizeof sizes[0], 4, 13, "rgba8 small radius");
  /* windows: the region's origin and the output's inside the image */
  static const int radii[] = { 1, 12, 4, 5, 8, 9 };
  for (size_t i = 0; i < (quick ? 2 : sizeof radii / sizeof radii[0]); i++)
    {
      gblur_image  src = make_image (150 + 9 * (int) i, 70, 4, GBLUR_U8, 0, (int) i % 2);
      gblur_image  part = make_poisoned (90 + (int) i, 40, &src, i % 2 ? 4 : 0);
      gblur_params params = { .sigma = (radii[i] - 0.5) / 3.0 };
      gblur_status st;
      double       e = window_error (engine, &src, 13 + (int) i, 7, &part, &params, NULL, &st);

      check (st == GBLUR_OK && e >= 0 && e <= tolerance (GBLUR_U8),
             "rgba8 small radius %d, window %dx%d at (%d,7): status %d, max error %g",
             radii[i], part.width, part.height, 13 + (int) i, st, e);
      free (src.data);
      free (part.data);
    }
}

/* 8-bit gray at each radius of CUDA's one-pass tensor-core kernel (1..8,
 * kernels/cuda/kernels-mma-small.cu) and the first past it: widths that
 * are multiples of 16 (it needs rows 16-byte aligned) on both sides of its
 * tiles' 128 columns, heights on both sides of their 64 rows, and windows
 * at the left edge (the only ones whose region it takes) with the region
 * cut from the image on the right and above. */
void
test_gray8_small_radii (gblur_engine *engine)
{
  static const int sizes[][2] = { { 144, 65 }, { 128, 64 }, { 16, 5 }, { 400, 131 }, { 272, 1 }, { 32, 200 } };

  radius_sweep (engine, sizes, sizeof sizes / sizeof sizes[0], 1, 9, "gray8 small radius");
  static const int radii[] = { 1, 8, 3, 6 };
  for (size_t i = 0; i < (quick ? 2 : sizeof radii / sizeof radii[0]); i++)
    {
      const int    r = radii[i], ww = 160 - r;   /* the region: ww + r columns */
      gblur_image  src = make_image (ww + 37, 150, 1, GBLUR_U8, 0, (int) i % 2);
      gblur_image  part = make_poisoned (ww, 70 + (int) i, &src, i % 2 ? 16 : 0);
      gblur_params params = { .sigma = (r - 0.5) / 3.0 };
      gblur_status st;
      double       e = window_error (engine, &src, 0, 9 + (int) i, &part, &params, NULL, &st);

      check (st == GBLUR_OK && e >= 0 && e <= tolerance (GBLUR_U8),
             "gray8 small radius %d, window %dx%d at (0,%d): status %d, max error %g",
             r, part.width, part.height, 9 + (int) i, st, e);
      free (src.data);
      free (part.data);
    }
}
