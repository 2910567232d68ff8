/* Errors and API misuse: each bad input gives its status and a message
 * and leaves the destination untouched. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gblur.h"
#include "test-engine.h"
#include "test-util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* A valid run's params: each case below changes one thing. */
static const gblur_params ok = { .sigma = 2.0, .flags = 0 };

/* One sigma out of range, NaN or infinite. */
static void
errors_sigma (gblur_engine *engine, gblur_image *src, gblur_image *dst)
{
  static const double bad_sigmas[] = { 0.0, 0.0999, -1.0, 1500.01, 1e9 };
  gblur_params        p;

  for (size_t i = 0; i < sizeof bad_sigmas / sizeof bad_sigmas[0]; i++)
    {
      p = ok;
      p.sigma = bad_sigmas[i];
      expect_error (engine, src, dst, &p, GBLUR_E_SIGMA, "sigma out of range");
    }
  p = ok; p.sigma = NAN;
  expect_error (engine, src, dst, &p, GBLUR_E_SIGMA, "sigma NaN");
  p = ok; p.sigma = INFINITY;
  expect_error (engine, src, dst, &p, GBLUR_E_SIGMA, "sigma inf");
}

/* A sigma per axis (sigma 0): each in [0, 1500], not NaN, not both 0; the
 * message names the axis. */
static void
errors_axis_sigmas (gblur_engine *engine, gblur_image *src, gblur_image *dst)
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
  gblur_params p;

  for (size_t i = 0; i < sizeof bad_axes / sizeof bad_axes[0]; i++)
    {
      p = ok;
      p.sigma = 0;
      p.sigma_x = bad_axes[i].sx;
      p.sigma_y = bad_axes[i].sy;
      expect_error (engine, src, dst, &p, GBLUR_E_SIGMA, bad_axes[i].what);
      check (strstr (gblur_engine_last_error (engine), bad_axes[i].says) != NULL,
             "error path '%s': message '%s' should say '%s'", bad_axes[i].what,
             gblur_engine_last_error (engine), bad_axes[i].says);
    }
  /* The one-sigma check keeps its message; sigma > 0 ignores sigma_x, sigma_y. */
  p = ok; p.sigma = 0.05; p.sigma_x = 1; p.sigma_y = 1;
  expect_error (engine, src, dst, &p, GBLUR_E_SIGMA, "sigma 0.05 with valid sigma_x, sigma_y");
  check (strstr (gblur_engine_last_error (engine), "sigma 0.05 is outside [0.1, 1500]") != NULL,
         "one-sigma message: '%s'", gblur_engine_last_error (engine));
  p = ok; p.sigma_x = NAN; p.sigma_y = -3;
  check (gblur_engine_run (engine, src, dst, &p, NULL) == GBLUR_OK,
         "sigma 2 ignores sigma_x NaN, sigma_y -3: %s", gblur_engine_last_error (engine));
  memset (dst->data, POISON, dst->stride * dst->height);
  /* the bounds themselves are valid */
  p = ok; p.sigma = 0; p.sigma_x = 1500; p.sigma_y = 0;
  check (gblur_engine_run (engine, src, dst, &p, NULL) == GBLUR_OK,
         "sigma_x 1500, sigma_y 0: %s", gblur_engine_last_error (engine));
  p.sigma_x = 0; p.sigma_y = 1500;
  check (gblur_engine_run (engine, src, dst, &p, NULL) == GBLUR_OK,
         "sigma_x 0, sigma_y 1500: %s", gblur_engine_last_error (engine));
  memset (dst->data, POISON, dst->stride * dst->height);
}

/* A window (8 x 4 of the 16 x 9 source) reaching outside the source. */
static void
errors_window_outside (gblur_engine *engine, gblur_image *src, gblur_image *dst)
{
  gblur_image win = *dst;
  win.width = 8;
  win.height = 4;
  static const int corners[][2] = { { -1, 0 }, { 0, -1 }, { 9, 0 }, { 0, 6 } };
  for (int i = 0; i < 4; i++)
    {
      unsigned char before[16 * 9 * 3];
      memcpy (before, dst->data, sizeof before);
      check (gblur_engine_run_window (engine, src, corners[i][0], corners[i][1], &win, &ok, NULL)
               == GBLUR_E_INVALID && memcmp (before, dst->data, sizeof before) == 0
               && *gblur_engine_last_error (engine),
             "window at (%d,%d) outside the source must be rejected", corners[i][0], corners[i][1]);
    }
}

/* NULL arguments, bad images and formats, overlapping buffers, unknown
 * options, options the format does not take. */
static void
errors_images (gblur_engine *engine, gblur_image *src, gblur_image *dst)
{
  gblur_image  bad;
  gblur_params p;

  expect_error (engine, NULL, dst, &ok, GBLUR_E_INVALID, "NULL source");
  expect_error (engine, src, NULL, &ok, GBLUR_E_INVALID, "NULL destination");
  expect_error (engine, src, dst, NULL, GBLUR_E_INVALID, "NULL params");
  bad = *src; bad.data = NULL;
  expect_error (engine, &bad, dst, &ok, GBLUR_E_INVALID, "NULL source data");
  bad = *src; bad.width = 0;
  expect_error (engine, &bad, dst, &ok, GBLUR_E_INVALID, "zero width");
  bad = *src; bad.height = -3;
  expect_error (engine, &bad, dst, &ok, GBLUR_E_INVALID, "negative height");
  bad = *src; bad.channels = 0;
  expect_error (engine, &bad, dst, &ok, GBLUR_E_FORMAT, "0 channels");
  bad = *src; bad.channels = 5;
  expect_error (engine, &bad, dst, &ok, GBLUR_E_FORMAT, "5 channels");
  bad = *src; bad.sample = (gblur_sample) 9;
  expect_error (engine, &bad, dst, &ok, GBLUR_E_FORMAT, "unknown sample type");
  bad = *src; bad.stride = 47;
  expect_error (engine, &bad, dst, &ok, GBLUR_E_INVALID, "stride smaller than a row");
  bad = *dst; bad.width = 15;
  expect_error (engine, src, &bad, &ok, GBLUR_E_INVALID, "size mismatch");
  errors_window_outside (engine, src, dst);
  bad = *dst; bad.sample = GBLUR_U16; bad.width = 8;
  expect_error (engine, src, &bad, &ok, GBLUR_E_INVALID, "sample mismatch");
  expect_error (engine, src, src, &ok, GBLUR_E_INVALID, "in place");
  bad = *dst; bad.data = (unsigned char *) src->data + 5;
  bad.height = 1;
  {
    gblur_image s1 = *src; s1.height = 1;
    expect_error (engine, &s1, &bad, &ok, GBLUR_E_INVALID, "overlapping buffers");
  }
  p = ok; p.flags = 1u << 7;
  expect_error (engine, src, dst, &p, GBLUR_E_INVALID, "unknown option bits");
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
  check (gblur_engine_run (NULL, src, dst, &ok, NULL) == GBLUR_E_INVALID, "NULL engine");
}

/* A memory limit too small for the radius. */
static void
errors_memory_limit (void)
{
  gblur_engine *engine = new_engine (4096, 1);
  gblur_image   big = make_image (400, 400, 4, GBLUR_F32, 0, 0);
  gblur_image   bd = make_poisoned_like (&big, 0);
  gblur_params  p;

  p = ok; p.sigma = 200;
  expect_error (engine, &big, &bd, &p, GBLUR_E_NOMEM, "memory limit too small");
  p = ok; p.sigma = 0; p.sigma_x = 200; p.sigma_y = 0;
  expect_error (engine, &big, &bd, &p, GBLUR_E_NOMEM, "memory limit too small, sigma_x 200");
  free (big.data);
  free (bd.data);
  gblur_engine_free (engine);
}

/* The CPU backend: device-resident runs need CUDA; describe, alloc_host. */
static void
errors_cpu_backend (gblur_image *src, gblur_image *dst)
{
  gblur_engine *engine = new_engine (0, 1);

  check (gblur_engine_run_device (engine, src, dst, &ok) == GBLUR_E_BACKEND
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

void
test_errors (void)
{
  gblur_engine *engine = new_engine (0, 2);
  gblur_image   src = make_image (16, 9, 3, GBLUR_U8, 0, 0);
  gblur_image   dst = make_poisoned_like (&src, 0);

  errors_sigma (engine, &src, &dst);
  errors_axis_sigmas (engine, &src, &dst);
  errors_images (engine, &src, &dst);
  gblur_engine_free (engine);
  errors_memory_limit ();
  if (backend == GBLUR_BACKEND_CPU)   /* device-resident runs need CUDA */
    errors_cpu_backend (&src, &dst);
  free (src.data);
  free (dst.data);
}
