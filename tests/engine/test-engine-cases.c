/* One case of the engine suite against the double-precision reference
 * (reference.c): engines on the suite's backend, a blur compared with the
 * reference, its padding checked and its output hashed (--hash). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gblur.h"
#include "reference.h"
#include "test-engine.h"
#include "test-util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *
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
double
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

double
tolerance (gblur_sample s)
{
  return s == GBLUR_F32 ? 1e-4 : 1.0;
}

/* config with the environment's settings (GBLUR_CPU_ISA, ...) over it. */
gblur_config
with_env (gblur_config config)
{
  pixel_env_apply (&test_env, &config);
  return config;
}

/* An engine on the suite's backend; a CPU FFT mode or CUDA paths left out
 * that the test forces stand over the environment's. */
gblur_engine *
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

gblur_engine *
new_engine (size_t memory_limit, int threads)
{
  return new_engine_forced (memory_limit, threads, GBLUR_FFT_AUTO, 0);
}

/* Whether the engine takes the format: no sRGB curve on float data, no
 * alpha on one channel. */
int
format_valid (gblur_sample s, int c, unsigned flags)
{
  return !((flags & GBLUR_LINEAR_LIGHT) && s == GBLUR_F32) && !((flags & GBLUR_PREMULTIPLY_ALPHA) && c < 2);
}

/* The sigmas of params per axis (sigma > 0: both), and as text. */
void
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
void
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
void
blur_case (gblur_engine *engine, int w, int h, int c, gblur_sample s, double sigma,
           unsigned flags, size_t src_pad, size_t dst_pad, int pattern, const char *label)
{
  gblur_params params = { .sigma = sigma, .flags = flags };
  blur_case_params (engine, w, h, c, s, &params, src_pad, dst_pad, pattern, label);
}

/* One blur with a sigma per axis (gblur_params.sigma 0). */
void
blur_case_xy (gblur_engine *engine, int w, int h, int c, gblur_sample s, double sigma_x,
              double sigma_y, unsigned flags, size_t src_pad, size_t dst_pad, int pattern,
              const char *label)
{
  gblur_params params = { .sigma = 0, .flags = flags, .sigma_x = sigma_x, .sigma_y = sigma_y };
  blur_case_params (engine, w, h, c, s, &params, src_pad, dst_pad, pattern, label);
}

/* The window at (wx, wy) of src blurred into dst (its size) by
 * gblur_engine_run_window, against the same window of the reference: the
 * largest error (-1: dst's padding overwritten; 0 when the run failed),
 * with the run's status in *st. */
double
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

/* src blurred with params compared with the reference. */
void
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
