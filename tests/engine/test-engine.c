/* The engine's test suite: every format, size class, sigma and option
 * against the double-precision reference, outputs poisoned before each run,
 * and every error path.
 * `test-engine --backend cpu|cuda [--quick | --sanitize] [--hash FILE]`
 * (--sanitize: only the small subset that tests/gpu-check.sh runs under
 * compute-sanitizer, see run_sanitize; --hash: a line per checked output,
 * to compare two builds' pixels with the same GBLUR_TEST_SEED).
 * With --backend cuda on a machine without a usable GPU it prints
 * "skipped: no CUDA device" and exits 77 (automake's SKIP). */
#include "gblur.h"
#include "gblur-internal.h"   /* the sRGB encoder's tables, checked directly */
#include "pixel-env.h"
#include "reference.h"
#include "test-util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_CUDA
#include <cuda_runtime.h>
#endif

static gblur_backend backend = GBLUR_BACKEND_CPU;
static int      quick;
static int      sanitize;   /* --sanitize: run_sanitize only */
static FILE    *hash_out;   /* --hash FILE: a hash of each checked output */
static PixelEnv test_env;   /* GBLUR_CPU_ISA and the like, for every engine */


static const char *
sample_name (gblur_sample s)
{
  return s == GBLUR_U8 ? "u8" : s == GBLUR_U16 ? "u16" : "f32";
}

/* Writes an FNV-1a hash of rows [0, rows) of out to hash_out, so that two
 * builds can be shown to give the same pixels case by case. */
static void
hash_rows (const gblur_image *out, int rows, size_t row_bytes)
{
  uint64_t h = 14695981039346656037ull;

  if (!hash_out)
    return;
  for (int y = 0; y < rows; y++)
    for (size_t i = 0; i < row_bytes; i++)
      h = (h ^ ((const unsigned char *) out->data)[y * out->stride + i]) * 1099511628211ull;
  fprintf (hash_out, "%dx%d c%d %s rows %d %016llx\n", out->width, out->height, out->channels,
           sample_name (out->sample), rows, (unsigned long long) h);
}

/* Largest |out - ref| over rows [0, rows); -1 if a padding byte changed. */
static double
max_error (const gblur_image *out, const double *ref, int rows)
{
  double worst = 0;
  size_t row_bytes = (size_t) out->width * out->channels * gblur_sample_size (out->sample);

  hash_rows (out, rows, row_bytes);
  for (int y = 0; y < rows; y++)
    {
      const unsigned char *pad = (const unsigned char *) out->data + y * out->stride + row_bytes;
      for (size_t i = row_bytes; i < out->stride; i++)
        if (pad[i - row_bytes] != POISON)
          return -1;
      for (int x = 0; x < out->width; x++)
        for (int c = 0; c < out->channels; c++)
          {
            double v = reference_sample (out, x, y, c);
            double e = fabs (v - ref[((size_t) y * out->width + x) * out->channels + c]);
            if (!(e <= worst)) /* NaN counts as infinite */
              worst = isnan (e) ? INFINITY : e;
          }
    }
  return worst;
}

static double
tolerance (gblur_sample s)
{
  return s == GBLUR_F32 ? 1e-4 : 1.0;
}

/* config with the environment's settings (GBLUR_CPU_ISA, ...) over it. */
static gblur_config
with_env (gblur_config config)
{
  pixel_env_apply (&test_env, &config);
  return config;
}

/* An engine on the suite's backend; a CPU FFT mode or CUDA paths left out
 * that the test forces stand over the environment's. */
static gblur_engine *
new_engine_forced (size_t memory_limit, int threads, gblur_fft_mode fft, unsigned cuda_skip)
{
  gblur_config config = with_env ((gblur_config) { .backend = backend, .memory_limit = memory_limit,
                                                   .threads = threads, .no_fallback = 1 });
  gblur_status status;
  char         msg[256];
  gblur_engine *e;

  config.cpu_fft = fft != GBLUR_FFT_AUTO ? fft : config.cpu_fft;
  config.cuda_skip |= cuda_skip;
  e = gblur_engine_new (&config, &status, msg, sizeof msg);
  if (!e)
    {
      printf ("cannot create engine: %s\n", msg);
      exit (1);
    }
  return e;
}

static gblur_engine *
new_engine (size_t memory_limit, int threads)
{
  return new_engine_forced (memory_limit, threads, GBLUR_FFT_AUTO, 0);
}

/* Whether the engine takes the format: no sRGB curve on float data, no
 * alpha on one channel. */
static int
format_valid (gblur_sample s, int c, unsigned flags)
{
  return !((flags & GBLUR_LINEAR_LIGHT) && s == GBLUR_F32) && !((flags & GBLUR_PREMULTIPLY_ALPHA) && c < 2);
}

/* The sigmas of params per axis (sigma > 0: both), and as text. */
static void
axis_sigmas (const gblur_params *params, double *sx, double *sy, char *text, size_t size)
{
  *sx = params->sigma != 0 ? params->sigma : params->sigma_x;
  *sy = params->sigma != 0 ? params->sigma : params->sigma_y;
  if (params->sigma != 0)
    snprintf (text, size, "sigma %g", params->sigma);
  else
    snprintf (text, size, "sigma_x %g sigma_y %g", params->sigma_x, params->sigma_y);
}

/* One blur with params (its sigma, or sigma 0 and its sigma_x, sigma_y)
 * compared with the reference. */
static void
blur_case_params (gblur_engine *engine, int w, int h, int c, gblur_sample s,
                  const gblur_params *params, size_t src_pad, size_t dst_pad, int pattern,
                  const char *label)
{
  gblur_image  src = make_image (w, h, c, s, src_pad, pattern);
  gblur_image  dst = make_poisoned_like (&src, dst_pad);
  double      *ref = malloc ((size_t) w * h * c * sizeof *ref);
  gblur_result result;
  gblur_status st = gblur_engine_run (engine, &src, &dst, params, &result);
  unsigned     flags = params->flags;
  double       sx, sy;
  char         sigma[64];

  axis_sigmas (params, &sx, &sy, sigma, sizeof sigma);
  reference_blur_xy (&src, sx, sy, flags, ref);
  if (st != GBLUR_OK)
    check (0, "%s %dx%d c%d %s %s flags %u: status %s (%s)", label, w, h, c,
           sample_name (s), sigma, flags, gblur_status_name (st), gblur_engine_last_error (engine));
  else
    {
      double e = max_error (&dst, ref, h);
      check (e >= 0 && e <= tolerance (s) && result.rows_valid == h,
             "%s %dx%d c%d %s %s flags %u pads %zu/%zu: max error %g (%s), rows_valid %d",
             label, w, h, c, sample_name (s), sigma, flags, src_pad, dst_pad, e,
             e < 0 ? "padding overwritten" : "vs tolerance", result.rows_valid);
    }
  free (ref);
  free (src.data);
  free (dst.data);
}

/* One blur with one sigma for both axes. */
static void
blur_case (gblur_engine *engine, int w, int h, int c, gblur_sample s, double sigma,
           unsigned flags, size_t src_pad, size_t dst_pad, int pattern, const char *label)
{
  gblur_params params = { .sigma = sigma, .flags = flags };
  blur_case_params (engine, w, h, c, s, &params, src_pad, dst_pad, pattern, label);
}

/* One blur with a sigma per axis (gblur_params.sigma 0). */
static void
blur_case_xy (gblur_engine *engine, int w, int h, int c, gblur_sample s, double sigma_x,
              double sigma_y, unsigned flags, size_t src_pad, size_t dst_pad, int pattern,
              const char *label)
{
  gblur_params params = { .sigma = 0, .flags = flags, .sigma_x = sigma_x, .sigma_y = sigma_y };
  blur_case_params (engine, w, h, c, s, &params, src_pad, dst_pad, pattern, label);
}

/* Every size class, sample type, channel count and option, with each of
 * the n sigma settings (flags are the matrix's). */
static void
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

static void
test_matrix (gblur_engine *engine)
{
  static const double sigmas[] = { 0.1, 0.5, 1, 2.5, 10, 50, 500, 1500 };
  gblur_params params[sizeof sigmas / sizeof sigmas[0]];

  for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++)
    params[i] = (gblur_params) { .sigma = sigmas[i] };
  run_matrix (engine, params, sizeof sigmas / sizeof sigmas[0], "matrix");
}

/* Pairs (sigma_x, sigma_y) for the per-axis cases: anisotropic, one axis 0
 * (down to tiny sigmas, and the largest radius on one axis), radii past the
 * CPU's row-by-row vertical pass (> 24) on one axis, the same radius with
 * other taps (1 and 0.9: radius 3 both), the same sigma through sigma 0. */
static const double axis_pairs[][2] = {
  { 4, 1.5 }, { 0.8, 7 }, { 0, 2.5 }, { 3, 0 }, { 0.1, 0 }, { 0, 0.1 }, { 0.05, 3 },
  { 1, 0.9 }, { 2, 2 }, { 50, 0.5 }, { 0.5, 50 }, { 500, 0 }, { 0, 500 }, { 1500, 0 }, { 0, 1500 }, { 2, 30 },
  { 30, 2 }, { 1e-300, 2 }
};
#define N_AXIS_PAIRS (sizeof axis_pairs / sizeof axis_pairs[0])

/* The matrix with a sigma per axis. */
static void
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
static void
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

typedef struct {
  int calls, last_done, total, monotonic;
} progress_record;

static int
record_progress (int rows_done, int rows_total, void *data)
{
  progress_record *r = data;

  r->monotonic &= rows_done >= r->last_done && rows_total == r->total;
  r->last_done = rows_done;
  r->calls++;
  return 0;
}

/* gblur_config.defer_cuda: a small run stays on the CPU without starting
 * CUDA; a long one (one thread, 16-bit RGBA, sigma 120, on the direct loops)
 * hands the rows left to CUDA after its second progress step, or to the CPU
 * again where CUDA does not start; either way the image is the CPU engine's
 * within a level, and the progress reports run over the whole window.
 * --quick (and valgrind, which runs it) takes a quarter of the pixels: a
 * fast CPU may then finish it without handing over. */
static void
test_deferred_cuda (void)
{
  gblur_config  config = with_env ((gblur_config) { .backend = GBLUR_BACKEND_AUTO, .threads = 1,
                                                    .defer_cuda = 1 });
  gblur_config  cpu_config = with_env ((gblur_config) { .backend = GBLUR_BACKEND_CPU, .no_fallback = 1 });
  gblur_engine *engine, *cpu;
  gblur_image   small = make_image (64, 48, 1, GBLUR_U8, 0, 0);
  gblur_image   small_out = make_poisoned_like (&small, 0);
  /* Where the hand-over is checked (a GPU), four times the pixels: at 2048²
   * the H200 machine's CPU once judged the rows left shorter than the
   * hand-over's 0.6 s. */
  const int     size = quick ? 1024 : backend == GBLUR_BACKEND_CUDA ? 4096 : 2048;
  gblur_image   big = make_image (size, size, 4, GBLUR_U16, 0, 0);
  gblur_image   out = make_poisoned_like (&big, 0), want = make_poisoned_like (&big, 0);
  gblur_params  params = { .sigma = 2 };
  progress_record record = { 0, 0, size, 1 };
  gblur_result  result;
  gblur_status  st;
  double        worst = 0;

  config.cpu_fft = GBLUR_FFT_OFF;  /* the FFT path would be too quick */
  engine = gblur_engine_new (&config, NULL, NULL, 0);
  config.cpu_fft = test_env.cpu_fft;   /* the environment's again, for the engine started at once */
  cpu = gblur_engine_new (&cpu_config, NULL, NULL, 0);
  check (engine && cpu, "deferring engine: created");
  if (!engine || !cpu)
    return;
  st = gblur_engine_run (engine, &small, &small_out, &params, &result);
  check (st == GBLUR_OK && gblur_engine_backend (engine) == GBLUR_BACKEND_CPU
           && strstr (gblur_engine_cuda_unavailable_reason (engine), "not started") != NULL,
         "deferring engine: a small run on the CPU, CUDA not started (%s; %s)",
         gblur_status_name (st), gblur_engine_cuda_unavailable_reason (engine));

  params = (gblur_params) { .sigma = 120, .flags = GBLUR_PREMULTIPLY_ALPHA,
                            .progress = record_progress, .user_data = &record };
  st = gblur_engine_run (engine, &big, &out, &params, &result);
  params.progress = NULL;
  if (gblur_engine_run (cpu, &big, &want, &params, NULL) != GBLUR_OK)
    worst = -1;
  for (size_t i = 0; worst >= 0 && i < (size_t) size * size * 4; i++)
    {
      double e = fabs ((double) ((uint16_t *) out.data)[i] - ((uint16_t *) want.data)[i]);
      worst = e > worst ? e : worst;
    }
  printf ("deferring engine: after a long run: %s (%s)\n", gblur_engine_describe (engine),
          *gblur_engine_cuda_unavailable_reason (engine) ? gblur_engine_cuda_unavailable_reason (engine)
                                                         : "CUDA started");
  if (backend == GBLUR_BACKEND_CUDA && !quick)   /* a GPU is there: the long run is long enough */
    check (gblur_engine_backend (engine) == GBLUR_BACKEND_CUDA,
           "deferring engine: the long run handed over to CUDA (%s)", gblur_engine_describe (engine));
  check (st == GBLUR_OK && result.rows_valid == size && worst >= 0 && worst <= 1
           && record.monotonic && record.last_done == size,
         "deferring engine: a long run: %s, rows_valid %d, max difference from the CPU engine %g, "
         "progress monotonic %d, last %d of %d", gblur_status_name (st), result.rows_valid, worst,
         record.monotonic, record.last_done, size);
  free (big.data);
  free (out.data);
  free (want.data);
  gblur_engine_free (engine);

  /* Started at once (a warm process): CUDA where a GPU is there, else the
   * CPU with the reason; a run after it is right either way. */
  engine = gblur_engine_new (&config, NULL, NULL, 0);
  gblur_backend b = engine ? gblur_engine_start_cuda (engine) : GBLUR_BACKEND_AUTO;
  check (engine && (backend == GBLUR_BACKEND_CUDA ? b == GBLUR_BACKEND_CUDA
                                                  : b == GBLUR_BACKEND_CUDA
                                                      || strstr (gblur_engine_cuda_unavailable_reason (engine),
                                                                 "not started") == NULL),
         "deferring engine, CUDA started at once: %s (%s)", engine ? gblur_engine_describe (engine) : "none",
         engine ? gblur_engine_cuda_unavailable_reason (engine) : "");
  if (engine)
    blur_case (engine, 64, 48, 4, GBLUR_U8, 3, 0, 0, 0, 0, "deferring engine, CUDA started at once");
  gblur_engine_free (engine);
  free (small.data);
  free (small_out.data);
  gblur_engine_free (cpu);
}

/* Tiles and stripes: small memory limits force many stripes and column
 * blocks; several thread counts. */
static void
test_tiling (void)
{
  static const size_t limits[] = { 0, 1 << 20, 96 << 10 };
  static const int    threads[] = { 1, 2, 3, 7 };

  for (size_t li = 0; li < sizeof limits / sizeof limits[0]; li++)
    for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++)
      {
        if (backend == GBLUR_BACKEND_CUDA && ti > 0)
          break; /* threads only matter to the CPU backend */
        gblur_engine *engine = new_engine (limits[li], threads[ti]);
        blur_case (engine, 301, 203, 4, GBLUR_U8, 2.5, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA,
                   3, 5, 0, "tiling");
        blur_case (engine, 257, 149, 1, GBLUR_U8, 10, 0, 0, 0, 1, "tiling");
        blur_case (engine, 263, 141, 4, GBLUR_U8, 9, 0, 0, 0, 1, "tiling");   /* CUDA: tensor cores */
        blur_case (engine, 263, 141, 4, GBLUR_U8, 1, 0, 0, 0, 0, "tiling");   /* CUDA: one pass, r 3 */
        blur_case (engine, 211, 77, 4, GBLUR_U8, 3.9, 0, 0, 0, 1, "tiling");  /* one pass, r 12 */
        blur_case (engine, 97, 211, 3, GBLUR_U16, 7, GBLUR_LINEAR_LIGHT, 2, 0, 0, "tiling");
        blur_case (engine, 150, 90, 2, GBLUR_F32, 4, GBLUR_PREMULTIPLY_ALPHA, 0, 4, 0, "tiling");
        /* a sigma per axis: the halo is radius_y rows and radius_x columns */
        blur_case_xy (engine, 301, 203, 4, GBLUR_U8, 4, 1.5, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA,
                      3, 5, 0, "axis tiling");
        blur_case_xy (engine, 257, 149, 1, GBLUR_U8, 0.8, 7, 0, 0, 0, 1, "axis tiling");
        blur_case_xy (engine, 97, 211, 3, GBLUR_U16, 0, 10, GBLUR_LINEAR_LIGHT, 2, 0, 0, "axis tiling");
        blur_case_xy (engine, 150, 90, 2, GBLUR_F32, 12, 0, GBLUR_PREMULTIPLY_ALPHA, 0, 4, 0, "axis tiling");
        blur_case_xy (engine, 203, 180, 1, GBLUR_F32, 2, 30, 0, 0, 0, 0, "axis tiling");
        blur_case_xy (engine, 180, 120, 3, GBLUR_U8, 40, 1, 0, 1, 0, 1, "axis tiling");
        gblur_engine_free (engine);
      }
  if (!quick)
    {
      gblur_engine *engine = new_engine (0, 0);
      blur_case (engine, 1024, 768, 1, GBLUR_U8, 2, 0, 0, 0, 0, "large");
      blur_case (engine, 1031, 517, 4, GBLUR_U8, 30, 0, 0, 0, 1, "large");
      blur_case (engine, 640, 480, 4, GBLUR_U8, 20, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA,
                 0, 0, 1, "large");
      gblur_engine_free (engine);
    }
}

/* The window at (wx, wy) of src blurred into dst (its size) by
 * gblur_engine_run_window, against the same window of the reference: the
 * largest error (-1: dst's padding overwritten; 0 when the run failed),
 * with the run's status in *st. */
static double
window_error (gblur_engine *engine, const gblur_image *src, int wx, int wy, gblur_image *dst,
              const gblur_params *params, gblur_result *result, gblur_status *st)
{
  const int c = src->channels, ww = dst->width, wh = dst->height;
  double   *ref = malloc ((size_t) src->width * src->height * c * sizeof *ref);
  double   *crop = malloc ((size_t) ww * wh * c * sizeof *crop);
  double    sx, sy, e = 0;
  char      text[64];

  axis_sigmas (params, &sx, &sy, text, sizeof text);
  reference_blur_xy (src, sx, sy, params->flags, ref);
  for (int y = 0; y < wh; y++)
    memcpy (crop + (size_t) y * ww * c, ref + ((size_t) (wy + y) * src->width + wx) * c,
            (size_t) ww * c * sizeof *crop);
  *st = gblur_engine_run_window (engine, src, wx, wy, dst, params, result);
  if (*st == GBLUR_OK)
    e = max_error (dst, crop, wh);
  free (ref);
  free (crop);
  return e;
}

/* 8-bit RGBA stored as is, which CUDA blurs on the tensor cores
 * (kernels/cuda/kernels-mma.cu): sizes across its blocks' edges (128
 * columns, 8 rows), unaligned rows (padding), radii from 2 to past its
 * largest (512), and windows at odd offsets (against the reference: the CPU's
 * FFT path rounds a window's lines apart from the whole image's). */
static void
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
static void
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
static void
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

/* A window of the source blurred on its own equals that window of the
 * whole-image blur: the halo around it is read, not clamped. */
static void
test_windows (gblur_engine *engine, int per_axis)
{
  for (int i = 0; i < (quick ? 8 : 24); i++)
    {
      int          w = 1 + (int) (rng () % 120), h = 1 + (int) (rng () % 90);
      int          c = 1 + (int) (rng () % 4);
      gblur_sample s = (gblur_sample) (rng () % 3);
      double       sigma = 0.3 + (double) (rng () % 200) / 10.0;
      /* per axis: the other axis 0 one time in three, else its own sigma */
      double       sigma2 = i % 3 == 0 ? 0.0 : 0.3 + (double) (rng () % 200) / 10.0;
      double       sx = per_axis && i % 2 ? sigma2 : sigma, sy = per_axis && i % 2 ? sigma : sigma2;
      char         text[64];
      unsigned     flags = (s != GBLUR_F32 && rng () % 2 ? GBLUR_LINEAR_LIGHT : 0)
                           | (c > 1 && rng () % 2 ? GBLUR_PREMULTIPLY_ALPHA : 0);
      int          ww = 1 + (int) (rng () % w), wh = 1 + (int) (rng () % h);
      int          wx = (int) (rng () % (w - ww + 1)), wy = (int) (rng () % (h - wh + 1));
      gblur_image  src = make_image (w, h, c, s, rng () % 5, (int) (rng () % 2));
      gblur_image  dst = src;
      gblur_params params = { .sigma = per_axis ? 0 : sigma, .flags = flags,
                              .sigma_x = sx, .sigma_y = sy };
      gblur_result result;
      gblur_status st;

      axis_sigmas (&params, &sx, &sy, text, sizeof text);
      dst.width = ww;   /* the window's size, its own padding */
      dst.height = wh;
      dst.stride = (size_t) ww * c * gblur_sample_size (s) + rng () % 3;
      dst.data = malloc (dst.stride * wh);
      memset (dst.data, POISON, dst.stride * wh);
      double e = window_error (engine, &src, wx, wy, &dst, &params, &result, &st);
      if (st != GBLUR_OK)
        check (0, "window: %s", gblur_engine_last_error (engine));
      else
        check (e >= 0 && e <= tolerance (s) && result.rows_valid == wh,
               "window %dx%d at (%d,%d) of %dx%d c%d %s %s flags %u: max error %g",
               ww, wh, wx, wy, w, h, c, sample_name (s), text, flags, e);
      free (src.data);
      free (dst.data);
    }
}

/* ---- The CPU backend's FFT path for large radii (kernels/cpu/fft-*.c, in
 * a build with FFTW; gblur_config.cpu_fft forces it on or off).  A build
 * without FFTW runs these cases on the direct loops: they pass there too. ---- */

/* mode: "off" or "always". */
static gblur_engine *
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

/* src blurred with params compared with the reference. */
static void
check_against_reference (gblur_engine *engine, gblur_image *src, const gblur_params *params,
                         const char *label)
{
  gblur_image  dst = make_poisoned_like (src, 0);
  double      *ref = malloc ((size_t) src->width * src->height * src->channels * sizeof *ref);
  gblur_result result;
  gblur_status st = gblur_engine_run (engine, src, &dst, params, &result);
  double       sx, sy;
  char         text[64];

  axis_sigmas (params, &sx, &sy, text, sizeof text);
  reference_blur_xy (src, sx, sy, params->flags, ref);
  if (st != GBLUR_OK)
    check (0, "%s: status %s (%s)", label, gblur_status_name (st), gblur_engine_last_error (engine));
  else
    {
      double e = max_error (&dst, ref, src->height);
      check (e >= 0 && e <= tolerance (src->sample), "%s %dx%d c%d %s %s flags %u: max error %g",
             label, src->width, src->height, src->channels, sample_name (src->sample), text,
             params->flags, e);
    }
  free (ref);
  free (dst.data);
}

/* An opaque image (every alpha at its maximum) premultiplied is the same
 * image straight: the CPU backend then blurs it straight (backend.c), in
 * single precision on the FFT path, so the two runs agree exactly, on the
 * direct loops and on the FFT path.  One transparent pixel in a window's
 * halo (not in the window) must still count: its hidden colour may not
 * bleed in. */
static void
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

/* The matrix (every size class from 1x1, sample type, channel count and
 * option), windows and tilings with the FFT path taken whenever the format
 * allows it: everything but premultiplied alpha on 3 channels; in double
 * precision, with outputs of tiny alpha summed again directly, for
 * premultiplied alpha and 16-bit linear light (kernels/cpu/backend.h). */
static void
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
static void
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
static void
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
static void
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
static void
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

typedef struct {
  int calls, last_rows, monotonic, cancel_after;
} progress_log;

static int
on_progress (int rows_done, int rows_total, void *data)
{
  progress_log *log = data;
  if (rows_done <= log->last_rows || rows_done > rows_total)
    log->monotonic = 0;
  log->last_rows = rows_done;
  log->calls++;
  return log->cancel_after && log->calls >= log->cancel_after;
}

static void
test_progress_and_cancel (void)
{
  gblur_engine *engine = new_engine (64 << 10, 2);   /* many stripes */
  gblur_image   src = make_image (200, 300, 1, GBLUR_U8, 0, 0);
  gblur_image   dst = make_poisoned_like (&src, 0);
  double       *ref = malloc ((size_t) 200 * 300 * sizeof *ref);
  progress_log  log = { 0, 0, 1, 0 };
  gblur_params  params = { .sigma = 3.0, .flags = 0, .progress = on_progress, .user_data = &log };
  gblur_result  result;
  gblur_status  st;

  reference_blur (&src, 3.0, 0, ref);
  st = gblur_engine_run (engine, &src, &dst, &params, &result);
  check (st == GBLUR_OK && log.calls > 2 && log.monotonic && log.last_rows == 300,
         "progress: status %s, %d calls, monotonic %d, last %d", gblur_status_name (st),
         log.calls, log.monotonic, log.last_rows);

  memset (dst.data, POISON, dst.stride * dst.height);
  log = (progress_log) { 0, 0, 1, 2 };
  st = gblur_engine_run (engine, &src, &dst, &params, &result);
  check (st == GBLUR_E_CANCELLED && result.rows_valid > 0 && result.rows_valid < 300
           && *gblur_engine_last_error (engine),
         "cancel: status %s, rows_valid %d", gblur_status_name (st), result.rows_valid);
  if (st == GBLUR_E_CANCELLED)
    {
      double e = max_error (&dst, ref, result.rows_valid);
      check (e >= 0 && e <= 1.0, "cancel: rows [0, rows_valid) wrong, max error %g", e);
    }
  free (ref);
  free (src.data);
  free (dst.data);
  gblur_engine_free (engine);
}

/* Each bad input gives its status and a message, and leaves dst untouched. */
static void
expect_error (gblur_engine *engine, const gblur_image *src, gblur_image *dst,
              const gblur_params *params, gblur_status want, const char *what)
{
  unsigned char *before = NULL;
  size_t         size = 0;
  gblur_status   st;
  int            untouched = 1;

  if (dst && dst->data && dst->height > 0 && dst->stride > 0 && dst->stride < (1u << 20))
    {
      size = dst->stride * (size_t) dst->height;
      before = malloc (size);
      memcpy (before, dst->data, size);
    }
  st = gblur_engine_run (engine, src, dst, params, NULL);
  if (before)
    {
      untouched = memcmp (before, dst->data, size) == 0;
      free (before);
    }
  check (st == want && *gblur_engine_last_error (engine) && untouched,
         "error path '%s': status %s (wanted %s), message '%s', dst untouched %d", what,
         gblur_status_name (st), gblur_status_name (want), gblur_engine_last_error (engine),
         untouched);
}

static void
test_errors (void)
{
  gblur_engine *engine = new_engine (0, 2);
  gblur_image   src = make_image (16, 9, 3, GBLUR_U8, 0, 0);
  gblur_image   dst = make_poisoned_like (&src, 0);
  gblur_params  ok = { .sigma = 2.0, .flags = 0 };
  gblur_image   bad;
  gblur_params  p;
  static const double bad_sigmas[] = { 0.0, 0.0999, -1.0, 1500.01, 1e9 };

  for (size_t i = 0; i < sizeof bad_sigmas / sizeof bad_sigmas[0]; i++)
    {
      p = ok;
      p.sigma = bad_sigmas[i];
      expect_error (engine, &src, &dst, &p, GBLUR_E_SIGMA, "sigma out of range");
    }
  p = ok; p.sigma = NAN;
  expect_error (engine, &src, &dst, &p, GBLUR_E_SIGMA, "sigma NaN");
  p = ok; p.sigma = INFINITY;
  expect_error (engine, &src, &dst, &p, GBLUR_E_SIGMA, "sigma inf");

  /* A sigma per axis (sigma 0): each in [0, 1500], not NaN, not both 0; the
   * message names the axis. */
  {
    static const struct { double sx, sy; const char *what, *says; } bad_axes[] = {
      { 0, 0, "sigma_x and sigma_y both 0", "both 0" },
      { NAN, 1, "sigma_x NaN", "sigma_x is not a number" },
      { 1, NAN, "sigma_y NaN", "sigma_y is not a number" },
      { NAN, 0, "sigma_x NaN, sigma_y 0", "sigma_x is not a number" },
      { -1, 2, "sigma_x negative", "sigma_x -1" },
      { 2, -0.5, "sigma_y negative", "sigma_y -0.5" },
      { 1500.01, 1, "sigma_x > 1500", "sigma_x 1500.01" },
      { 0, 1501, "sigma_y > 1500", "sigma_y 1501" },
      { INFINITY, 1, "sigma_x inf", "sigma_x inf" },
      { 1, -INFINITY, "sigma_y -inf", "sigma_y -inf" },
    };
    for (size_t i = 0; i < sizeof bad_axes / sizeof bad_axes[0]; i++)
      {
        p = ok;
        p.sigma = 0;
        p.sigma_x = bad_axes[i].sx;
        p.sigma_y = bad_axes[i].sy;
        expect_error (engine, &src, &dst, &p, GBLUR_E_SIGMA, bad_axes[i].what);
        check (strstr (gblur_engine_last_error (engine), bad_axes[i].says) != NULL,
               "error path '%s': message '%s' should say '%s'", bad_axes[i].what,
               gblur_engine_last_error (engine), bad_axes[i].says);
      }
    /* The one-sigma check keeps its message; sigma > 0 ignores sigma_x, sigma_y. */
    p = ok; p.sigma = 0.05; p.sigma_x = 1; p.sigma_y = 1;
    expect_error (engine, &src, &dst, &p, GBLUR_E_SIGMA, "sigma 0.05 with valid sigma_x, sigma_y");
    check (strstr (gblur_engine_last_error (engine), "sigma 0.05 is outside [0.1, 1500]") != NULL,
           "one-sigma message: '%s'", gblur_engine_last_error (engine));
    p = ok; p.sigma_x = NAN; p.sigma_y = -3;
    check (gblur_engine_run (engine, &src, &dst, &p, NULL) == GBLUR_OK,
           "sigma 2 ignores sigma_x NaN, sigma_y -3: %s", gblur_engine_last_error (engine));
    memset (dst.data, POISON, dst.stride * dst.height);
    /* the bounds themselves are valid */
    p = ok; p.sigma = 0; p.sigma_x = 1500; p.sigma_y = 0;
    check (gblur_engine_run (engine, &src, &dst, &p, NULL) == GBLUR_OK,
           "sigma_x 1500, sigma_y 0: %s", gblur_engine_last_error (engine));
    p.sigma_x = 0; p.sigma_y = 1500;
    check (gblur_engine_run (engine, &src, &dst, &p, NULL) == GBLUR_OK,
           "sigma_x 0, sigma_y 1500: %s", gblur_engine_last_error (engine));
    memset (dst.data, POISON, dst.stride * dst.height);
  }

  expect_error (engine, NULL, &dst, &ok, GBLUR_E_INVALID, "NULL source");
  expect_error (engine, &src, NULL, &ok, GBLUR_E_INVALID, "NULL destination");
  expect_error (engine, &src, &dst, NULL, GBLUR_E_INVALID, "NULL params");
  bad = src; bad.data = NULL;
  expect_error (engine, &bad, &dst, &ok, GBLUR_E_INVALID, "NULL source data");
  bad = src; bad.width = 0;
  expect_error (engine, &bad, &dst, &ok, GBLUR_E_INVALID, "zero width");
  bad = src; bad.height = -3;
  expect_error (engine, &bad, &dst, &ok, GBLUR_E_INVALID, "negative height");
  bad = src; bad.channels = 0;
  expect_error (engine, &bad, &dst, &ok, GBLUR_E_FORMAT, "0 channels");
  bad = src; bad.channels = 5;
  expect_error (engine, &bad, &dst, &ok, GBLUR_E_FORMAT, "5 channels");
  bad = src; bad.sample = (gblur_sample) 9;
  expect_error (engine, &bad, &dst, &ok, GBLUR_E_FORMAT, "unknown sample type");
  bad = src; bad.stride = 47;
  expect_error (engine, &bad, &dst, &ok, GBLUR_E_INVALID, "stride smaller than a row");
  bad = dst; bad.width = 15;
  expect_error (engine, &src, &bad, &ok, GBLUR_E_INVALID, "size mismatch");
  {
    gblur_image win = dst;
    win.width = 8;
    win.height = 4;
    static const int corners[][2] = { { -1, 0 }, { 0, -1 }, { 9, 0 }, { 0, 6 } };
    for (int i = 0; i < 4; i++)
      {
        unsigned char before[16 * 9 * 3];
        memcpy (before, dst.data, sizeof before);
        check (gblur_engine_run_window (engine, &src, corners[i][0], corners[i][1], &win, &ok, NULL)
                 == GBLUR_E_INVALID && memcmp (before, dst.data, sizeof before) == 0
                 && *gblur_engine_last_error (engine),
               "window at (%d,%d) outside the source must be rejected", corners[i][0], corners[i][1]);
      }
  }
  bad = dst; bad.sample = GBLUR_U16; bad.width = 8;
  expect_error (engine, &src, &bad, &ok, GBLUR_E_INVALID, "sample mismatch");
  expect_error (engine, &src, &src, &ok, GBLUR_E_INVALID, "in place");
  bad = dst; bad.data = (unsigned char *) src.data + 5;
  bad.height = 1;
  {
    gblur_image s1 = src; s1.height = 1;
    expect_error (engine, &s1, &bad, &ok, GBLUR_E_INVALID, "overlapping buffers");
  }
  p = ok; p.flags = 1u << 7;
  expect_error (engine, &src, &dst, &p, GBLUR_E_INVALID, "unknown option bits");
  {
    gblur_image f = make_image (4, 4, 2, GBLUR_F32, 0, 0);
    gblur_image fd = make_poisoned_like (&f, 0);
    p = ok; p.flags = GBLUR_LINEAR_LIGHT;
    expect_error (engine, &f, &fd, &p, GBLUR_E_FORMAT, "linear light on float");
    free (f.data);
    free (fd.data);
  }
  {
    gblur_image g = make_image (4, 4, 1, GBLUR_U8, 0, 0);
    gblur_image gd = make_poisoned_like (&g, 0);
    p = ok; p.flags = GBLUR_PREMULTIPLY_ALPHA;
    expect_error (engine, &g, &gd, &p, GBLUR_E_FORMAT, "alpha on one channel");
    free (g.data);
    free (gd.data);
  }
  check (gblur_engine_run (NULL, &src, &dst, &ok, NULL) == GBLUR_E_INVALID, "NULL engine");
  gblur_engine_free (engine);

  /* A memory limit too small for the radius. */
  engine = new_engine (4096, 1);
  {
    gblur_image big = make_image (400, 400, 4, GBLUR_F32, 0, 0);
    gblur_image bd = make_poisoned_like (&big, 0);
    p = ok; p.sigma = 200;
    expect_error (engine, &big, &bd, &p, GBLUR_E_NOMEM, "memory limit too small");
    p = ok; p.sigma = 0; p.sigma_x = 200; p.sigma_y = 0;
    expect_error (engine, &big, &bd, &p, GBLUR_E_NOMEM, "memory limit too small, sigma_x 200");
    free (big.data);
    free (bd.data);
  }
  gblur_engine_free (engine);

  /* Device-resident runs need CUDA. */
  if (backend == GBLUR_BACKEND_CPU)
    {
      engine = new_engine (0, 1);
      check (gblur_engine_run_device (engine, &src, &dst, &ok) == GBLUR_E_BACKEND
               && *gblur_engine_last_error (engine),
             "run_device on the CPU backend must fail cleanly");
      check (strncmp (gblur_engine_describe (engine), "CPU, 1 thread", 13) == 0,
             "describe: '%s'", gblur_engine_describe (engine));
      {
        unsigned char *buf = gblur_engine_alloc_host (engine, 1 << 20);
        check (buf != NULL, "alloc_host");
        if (buf)
          {
            memset (buf, 1, 1 << 20);
            gblur_engine_free_host (engine, buf);
          }
      }
      gblur_engine_free (engine);
    }
  free (src.data);
  free (dst.data);
}

/* Sets the variable; returns its old value (a copy; NULL when unset). */
static char *
set_variable (const char *name, const char *value)
{
  const char *old = getenv (name);
  char       *saved = old ? strdup (old) : NULL;

  setenv (name, value, 1);
  return saved;
}

static void
restore_variable (const char *name, char *saved)
{
  if (saved)
    setenv (name, saved, 1);
  else
    unsetenv (name);
  free (saved);
}

/* The environment as the front ends read it (pixels/pixel-env.h): a bad
 * value is refused with its variable's name; good ones reach the engine
 * through its config. */
static void
test_environment (void)
{
  static const char *const bad[][2] = {
    { "GBLUR_BACKEND", "gpu-please" }, { "GBLUR_THREADS", "two" }, { "GBLUR_THREADS", "-1" },
    { "GBLUR_CUDA_DEVICE", "1x" }, { "GBLUR_CPU_ISA", "sse9" }, { "GBLUR_CPU_FFT", "sometimes" },
    { "GBLUR_CUDA_NO_MMA", "yes" }, { "GBLUR_VERBOSE", "2" }, { "GBLUR_OVERLAP", "off" },
    { "GBLUR_GEGL_MODULES", "true" }, { "GBLUR_FAULT", "cpu-strip" },
  };
  static const char *const good[][2] = {
    { "GBLUR_BACKEND", "CPU" }, { "GBLUR_THREADS", "3" }, { "GBLUR_CPU_FFT", "off" },
    { "GBLUR_CUDA_NO_GRAY", "1" }, { "GBLUR_FAULT", "cpu-stripe:2,stall:4" }, { "GBLUR_OVERLAP", "0" },
  };
  char         *saved[sizeof good / sizeof good[0]];
  PixelEnv      env;
  gblur_config  config;
  gblur_engine *engine;
  char          msg[300];

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      char *old = set_variable (bad[i][0], bad[i][1]);
      int   ok = pixel_env_read (&env, msg, sizeof msg);

      restore_variable (bad[i][0], old);
      check (!ok && strstr (msg, bad[i][0]) && !env.backend_set && env.overlap,
             "%s=%s must be refused with its name: '%s'", bad[i][0], bad[i][1], msg);
    }
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    saved[i] = set_variable (good[i][0], good[i][1]);
  check (pixel_env_read (&env, msg, sizeof msg) && env.backend_set && env.backend == GBLUR_BACKEND_CPU
           && env.threads == 3 && env.cpu_fft == GBLUR_FFT_OFF && env.cuda_skip == GBLUR_CUDA_SKIP_GRAY
           && env.faults.cpu_stripe == 2 && env.stall_at == 4 && !env.overlap,
         "good variables read: '%s'", msg);
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    restore_variable (good[i][0], saved[i]);
  config = (gblur_config) { .backend = env.backend };
  pixel_env_apply (&env, &config);
  engine = gblur_engine_new (&config, NULL, msg, sizeof msg);
  check (engine && gblur_engine_backend (engine) == GBLUR_BACKEND_CPU
           && gblur_engine_cpu_threads (engine) == 3 && config.faults && config.faults->cpu_stripe == 2,
         "GBLUR_BACKEND=cpu and GBLUR_THREADS=3 reach the engine: '%s'", msg);
  gblur_engine_free (engine);
}

#ifdef HAVE_CUDA
/* src blurred in device memory, each image `offset` bytes into its buffer
 * (dst's padding poisoned there), into out (host, src's shape). */
static gblur_status
run_in_device_memory (gblur_engine *engine, const gblur_image *src, size_t offset,
                      const gblur_params *params, gblur_image *out)
{
  size_t         size = src->stride * src->height;
  unsigned char *d_src = NULL, *d_dst = NULL;
  gblur_status   st = GBLUR_E_CUDA;

  if (cudaMalloc ((void **) &d_src, size + offset) == cudaSuccess
      && cudaMalloc ((void **) &d_dst, size + offset) == cudaSuccess)
    {
      gblur_image ds = *src, dd = *src;
      ds.data = d_src + offset;
      dd.data = d_dst + offset;
      cudaMemset (d_dst, POISON, size + offset);
      cudaMemcpy (d_src + offset, src->data, size, cudaMemcpyHostToDevice);
      st = gblur_engine_run_device (engine, &ds, &dd, params);
      cudaMemcpy (out->data, d_dst + offset, size, cudaMemcpyDeviceToHost);
    }
  else
    check (0, "cudaMalloc for a device-resident test");
  cudaFree (d_src);
  cudaFree (d_dst);
  return st;
}

/* A w x h image (`pad` bytes after each row) blurred in device memory,
 * `offset` bytes into its buffers, against the reference, its padding
 * untouched. */
static void
device_case (gblur_engine *engine, int w, int h, int c, gblur_sample s, size_t pad, size_t offset,
             int pattern, const gblur_params *params, const char *label)
{
  gblur_image  src = make_image (w, h, c, s, pad, pattern);
  gblur_image  out = make_poisoned_like (&src, pad);
  double      *ref = malloc ((size_t) w * h * c * sizeof *ref);
  gblur_status st = run_in_device_memory (engine, &src, offset, params, &out);
  double       sx, sy, e;
  char         text[64];

  axis_sigmas (params, &sx, &sy, text, sizeof text);
  reference_blur_xy (&src, sx, sy, params->flags, ref);
  e = max_error (&out, ref, h);
  check (st == GBLUR_OK && e >= 0 && e <= tolerance (s),
         "%s %dx%d c%d %s %s flags %u in device memory, pitch %zu at offset %zu: status %s (%s), "
         "max error %g", label, w, h, c, sample_name (s), text, params->flags, src.stride, offset,
         gblur_status_name (st), gblur_engine_last_error (engine), e);
  free (ref);
  free (src.data);
  free (out.data);
}

/* Device-resident images and agreement with the CPU backend: one sigma for
 * both axes, then a sigma per axis (sigma 0). */
static void
test_cuda_specific (gblur_engine *engine)
{
  gblur_config  cpu_config = with_env ((gblur_config) { .backend = GBLUR_BACKEND_CPU, .no_fallback = 1 });
  gblur_engine *cpu = gblur_engine_new (&cpu_config, NULL, NULL, 0);
  static const double sigmas[][3] = { /* sigma, sigma_x, sigma_y */
    { 0.5, 0, 0 }, { 2, 0, 0 }, { 9, 0, 0 }, { 40, 0, 0 },
    { 0, 4, 1.5 }, { 0, 0.8, 7 }, { 0, 0, 3 }, { 0, 9, 0 }, { 0, 1, 0.9 }, { 0, 40, 2 }
  };

  /* as GIMP asks for them (linear light, premultiplied), then stored as is
   * (for 8-bit gray and RGBA: the tensor cores) */
  for (int plain = 0; plain < 2; plain++)
  for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++)
    for (int c = 1; c <= 4; c++)
      {
        unsigned     flags = plain ? 0 : c == 2 || c == 4 ? GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA
                                                          : GBLUR_LINEAR_LIGHT;
        gblur_image  src = make_image (333, 217, c, GBLUR_U8, 0, 0);
        gblur_image  out_gpu = make_poisoned_like (&src, 0);
        gblur_image  out_cpu = make_poisoned_like (&src, 0);
        gblur_image  out_dev = make_poisoned_like (&src, 0);
        gblur_params params = { .sigma = sigmas[i][0], .flags = flags,
                                .sigma_x = sigmas[i][1], .sigma_y = sigmas[i][2] };
        size_t       size = src.stride * src.height;
        double       sx, sy;
        char         text[64];

        axis_sigmas (&params, &sx, &sy, text, sizeof text);
        int          worst = 0, worst_dev = 0;

        gblur_engine_run (engine, &src, &out_gpu, &params, NULL);
        gblur_engine_run (cpu, &src, &out_cpu, &params, NULL);
        gblur_status st = run_in_device_memory (engine, &src, 0, &params, &out_dev);
        check (st == GBLUR_OK, "run_device: %s", gblur_engine_last_error (engine));
        for (size_t k = 0; k < size; k++)
          {
            int d = abs (((unsigned char *) out_gpu.data)[k] - ((unsigned char *) out_cpu.data)[k]);
            int dd = abs (((unsigned char *) out_dev.data)[k] - ((unsigned char *) out_gpu.data)[k]);
            worst = d > worst ? d : worst;
            worst_dev = dd > worst_dev ? dd : worst_dev;
          }
        check (worst <= 1, "CUDA vs CPU c%d %s flags %u: differ by %d LSB", c, text, flags, worst);
        check (worst_dev == 0, "device-resident vs host-to-host c%d %s flags %u: differ by %d", c,
               text, flags, worst_dev);
        free (src.data);
        free (out_gpu.data);
        free (out_cpu.data);
        free (out_dev.data);
      }
  /* 8-bit RGBA in device memory at an odd address, rows an odd number of
   * bytes apart: the small-radius kernel reads words, so it must decline
   * and another path blur it (within a level of the CPU). */
  for (int r = 1; r <= 13; r += 4)
    {
      gblur_image  src = make_image (301, 77, 4, GBLUR_U8, 1, 0);
      gblur_image  out_cpu = make_poisoned_like (&src, 1);   /* src's stride */
      gblur_image  out_dev = make_poisoned_like (&src, 1);
      gblur_params params = { .sigma = (r - 0.5) / 3.0 };
      int          worst = 0;

      gblur_engine_run (cpu, &src, &out_cpu, &params, NULL);
      gblur_status st = run_in_device_memory (engine, &src, 1, &params, &out_dev);
      check (st == GBLUR_OK, "run_device, odd address: %s", gblur_engine_last_error (engine));
      for (int y = 0; y < src.height; y++)
        for (int k = 0; k < src.width * 4; k++)
          {
            int d = abs (((unsigned char *) out_dev.data)[y * src.stride + k]
                         - ((unsigned char *) out_cpu.data)[y * src.stride + k]);
            worst = d > worst ? d : worst;
          }
      check (worst <= 1, "RGBA8 radius %d at an odd device address vs CPU: differ by %d", r, worst);
      free (src.data);
      free (out_cpu.data);
      free (out_dev.data);
    }
  /* 8-bit gray in device memory, rows 16-byte aligned (the one-pass
   * tensor-core kernel) and at an odd address and pitch (it declines):
   * against the reference, the padding untouched. */
  for (int r = 1; r <= 9; r += 2)
    for (int aligned = 0; aligned < 2; aligned++)
      {
        gblur_params params = { .sigma = (r - 0.5) / 3.0 };
        device_case (engine, 400, 131, 1, GBLUR_U8, aligned ? 16 : 3, aligned ? 0 : 1, r % 2, &params,
                     "gray8");
      }
  {
    void *pinned = gblur_engine_alloc_host (engine, 1 << 20);
    struct cudaPointerAttributes attr;
    check (pinned && cudaPointerGetAttributes (&attr, pinned) == cudaSuccess
             && attr.type == cudaMemoryTypeHost,
           "alloc_host returns pinned memory on the CUDA backend");
    gblur_engine_free_host (engine, pinned);
    /* A freed buffer is kept and handed out again, still pinned and usable. */
    void *again = gblur_engine_alloc_host (engine, 1 << 20);
    check (again && cudaPointerGetAttributes (&attr, again) == cudaSuccess
             && attr.type == cudaMemoryTypeHost,
           "alloc_host after free_host returns pinned memory");
    if (again)
      memset (again, 0x5a, 1 << 20);
    gblur_engine_free_host (engine, again);
  }
  gblur_engine_free (cpu);
}

/* The general kernels' two-pass path (vertical_* and horizontal_*, fused
 * kernel off) with a sigma per axis: tiled and direct forms, radius 0 on
 * either axis; and the one-channel cases again without the gray kernels
 * (which take only one sigma for both axes). */
static void
test_cuda_paths (void)
{
  static const unsigned skips[] = { GBLUR_CUDA_SKIP_FUSED, GBLUR_CUDA_SKIP_GRAY };
  static const char    *vars[] = { "GBLUR_CUDA_NO_FUSED", "GBLUR_CUDA_NO_GRAY" };

  for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++)
    {
      gblur_engine *engine = new_engine_forced (0, 0, GBLUR_FFT_AUTO, skips[v]);

      for (size_t gi = 0; gi < N_AXIS_PAIRS; gi++)
        for (int c = 1; c <= 4; c++)
          {
            gblur_sample s = (gblur_sample) ((gi + c) % 3);
            unsigned     flags = c >= 2 && gi % 2 ? GBLUR_PREMULTIPLY_ALPHA : 0;
            if (v == 1 && c > 1)
              break;
            if (s != GBLUR_F32 && (gi / 2) % 2)
              flags |= GBLUR_LINEAR_LIGHT;
            blur_case_xy (engine, 97, 61, c, s, axis_pairs[gi][0], axis_pairs[gi][1], flags,
                          (size_t) c, 0, (int) (gi % 2), vars[v]);
            blur_case_xy (engine, 1, 41, c, s, axis_pairs[gi][0], axis_pairs[gi][1], flags,
                          0, 3, 0, vars[v]);
          }
      if (v == 0)   /* the two-pass kernels' long sums */
        test_long_sums (engine, " GBLUR_CUDA_NO_FUSED");
      gblur_engine_free (engine);
    }
}
#endif

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

static void
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

/* ---- --sanitize: the subset tests/gpu-check.sh runs under each of
 * compute-sanitizer's tools (memcheck, racecheck, initcheck, synccheck),
 * which slow every kernel down.  Every kernel family of
 * kernels/cuda/backend.cu's list (the forcing variables for those a default
 * engine does not reach), every format, per-axis sigmas (one axis 0),
 * windows, tiles under a small memory limit and device-resident images,
 * each once or twice, on images of at most a few hundred pixels a side
 * that still span several blocks (and, in the tiled runs, tiles), each
 * against the reference (on the H200: 155 checks, 94 kernel instances,
 * about a minute for the four tools with test-faults --sanitize, which
 * has the CUDA faults and their CPU fallback).  On the CPU backend the
 * same cases run on the CPU (no device-resident runs), with the FFT path's
 * and the conversions' tests: tests/valgrind-check.sh runs that. ---- */

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
  { 150, 40, 3, GBLUR_U16, GBLUR_LINEAR_LIGHT, 0, 0, 90, "fused general, long sums down, radius 0 across" },
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
  gblur_result result = { 0, 0 };
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

static void
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

int
main (int argc, char **argv)
{
  const char *seed_env = getenv ("GBLUR_TEST_SEED");
  uint64_t    seed = seed_env ? strtoull (seed_env, NULL, 0) : (uint64_t) time (NULL);
  char        env_error[300];

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--backend") == 0 && i + 1 < argc)
        {
          i++;
          backend = strcmp (argv[i], "cuda") == 0 ? GBLUR_BACKEND_CUDA : GBLUR_BACKEND_CPU;
        }
      else if (strcmp (argv[i], "--quick") == 0)
        quick = 1;
      else if (strcmp (argv[i], "--sanitize") == 0)
        sanitize = quick = 1;   /* quick: test_windows' 8 cases */
      else if (strcmp (argv[i], "--hash") == 0 && i + 1 < argc && !hash_out)
        {
          hash_out = fopen (argv[++i], "w");
          if (!hash_out)
            {
              perror (argv[i]);
              return 2;
            }
        }
      else
        {
          fprintf (stderr, "usage: %s [--backend cpu|cuda] [--quick | --sanitize] [--hash FILE]\n",
                   argv[0]);
          return 2;
        }
    }
  rng_state = seed ? seed : 1;
  if (!pixel_env_read (&test_env, env_error, sizeof env_error))
    {
      fprintf (stderr, "%s\n", env_error);
      return 2;
    }
  printf ("engine tests, backend %s, seed %llu (GBLUR_TEST_SEED to repeat)\n",
          backend == GBLUR_BACKEND_CUDA ? "cuda" : "cpu", (unsigned long long) seed);

  if (backend == GBLUR_BACKEND_CUDA)
    {
      gblur_config  config = with_env ((gblur_config) { .backend = GBLUR_BACKEND_CUDA, .no_fallback = 1 });
      gblur_status  st;
      char          msg[300];
      gblur_engine *probe = gblur_engine_new (&config, &st, msg, sizeof msg);
      if (!probe)
        {
          printf ("skipped: no CUDA device (%s)\n", msg);
          printf ("0 passed, 0 failed, 1 skipped\n");
          return 77;
        }
      printf ("device: %s\n", gblur_engine_describe (probe));
      gblur_engine_free (probe);
    }
  if (sanitize)
    {
      run_sanitize ();
      printf ("%d passed, %d failed\n", passed, failed);
      return failed ? 1 : 0;
    }

  {
    gblur_engine *engine = new_engine (0, 0);
    printf ("backend in use: %s\n", gblur_engine_describe (engine));
    test_matrix (engine);
    test_axis_matrix (engine);
    test_long_sums (engine, "");
    test_windows (engine, 0);
    test_windows (engine, 1);
    test_rgba8 (engine);
    test_rgba8_small_radii (engine);
    test_gray8_small_radii (engine);
#ifdef HAVE_CUDA
    if (backend == GBLUR_BACKEND_CUDA)
      test_cuda_specific (engine);
#endif
    gblur_engine_free (engine);
  }
#ifdef HAVE_CUDA
  if (backend == GBLUR_BACKEND_CUDA)
    test_cuda_paths ();
#endif
  test_tiling ();
  test_deferred_cuda ();
  if (backend == GBLUR_BACKEND_CPU)
    {
      test_srgb_encode ();
      test_fft_forced ();
      test_fft_hdr_rows ();
      test_opaque_alpha ();
      test_fft_vs_direct ();
      test_fft_hard ();
      test_kept_buffers ();
    }
  test_progress_and_cancel ();
  test_errors ();
  test_environment ();

  printf ("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
