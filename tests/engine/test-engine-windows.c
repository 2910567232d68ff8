/* Windows and tiles: a window blurred on its own equals that window of
 * the whole image; small memory limits and thread counts (stripes, column
 * blocks); progress reports and a cancelled run. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gblur.h"
#include "gblur-internal.h"
#include "reference.h"
#include "test-engine.h"
#include "tuning.h"
#include "test-util.h"

#include <stdlib.h>
#include <string.h>

/* The CUDA backend's tiles for a 6000x4000 RGBA 16-bit layer in linear
 * light (8 bytes a stored pixel, 16 decoded) under the default limit: the
 * regions decoded first where that keeps the tiles, not where it would
 * read the halos many times over or not fit at all. */
void
test_cuda_tile_plan (void)
{
  static const struct { int radius, decode; } cases[] = { { 3, 1 }, { 300, 1 }, { 900, 0 }, { 1800, 0 },
                                                          { 4500, 0 } };
  const size_t budget = GBLUR_DEFAULT_MEMORY_LIMIT / 2;

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      int            r = cases[i].radius, decode = -1;
      gblur_geometry geo = { 6000, 4000, 0, 0, 6000, 4000, r, r };
      gblur_tiling   plain = { 0, 0 }, got = { 0, 0 };
      int            ok_plain = gblur_plan_tiles (&geo, budget, 8, 16, 8, 500, &plain);
      int            ok = gblur_plan_tiles_extra (&geo, budget, 8, 16, 16, 8, 500, &got, &decode);

      check (ok_plain && ok && decode == cases[i].decode
               && gblur_tiling_reads (&geo, &got) <= CUDA_DECODE_READ_GAIN * gblur_tiling_reads (&geo, &plain)
               && (decode || (got.tile_w == plain.tile_w && got.tile_h == plain.tile_h)),
             "cuda tile plan, radius %d: planned %d, decoded %d (want %d), tiles %dx%d (plain %dx%d)", r, ok,
             decode, cases[i].decode, got.tile_w, got.tile_h, plain.tile_w, plain.tile_h);
    }
  {
    gblur_geometry geo = { 6000, 4000, 0, 0, 6000, 4000, 100, 100 };
    gblur_tiling   whole = { 6000, 4000 }, halves = { 6000, 2000 };
    int            decode = -1;

    check (gblur_tiling_reads (&geo, &whole) == 6000.0 * 4000
             && gblur_tiling_reads (&geo, &halves) == 6000.0 * 2 * 2200
             && gblur_plan_tiles_extra (&geo, budget, 8, 0, 16, 8, 500, &whole, &decode) && decode == 0,
           "cuda tile plan: region pixels read, and nothing decoded without decoded bytes");
  }
}

/* Tiles and stripes: small memory limits force many stripes and column
 * blocks; several thread counts. */
void
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

/* A window of the source blurred on its own equals that window of the
 * whole-image blur: the halo around it is read, not clamped. */
void
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

void
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
