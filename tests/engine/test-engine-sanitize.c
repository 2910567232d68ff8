/* test-engine --sanitize: the subset tests/gpu/gpu-check.sh runs under
 * each of compute-sanitizer's tools (memcheck, racecheck, initcheck,
 * synccheck), which slow every kernel down.  Every kernel family of
 * kernels/cuda/backend.cu's list (the forcing variables for those a default
 * engine does not reach), every format, per-axis sigmas (one axis 0),
 * windows, tiles under a small memory limit and device-resident images,
 * each once or twice, on images of at most a few hundred pixels a side
 * that still span several blocks (and, in the tiled runs, tiles), each
 * against the reference (on the H200: 155 checks, 94 kernel instances,
 * about a minute for the four tools with test-faults --sanitize, which
 * has the CUDA faults and their CPU fallback).  On the CPU backend the
 * same cases run on the CPU (no device-resident runs), with the FFT path's
 * and the conversions' tests: tests/engine/valgrind-check.sh runs that. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gblur.h"
#include "test-engine.h"
#include "test-util.h"

#include <stdio.h>
#include <stdlib.h>

#define SIGMA_FOR_RADIUS(r) (((r) - 0.5) / 3.0)   /* ceil (3 sigma) = r */

typedef struct {
  int          w, h, c;
  gblur_sample s;
  unsigned     flags;
  double       sigma, sigma_x, sigma_y;   /* sigma 0: per axis */
  const char  *what;                      /* the kernels it reaches on CUDA */
} sanitize_case;

static void
run_cases (gblur_engine *engine, const sanitize_case *cases, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      const sanitize_case *k = &cases[i];
      gblur_params         params = { .sigma = k->sigma, .flags = k->flags,
                                      .sigma_x = k->sigma_x, .sigma_y = k->sigma_y };
      blur_case_params (engine, k->w, k->h, k->c, k->s, &params, (size_t) (i % 3) * 3, i % 2 ? 5 : 0,
                        (int) (i % 2), k->what);
    }
}

/* Every sample type and channel count, w x h, with params' sigmas: with
 * every option the format takes (all_options), or only with the most. */
static void
format_sweep (gblur_engine *engine, int w, int h, gblur_params params, int all_options,
              const char *label)
{
  for (int s = 0; s < 3; s++)
    for (int c = 1; c <= 4; c++)
      for (int flags = 3; flags >= 0; flags--)
        if (format_valid ((gblur_sample) s, c, (unsigned) flags))
          {
            params.flags = (unsigned) flags;
            blur_case_params (engine, w, h, c, (gblur_sample) s, &params, (size_t) (s + c + flags) % 4,
                              (size_t) flags, (c + flags) % 2, label);
            if (!all_options)
              break;
          }
}

/* The default engine: each family it picks by itself. */
static const sanitize_case default_cases[] = {
  { 121, 67, 4, GBLUR_U8, 0, SIGMA_FOR_RADIUS (1), 0, 0, "fused RGBA8 kernel, radius 1" },
  { 128, 65, 4, GBLUR_U8, 0, SIGMA_FOR_RADIUS (5), 0, 0, "fused RGBA8 kernel, radius 5" },
  { 209, 65, 4, GBLUR_U8, 0, SIGMA_FOR_RADIUS (12), 0, 0, "fused RGBA8 kernel, radius 12" },
  { 257, 33, 4, GBLUR_U8, 0, SIGMA_FOR_RADIUS (13), 0, 0, "tensor-core RGBA8, radius 13" },
  { 200, 40, 4, GBLUR_U8, 0, 20, 0, 0, "tensor-core RGBA8, radius 60" },
  { 129, 9, 4, GBLUR_U8, 0, 171, 0, 0, "RGBA8 past the tensor cores, radius 513: two-pass general" },
  { 144, 65, 1, GBLUR_U8, 0, SIGMA_FOR_RADIUS (1), 0, 0, "one-pass tensor-core gray8, radius 1" },
  { 272, 131, 1, GBLUR_U8, 0, SIGMA_FOR_RADIUS (8), 0, 0, "one-pass tensor-core gray8, radius 8" },
  { 145, 65, 1, GBLUR_U8, 0, SIGMA_FOR_RADIUS (3), 0, 0, "gray8 rows unaligned: one-channel kernel, radius 3" },
  { 257, 70, 1, GBLUR_U8, 0, 10, 0, 0, "two-pass tensor-core gray8, radius 30" },
  { 250, 70, 1, GBLUR_U8, GBLUR_LINEAR_LIGHT, SIGMA_FOR_RADIUS (4), 0, 0, "one-channel u8 linear, radius 4" },
  { 250, 70, 1, GBLUR_U8, GBLUR_LINEAR_LIGHT, 10, 0, 0, "one-channel u8 linear, radius 30" },
  { 250, 70, 1, GBLUR_F32, 0, SIGMA_FOR_RADIUS (3), 0, 0, "one-channel f32, radius 3" },
  { 250, 70, 1, GBLUR_F32, 0, 10, 0, 0, "one-channel f32, radius 30" },
  { 250, 70, 1, GBLUR_F32, 0, 30, 0, 0, "f32 gray past the one-channel kernels, radius 90: fused general" },
  { 150, 40, 4, GBLUR_U16, 0, 40, 0, 0, "fused general, wide tiles, radius 120" },
  { 150, 40, 4, GBLUR_F32, GBLUR_PREMULTIPLY_ALPHA, 0, 90, 0, "fused general, long sums, per axis" },
  { 150, 40, 3, GBLUR_U16, GBLUR_LINEAR_LIGHT, 0, 0, 90, "u16 decoded first, long sums down, radius 0 across" },
  { 150, 40, 4, GBLUR_U16, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, 0, 3, 20, "u16 decoded first, direct vertical pass" },
  { 150, 40, 2, GBLUR_U16, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, 2, 0, 0, "u16 decoded first, tiled vertical pass" },
  { 400, 300, 4, GBLUR_U16, GBLUR_PREMULTIPLY_ALPHA, 2, 0, 0, "u16 larger, not decoded, after decoded ones" },
  { 60, 20, 4, GBLUR_F32, 0, 0, 500, 0, "two-pass general, direct horizontal pass" },
  { 97, 61, 2, GBLUR_U8, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, 0, 2, 30, "general per axis" },
};

/* Engines with a family switched off (kernels/cuda/backend.cu). */
static const sanitize_case no_fused_cases[] = {
  { 61, 37, 2, GBLUR_F32, GBLUR_PREMULTIPLY_ALPHA, 0, 300, 300, "two-pass general, direct vertical pass, long sums" },
  { 61, 37, 2, GBLUR_F32, GBLUR_PREMULTIPLY_ALPHA, 0, 300, 200, "two-pass general, direct vertical pass, per axis" },
};
static const sanitize_case no_gray_cases[] = {
  { 144, 65, 1, GBLUR_U8, 0, SIGMA_FOR_RADIUS (3), 0, 0, "gray8 on the general kernels" },
  { 250, 70, 1, GBLUR_F32, 0, SIGMA_FOR_RADIUS (3), 0, 0, "f32 gray on the general kernels" },
  { 121, 67, 4, GBLUR_U8, 0, SIGMA_FOR_RADIUS (3), 0, 0, "tensor-core RGBA8 at radius 3" },
};
static const sanitize_case no_mma_cases[] = {
  { 144, 65, 1, GBLUR_U8, 0, SIGMA_FOR_RADIUS (3), 0, 0, "gray8 on the one-channel kernel, radius 3" },
  { 257, 70, 1, GBLUR_U8, 0, 10, 0, 0, "gray8 on the one-channel kernel, radius 30" },
  { 257, 33, 4, GBLUR_U8, 0, SIGMA_FOR_RADIUS (13), 0, 0, "RGBA8 radius 13 on the fused general kernel" },
};
/* A 96 KiB memory limit: stripes and column blocks over both streams. */
static const sanitize_case tiled_cases[] = {
  { 301, 203, 4, GBLUR_U8, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, 2.5, 0, 0, "tiled general" },
  { 263, 141, 4, GBLUR_U8, 0, 1, 0, 0, "tiled fused RGBA8" },
  { 257, 149, 1, GBLUR_U8, 0, 10, 0, 0, "tiled tensor-core gray8" },
  { 203, 180, 1, GBLUR_F32, 0, 0, 2, 30, "tiled general per axis" },
  { 301, 203, 4, GBLUR_U16, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, 2.5, 0, 0, "tiled u16 decoded first" },
};

/* The cases with the CUDA paths `skip` left out (var: the variable that
 * does it, for the messages). */
static void
sanitize_forced (unsigned skip, const char *var, const sanitize_case *cases, size_t n)
{
  gblur_engine *engine = new_engine_forced (0, 0, GBLUR_FFT_AUTO, skip);

  run_cases (engine, cases, n);
  if (skip == GBLUR_CUDA_SKIP_FUSED)   /* the two-pass kernels of every format */
    {
      format_sweep (engine, 150, 70, (gblur_params) { .sigma = 2 }, 0, var);
      format_sweep (engine, 150, 70, (gblur_params) { .sigma_x = 3, .sigma_y = 0.8 }, 0, var);
    }
  gblur_engine_free (engine);
}

/* The window (wx, wy) ww x wh of a w x h image, by gblur_engine_run_window,
 * against the reference. */
static void
window_case (gblur_engine *engine, int w, int h, int c, gblur_sample s, const gblur_params *params,
             int wx, int wy, int ww, int wh, const char *label)
{
  gblur_image  src = make_image (w, h, c, s, (size_t) c, (wx + wy) % 2);
  gblur_image  part = make_poisoned (ww, wh, &src, (size_t) (ww % 5));
  gblur_result result = { 0 };
  gblur_status st;
  double       e = window_error (engine, &src, wx, wy, &part, params, &result, &st);

  check (st == GBLUR_OK && e >= 0 && e <= tolerance (s) && result.rows_valid == wh,
         "%s: window %dx%d at (%d,%d) of %dx%d c%d %s flags %u: status %s (%s), max error %g", label,
         ww, wh, wx, wy, w, h, c, sample_name (s), params->flags, gblur_status_name (st),
         gblur_engine_last_error (engine), e);
  free (src.data);
  free (part.data);
}

static void
sanitize_windows (gblur_engine *engine)
{
  gblur_params p = { .sigma = SIGMA_FOR_RADIUS (4) };

  window_case (engine, 150, 70, 4, GBLUR_U8, &p, 13, 7, 90, 40, "fused RGBA8");
  p.sigma = SIGMA_FOR_RADIUS (8);   /* full rows: the one-pass tensor cores take 16-byte rows only */
  window_case (engine, 160, 150, 1, GBLUR_U8, &p, 0, 9, 160, 70, "one-pass tensor-core gray8");
  p.sigma = 9;
  window_case (engine, 160, 50, 4, GBLUR_U8, &p, 3, 5, 100, 30, "tensor-core RGBA8");
  p = (gblur_params) { .sigma_x = 5, .flags = GBLUR_LINEAR_LIGHT };
  window_case (engine, 120, 90, 3, GBLUR_U16, &p, 17, 9, 80, 60, "general, sigma_y 0");
  p = (gblur_params) { .sigma_y = 4, .flags = GBLUR_PREMULTIPLY_ALPHA };
  window_case (engine, 120, 90, 2, GBLUR_F32, &p, 31, 0, 89, 90, "general, sigma_x 0");
  test_windows (engine, 0);   /* random formats, --quick's 8 each */
  test_windows (engine, 1);
}

#ifdef HAVE_CUDA
/* Device-resident images: aligned (the one-pass kernels) and at odd
 * addresses and pitches (where they decline). */
static void
sanitize_device (gblur_engine *engine)
{
  gblur_params p = { .sigma = SIGMA_FOR_RADIUS (3) };

  device_case (engine, 160, 70, 1, GBLUR_U8, 0, 0, 0, &p, "one-pass tensor-core gray8");
  device_case (engine, 157, 70, 1, GBLUR_U8, 3, 1, 1, &p, "gray8 at an odd address: one-channel kernel");
  p.sigma = SIGMA_FOR_RADIUS (5);
  device_case (engine, 128, 65, 4, GBLUR_U8, 0, 0, 0, &p, "fused RGBA8");
  device_case (engine, 121, 67, 4, GBLUR_U8, 1, 1, 1, &p, "RGBA8 at an odd address: tensor cores");
  p = (gblur_params) { .sigma_x = 4 };
  device_case (engine, 150, 70, 3, GBLUR_F32, 0, 0, 0, &p, "general per axis");
  p = (gblur_params) { .sigma = 2, .flags = GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA };
  device_case (engine, 150, 70, 2, GBLUR_U16, 2, 2, 1, &p, "general");
}
#endif

void
run_sanitize (void)
{
  gblur_engine *engine = new_engine (0, 0);

  printf ("backend in use: %s\n", gblur_engine_describe (engine));
  run_cases (engine, default_cases, sizeof default_cases / sizeof default_cases[0]);
  format_sweep (engine, 150, 70, (gblur_params) { .sigma = 2 }, 1, "every format");
  format_sweep (engine, 133, 41, (gblur_params) { .sigma_x = 7, .sigma_y = 1.5 }, 1, "every format per axis");
  sanitize_windows (engine);
#ifdef HAVE_CUDA
  if (backend == GBLUR_BACKEND_CUDA)
    sanitize_device (engine);
#endif
  gblur_engine_free (engine);
  sanitize_forced (GBLUR_CUDA_SKIP_FUSED, "GBLUR_CUDA_NO_FUSED", no_fused_cases,
                   sizeof no_fused_cases / sizeof no_fused_cases[0]);
  sanitize_forced (GBLUR_CUDA_SKIP_GRAY, "GBLUR_CUDA_NO_GRAY", no_gray_cases,
                   sizeof no_gray_cases / sizeof no_gray_cases[0]);
  sanitize_forced (GBLUR_CUDA_SKIP_MMA, "GBLUR_CUDA_NO_MMA", no_mma_cases,
                   sizeof no_mma_cases / sizeof no_mma_cases[0]);
  engine = new_engine (96 << 10, 0);
  run_cases (engine, tiled_cases, sizeof tiled_cases / sizeof tiled_cases[0]);
  gblur_engine_free (engine);
  test_progress_and_cancel ();   /* many tiles, and a cancelled run's drain */
  if (backend == GBLUR_BACKEND_CPU)   /* the CPU's own paths, for valgrind */
    {
      test_fft_forced ();
      test_fft_hdr_rows ();
      test_opaque_alpha ();
      test_srgb_encode ();
    }
  test_errors ();
  test_environment ();
}
