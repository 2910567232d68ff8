/* CUDA: an engine that starts CUDA only for a long run (on any machine),
 * and with a GPU (built with HAVE_CUDA): device-resident images, agreement
 * with the CPU backend, each kernel family's paths. */
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

#ifdef HAVE_CUDA
#include <cuda_runtime.h>
#endif

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

/* Why CUDA can never start here, as an engine that starts it at once says
 * it ("no NVIDIA driver ...", "built without CUDA support"); NULL where it
 * may (a driver library is there). */
static const char *
cuda_never_reason (char *buf, size_t size)
{
  gblur_config  config = with_env ((gblur_config) { .backend = GBLUR_BACKEND_AUTO, .threads = 1 });
  gblur_engine *engine = gblur_engine_new (&config, NULL, NULL, 0);
  const char   *why = engine ? gblur_engine_cuda_unavailable_reason (engine) : "";
  int           never = strncmp (why, "no NVIDIA driver", 16) == 0
                        || strcmp (why, "built without CUDA support") == 0;

  snprintf (buf, size, "%s", why);
  gblur_engine_free (engine);
  return never ? buf : NULL;
}

/* A deferring engine where CUDA can never start gives that reason, not
 * "not started yet", and stays on the CPU when asked to start CUDA; where
 * it may start, it says it has not yet. */
void
test_deferred_reason (void)
{
  gblur_config  config = with_env ((gblur_config) { .backend = GBLUR_BACKEND_AUTO, .threads = 1,
                                                    .defer_cuda = 1 });
  gblur_engine *engine = gblur_engine_new (&config, NULL, NULL, 0);
  char          buf[256];
  const char   *never = cuda_never_reason (buf, sizeof buf);
  const char   *why = engine ? gblur_engine_cuda_unavailable_reason (engine) : "";

  check (engine && (never ? strcmp (why, never) == 0 : strstr (why, "CUDA not started yet") == why),
         "deferring engine: the reason CUDA waits or never starts: '%s' (at once: '%s')", why,
         never ? never : "CUDA may start");
  if (engine && never)
    check (gblur_engine_start_cuda (engine) == GBLUR_BACKEND_CPU
             && strcmp (gblur_engine_cuda_unavailable_reason (engine), never) == 0,
           "deferring engine, CUDA never starting: started at once, still '%s'",
           gblur_engine_cuda_unavailable_reason (engine));
  gblur_engine_free (engine);
}

/* gblur_config.defer_cuda: a small run stays on the CPU without starting
 * CUDA; a long one (one thread, 16-bit RGBA, sigma 120, on the direct loops)
 * hands the rows left to CUDA after its second progress step, or to the CPU
 * again where CUDA does not start; either way the image is the CPU engine's
 * within a level, and the progress reports run over the whole window.
 * --quick (and valgrind, which runs it) takes a quarter of the pixels: a
 * fast CPU may then finish it without handing over. */
void
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
           && *gblur_engine_cuda_unavailable_reason (engine),
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
void
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

/* CUDA against the CPU backend (cpu), host to host and in device memory:
 * one sigma for both axes, then a sigma per axis (sigma 0); as GIMP asks
 * for them (linear light, premultiplied), then stored as is (for 8-bit gray
 * and RGBA: the tensor cores). */
static void
cuda_vs_cpu (gblur_engine *engine, gblur_engine *cpu)
{
  static const double sigmas[][3] = { /* sigma, sigma_x, sigma_y */
    { 0.5, 0, 0 }, { 2, 0, 0 }, { 9, 0, 0 }, { 40, 0, 0 },
    { 0, 4, 1.5 }, { 0, 0.8, 7 }, { 0, 0, 3 }, { 0, 9, 0 }, { 0, 1, 0.9 }, { 0, 40, 2 }
  };

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
}

/* 8-bit RGBA in device memory at an odd address, rows an odd number of
 * bytes apart: the small-radius kernel reads words, so it must decline
 * and another path blur it (within a level of the CPU). */
static void
cuda_odd_address (gblur_engine *engine, gblur_engine *cpu)
{
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
}

/* 16-bit and float images in device memory whose rows or address are not
 * whole samples: refused, the engine (its CUDA context) still sound; then
 * the same images with rows of whole samples at an 8-byte offset. */
static void
cuda_misaligned_samples (gblur_engine *engine)
{
  gblur_params params = { .sigma = 2.5 };

  for (int f = 0; f < 2; f++)
    {
      gblur_sample s = f ? GBLUR_F32 : GBLUR_U16;
      gblur_image  src = make_image (189, 12, 4, s, 31, 0);
      gblur_image  out = make_poisoned_like (&src, 31);
      gblur_status st = run_in_device_memory (engine, &src, 0, &params, &out);

      check (st == GBLUR_E_INVALID, "%s rows of %zu bytes in device memory: status %s, not refused",
             sample_name (s), src.stride, gblur_status_name (st));
      free (src.data);
      free (out.data);
      src = make_image (189, 12, 4, s, 32, 0);
      out = make_poisoned_like (&src, 32);
      st = run_in_device_memory (engine, &src, 1, &params, &out);
      check (st == GBLUR_E_INVALID, "%s at an odd device address: status %s, not refused",
             sample_name (s), gblur_status_name (st));
      free (src.data);
      free (out.data);
      device_case (engine, 189, 12, 4, s, 32, 8, 0, &params, "after a refusal");
    }
}

/* A sigma per axis where one radius takes partial sums (256 and more) and
 * the other's sum of inputs is one GBLUR_SUM_CHUNK (radius 25..28): the
 * fused kernel lost that sum and wrote zeros (found by fuzz-cuda --seed
 * 1796630238 --case 1286, whose window comes first); then radii 24..29 on
 * each axis against a radius of 300 on the other. */
static void
cuda_one_chunk_sums (gblur_engine *engine)
{
  gblur_image  src = make_image (1193, 4, 4, GBLUR_U16, 0, 1);
  gblur_image  dst = make_poisoned (26, 1, &src, 0);
  gblur_params params = { .flags = GBLUR_PREMULTIPLY_ALPHA, .sigma_x = 9.13573, .sigma_y = 182.589 };
  gblur_status st;
  double       e = window_error (engine, &src, 1002, 0, &dst, &params, NULL, &st);

  check (st == GBLUR_OK && e >= 0 && e <= tolerance (GBLUR_U16),
         "window 26x1 at (1002,0) of 1193x4 c4 u16 sigma_x %g sigma_y %g premultiplied: status %s (%s), "
         "max error %g", params.sigma_x, params.sigma_y, gblur_status_name (st),
         gblur_engine_last_error (engine), e);
  for (int r = 24; r <= 29; r++)
    {
      blur_case_xy (engine, 61, 9, 4, GBLUR_U16, (r - 0.5) / 3.0, 100, GBLUR_PREMULTIPLY_ALPHA, 0, 0, 1,
                    "one-chunk sums across");
      blur_case_xy (engine, 9, 61, 4, GBLUR_U16, 100, (r - 0.5) / 3.0, GBLUR_PREMULTIPLY_ALPHA, 0, 0, 1,
                    "one-chunk sums down");
    }
  free (src.data);
  free (dst.data);
}

/* 16-bit codes in linear light, which the general kernels decode to floats
 * first: the vertical pass's tiled and direct forms, a sigma per axis (0 on
 * one), one to four channels, in device memory, and under memory limits
 * that cut a wide image into column tiles, each with its decoded region
 * (1 MiB: one to four channels but three decode; 1.5 MiB: three, four, and
 * two at sigma 15; test_cuda_tile_plan's planner), or not decoded. */
static void
cuda_decoded (gblur_engine *engine)
{
  static const double sigmas[][2] = { { 1, 1 }, { 5, 5 }, { 15, 15 }, { 60, 60 }, { 2, 40 }, { 40, 0 } };
  gblur_engine       *small = new_engine_forced ((size_t) 1 << 20, 0, GBLUR_FFT_AUTO, 0);
  gblur_engine       *medium = new_engine_forced ((size_t) 3 << 19, 0, GBLUR_FFT_AUTO, 0);

  for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++)
    for (int c = 1; c <= 4; c++)
      {
        unsigned     flags = GBLUR_LINEAR_LIGHT | (c % 2 == 0 ? GBLUR_PREMULTIPLY_ALPHA : 0);
        gblur_params params = { .sigma_x = sigmas[i][0], .sigma_y = sigmas[i][1], .flags = flags };

        blur_case_xy (engine, 211, 97, c, GBLUR_U16, sigmas[i][0], sigmas[i][1], flags, (size_t) c, 0,
                      (int) (i % 2), "u16 decoded");
        device_case (engine, 211, 97, c, GBLUR_U16, 8, 0, (int) (i % 2), &params, "u16 decoded");
        for (int m = 0; m < 2 && sigmas[i][0] <= 15; m++)
          blur_case_xy (m ? medium : small, 1500, 61, c, GBLUR_U16, sigmas[i][0], sigmas[i][1], flags, 0, 0, 1,
                        m ? "u16, column tiles under 1.5 MiB" : "u16, column tiles under 1 MiB");
      }
  /* The decoded buffer is kept: a larger job without linear light after it
   * must not take the decoded path (the buffer too small for it). */
  blur_case_xy (engine, 1500, 900, 4, GBLUR_U16, 12, 12, GBLUR_PREMULTIPLY_ALPHA, 0, 0, 1,
                "u16 without linear light after decoded ones");
  gblur_engine_free (small);
  gblur_engine_free (medium);
}

/* Device buffers kept from runs of other shapes (each filling another of
 * a set's buffers) stay under the memory limit together, and go with
 * release_kept. */
static void
cuda_kept_under_limit (void)
{
  const size_t  limit = (size_t) 4 << 20;
  gblur_engine *engine = new_engine_forced (limit, 0, GBLUR_FFT_AUTO, 0);

  for (int round = 0; round < 2; round++)
    {
      blur_case_xy (engine, 1500, 900, 4, GBLUR_U16, 12, 12, GBLUR_LINEAR_LIGHT, 0, 0, 1, "kept: u16 decoded");
      blur_case_xy (engine, 300, 900, 1, GBLUR_F32, 0, 60, 0, 0, 0, 1, "kept: float, tall halos");
      blur_case_xy (engine, 1500, 300, 4, GBLUR_U8, 60, 1, 0, 0, 0, 1, "kept: u8, wide halos");
      check (gblur_engine_kept_device_bytes (engine) <= limit,
             "device buffers kept after three shapes: %zu bytes, limit %zu",
             gblur_engine_kept_device_bytes (engine), limit);
    }
  gblur_engine_release_kept (engine);
  check (gblur_engine_kept_device_bytes (engine) == 0, "release_kept frees the device buffers");
  blur_case_xy (engine, 211, 97, 3, GBLUR_U16, 5, 5, GBLUR_LINEAR_LIGHT, 0, 0, 0, "a run after release_kept");
  gblur_engine_free (engine);
}

/* Pinned host buffers from alloc_host, and one freed and handed out again. */
static void
cuda_pinned (gblur_engine *engine)
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
  /* Kept larger buffers serve smaller runs: no new page-locked memory
   * (the pool emptied first, so only these two are kept). */
  gblur_engine_release_kept (engine);
  void *big[2] = { gblur_engine_alloc_host (engine, 8 << 20), gblur_engine_alloc_host (engine, 8 << 20) };
  gblur_engine_free_host (engine, big[0]);
  gblur_engine_free_host (engine, big[1]);
  void *small[2] = { gblur_engine_alloc_host (engine, 1 << 20), gblur_engine_alloc_host (engine, 1 << 20) };
  check ((small[0] == big[0] || small[0] == big[1]) && (small[1] == big[0] || small[1] == big[1])
           && small[0] != small[1],
         "kept page-locked buffers of 8 MiB serve runs of 1 MiB");
  gblur_engine_free_host (engine, small[0]);
  gblur_engine_free_host (engine, small[1]);
  /* The smallest that holds the request: 1 MiB from the 1 MiB one, 4 MiB from the 8. */
  gblur_engine_release_kept (engine);
  void *sized[2] = { gblur_engine_alloc_host (engine, 1 << 20), gblur_engine_alloc_host (engine, 8 << 20) };
  gblur_engine_free_host (engine, sized[1]);
  gblur_engine_free_host (engine, sized[0]);
  void *one = gblur_engine_alloc_host (engine, 1 << 20), *four = gblur_engine_alloc_host (engine, 4 << 20);
  check (one == sized[0] && four == sized[1], "a kept page-locked buffer of 1 MiB, not 8, serves 1 MiB");
  gblur_engine_free_host (engine, one);
  gblur_engine_free_host (engine, four);
}

/* Device-resident images and agreement with the CPU backend. */
void
test_cuda_specific (gblur_engine *engine)
{
  gblur_config  cpu_config = with_env ((gblur_config) { .backend = GBLUR_BACKEND_CPU, .no_fallback = 1 });
  gblur_engine *cpu = gblur_engine_new (&cpu_config, NULL, NULL, 0);

  cuda_vs_cpu (engine, cpu);
  cuda_odd_address (engine, cpu);
  cuda_misaligned_samples (engine);
  cuda_one_chunk_sums (engine);
  cuda_decoded (engine);
  cuda_kept_under_limit ();
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
  cuda_pinned (engine);
  gblur_engine_free (cpu);
}

/* The general kernels' two-pass path (vertical_* and horizontal_*, fused
 * kernel off) with a sigma per axis: tiled and direct forms, radius 0 on
 * either axis; and the one-channel cases again without the gray kernels
 * (which take only one sigma for both axes). */
void
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
