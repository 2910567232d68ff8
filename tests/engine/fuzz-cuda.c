/* Differential fuzzer: the CUDA backend against the CPU backend, each
 * within 1 level (1e-4 on float data) of the double-precision reference
 * (reference.c), on random cases for a given number of seconds: sizes
 * (1 to 2048 a side), row padding, windows, formats (1 to 4 channels, 8-bit,
 * 16-bit, float; linear light, premultiplied alpha), per-axis sigmas (one
 * axis 0 now and then), tones (noise, flat blocks and steps, sparse bright
 * pixels, near black), and CUDA engines with memory limits down to 256 KiB
 * (tiles, column blocks, or a refusal) and kernel families left out
 * (gblur_config.cuda_skip); in a CUDA build, now and then in device memory.
 * Each output's row padding must stay poisoned and the source unwritten.
 * A refusal must be clean and due (test-util.c's refusal_flaw: the message
 * blames the limit, which is under a bound that surely fits, nothing
 * written) under that and each smaller limit, and the engine without a
 * limit must then do the case.
 * --cpu-fft puts the CPU backend with its FFT path forced in CUDA's place
 * (the same limits, no device memory): a run on any machine.
 *   fuzz-cuda [--seconds N] [--seed S] [--case K] [--cpu-fft]
 * prints one line per failing case (with --seed S --case K to repeat it),
 * then "fuzz-cuda: N cases in T s (...), F failed, seed S"; exits 0, 1 on
 * a failure, 77 when no CUDA engine can be made (automake's SKIP).
 * tests/gpu/gpu-check.sh runs it (--fuzz-seconds). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gblur.h"
#include "reference.h"
#include "../benchmarks/timing.h"
#include "test-util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_CUDA
#include <cuda_runtime.h>
#endif

#define LIMITS 5
#define SKIPS 8

static const size_t limits[LIMITS] = { 0, 64 << 20, 4 << 20, 1 << 20, 256 << 10 };

/* The backend under test: CUDA, or with --cpu-fft the CPU's FFT path. */
static int cpu_fft;

typedef struct {
  int          w, h, c, wx, wy, ww, wh, window, device, limit, skip, tone;
  gblur_sample s;
  size_t       src_pad, dst_pad;
  gblur_params params;
} fuzz_case;

typedef struct {
  long cases, device, refused, misaligned, windows, failed;
} fuzz_counts;

/* Uniform in [0, 1). */
static double
uniform (void)
{
  return (rng () >> 11) * 0x1p-53;
}

/* Log-uniform in [lo, hi]. */
static double
log_uniform (double lo, double hi)
{
  return lo * pow (hi / lo, uniform ());
}

/* A sigma: mostly small (the kernels' radius classes), sometimes large. */
static double
random_sigma (void)
{
  return rng () % 4 == 0 ? log_uniform (8, 200) : log_uniform (GBLUR_SIGMA_MIN, 8);
}

/* Sigmas, flags and format, then a size whose reference stays cheap. */
static fuzz_case
random_case (void)
{
  fuzz_case k = { 0 };
  double    cost;

  k.c = 1 + (int) (rng () % 4);
  k.s = (gblur_sample) (rng () % 3);
  k.params.flags = (unsigned) (rng () % 4);
  if (k.s == GBLUR_F32)
    k.params.flags &= ~(unsigned) GBLUR_LINEAR_LIGHT;
  if (k.c < 2)
    k.params.flags &= ~(unsigned) GBLUR_PREMULTIPLY_ALPHA;
  if (rng () % 3 == 0)  /* per axis, one of them 0 now and then */
    {
      k.params.sigma_x = rng () % 6 == 0 ? 0.0 : random_sigma ();
      k.params.sigma_y = rng () % 6 == 0 && k.params.sigma_x > 0 ? 0.0 : random_sigma ();
    }
  else
    k.params.sigma = random_sigma ();
  /* the reference costs w h c (taps x + taps y): at most about 2e8 */
  cost = k.c * (2.0 * gblur_radius (k.params.sigma ? k.params.sigma : k.params.sigma_x)
                + 2.0 * gblur_radius (k.params.sigma ? k.params.sigma : k.params.sigma_y) + 2);
  k.w = (int) log_uniform (1, 2048);
  k.h = (int) log_uniform (1, 2048);
  while ((double) k.w * k.h * cost > 2e8)
    *(k.w > k.h ? &k.w : &k.h) /= 2;
  k.src_pad = rng () % 4 == 0 ? rng () % 67 : 0;
  k.dst_pad = rng () % 4 == 0 ? rng () % 67 : 0;
  k.window = rng () % 3 == 0;
  k.ww = k.window ? 1 + (int) (rng () % (unsigned) k.w) : k.w;
  k.wh = k.window ? 1 + (int) (rng () % (unsigned) k.h) : k.h;
  k.wx = (int) (rng () % (unsigned) (k.w - k.ww + 1));
  k.wy = (int) (rng () % (unsigned) (k.h - k.wh + 1));
  k.limit = rng () % 2 ? 0 : (int) (rng () % LIMITS);
  k.skip = rng () % 2 ? 0 : (int) (rng () % SKIPS);
  k.tone = (int) (rng () % 4);
#ifdef HAVE_CUDA
  k.device = !k.window && !cpu_fft && rng () % 8 == 0;  /* gblur_engine_run_device: whole images */
#endif
  return k;
}

/* The source: noise, flat blocks and steps, sparse bright pixels on black,
 * or near black (codes 0..3 of 16 bits) beside bright. */
static gblur_image
make_source (const fuzz_case *k)
{
  gblur_image img = make_image (k->w, k->h, k->c, k->s, k->src_pad, k->tone == 1);

  if (k->tone >= 2)
    for (int y = 0; y < k->h; y++)
      for (int x = 0; x < k->w; x++)
        for (int ch = 0; ch < k->c; ch++)
          {
            const int bright = k->tone == 2 ? rng () % 50 == 0 : ((x >> 3) + (y >> 3)) % 2 == 0;
            set_sample (&img, x, y, ch, bright ? 1.0 : k->tone == 2 ? 0.0 : (double) (rng () % 4) / 65535.0);
          }
  return img;
}

/* The CPU backend's engine (tested: 0), or the one under test (1). */
static gblur_engine *
engine_for (int tested, int limit, int skip)
{
  static gblur_engine *under_test[LIMITS][SKIPS], *cpu;
  gblur_engine       **e = tested ? &under_test[limit][skip] : &cpu;
  const gblur_backend  backend = tested && !cpu_fft ? GBLUR_BACKEND_CUDA : GBLUR_BACKEND_CPU;

  if (!*e)
    {
      gblur_config config = { .backend = backend, .no_fallback = 1 };
      char         msg[300];
      if (tested)
        {
          config.memory_limit = limits[limit];
          config.cuda_skip = (unsigned) skip;
          config.cpu_fft = cpu_fft ? GBLUR_FFT_ALWAYS : GBLUR_FFT_AUTO;
        }
      *e = gblur_engine_new (&config, NULL, msg, sizeof msg);
      if (!*e && backend == GBLUR_BACKEND_CUDA && limit == 0 && skip == 0)
        {
          printf ("skipped: no CUDA device (%s)\n", msg);
          exit (77);
        }
      if (!*e)
        {
          printf ("fuzz-cuda: cannot make an engine: %s\n", msg);
          exit (1);
        }
    }
  return *e;
}

#ifdef HAVE_CUDA
/* The run with both images in device memory (whole images), src and dst
 * copied there and back. */
static gblur_status
run_on_device (gblur_engine *engine, const fuzz_case *k, const gblur_image *src, gblur_image *dst)
{
  const size_t   src_bytes = src->stride * src->height, dst_bytes = dst->stride * dst->height;
  unsigned char *d_src = NULL, *d_dst = NULL;
  gblur_status   st = GBLUR_E_CUDA;

  if (cudaMalloc ((void **) &d_src, src_bytes) == cudaSuccess && cudaMalloc ((void **) &d_dst, dst_bytes) == cudaSuccess
      && cudaMemcpy (d_src, src->data, src_bytes, cudaMemcpyHostToDevice) == cudaSuccess
      && cudaMemcpy (d_dst, dst->data, dst_bytes, cudaMemcpyHostToDevice) == cudaSuccess)
    {
      gblur_image ds = *src, dd = *dst;
      ds.data = d_src;
      dd.data = d_dst;
      st = gblur_engine_run_device (engine, &ds, &dd, &k->params);
      if (cudaMemcpy (dst->data, d_dst, dst_bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
        st = GBLUR_E_CUDA;
    }
  cudaFree (d_src);
  cudaFree (d_dst);
  return st;
}
#endif

/* Largest error of dst (the window) against ref (the whole image); -1 when
 * its padding was written.  Colours of premultiplied pixels whose blurred
 * alpha is under 2^-96 of full scale are passed over (the engine counts
 * them as 0: fuzz-engine.c). */
static double
window_error (const fuzz_case *k, const gblur_image *dst, const double *ref)
{
  const size_t row_bytes = (size_t) k->ww * k->c * gblur_sample_size (k->s);
  const double scale = k->s == GBLUR_U8 ? 255.0 : k->s == GBLUR_U16 ? 65535.0 : 1.0;
  double       worst = 0;

  for (int y = 0; y < k->wh; y++)
    {
      const unsigned char *row = (const unsigned char *) dst->data + (size_t) y * dst->stride;
      for (size_t i = row_bytes; i < dst->stride; i++)
        if (row[i] != POISON)
          return -1;
      for (int x = 0; x < k->ww; x++)
        {
          const double *px = ref + ((size_t) (k->wy + y) * k->w + k->wx + x) * k->c;
          for (int ch = 0; ch < k->c; ch++)
            {
              double e = fabs (reference_sample (dst, x, y, ch) - px[ch]);
              if ((k->params.flags & GBLUR_PREMULTIPLY_ALPHA) && ch < k->c - 1 && px[k->c - 1] / scale < 0x1p-96)
                continue;
              worst = e > worst || isnan (e) ? (isnan (e) ? INFINITY : e) : worst;
            }
        }
    }
  return worst;
}

/* Whether case k's device images have rows of whole samples (gblur.h). */
static int
device_aligned (const fuzz_case *k)
{
  const size_t s = gblur_sample_size (k->s);

  return k->src_pad % s == 0 && k->dst_pad % s == 0;
}

/* Case k on engine (the one under test: in device memory if k says so);
 * result->rows_valid stays 0 there. */
static gblur_status
run_on (gblur_engine *engine, int tested, const fuzz_case *k, const gblur_image *src, gblur_image *dst,
        gblur_result *result)
{
  memset (result, 0, sizeof *result);
#ifdef HAVE_CUDA
  if (tested && k->device)
    return run_on_device (engine, k, src, dst);
#else
  (void) tested;
#endif
  if (k->window)
    return gblur_engine_run_window (engine, src, k->wx, k->wy, dst, &k->params, result);
  return gblur_engine_run (engine, src, dst, &k->params, result);
}

static void check_run (int tested, const fuzz_case *k, const gblur_image *src, const double *ref, char *why,
                       size_t why_size, int *refused);

/* Whether the refusal of case k into dst (untouched, as it must be) was
 * clean and due: refused so under each smaller limit too, and done by the
 * engine without one; else why not. */
static void
check_refusal (const fuzz_case *k, const gblur_image *src, gblur_image *dst, const gblur_result *result,
               const double *ref, char *why, size_t why_size)
{
  gblur_result again = *result;
  fuzz_case    unlimited = *k;
  char         flaw[300];
  int          refused = 0;

  for (int li = k->limit; li < LIMITS; li++)
    {
      gblur_engine *engine = engine_for (1, li, k->skip);
      gblur_status  st = li == k->limit ? GBLUR_E_NOMEM : run_on (engine, 1, k, src, dst, &again);
      if (st != GBLUR_E_NOMEM)
        {
          snprintf (why, why_size, "refused under %zu bytes, not under %zu: status %s", limits[k->limit],
                    limits[li], gblur_status_name (st));
          return;
        }
      if (refusal_flaw (gblur_engine_last_error (engine), limits[li], &k->params, dst, again.rows_valid, flaw,
                        sizeof flaw))
        {
          snprintf (why, why_size, "under %zu bytes: %s", limits[li], flaw);
          return;
        }
    }
  unlimited.limit = 0;
  check_run (1, &unlimited, src, ref, flaw, sizeof flaw, &refused);
  if (*flaw)
    snprintf (why, why_size, "refused under %zu bytes; without a limit: %s", limits[k->limit], flaw);
}

/* The run of case k on the CPU backend (tested: 0) or the one under test
 * (1), checked against ref: a message, or "" when it held (*refused: a
 * refusal under a small memory limit, clean and due, 2: of misaligned
 * device images, which must be refused). */
static void
check_run (int tested, const fuzz_case *k, const gblur_image *src, const double *ref, char *why, size_t why_size,
           int *refused)
{
  gblur_engine *engine = engine_for (tested, k->limit, k->skip);
  gblur_image   dst = make_poisoned (k->ww, k->wh, src, k->dst_pad);
  gblur_result  result;
  gblur_status  st = run_on (engine, tested, k, src, &dst, &result);
  double        e;

  *why = 0;
  if (tested && k->device && !device_aligned (k))
    {
      if (st == GBLUR_E_INVALID)
        *refused = 2;
      else
        snprintf (why, why_size, "misaligned device images not refused: status %s", gblur_status_name (st));
    }
  else if (st == GBLUR_E_NOMEM && tested && k->limit != 0)
    {
      *refused = 1;
      check_refusal (k, src, &dst, &result, ref, why, why_size);
    }
  else if (st != GBLUR_OK)
    snprintf (why, why_size, "status %s: %s", gblur_status_name (st), gblur_engine_last_error (engine));
  else if ((e = window_error (k, &dst, ref)) < 0)
    snprintf (why, why_size, "row padding written");
  else if (!(e <= (k->s == GBLUR_F32 ? 1e-4 : 1.0)))
    snprintf (why, why_size, "largest error %g", e);
  free (dst.data);
}

/* Case k of the seed's stream, run on both backends; 0 when it failed. */
static int
run_case (uint64_t seed, long index, fuzz_counts *n)
{
  fuzz_case   k;
  gblur_image src, copy;
  double     *ref;
  char        tested_why[400], cpu_why[400];
  int         refused = 0, cpu_refused = 0, written;  /* the CPU engine has no limit: never refuses */

  rng_state = (seed ^ (0x9E3779B97F4A7C15ull * (uint64_t) (index + 1))) | 1;
  k = random_case ();
  src = make_source (&k);
  copy = src;
  copy.data = malloc (src.stride * src.height);
  memcpy (copy.data, src.data, src.stride * src.height);
  ref = malloc ((size_t) k.w * k.h * k.c * sizeof *ref);
  reference_blur_xy (&src, k.params.sigma ? k.params.sigma : k.params.sigma_x,
                     k.params.sigma ? k.params.sigma : k.params.sigma_y, k.params.flags, ref);
  check_run (1, &k, &src, ref, tested_why, sizeof tested_why, &refused);
  check_run (0, &k, &src, ref, cpu_why, sizeof cpu_why, &cpu_refused);
  written = memcmp (copy.data, src.data, src.stride * src.height) != 0;
  n->cases++;
  n->device += k.device;
  n->refused += refused == 1;
  n->misaligned += refused == 2;
  n->windows += k.window;
  if (*tested_why || *cpu_why || written)
    printf ("FAIL case %ld (--seed %llu --case %ld): %dx%d c%d %s pads %zu/%zu flags %u sigma %g (x %g, y %g) "
            "window %dx%d at (%d,%d), limit %zu, cuda_skip %d, tone %d%s: %s: %s; cpu: %s%s\n",
            index, (unsigned long long) seed, index, k.w, k.h, k.c,
            k.s == GBLUR_U8 ? "u8" : k.s == GBLUR_U16 ? "u16" : "f32", k.src_pad, k.dst_pad, k.params.flags,
            k.params.sigma, k.params.sigma_x, k.params.sigma_y, k.ww, k.wh, k.wx, k.wy, limits[k.limit], k.skip,
            k.tone, k.device ? ", device memory" : "", cpu_fft ? "cpu fft" : "cuda", *tested_why ? tested_why : "ok", *cpu_why ? cpu_why : "ok",
            written ? "; the source was written" : "");
  free (ref);
  free (copy.data);
  free (src.data);
  return !(*tested_why || *cpu_why || written);
}

int
main (int argc, char **argv)
{
  double      seconds = 60, start = now_ms () / 1e3;
  uint64_t    seed = (uint64_t) time (NULL);
  long        only = -1;
  fuzz_counts n = { 0 };

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--seconds") == 0 && i + 1 < argc)
      seconds = atof (argv[++i]);
    else if (strcmp (argv[i], "--seed") == 0 && i + 1 < argc)
      seed = strtoull (argv[++i], NULL, 0);
    else if (strcmp (argv[i], "--case") == 0 && i + 1 < argc)
      only = atol (argv[++i]);
    else if (strcmp (argv[i], "--cpu-fft") == 0)
      cpu_fft = 1;
    else
      {
        fprintf (stderr, "usage: %s [--seconds N] [--seed S] [--case K] [--cpu-fft]\n", argv[0]);
        return 2;
      }
  printf ("under test: %s%s\n", gblur_engine_describe (engine_for (1, 0, 0)), cpu_fft ? ", FFT path forced" : "");
  for (long i = only >= 0 ? only : 0; only >= 0 ? i == only : now_ms () / 1e3 - start < seconds; i++)
    if (!run_case (seed, i, &n) && ++n.failed >= 10)
      break;
  printf ("fuzz-cuda: %ld cases in %.0f s (%ld windows, %ld in device memory of which %ld misaligned and "
          "refused, %ld refused under a small memory limit), %ld failed, seed %llu\n",
          n.cases, now_ms () / 1e3 - start, n.windows, n.device, n.misaligned, n.refused, n.failed,
          (unsigned long long) seed);
  return n.failed ? 1 : 0;
}
