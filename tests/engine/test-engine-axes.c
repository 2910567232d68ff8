/* A sigma per axis (gblur_params.sigma 0): the pairs the suite's files
 * share, the matrix with them, and the longest sums on one axis. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gblur.h"
#include "reference.h"
#include "test-engine.h"
#include "test-util.h"

#include <stdlib.h>

/* Pairs (sigma_x, sigma_y) for the per-axis cases: anisotropic, one axis 0
 * (down to tiny sigmas, and the largest radius on one axis), radii past the
 * CPU's row-by-row vertical pass (> 24) on one axis, the same radius with
 * other taps (1 and 0.9: radius 3 both), the same sigma through sigma 0. */
const double axis_pairs[][2] = {
  { 4, 1.5 }, { 0.8, 7 }, { 0, 2.5 }, { 3, 0 }, { 0.1, 0 }, { 0, 0.1 }, { 0.05, 3 },
  { 1, 0.9 }, { 2, 2 }, { 50, 0.5 }, { 0.5, 50 }, { 500, 0 }, { 0, 500 }, { 1500, 0 }, { 0, 1500 }, { 2, 30 },
  { 30, 2 }, { 1e-300, 2 }
};

/* The matrix with a sigma per axis. */
void
test_axis_matrix (gblur_engine *engine)
{
  gblur_params params[N_AXIS_PAIRS];

  for (size_t i = 0; i < N_AXIS_PAIRS; i++)
    params[i] = (gblur_params) { .sigma_x = axis_pairs[i][0], .sigma_y = axis_pairs[i][1] };
  run_matrix (engine, params, N_AXIS_PAIRS, "axis matrix");
}

/* The longest sums (radius 1500), premultiplied, on float data, where the
 * drift of a float sum is seen before rounding: it must stay under 0.1 of a
 * 16-bit level (1.5e-6), since un-premultiplying magnifies it and a 16-bit
 * result has half a level to spare.  One long float sum drifts by 2-5e-6
 * here: 16-bit results then went over 1 level about one image in 400. */
void
test_long_sums (gblur_engine *engine, const char *label)
{
  static const int    sizes[][2] = { { 13, 7 }, { 7, 13 }, { 61, 37 } };
  static const double pairs[][2] = { { 0, 500 }, { 500, 0 }, { 500, 500 } };
  const double        bound = 1.5e-6;

  for (int si = 0; si < 3; si++)
    for (int pi = 0; pi < 3; pi++)
      for (int c = 2; c <= 4; c++)
        {
          const int    w = sizes[si][0], h = sizes[si][1];
          double       worst = 0;
          double      *ref = malloc ((size_t) w * h * c * sizeof *ref);
          gblur_params params = { .flags = GBLUR_PREMULTIPLY_ALPHA,
                                  .sigma_x = pairs[pi][0], .sigma_y = pairs[pi][1] };

          for (int n = 0; n < (si < 2 ? 12 : 2) && worst >= 0; n++)
            {
              gblur_image  src = make_image (w, h, c, GBLUR_F32, 0, 0);
              gblur_image  dst = make_poisoned_like (&src, 0);
              gblur_result result;
              double       e = -1;

              reference_blur_xy (&src, params.sigma_x, params.sigma_y, params.flags, ref);
              if (gblur_engine_run (engine, &src, &dst, &params, &result) == GBLUR_OK)
                e = max_error (&dst, ref, h);
              worst = e < 0 || e > worst ? e : worst;
              free (src.data);
              free (dst.data);
            }
          check (worst >= 0 && worst <= bound,
                 "long sums%s %dx%d c%d f32 sigma_x %g sigma_y %g premultiplied: max error %g "
                 "(bound %g)", label, w, h, c, params.sigma_x, params.sigma_y, worst, bound);
          free (ref);
        }
}
