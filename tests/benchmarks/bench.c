/* The engine's benchmark: times each backend over a fixed matrix and prints
 * a table with the time, the throughput and, on the GPU, the floor: the
 * time the row cannot beat on this device, from
 *   memory:  bytes read + written at the device-to-device copy rate measured
 *            here first (host-to-host rows: the pinned upload and download
 *            rates, the two directions overlapping),
 *   compute: a direct separable FIR, 2 passes x (2r + 1) FMAs per sample,
 *            at the FP32 FMA peak (SMs x 128 lanes x clock),
 * whichever is larger; "of floor" is floor / time (1.0 = at the floor).
 * Host-to-host runs use the engine's host allocator (pinned memory on CUDA);
 * device-resident runs rotate through input buffers larger than the GPU's L2
 * cache.  Inputs are random, never all zeros.
 *
 * Built with HAVE_NPP (tests/gpu/gpu-check.sh does where NPP is installed), the
 * "npp" rows time nppiFilterGaussAdvancedBorder with the engine's own taps
 * and replicated borders on the same device-resident buffers, and give the
 * largest difference from the engine's output in levels.
 *
 *   bench [--backend cpu|cuda|cuda-device|npp|all] [--size N|WxH]... [--sigma S]...
 *         [--format gray|rgba|grayf|layer|opaque|gray16|layer16|opaque16|all] [--reps N]
 */
#include "gblur.h"
#include "pixel-env.h"
#include "timing.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_CUDA
#include <cuda_runtime.h>
#endif
#ifdef HAVE_NPP
#include <nppi_filtering_functions.h>
#endif

static void
fill_random (unsigned char *p, size_t n, uint64_t seed)
{
  uint64_t s = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; i++)
    {
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      p[i] = (unsigned char) (s >> 24);
    }
}

/* Float images hold values in [0, 1]; 16-bit ones two random bytes a sample. */
static void
fill_random_image (void *p, size_t samples, gblur_sample sample, uint64_t seed)
{
  if (sample == GBLUR_U8)
    fill_random (p, samples, seed);
  else if (sample == GBLUR_U16)
    fill_random (p, 2 * samples, seed);
  else
    {
      unsigned char *bytes = malloc (samples);
      fill_random (bytes, samples, seed);
      for (size_t i = 0; i < samples; i++)
        ((float *) p)[i] = bytes[i] / 255.0f;
      free (bytes);
    }
}

typedef enum { RUN_CPU, RUN_CUDA, RUN_CUDA_DEVICE, RUN_NPP, RUN_KINDS } run_kind;
static const char *run_names[] = { "cpu", "cuda", "cuda-device", "npp" };

typedef struct {
  const char  *name;
  int          channels;
  gblur_sample sample;
  unsigned     flags;
  int          opaque;   /* every alpha 255 */
} format;

/* "RGBA8 layer": what GIMP asks for an 8-bit layer with alpha (linear
 * light, premultiplied alpha), and the same layer opaque (alpha added to a
 * photo); the other rows blur the stored values. */
static const format formats[] = {
  { "gray8", 1, GBLUR_U8, 0, 0 },
  { "RGBA8", 4, GBLUR_U8, 0, 0 },
  { "grayf", 1, GBLUR_F32, 0, 0 },
  { "RGBA8 layer", 4, GBLUR_U8, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, 0 },
  { "RGBA8 opaque layer", 4, GBLUR_U8, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, 1 },
  { "gray16 linear", 1, GBLUR_U16, GBLUR_LINEAR_LIGHT, 0 },
  { "RGBA16 layer", 4, GBLUR_U16, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, 0 },
  { "RGBA16 opaque layer", 4, GBLUR_U16, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, 1 },
};
#define NFORMATS 8

/* An image's width and height. */
typedef struct {
  int w, h;
} dims;

/* An opaque format's alphas are full scale. */
static void
fill_format (void *p, size_t samples, const format *f, uint64_t seed)
{
  fill_random_image (p, samples, f->sample, seed);
  if (f->opaque)
    for (size_t i = (size_t) f->channels - 1; i < samples; i += (size_t) f->channels)
      {
        if (f->sample == GBLUR_U16)
          ((uint16_t *) p)[i] = 65535;
        else
          ((unsigned char *) p)[i] = 255;
      }
}

/* What this GPU can do at most, measured or read once. */
typedef struct {
  double copy_gbs;   /* device-to-device, bytes read + written per second / 1e9 */
  double up_gbs;     /* pinned host -> device */
  double down_gbs;   /* device -> pinned host */
  double fma_per_s;  /* FP32 FMA lanes x clock */
} device_limits;

#ifdef HAVE_CUDA
/* Times work queued on the default stream between start and stop. */
typedef struct {
  cudaEvent_t start, stop;
} gpu_timer;

static void
timer_start (gpu_timer *t)
{
  cudaEventCreate (&t->start);
  cudaEventCreate (&t->stop);
  cudaEventRecord (t->start, 0);
}

/* Milliseconds since timer_start, once the work queued since is done. */
static double
timer_stop_ms (gpu_timer *t)
{
  float ms = 0;

  cudaEventRecord (t->stop, 0);
  cudaEventSynchronize (t->stop);
  cudaEventElapsedTime (&ms, t->start, t->stop);
  cudaEventDestroy (t->start);
  cudaEventDestroy (t->stop);
  return ms;
}

static double
time_copy_ms (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
  double t[5];
  cudaMemcpy (dst, src, bytes, kind);   /* warm-up */
  for (int i = 0; i < 5; i++)
    {
      gpu_timer timer;
      timer_start (&timer);
      cudaMemcpyAsync (dst, src, bytes, kind, 0);
      t[i] = timer_stop_ms (&timer);
    }
  return median_ms (t, 5);
}

static void
measure_limits (device_limits *lim)
{
  const size_t bytes = (size_t) 256 << 20;
  void        *a = NULL, *b = NULL, *h = NULL;
  int          dev = 0, sms = 0, khz = 0;

  memset (lim, 0, sizeof *lim);
  cudaGetDevice (&dev);
  if (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess
      && cudaDeviceGetAttribute (&khz, cudaDevAttrClockRate, dev) == cudaSuccess)
    lim->fma_per_s = (double) sms * 128 * khz * 1e3;
  if (cudaMalloc (&a, bytes) == cudaSuccess && cudaMalloc (&b, bytes) == cudaSuccess
      && cudaMallocHost (&h, bytes) == cudaSuccess)
    {
      cudaMemset (a, 1, bytes);
      lim->copy_gbs = 2.0 * bytes / (time_copy_ms (b, a, bytes, cudaMemcpyDeviceToDevice) * 1e6);
      lim->up_gbs = bytes / (time_copy_ms (a, h, bytes, cudaMemcpyHostToDevice) * 1e6);
      lim->down_gbs = bytes / (time_copy_ms (h, a, bytes, cudaMemcpyDeviceToHost) * 1e6);
    }
  cudaGetLastError ();
  cudaFree (a);
  cudaFree (b);
  cudaFreeHost (h);
  printf ("Floors on this GPU: device copy %.0f GB/s (read + write), pinned upload %.1f GB/s, "
          "download %.1f GB/s, FP32 FMA peak %.1f T/s\n\n",
          lim->copy_gbs, lim->up_gbs, lim->down_gbs, lim->fma_per_s / 1e12);
}
#endif

/* The floor of one row in ms and which limit binds; 0 when unknown. */
static double
floor_ms (const device_limits *lim, run_kind kind, dims size, const format *f, double sigma,
          const char **bound)
{
  double samples = (double) size.w * size.h * f->channels;
  double bytes = samples * gblur_sample_size (f->sample);
  double mem = 0, compute = 0;

  if (kind == RUN_CPU || !lim->copy_gbs)
    return 0;
  if (kind == RUN_CUDA)
    {
      double up = bytes / (lim->up_gbs * 1e6), down = bytes / (lim->down_gbs * 1e6);
      mem = up > down ? up : down;
    }
  else
    mem = 2 * bytes / (lim->copy_gbs * 1e6);
  if (lim->fma_per_s)
    compute = samples * 2 * (2 * gblur_radius (sigma) + 1) / lim->fma_per_s * 1e3;
  *bound = mem >= compute ? (kind == RUN_CUDA ? "PCIe" : "memory") : "FP32";
  return mem >= compute ? mem : compute;
}

#ifdef HAVE_NPP
/* NPP on the same buffers, with the engine's taps (full 2r + 1 of them). */
typedef struct {
  NppStreamContext ctx;
  float           *taps;   /* device */
  int              ntaps;
} npp_setup;

static int
npp_prepare (npp_setup *n, double sigma)
{
  int            dev = 0, r = gblur_radius (sigma);
  struct cudaDeviceProp prop;
  double        *w = malloc ((size_t) (2 * r + 1) * sizeof *w);
  float         *h = malloc ((size_t) (2 * r + 1) * sizeof *h);
  double         sum = 0;

  memset (n, 0, sizeof *n);
  cudaGetDevice (&dev);
  cudaGetDeviceProperties (&prop, dev);
  n->ctx.hStream = 0;
  n->ctx.nCudaDeviceId = dev;
  n->ctx.nMultiProcessorCount = prop.multiProcessorCount;
  n->ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  n->ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  n->ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
  n->ctx.nCudaDevAttrComputeCapabilityMajor = prop.major;
  n->ctx.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  cudaStreamGetFlags (0, &n->ctx.nStreamFlags);
  /* the engine's definition (gblur.h): sampled, normalised, radius ceil(3 sigma) */
  for (int k = -r; k <= r; k++)
    sum += w[k + r] = exp (-(double) k * k / (2 * sigma * sigma));
  for (int k = 0; k <= 2 * r; k++)
    h[k] = (float) (w[k] / sum);
  n->ntaps = 2 * r + 1;
  int ok = cudaMalloc ((void **) &n->taps, (size_t) n->ntaps * sizeof (float)) == cudaSuccess
           && cudaMemcpy (n->taps, h, (size_t) n->ntaps * sizeof (float), cudaMemcpyHostToDevice) == cudaSuccess;
  free (w);
  free (h);
  return ok;
}

static NppStatus
npp_blur (const npp_setup *n, const void *src, void *dst, dims size, int channels)
{
  NppiSize  whole = { size.w, size.h };
  NppiPoint origin = { 0, 0 };
  if (channels == 1)
    return nppiFilterGaussAdvancedBorder_8u_C1R_Ctx (src, size.w, whole, origin, dst, size.w, whole, n->ntaps,
                                                    n->taps, NPP_BORDER_REPLICATE, n->ctx);
  return nppiFilterGaussAdvancedBorder_8u_C4R_Ctx (src, size.w * 4, whole, origin, dst, size.w * 4, whole,
                                                  n->ntaps, n->taps, NPP_BORDER_REPLICATE, n->ctx);
}
#endif

#ifdef HAVE_NPP
/* Largest |a - b| over two device images of `bytes` u8 samples. */
static int
max_difference (const void *a, const void *b, size_t bytes)
{
  unsigned char *ha = malloc (bytes), *hb = malloc (bytes);
  int            worst = -1;
  if (ha && hb && cudaMemcpy (ha, a, bytes, cudaMemcpyDeviceToHost) == cudaSuccess
      && cudaMemcpy (hb, b, bytes, cudaMemcpyDeviceToHost) == cudaSuccess)
    {
      worst = 0;
      for (size_t i = 0; i < bytes; i++)
        {
          int d = abs ((int) ha[i] - (int) hb[i]);
          worst = d > worst ? d : worst;
        }
    }
  free (ha);
  free (hb);
  return worst;
}
#endif

/* Median of `reps` timed runs after one warm-up, in ms; < 0 on error or
 * when the row does not apply.  *diff: NPP's largest difference from the
 * engine, in levels (-1 when not measured). */
static double
time_case (gblur_engine *engine, run_kind kind, dims size, const format *f, double sigma, int reps,
           int *diff)
{
  gblur_params params = { .sigma = sigma, .flags = f->flags };
  size_t       samples = (size_t) size.w * size.h * f->channels;
  size_t       bytes = samples * gblur_sample_size (f->sample);
  double      *t = calloc ((size_t) reps, sizeof *t);
  double       result = -1;
  gblur_image  src = { NULL, (size_t) size.w * f->channels * gblur_sample_size (f->sample), size.w, size.h,
                       f->channels, f->sample };
  gblur_image  dst = src;

  *diff = -1;
  if (kind == RUN_CPU || kind == RUN_CUDA)
    {
      src.data = gblur_engine_alloc_host (engine, bytes);
      dst.data = gblur_engine_alloc_host (engine, bytes);
      if (src.data && dst.data)
        {
          fill_format (src.data, samples, f, (uint64_t) size.w + f->channels);
          if (gblur_engine_run (engine, &src, &dst, &params, NULL) == GBLUR_OK)
            {
              for (int i = 0; i < reps; i++)
                {
                  double t0 = now_ms ();
                  gblur_engine_run (engine, &src, &dst, &params, NULL);
                  t[i] = now_ms () - t0;
                }
              result = median_ms (t, reps);
            }
          else
            fprintf (stderr, "run failed: %s\n", gblur_engine_last_error (engine));
        }
      gblur_engine_free_host (engine, src.data);
      gblur_engine_free_host (engine, dst.data);
    }
#ifdef HAVE_CUDA
  else
    {
      /* Enough inputs to cover 256 MB, so no run finds its input in L2. */
      int    nbuf = (int) ((256u << 20) / bytes) + 1;
      void **in;
      void  *out = NULL, *ref = NULL;
      int    ok = 1;
#ifdef HAVE_NPP
      npp_setup npp;
#endif
      if (kind == RUN_NPP)
        {
#ifdef HAVE_NPP
          if (f->sample != GBLUR_U8 || !npp_prepare (&npp, sigma))
#endif
            {
              free (t);
              return -1;
            }
        }
      nbuf = nbuf < 2 ? 2 : nbuf > 64 ? 64 : nbuf;
      in = calloc ((size_t) nbuf, sizeof *in);
      unsigned char *host = malloc (bytes);
      fill_format (host, samples, f, 7);
      for (int b = 0; b < nbuf && ok; b++)
        {
          ok = cudaMalloc (&in[b], bytes) == cudaSuccess;
          if (ok)
            {
              host[0] = (unsigned char) b;  /* each buffer differs */
              cudaMemcpy (in[b], host, bytes, cudaMemcpyHostToDevice);
            }
        }
      ok = ok && cudaMalloc (&out, bytes) == cudaSuccess && cudaMalloc (&ref, bytes) == cudaSuccess;
      if (ok)
        {
          dst.data = out;
          src.data = in[0];
          if (kind == RUN_NPP)
            {
#ifdef HAVE_NPP
              ok = npp_blur (&npp, in[0], out, size, f->channels) == NPP_SUCCESS;
              if (!ok)
                fprintf (stderr, "NPP failed at sigma %g\n", sigma);
              /* the engine's answer on the same input, to compare */
              dst.data = ref;
              if (ok && gblur_engine_run_device (engine, &src, &dst, &params) == GBLUR_OK)
                *diff = max_difference (out, ref, bytes);
#endif
            }
          else
            {
              ok = gblur_engine_run_device (engine, &src, &dst, &params) == GBLUR_OK;
              if (!ok)
                fprintf (stderr, "run failed: %s\n", gblur_engine_last_error (engine));
            }
          for (int i = 0; ok && i < reps; i++)
            {
              gpu_timer timer;
              src.data = in[(i + 1) % nbuf];
              dst.data = out;
              cudaDeviceSynchronize ();
              timer_start (&timer);
              if (kind == RUN_NPP)
                {
#ifdef HAVE_NPP
                  npp_blur (&npp, src.data, out, size, f->channels);
#endif
                }
              else
                gblur_engine_run_device (engine, &src, &dst, &params);
              t[i] = timer_stop_ms (&timer);
            }
          if (ok)
            result = median_ms (t, reps);
        }
#ifdef HAVE_NPP
      if (kind == RUN_NPP)
        cudaFree (npp.taps);
#endif
      for (int b = 0; b < nbuf; b++)
        cudaFree (in[b]);
      cudaFree (out);
      cudaFree (ref);
      free (in);
      free (host);
    }
#endif
  free (t);
  return result;
}

int
main (int argc, char **argv)
{
  dims          sizes[8];
  int           nsizes = 0;
  double        sigmas[16];
  int           nsigmas = 0;
  int           want[RUN_KINDS] = { 1, 1, 1, 1 };
  int           want_format[NFORMATS] = { 1, 1, 0, 0, 0, 0, 0, 0 };
  int           reps = 0, header = 0;
  device_limits lim;
  PixelEnv      env;   /* GBLUR_THREADS, GBLUR_CPU_ISA and the like */
  char          env_error[300];

  memset (&lim, 0, sizeof lim);
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (!v)
        goto usage;
      i++;
      if (strcmp (a, "--size") == 0 && nsizes < 8)
        {
          sizes[nsizes].w = atoi (v);
          sizes[nsizes].h = strchr (v, 'x') ? atoi (strchr (v, 'x') + 1) : sizes[nsizes].w;
          nsizes++;
        }
      else if (strcmp (a, "--sigma") == 0 && nsigmas < 16)
        sigmas[nsigmas++] = atof (v);
      else if (strcmp (a, "--reps") == 0)
        reps = atoi (v);
      else if (strcmp (a, "--backend") == 0)
        for (int k = 0; k < RUN_KINDS; k++)
          want[k] = strcmp (v, "all") == 0 || strcmp (v, run_names[k]) == 0;
      else if (strcmp (a, "--format") == 0)
        {
          int all = strcmp (v, "all") == 0;
          want_format[0] = all || strcmp (v, "gray") == 0;
          want_format[1] = all || strcmp (v, "rgba") == 0;
          want_format[2] = all || strcmp (v, "grayf") == 0;
          want_format[3] = all || strcmp (v, "layer") == 0;
          want_format[4] = all || strcmp (v, "opaque") == 0;
          want_format[5] = all || strcmp (v, "gray16") == 0;
          want_format[6] = all || strcmp (v, "layer16") == 0;
          want_format[7] = all || strcmp (v, "opaque16") == 0;
        }
      else
        goto usage;
    }
  if (!pixel_env_read (&env, env_error, sizeof env_error))
    {
      fprintf (stderr, "bench: %s\n", env_error);
      return 2;
    }
  if (!nsizes)
    {
      sizes[0] = (dims) { 1024, 1024 };
      sizes[1] = (dims) { 4096, 4096 };
      sizes[2] = (dims) { 8192, 8192 };
      nsizes = 3;
    }
  if (!nsigmas)
    {
      static const double d[] = { 1, 2, 5, 10, 20, 50, 100 };
      memcpy (sigmas, d, sizeof d);
      nsigmas = 7;
    }

  for (int k = 0; k < RUN_KINDS; k++)
    {
      if (!want[k])
        continue;
#ifndef HAVE_NPP
      if (k == RUN_NPP)
        {
          if (want[RUN_CPU] + want[RUN_CUDA] + want[RUN_CUDA_DEVICE] == 0)
            printf ("npp: skipped: built without NPP\n");
          continue;
        }
#endif
      gblur_config  config = { .backend = k == RUN_CPU ? GBLUR_BACKEND_CPU : GBLUR_BACKEND_CUDA, .no_fallback = 1 };
      gblur_status  st;
      char          msg[300];
      gblur_engine *engine;

      pixel_env_apply (&env, &config);
      engine = gblur_engine_new (&config, &st, msg, sizeof msg);
      if (!engine)
        {
          printf ("%s: skipped: %s\n", run_names[k], msg);
          continue;
        }
#ifdef HAVE_CUDA
      if (k != RUN_CPU && !lim.copy_gbs)
        measure_limits (&lim);
#endif
      if (!header++)
        {
          printf ("| backend | device | format | size | sigma | ms (median) | Gpix/s | floor ms (bound) | of floor |\n");
          printf ("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        }
      for (int f = 0; f < NFORMATS; f++)
        for (int s = 0; s < nsizes; s++)
          for (int g = 0; g < nsigmas; g++)
            {
              const format *fm = &formats[f];
              const char   *bound = "";
              int           diff;
              char          size[32];
              if (!want_format[f] || (k == RUN_NPP && (fm->sample != GBLUR_U8 || fm->flags)))
                continue;
              /* NPP takes seconds per call past these (184 ms at sigma 10 on an H200) */
              if (sizes[s].w == sizes[s].h)
                snprintf (size, sizeof size, "%d²", sizes[s].w);
              else
                snprintf (size, sizeof size, "%d×%d", sizes[s].w, sizes[s].h);
              if (k == RUN_NPP && sigmas[g] > (fm->channels == 1 ? 20 : 10))
                {
                  printf ("| npp | not timed: seconds per call | %s | %s | %g | | | | |\n", fm->name, size,
                          sigmas[g]);
                  continue;
                }
              double mpix = (double) sizes[s].w * sizes[s].h / 1e6;
              /* NPP collapses past sigma 5 (184 ms at sigma 10 on an H200): a few runs */
              int    r = reps ? reps : k == RUN_CPU ? (mpix > 20 ? 3 : 5) : k == RUN_NPP && sigmas[g] > 5 ? 3 : 21;
              double ms = time_case (engine, (run_kind) k, sizes[s], fm, sigmas[g], r, &diff);
              double fl = floor_ms (&lim, (run_kind) k, sizes[s], fm, sigmas[g], &bound);
              const char *dev = k == RUN_NPP ? "nppiFilterGaussAdvancedBorder" : gblur_engine_describe (engine);
              char  extra[64] = "";
              if (diff >= 0)
                snprintf (extra, sizeof extra, " (max diff %d)", diff);
              if (ms < 0)
                printf ("| %s | %s | %s | %s | %g | error | | | |\n", run_names[k], dev, fm->name,
                        size, sigmas[g]);
              else if (fl > 0)
                printf ("| %s | %s | %s | %s | %g | %.3f%s | %.1f | %.3f (%s) | %.2f |\n", run_names[k], dev,
                        fm->name, size, sigmas[g], ms, extra, mpix / ms, fl, bound, fl / ms);
              else
                printf ("| %s | %s | %s | %s | %g | %.3f | %.2f | | |\n", run_names[k], dev, fm->name,
                        size, sigmas[g], ms, mpix / ms);
              fflush (stdout);
            }
      gblur_engine_free (engine);
    }
  return 0;

usage:
  fprintf (stderr, "usage: %s [--backend cpu|cuda|cuda-device|npp|all] [--size N|WxH]... [--sigma S]... "
           "[--format gray|rgba|grayf|layer|opaque|gray16|layer16|opaque16|all] [--reps N]\n", argv[0]);
  return 2;
}
