/* A huge image through the engine: 20000 x 20000 gray u8 by default.  Checks
 * the memory bound the engine promises (working memory under
 * config.memory_limit whatever the image size, so the process needs about
 * the caller's two images plus that) and a sample of output rows against the
 * double-precision reference.
 *   huge-image [--backend cpu|cuda] [--size N] [--sigma S] [--memory-limit MiB]
 *              [--threads N] [--rows K]
 * Prints the numbers and one "huge-image: PASS" or "huge-image: FAIL" line;
 * exit 0, 1, or 77 when --backend cuda finds no usable GPU.  Needs about
 * 2 N^2 bytes of memory plus the limit; not part of make check. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gblur.h"
#include "pixel-env.h"
#include "reference.h"
#include "../benchmarks/timing.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_CUDA
#include <cuda_runtime.h>
#endif

#define MIB (1024.0 * 1024.0)
/* Beyond images and working memory: code, tables, thread stacks and malloc
 * arenas on the host; allocation granularity on the device. */
#define HOST_SLACK   ((size_t) 64 << 20)
#define DEVICE_SLACK ((size_t) 16 << 20)

/* Resident set now (Linux), bytes; 0 if unknown. */
static size_t
rss_now (void)
{
  FILE         *f = fopen ("/proc/self/statm", "r");
  unsigned long size = 0, resident = 0;

  if (!f)
    return 0;
  if (fscanf (f, "%lu %lu", &size, &resident) != 2)
    resident = 0;
  fclose (f);
  return (size_t) resident * (size_t) sysconf (_SC_PAGESIZE);
}

/* Peak resident set of the process so far, bytes. */
static size_t
rss_peak (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return (size_t) ru.ru_maxrss * 1024;   /* kilobytes on Linux */
}

typedef struct {
  int    calls;
  size_t host_max;     /* resident set seen during the run */
  size_t device_max;   /* device memory in use seen during the run */
} watch;

static size_t
device_used (void)
{
#ifdef HAVE_CUDA
  size_t free_b = 0, total = 0;
  if (cudaMemGetInfo (&free_b, &total) == cudaSuccess)
    return total - free_b;
  cudaGetLastError ();
#endif
  return 0;
}

static int use_cuda;

/* Samples memory after each stripe: the engine's buffers are all held then. */
static int
on_progress (int rows_done, int rows_total, void *data)
{
  watch *w = data;
  size_t h = rss_now (), d = use_cuda ? device_used () : 0;

  (void) rows_done;
  (void) rows_total;
  w->calls++;
  if (h > w->host_max)
    w->host_max = h;
  if (d > w->device_max)
    w->device_max = d;
  return 0;
}

/* Output row y, columns [x0, x0 + n), against the reference evaluated on the
 * crop those outputs read (the radius around them, clamped to the image):
 * inside the crop the clamping is the image's, so the values are the same. */
static double
row_error (const gblur_image *src, const gblur_image *dst, double sigma, int y, int x0, int n)
{
  const int   r = gblur_radius (sigma);
  const int   y0 = y - r < 0 ? 0 : y - r, y1 = y + r >= src->height ? src->height - 1 : y + r;
  const int   cx0 = x0 - r < 0 ? 0 : x0 - r;
  const int   cx1 = x0 + n - 1 + r >= src->width ? src->width - 1 : x0 + n - 1 + r;
  gblur_image crop = *src;
  double     *ref, worst = 0;

  crop.data = (unsigned char *) src->data + (size_t) y0 * src->stride + (size_t) cx0;
  crop.width = cx1 - cx0 + 1;
  crop.height = y1 - y0 + 1;
  ref = malloc ((size_t) crop.width * crop.height * sizeof *ref);
  if (!ref)
    return INFINITY;
  reference_blur (&crop, sigma, 0, ref);
  for (int x = x0; x < x0 + n; x++)
    {
      double e = fabs (reference_sample (dst, x, y, 0)
                       - ref[(size_t) (y - y0) * crop.width + (x - cx0)]);
      if (!(e <= worst))
        worst = isnan (e) ? INFINITY : e;
    }
  free (ref);
  return worst;
}

int
main (int argc, char **argv)
{
  int           size = 20000, threads = 0, check_rows = 3;
  double        sigma = 3.0;
  size_t        limit_arg = 0;
  gblur_backend backend = GBLUR_BACKEND_CPU;

  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (strcmp (a, "--backend") == 0 && v)
        backend = strcmp (v, "cuda") == 0 ? GBLUR_BACKEND_CUDA : GBLUR_BACKEND_CPU;
      else if (strcmp (a, "--size") == 0 && v)
        size = atoi (v);
      else if (strcmp (a, "--sigma") == 0 && v)
        sigma = atof (v);
      else if (strcmp (a, "--memory-limit") == 0 && v)
        limit_arg = (size_t) atol (v) << 20;
      else if (strcmp (a, "--threads") == 0 && v)
        threads = atoi (v);
      else if (strcmp (a, "--rows") == 0 && v)
        check_rows = atoi (v);
      else
        {
          fprintf (stderr, "usage: %s [--backend cpu|cuda] [--size N] [--sigma S] "
                   "[--memory-limit MiB] [--threads N] [--rows K]\n", argv[0]);
          return 2;
        }
      i++;
    }
  if (size < 1 || check_rows < 0)
    {
      fprintf (stderr, "huge-image: bad --size or --rows\n");
      return 2;
    }
  use_cuda = backend == GBLUR_BACKEND_CUDA;

  size_t        dev_at_start = use_cuda ? device_used () : 0;
  gblur_config  config = { .backend = backend, .memory_limit = limit_arg, .threads = threads,
                           .no_fallback = 1 };
  gblur_status  st;
  char          msg[300];
  PixelEnv      env;   /* GBLUR_THREADS, GBLUR_CPU_ISA and the like */
  if (!pixel_env_read (&env, msg, sizeof msg))
    {
      fprintf (stderr, "huge-image: %s\n", msg);
      return 2;
    }
  pixel_env_apply (&env, &config);
  gblur_engine *engine = gblur_engine_new (&config, &st, msg, sizeof msg);
  if (!engine)
    {
      if (use_cuda)
        {
          printf ("skipped: no CUDA device (%s)\n", msg);
          return 77;
        }
      printf ("huge-image: FAIL: no engine: %s\n", msg);
      return 1;
    }
  const size_t limit = limit_arg ? limit_arg : (size_t) 512 << 20;   /* the engine's default */
  size_t       dev_after_new = use_cuda ? device_used () : 0;

  /* Warm up on a small image: threads started, tables built, kernels loaded,
   * so the baseline is the engine at rest. */
  {
    gblur_image  s = { NULL, 64, 64, 64, 1, GBLUR_U8 }, d;
    gblur_params p = { .sigma = sigma, .flags = 0 };
    s.data = calloc (64, 64);
    d = s;
    d.data = calloc (64, 64);
    st = gblur_engine_run (engine, &s, &d, &p, NULL);
    free (s.data);
    free (d.data);
    if (st != GBLUR_OK)
      {
        printf ("huge-image: FAIL: warm-up run: %s\n", gblur_engine_last_error (engine));
        return 1;
      }
  }
  const size_t host_base = rss_now ();
  const size_t dev_base = use_cuda ? device_used () : 0;

  const size_t stride = (size_t) size;
  const size_t image_bytes = stride * size;
  gblur_image  src = { NULL, stride, size, size, 1, GBLUR_U8 };
  gblur_image  dst = src;
  src.data = gblur_engine_alloc_host (engine, image_bytes);
  dst.data = gblur_engine_alloc_host (engine, image_bytes);
  if (!src.data || !dst.data)
    {
      printf ("huge-image: FAIL: cannot allocate two %.0f MiB images\n", image_bytes / MIB);
      return 1;
    }
  /* Noise over a gradient: every row and column differs. */
  {
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int y = 0; y < size; y++)
      {
        unsigned char *row = (unsigned char *) src.data + (size_t) y * stride;
        for (int x = 0; x < size; x++)
          {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            row[x] = (unsigned char) (((x + y) >> 6) * 7 + (int) (s % 64));
          }
      }
  }

  watch        w = { 0, 0, 0 };
  gblur_params params = { .sigma = sigma, .flags = 0, .progress = on_progress, .user_data = &w };
  gblur_result result;
  double       t0 = now_ms () / 1e3;
  st = gblur_engine_run (engine, &src, &dst, &params, &result);
  double       elapsed = now_ms () / 1e3 - t0;
  const size_t host_peak = rss_peak ();   /* before the reference's own buffers */
  const size_t dev_after = use_cuda ? device_used () : 0;

  int ok = st == GBLUR_OK && result.rows_valid == size && w.calls > 0;
  printf ("huge-image: %dx%d gray u8, sigma %g, %s, memory limit %.0f MiB: %s in %.2f s (%.0f Mpix/s), "
          "%d progress calls\n", size, size, sigma, gblur_engine_describe (engine), limit / MIB,
          gblur_status_name (st), elapsed, (double) size * size / elapsed / 1e6, w.calls);
  if (st != GBLUR_OK)
    printf ("  error: %s\n", gblur_engine_last_error (engine));

  /* Host: the peak over the engine at rest stays within the two images plus
   * the working memory (the CUDA backend keeps none on the host). */
  {
    size_t bound = host_base + 2 * image_bytes + limit + HOST_SLACK;
    int    host_ok = host_peak <= bound;
    printf ("  host: peak RSS %.0f MiB (ru_maxrss; %.0f MiB seen during the run), base %.0f MiB; "
            "bound %.0f MiB = base + 2 images %.0f + limit %.0f + slack %.0f: %s\n",
            host_peak / MIB, w.host_max / MIB, host_base / MIB, bound / MIB,
            2 * image_bytes / MIB, limit / MIB, HOST_SLACK / MIB, host_ok ? "ok" : "EXCEEDED");
    ok &= host_ok;
  }
  if (use_cuda)
    {
      size_t peak = w.device_max > dev_after ? w.device_max : dev_after;
      size_t over = peak > dev_base ? peak - dev_base : 0;
      int    dev_ok = over <= limit + DEVICE_SLACK && w.device_max > 0;
      printf ("  device: in use %.0f MiB at start, %.0f after engine creation, %.0f at rest (base), "
              "%.0f peak during the run, %.0f after; peak - base %.0f MiB, bound limit %.0f + "
              "slack %.0f: %s\n", dev_at_start / MIB, dev_after_new / MIB, dev_base / MIB,
              w.device_max / MIB, dev_after / MIB, over / MIB, limit / MIB, DEVICE_SLACK / MIB,
              dev_ok ? "ok" : "EXCEEDED");
      ok &= dev_ok;
    }

  /* Sample rows: the first, the last and random ones, 2000 columns each
   * (the first and last columns included). */
  if (st == GBLUR_OK)
    {
      srand ((unsigned) time (NULL));
      double worst = 0;
      int    checked = 0;
      for (int k = 0; k < check_rows + 2; k++)
        {
          int    y = k == 0 ? 0 : k == 1 ? size - 1 : rand () % size;
          int    n = size < 2000 ? size : 2000;
          int    x0 = k == 0 ? 0 : k == 1 ? size - n : rand () % (size - n + 1);
          double e = row_error (&src, &dst, sigma, y, x0, n);
          printf ("  row %d, columns %d..%d: max error %.3f LSB\n", y, x0, x0 + n - 1, e);
          worst = e > worst || isnan (e) ? e : worst;
          checked++;
        }
      int rows_ok = worst <= 1.0;
      printf ("  %d rows against the reference: max error %.3f LSB (tolerance 1): %s\n", checked,
              worst, rows_ok ? "ok" : "WRONG");
      ok &= rows_ok;
    }

  printf ("huge-image: %s\n", ok ? "PASS" : "FAIL");
  gblur_engine_free_host (engine, src.data);
  gblur_engine_free_host (engine, dst.data);
  gblur_engine_free (engine);
  return ok ? 0 : 1;
}
