/* The CPU backend's FFT path for large radii (see backend.h): the vertical
 * pass on blocks of columns of the window's region, then the horizontal
 * pass row by row, each a linear convolution of whole lines by FFTW's
 * transforms: in single precision two lines at once, as the real and
 * imaginary parts of one complex line (the kernel's spectrum is real and
 * even, so the parts stay apart), or one by one by real transforms in
 * double precision for precise runs.
 *
 * A line holds the region's samples (the window's and up to a radius each
 * side, less where the image ends), zero-padded to an FFT length n long
 * enough that the circular convolution with the centred kernel (tap k at
 * index k mod n) equals the linear one at every output.  Clamping at the
 * image edges (the edge sample repeated, as the direct loops do) is added
 * after the transforms: the repeated samples are constant, so what they
 * add to an output is the edge sample times the sum of the kernel's taps
 * that reach past the edge (its tail sums, made once per run), and the
 * lines need no padding: n >= length + radius instead of length + 2 radius.
 * The kernel is the job's own truncated, normalised half kernel; its
 * spectrum is real (the kernel is even) and is made once per run and
 * length, with the 1/n of the inverse transform folded in.
 *
 * Precise runs (premultiplied alpha, 16-bit linear light: see backend.h)
 * transform in double precision, each line through a double copy; with
 * premultiplied alpha, the outputs whose blurred alpha is too small for
 * even that (repair_pixel) are summed again directly.
 *
 * FFTW's planner is not thread safe (only fftw*_execute* is): plans are made
 * under a lock with FFTW_ESTIMATE (no timing runs: planning takes
 * microseconds), kept for the life of the process, one set per length,
 * and executed on the workers' own buffers
 * (fftw*_malloc'd, so aligned as the planner assumed). */
#include "backend.h"

#ifdef HAVE_FFTW

#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Columns (floats) per block of the vertical pass: a cache line of each
 * row is read once for the block's lines, which then go through the
 * transforms two at a time. */
#define BLOCK_FLOATS 16

/* The cost of a pass per output sample, in taps of the direct loops (which
 * cost 2 radius + 1 taps), is FFT_COST times n log2 n / outputs, n the FFT
 * length, fitted to the crossover measured on 2048x2048 gray on a 2-core
 * AVX-512 EPYC (Zen 4; one thread's CPU time, alternating runs): both
 * passes break even near sigma 21.5.  The vertical pass costs 1.66 times
 * the horizontal one (as measured before): it transposes blocks of columns
 * in and out.
 * Those taps are AVX-512's.  A tap of narrower loops costs their tap_cost
 * (cpu_loops) times as much, fitted on a 2-core AVX2 EPYC (Zen 3), where
 * the same image broke even near sigma 18 with the AVX2 loops and 7.5 with
 * the baseline ones, against an FFT path 1.3 times as slow as today's.
 * More threads favour the FFT path, whose lines are independent, over the
 * direct loops, which share caches and memory bandwidth: on a 16-thread
 * AVX-512 Xeon gray 4096x4096 broke even near sigma 45 on 2 threads and 25
 * on 16 (with that slower FFT path), so a tap costs (threads /
 * 2)^THREAD_EXPONENT times as much past 2 threads.  (That Xeon's taps are
 * cheaper than the Zen 4's: there the model takes the FFT path from a
 * sigma about 0.65 times the measured crossover.) */
#define FFT_COST_H 6.9
#define FFT_COST_V 11.45
/* Precise runs' passes cost this many times as much, against the direct
 * loops on the same data (which do more per tap there too: the curve, the
 * alpha, four channels), fitted to 8-bit RGBA in linear light with
 * premultiplied alpha (tests/bench --format layer, most of its pixels in
 * single precision): both break even near sigma 33 on 2048x2048, same
 * machine and method.  Runs in double precision throughout take 1.12 times
 * as long again (single-precision lines go two at a time). */
#define FFT_COST_MOSTLY_SINGLE 1.55
#define FFT_COST_DOUBLE 1.74
#define THREAD_EXPONENT 0.25

/* A double-precision FFT convolution is off by at most 1e-13 of the
 * largest input of its line (assumed for lines up to the 32768-sample FFTs
 * measured: under 2e-16 for lines of 600 to 15000 samples, radii 30 to
 * 1500).  With premultiplied alpha a colour c is divided by its blurred
 * alpha A, off by up to (dP + |c| dA) / A; an output whose A is under
 * ALPHA_FLOOR times the largest input of its pixel's lines is summed again
 * directly, so every other colour is within 1e-7 (1 + |c|), as the direct
 * loops' float sums are.  The vertical pass's errors, each within 1e-7 of
 * its own alpha, go through the horizontal pass's positive taps within
 * 1e-7 of the final alpha; its re-summed outputs with no input are exact
 * zeros, which the horizontal pass then sees as such. */
#define ALPHA_FLOOR 1e-6

/* 8-bit data with premultiplied alpha transforms a pixel's lines in single
 * precision where every alpha they hold is at least SINGLE_ALPHA_FLOOR
 * times their largest input: its blurred alphas are too (the taps are
 * positive and sum to 1), and a single-precision convolution is off by at
 * most 1e-6 of the largest input of its pair of lines (assumed; a pixel's
 * lines pair only with each other, and the floor is taken against the
 * pixel's largest input), so each colour is off by at most 4e-5 after one
 * pass, 8e-5 after both: a quarter of an
 * 8-bit level where the sRGB curve is steepest (lines with no input at
 * all give exact zeros either way).  Other lines take double precision. */
#define SINGLE_ALPHA_FLOOR 0.05f

/* ---- Plans, shared by all engines ---- */

typedef struct fft_plans {
  int               n;
  fftwf_plan        forward, backward;        /* single precision, complex */
  fftw_plan         forward_d, backward_d;    /* double, real, for precise runs */
  struct fft_plans *next;
} fft_plans;

static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
static fft_plans      *plan_cache;
static int             wisdom_read;

/* Transforms of one line of length n: complex -> complex out of place and
 * back (single), real -> n/2 + 1 complex and back (double).  (One line at a
 * time: with FFTW_ESTIMATE, a plan for many lines, whether interleaved or
 * one after the other, ran 1.5 to 3 times slower per sample here.  The
 * complex plans, on two lines, took 0.5 to 0.6 times as long per line as
 * the real ones for n 2048 to 4096.) */
static fft_plans *
make_plans (int n)
{
  fft_plans     *p = calloc (1, sizeof *p);
  fftwf_complex *line = fftwf_malloc ((size_t) n * sizeof (fftwf_complex));
  fftwf_complex *spec = fftwf_malloc ((size_t) n * sizeof (fftwf_complex));
  double        *real_d = fftw_malloc ((size_t) n * sizeof (double));
  fftw_complex  *spec_d = fftw_malloc ((size_t) (n / 2 + 1) * sizeof (fftw_complex));

  if (p && line && spec && real_d && spec_d)
    {
      p->n = n;
      p->forward = fftwf_plan_dft_1d (n, line, spec, FFTW_FORWARD, FFTW_ESTIMATE);
      p->backward = fftwf_plan_dft_1d (n, spec, line, FFTW_BACKWARD, FFTW_ESTIMATE);
      p->forward_d = fftw_plan_dft_r2c_1d (n, real_d, spec_d, FFTW_ESTIMATE);
      p->backward_d = fftw_plan_dft_c2r_1d (n, spec_d, real_d, FFTW_ESTIMATE);
    }
  fftwf_free (line);
  fftwf_free (spec);
  fftw_free (real_d);
  fftw_free (spec_d);
  if (p && (!p->forward || !p->backward || !p->forward_d || !p->backward_d))
    {
      if (p->forward) fftwf_destroy_plan (p->forward);
      if (p->backward) fftwf_destroy_plan (p->backward);
      if (p->forward_d) fftw_destroy_plan (p->forward_d);
      if (p->backward_d) fftw_destroy_plan (p->backward_d);
      free (p);
      p = NULL;
    }
  return p;
}

/* The cached plans for length n, made on first use; NULL when out of
 * memory. */
static const fft_plans *
plans_for (int n)
{
  fft_plans *p;

  pthread_mutex_lock (&plan_lock);
  /* Measured plans an administrator saved (fftwf-wisdom -o /etc/fftw/
   * wisdomf), if any, are used in place of the estimates. */
  if (!wisdom_read)
    {
      fftwf_import_system_wisdom ();
      fftw_import_system_wisdom ();
      wisdom_read = 1;
    }
  for (p = plan_cache; p; p = p->next)
    if (p->n == n)
      break;
  if (!p && (p = make_plans (n)))
    {
      p->next = plan_cache;
      plan_cache = p;
    }
  pthread_mutex_unlock (&plan_lock);
  return p;
}

/* ---- Lengths and the decision ---- */

/* The FFT length for lines of len samples: n >= len, a power of two times
 * one of a few small odd numbers, whichever is expected to be fastest by n
 * log2 n times the time per n log2 n measured here for FFTW_ESTIMATE
 * complex plans of that odd part (ns per line, a forward and an inverse
 * transform of two lines at once, the mean over 1000 < n < 8200).  Other
 * odd parts (7, 21, 125, 243...) ran 1.3 to 2 times slower. */
static int
fft_length (int len)
{
  static const struct { int odd; double ns; } kinds[] = {
    { 1, 0.11 }, { 3, 0.13 }, { 5, 0.105 }, { 9, 0.155 }, { 15, 0.107 }, { 25, 0.145 },
    { 27, 0.156 }, { 45, 0.153 }, { 75, 0.133 },
  };
  int    best = 0;
  double best_cost = 0.0;

  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    {
      int    n = 2 * kinds[i].odd;
      double cost;
      while (n < len)
        n *= 2;
      cost = kinds[i].ns * n * log2 (n);
      if (best == 0 || cost < best_cost)
        {
          best = n;
          best_cost = cost;
        }
    }
  return best;
}

/* Where the window's region (window grown by the radii, clamped to the
 * image) lies. */
typedef struct {
  int x0, w, y0, h;
} region;

static region
job_region (const gblur_job *job)
{
  const gblur_geometry *g = &job->geo;
  region r;
  int    x1 = clamp_int (g->win_x + g->win_w + job->radius_x, 0, g->img_w);
  int    y1 = clamp_int (g->win_y + g->win_h + job->radius_y, 0, g->img_h);

  r.x0 = clamp_int (g->win_x - job->radius_x, 0, g->img_w);
  r.y0 = clamp_int (g->win_y - job->radius_y, 0, g->img_h);
  r.w = x1 - r.x0;
  r.h = y1 - r.y0;
  return r;
}

/* Premultiplied colours are divided by their blurred alpha (at least two
 * channels: one alone is alpha, divided by nothing). */
static int
divides_by_alpha (const gblur_job *job)
{
  return (job->flags & GBLUR_PREMULTIPLY_ALPHA) && job->src->channels > 1;
}

/* Runs whose single-precision FFT error would not stay well under half a
 * level (see backend.h): they transform in double precision. */
static int
needs_precision (const gblur_job *job)
{
  return divides_by_alpha (job) || (job->src->sample == GBLUR_U16 && (job->flags & GBLUR_LINEAR_LIGHT));
}

/* The vertical pass takes BLOCK_FLOATS columns at a time: where colours
 * are divided by alpha, a block must hold whole pixels. */
static int
format_allows_fft (const gblur_job *job)
{
  return !divides_by_alpha (job) || BLOCK_FLOATS % job->src->channels == 0;
}

/* The FFT length for lines of reg samples whose outputs are samples
 * [offset, offset + outputs): the outputs' taps must not wrap around into
 * the line's samples. */
static int
axis_length (int reg, int offset, int outputs, int radius)
{
  const int right = offset + outputs + radius, left = reg + radius - offset;

  return fft_length (right > left ? right : left);
}

/* Cost per output sample of one pass, in direct taps; lines_ratio: lines
 * transformed per output line (the vertical pass transforms the region's
 * columns, more than the window's). */
static double
fft_pass_cost (double unit, int radius, int n, int outputs, double lines_ratio)
{
  return radius > 0 ? unit * lines_ratio * n * log2 (n) / outputs : 0.0;
}

static double
direct_pass_cost (int radius)
{
  return radius > 0 ? 2 * radius + 1 : 0.0;
}

static double
precision_cost (const gblur_job *job)
{
  if (!needs_precision (job))
    return 1.0;
  return divides_by_alpha (job) && job->src->sample == GBLUR_U8 ? FFT_COST_MOSTLY_SINGLE : FFT_COST_DOUBLE;
}

static int
fft_expected_faster (const gblur_job *job, const cpu_loops *loops, int threads)
{
  const gblur_geometry *g = &job->geo;
  const region          reg = job_region (job);
  const int             rx = job->radius_x, ry = job->radius_y;
  double fft = fft_pass_cost (FFT_COST_V, ry, axis_length (reg.h, g->win_y - reg.y0, g->win_h, ry),
                              g->win_h, (double) reg.w / g->win_w)
               + fft_pass_cost (FFT_COST_H, rx, axis_length (reg.w, g->win_x - reg.x0, g->win_w, rx),
                                g->win_w, 1.0);
  double direct = (direct_pass_cost (ry) + direct_pass_cost (rx)) * loops->tap_cost
                  * (threads > 2 ? pow (threads / 2.0, THREAD_EXPONENT) : 1.0);

  return fft * precision_cost (job) < direct;
}

/* ---- One run ---- */

/* One axis of the run: lines of len region samples whose outputs are
 * samples [offset, offset + outputs). */
typedef struct {
  int              radius, len, offset, outputs;
  int              n;            /* FFT length, 0 for radius 0 */
  const fft_plans *plans;
  const float     *w;            /* the job's half kernel w[0..radius] */
  double          *kd;           /* the kernel's spectrum / n, bins 0..n/2 */
  float           *k;            /* the same in single precision, bins 0..n-1,
                                    each twice (real and imaginary parts) */
  float           *tail;         /* tail[m] = w[m] + ... + w[radius], tail[radius + 1] = 0 */
} fft_axis;

typedef struct {
  const gblur_job         *job;
  const gblur_srgb_tables *srgb;
  region                   reg;
  int                      c;
  int                      workers;
  int                      precise;      /* double transforms: needs_precision */
  int                      repair;       /* outputs re-summed: divides_by_alpha */
  int                      single_first; /* precise, but single precision for the
                                            pixels whose alphas allow it: 8-bit
                                            data divided by alpha */
  size_t                   stride;       /* floats per row of img, >= reg.w * c */
  float                   *img;          /* the region in working floats; the
                                            vertical pass writes its outputs
                                            over the window's rows */
  size_t                   img_bytes;    /* its capacity (gblur_kept) */
  gblur_kept              *img_kept;     /* the engine's slot for it */
  fft_axis                 y, x;
  /* per worker */
  float                  **lines;        /* BLOCK_FLOATS lines, line_pitch floats apart */
  fftwf_complex          **pair;         /* single precision: two lines as one */
  fftwf_complex          **pair_spec;    /* and its spectrum */
  fftw_complex           **spec;         /* precise: a line's spectrum */
  double                 **work;         /* precise: a line in double */
  int                    **nonzero;      /* repair: counts of non-zero pixels */
  float                  **out;          /* an output row */
  /* work sharing */
  pthread_mutex_t          lock;
  int                      next, end;    /* the next item, and the end */
} fft_run;

static fft_axis
plan_axis (int radius, int reg0, int reg_len, int win0, int win_len)
{
  fft_axis a = { 0 };

  a.radius = radius;
  a.len = reg_len;
  a.offset = win0 - reg0;
  a.outputs = win_len;
  if (radius > 0)
    a.n = axis_length (reg_len, a.offset, win_len, radius);
  return a;
}

static void
plan_lengths (fft_run *run, const gblur_job *job)
{
  const gblur_geometry *g = &job->geo;

  memset (run, 0, sizeof *run);
  run->job = job;
  run->srgb = gblur_srgb_tables_get ();
  run->reg = job_region (job);
  run->c = job->src->channels;
  run->precise = needs_precision (job);
  run->repair = divides_by_alpha (job);
  run->single_first = run->repair && job->src->sample == GBLUR_U8;
  /* an odd number of cache lines: a block's column of rows spreads over
   * the cache sets (a row of 2048 floats put them all in a few) */
  run->stride = round_up ((size_t) run->reg.w * run->c, BLOCK_FLOATS) | BLOCK_FLOATS;
  run->y = plan_axis (job->radius_y, run->reg.y0, run->reg.h, g->win_y, g->win_h);
  run->x = plan_axis (job->radius_x, run->reg.x0, run->reg.w, g->win_x, g->win_w);
}

static size_t
max_length (const fft_run *run)
{
  return (size_t) (run->x.n > run->y.n ? run->x.n : run->y.n);
}

/* Floats from one of a worker's lines to the next (a line holds a row or
 * column of the region; the transforms have buffers of their own): an odd
 * number of cache lines, so that the lines of a block (written, then read,
 * a sample of each in turn) fall in different cache sets, as lengths such
 * as 3072 did not. */
static size_t
line_pitch (const fft_run *run)
{
  const int longest = run->reg.w > run->reg.h ? run->reg.w : run->reg.h;

  return round_up ((size_t) longest, BLOCK_FLOATS) | BLOCK_FLOATS;
}

/* Bytes of img, as gblur_kept_alloc gives them (it stays in the engine's
 * slot between runs). */
static size_t
region_bytes (const fft_run *run)
{
  return gblur_large_capacity ((size_t) run->reg.h * run->stride * sizeof (float));
}

/* Whether some lines transform in single precision (two at a time); some
 * do in double precision when run->precise. */
static int
uses_single (const fft_run *run)
{
  return !run->precise || run->single_first;
}

/* Bytes of a worker's buffers for the transforms. */
static size_t
transform_bytes (const fft_run *run)
{
  const size_t n = max_length (run);

  return (uses_single (run) ? 2 * n * sizeof (fftwf_complex) : 0)
         + (run->precise ? (n / 2 + 1) * sizeof (fftw_complex) + n * sizeof (double) : 0);
}

/* Bytes the run allocates with `workers` workers. */
static size_t
run_bytes (const fft_run *run, int workers)
{
  const size_t n = max_length (run);
  const size_t per_worker = (BLOCK_FLOATS * line_pitch (run) + (size_t) run->job->geo.win_w * run->c)
                            * sizeof (float)
                            + transform_bytes (run)
                            + (run->repair ? (n + 1) * sizeof (int) : 0);

  return region_bytes (run)
         + (size_t) (run->y.n + run->x.n) * (sizeof (double) + 2 * sizeof (float))
         + (size_t) (run->y.radius + run->x.radius + 4) * sizeof (float)
         + (size_t) workers * per_worker;
}

int
gblur_cpu_fft_wanted (const gblur_job *job, gblur_fft_mode mode, const cpu_loops *loops, int threads)
{
  fft_run run;

  if (mode == GBLUR_FFT_OFF || !format_allows_fft (job))
    return 0;
  if (mode == GBLUR_FFT_AUTO && !fft_expected_faster (job, loops, threads))
    return 0;
  plan_lengths (&run, job);
  return run_bytes (&run, 1) <= job->memory_limit;
}

/* The spectrum of the centred kernel w[-r..r] for length n, real parts
 * only (those of an even sequence; the imaginary parts are rounding), each
 * divided by n; made in double precision.  NULL when out of memory. */
static double *
kernel_spectrum (int n, const float *w, int r)
{
  const fft_plans *p = plans_for (n);
  double          *k = fftw_malloc ((size_t) n * sizeof (double));
  fftw_complex    *s = fftw_malloc ((size_t) (n / 2 + 1) * sizeof (fftw_complex));
  double          *re = malloc ((size_t) (n / 2 + 1) * sizeof (double));

  if (p && k && s && re)
    {
      /* taps d and -d at d and n - d mod n, summed where a short line
       * (n < 2r + 1) makes two fall together: the periodised kernel, whose
       * circular convolution is the linear one at the outputs */
      memset (k, 0, (size_t) n * sizeof (double));
      k[0] = w[0];
      for (int d = 1; d <= r; d++)
        {
          k[d % n] += w[d];
          k[(n - d % n) % n] += w[d];
        }
      fftw_execute_dft_r2c (p->forward_d, k, s);
      for (int i = 0; i <= n / 2; i++)
        re[i] = s[i][0] / n;
    }
  else
    {
      free (re);
      re = NULL;
    }
  fftw_free (k);
  fftw_free (s);
  return re;
}

/* The spectrum's n bins in single precision, each twice (a complex
 * spectrum's parts are then multiplied in one plain loop), from bins
 * 0..n/2 (the spectrum is even: bin n - i is bin i). */
static float *
all_bins (const double *half, int n)
{
  float *f = half ? malloc (2 * (size_t) n * sizeof (float)) : NULL;

  for (int i = 0; f && i < n; i++)
    f[2 * i] = f[2 * i + 1] = (float) half[i <= n / 2 ? i : n - i];
  return f;
}

/* tail[m] = w[m] + ... + w[r] (summed in double) for m in 1..r, 0 at r + 1:
 * what a clamped edge sample adds, times the sample, to an output m samples
 * inside the edge.  NULL when out of memory. */
static float *
kernel_tails (const float *w, int r)
{
  float *tail = malloc ((size_t) (r + 2) * sizeof (float));
  double sum = 0.0;

  if (!tail)
    return NULL;
  tail[r + 1] = 0.0f;
  for (int m = r; m >= 1; m--)
    tail[m] = (float) (sum += w[m]);
  tail[0] = 0.0f;  /* unused */
  return tail;
}

/* Spectra, tails and plans of an axis; 0 when out of memory. */
static int
prepare_axis (fft_axis *a, const float *weights)
{
  if (a->radius == 0)
    return 1;
  a->plans = plans_for (a->n);
  a->w = weights;
  a->kd = kernel_spectrum (a->n, weights, a->radius);
  a->k = all_bins (a->kd, a->n);
  a->tail = kernel_tails (weights, a->radius);
  return a->plans && a->kd && a->k && a->tail;
}

static void
free_axis (fft_axis *a)
{
  free (a->kd);
  free (a->k);
  free (a->tail);
}

/* What the clamped edges add: the edge sample times tail[m] at m samples
 * inside the edge, m <= radius (a region that does not reach the image edge
 * extends a radius past its outputs, which then get nothing). */
static void
add_edge_tails (const fft_axis *a, float first, float last, float *line)
{
  const int    end = a->offset + a->outputs;
  const int    left_end = end < a->radius ? end : a->radius;  /* one bound: the loop vectorises */
  const float *tail = a->tail;

  for (int j = a->offset; j < left_end; j++)
    line[j] += first * tail[j + 1];
  for (int j = a->len - a->radius > a->offset ? a->len - a->radius : a->offset; j < end; j++)
    line[j] += last * tail[a->len - j];
}

/* The circular convolutions of l0 and l1 (a->len samples each, zero-padded
 * to a->n; l1 NULL: zeros) with the kernel, at once: the spectrum of
 * l0 + i l1 times the kernel's, which is real and even, is that of
 * (l0 * k) + i (l1 * k).  Only the outputs come back. */
static void
convolve_pair (const fft_axis *a, float *l0, float *l1, fftwf_complex *z, fftwf_complex *spec)
{
  for (int i = 0; i < a->len; i++)
    {
      z[i][0] = l0[i];
      z[i][1] = l1 ? l1[i] : 0.0f;
    }
  memset (z + a->len, 0, (size_t) (a->n - a->len) * sizeof *z);
  fftwf_execute_dft (a->plans->forward, z, spec);
  for (int i = 0; i < 2 * a->n; i++)
    ((float *) spec)[i] *= a->k[i];
  fftwf_execute_dft (a->plans->backward, spec, z);
  for (int i = a->offset; i < a->offset + a->outputs; i++)
    {
      l0[i] = z[i][0];
      if (l1)
        l1[i] = z[i][1];
    }
}

/* The circular convolution of line with the kernel in double precision,
 * through work; only the outputs come back. */
static void
convolve_double (const fft_axis *a, float *line, double *work, fftw_complex *spec)
{
  for (int i = 0; i < a->len; i++)
    work[i] = line[i];
  memset (work + a->len, 0, (size_t) (a->n - a->len) * sizeof (double));
  fftw_execute_dft_r2c (a->plans->forward_d, work, spec);
  for (int i = 0; i <= a->n / 2; i++)
    {
      spec[i][0] *= a->kd[i];
      spec[i][1] *= a->kd[i];
    }
  fftw_execute_dft_c2r (a->plans->backward_d, spec, work);
  for (int i = a->offset; i < a->offset + a->outputs; i++)
    line[i] = (float) work[i];
}

/* The largest |v[i]|; NaNs are passed over (the compiler keeps the scalar
 * loop scalar for them: maxps passes them over too, 4 at a time). */
static float
largest_magnitude (const float *v, int n)
{
  float m = 0.0f;
  int   i = 0;

#ifdef __SSE2__
  const __m128 magnitude_bits = _mm_castsi128_ps (_mm_set1_epi32 (0x7fffffff));
  __m128       m4 = _mm_setzero_ps ();
  float        lanes[4];

  for (; i + 4 <= n; i += 4)
    m4 = _mm_max_ps (_mm_and_ps (_mm_loadu_ps (v + i), magnitude_bits), m4);
  _mm_storeu_ps (lanes, m4);
  for (int k = 0; k < 4; k++)
    m = lanes[k] > m ? lanes[k] : m;
#endif
  for (; i < n; i++)
    {
      const float a = fabsf (v[i]);
      m = a > m ? a : m;
    }
  return m;
}

/* Float data may hold lines of any magnitude side by side (HDR): two
 * lines are transformed together only when their largest inputs are
 * within PAIR_RANGE of each other, so that each line's error stays within
 * that factor of its own largest input.  (8- and 16-bit data is bounded by
 * full scale.) */
#define PAIR_RANGE 16.0f

static int
may_pair (const fft_run *run, const fft_axis *a, const float *l0, const float *l1)
{
  float m0, m1;

  if (run->job->src->sample != GBLUR_F32)
    return 1;
  m0 = largest_magnitude (l0, a->len);
  m1 = largest_magnitude (l1, a->len);
  return m0 <= PAIR_RANGE * m1 && m1 <= PAIR_RANGE * m0;
}

/* count lines (a->len samples each, pitch floats apart from first)
 * convolved with the axis's kernel, the edges clamped, on worker's buffers:
 * in double precision one by one when `precise`, else two at a time where
 * they may pair; output i (0 <= i < a->outputs) of a line in
 * line[a->offset + i]. */
static void
convolve_lines (const fft_run *run, const fft_axis *a, float *first, size_t pitch, int count,
                int worker, int precise)
{
  for (int k = 0; k < count;)
    {
      float      *l0 = first + (size_t) k * pitch;
      float      *l1 = !precise && k + 1 < count && may_pair (run, a, l0, l0 + pitch) ? l0 + pitch : NULL;
      const float first0 = l0[0], last0 = l0[a->len - 1];
      const float first1 = l1 ? l1[0] : 0.0f, last1 = l1 ? l1[a->len - 1] : 0.0f;

      if (precise)
        convolve_double (a, l0, run->work[worker], run->spec[worker]);
      else
        convolve_pair (a, l0, l1, run->pair[worker], run->pair_spec[worker]);
      add_edge_tails (a, first0, last0, l0);
      if (l1)
        add_edge_tails (a, first1, last1, l1);
      k += l1 ? 2 : 1;
    }
}

/* The smallest of n > 0 values `step` floats apart. */
static float
smallest (const float *v, size_t step, int n)
{
  float m = v[0];

  for (int i = 1; i < n; i++)
    m = v[(size_t) i * step] < m ? v[(size_t) i * step] : m;
  return m;
}

/* Whether a pixel's lines (alphas `step` floats apart, largest: their
 * largest input) transform in double precision (see SINGLE_ALPHA_FLOOR). */
static int
pixel_precise (const fft_run *run, const float *alpha, size_t step, int n, float largest)
{
  return run->precise && !(run->single_first && smallest (alpha, step, n) >= SINGLE_ALPHA_FLOOR * largest);
}

/* ---- Repair: outputs whose blurred alpha is under the FFT's error ---- */

/* Output j of in (len samples, step floats apart) summed directly, the
 * edges clamped. */
static float
direct_sum (const fft_axis *a, const float *in, size_t step, int j)
{
  double sum = 0.0;

  for (int k = -a->radius; k <= a->radius; k++)
    sum += a->w[k < 0 ? -k : k] * in[(size_t) clamp_int (j + k, 0, a->len - 1) * step];
  return (float) sum;
}

/* nonzero[j + 1] - nonzero[0]: how many of the pixels 0..j of in (c
 * channels, step floats apart) have a channel that is not 0. */
static void
count_nonzero (const float *in, size_t step, int c, int len, int *nonzero)
{
  nonzero[0] = 0;
  for (int j = 0; j < len; j++)
    {
      int any = 0;
      for (int ch = 0; ch < c; ch++)
        any |= in[(size_t) j * step + ch] != 0.0f;
      nonzero[j + 1] = nonzero[j] + any;
    }
}

/* One pixel's c channel lines after the transforms (output j of channel ch
 * in out[ch][j], alpha last), their inputs (in[j step + ch]) and the
 * largest magnitude among those: outputs whose alpha is under ALPHA_FLOOR
 * times that are summed again directly, or set to 0 where every input they
 * reach is 0 (as the direct loops' sums are).  nonzero: a->len + 1 ints of
 * scratch. */
static void
repair_pixel (const fft_axis *a, float *const *out, int c, const float *in, size_t step,
              float largest, int *nonzero)
{
  const int    end = a->offset + a->outputs;
  const float  alpha_floor = (float) ALPHA_FLOOR * largest;
  const float *alpha = out[c - 1];
  int          counted = 0;

  for (int j = a->offset; j < end; j++)
    {
      int lo, hi;

      if (fabsf (alpha[j]) >= alpha_floor)  /* false for NaN */
        continue;
      if (!counted)
        count_nonzero (in, step, c, a->len, nonzero);
      counted = 1;
      lo = clamp_int (j - a->radius, 0, a->len - 1);
      hi = clamp_int (j + a->radius, 0, a->len - 1);
      for (int ch = 0; ch < c; ch++)
        out[ch][j] = nonzero[hi + 1] == nonzero[lo] ? 0.0f : direct_sum (a, in + ch, step, j);
    }
}

/* ---- Converting the region: row i of img ---- */

static void
load_region_row (const fft_run *run, int i)
{
  const gblur_job   *job = run->job;
  const gblur_image *src = job->src;

  gblur_cpu_load_row ((const unsigned char *) src->data + (size_t) (run->reg.y0 + i) * src->stride
                      + (size_t) run->reg.x0 * run->c * gblur_sample_size (src->sample),
                      src->sample, run->reg.w, run->c, job->flags, run->srgb,
                      run->img + (size_t) i * run->stride);
}

/* ---- The vertical pass: block b of BLOCK_FLOATS columns of img ---- */

#ifdef __SSE2__
/* Rows of a strided side fetched this far ahead of the tiles that read or
 * write them: each is a cache line of its own, too far from the last for
 * the hardware to guess. */
#define PREFETCH_ROWS 16

/* The 4x4 tile at src (rows src_stride apart) into dst (dst_stride). */
static inline void
transpose4 (const float *s, size_t src_stride, float *d, size_t dst_stride)
{
  __m128 a = _mm_loadu_ps (s), b = _mm_loadu_ps (s + src_stride);
  __m128 e = _mm_loadu_ps (s + 2 * src_stride), f = _mm_loadu_ps (s + 3 * src_stride);

  _MM_TRANSPOSE4_PS (a, b, e, f);
  _mm_storeu_ps (d, a);
  _mm_storeu_ps (d + dst_stride, b);
  _mm_storeu_ps (d + 2 * dst_stride, e);
  _mm_storeu_ps (d + 3 * dst_stride, f);
}
#endif

/* dst[c dst_stride + r] = src[r src_stride + c] for r < rows, c < cols:
 * 4x4 tiles in SSE registers where there are, one by one at the ends.  The
 * tiles go along the shorter side first, so that the longer side's rows
 * (a block's many region rows: cache lines far apart) are read or written
 * whole, once, and prefetched. */
static void
transpose (const float *src, size_t src_stride, float *dst, size_t dst_stride, int rows, int cols)
{
#ifdef __SSE2__
  const int r4 = rows / 4 * 4, c4 = cols / 4 * 4;

  if (rows >= cols)
    for (int r = 0; r < r4; r += 4)
      {
        if (r + PREFETCH_ROWS + 4 <= rows)
          for (int i = 0; i < 4; i++)
            _mm_prefetch ((const char *) (src + (size_t) (r + PREFETCH_ROWS + i) * src_stride), _MM_HINT_T0);
        for (int c = 0; c < c4; c += 4)
          transpose4 (src + (size_t) r * src_stride + c, src_stride, dst + (size_t) c * dst_stride + r, dst_stride);
      }
  else
    for (int c = 0; c < c4; c += 4)
      {
        if (c + PREFETCH_ROWS + 4 <= cols)
          for (int i = 0; i < 4; i++)
            _mm_prefetch ((const char *) (dst + (size_t) (c + PREFETCH_ROWS + i) * dst_stride), _MM_HINT_T0);
        for (int r = 0; r < r4; r += 4)
          transpose4 (src + (size_t) r * src_stride + c, src_stride, dst + (size_t) c * dst_stride + r, dst_stride);
      }
#else
  const int r4 = 0, c4 = 0;
#endif
  /* what the tiles left: the last rows % 4 and cols % 4 (all without SSE) */
  for (int r = 0; r < rows; r++)
    for (int c = r < r4 ? c4 : 0; c < cols; c++)
      dst[(size_t) c * dst_stride + r] = src[(size_t) r * src_stride + c];
}

/* The block's columns x.. as lines, line_pitch apart: a row's BLOCK_FLOATS
 * values are one cache line, read once for all the block's lines. */
static void
gather_columns (const fft_run *run, size_t x, int bw, float *lines)
{
  transpose (run->img + x, run->stride, lines, line_pitch (run), run->reg.h, bw);
}

/* The outputs back in img, over the window's rows. */
static void
scatter_columns (const fft_run *run, size_t x, int bw, const float *lines)
{
  const int o = run->y.offset;

  transpose (lines + o, line_pitch (run), run->img + (size_t) o * run->stride + x, run->stride,
             bw, run->y.outputs);
}

/* The block's pixels repaired (their inputs are still in img); largest[k]:
 * line k's largest input magnitude. */
static void
repair_columns (const fft_run *run, size_t x, int bw, float *lines, const float *largest, int worker)
{
  const int c = run->c;
  float    *out[GBLUR_MAX_CHANNELS];

  for (int p = 0; p < bw / c; p++)
    {
      float m = 0.0f;
      for (int ch = 0; ch < c; ch++)
        {
          out[ch] = lines + (size_t) (p * c + ch) * line_pitch (run);
          m = largest[p * c + ch] > m ? largest[p * c + ch] : m;
        }
      repair_pixel (&run->y, out, c, run->img + x + (size_t) p * c, run->stride, m, run->nonzero[worker]);
    }
}

static void
vertical_block (const fft_run *run, int b, int worker)
{
  const size_t x = (size_t) b * BLOCK_FLOATS, row = (size_t) run->reg.w * run->c;
  const int    bw = row - x < BLOCK_FLOATS ? (int) (row - x) : BLOCK_FLOATS;
  const int    c = run->c;
  const size_t pitch = line_pitch (run);
  float       *lines = run->lines[worker];
  float        largest[BLOCK_FLOATS];

  gather_columns (run, x, bw, lines);
  for (int k = 0; k < bw; k++)
    largest[k] = run->repair ? largest_magnitude (lines + (size_t) k * pitch, run->reg.h) : 0.0f;
  if (!run->single_first)
    convolve_lines (run, &run->y, lines, pitch, bw, worker, run->precise);
  else /* whole pixels (format_allows_fft), each in the precision it needs */
    for (int p = 0; p < bw / c; p++)
      {
        float *first = lines + (size_t) p * c * pitch, m = 0.0f;
        for (int ch = 0; ch < c; ch++)
          m = largest[p * c + ch] > m ? largest[p * c + ch] : m;
        const int precise = pixel_precise (run, first + (size_t) (c - 1) * pitch, 1, run->reg.h, m);
        convolve_lines (run, &run->y, first, pitch, c, worker, precise);
      }
  if (run->repair)
    repair_columns (run, x, bw, lines, largest, worker);
  scatter_columns (run, x, bw, lines);
}

/* ---- The horizontal pass: window rows into dst ---- */

/* Window row i's outputs (out: win_w pixels) into dst. */
static void
store_window_row (const fft_run *run, float *out, int i)
{
  const gblur_job *job = run->job;
  gblur_image     *dst = job->dst;

  gblur_cpu_store_row (out, job->geo.win_w, run->c, job->flags, dst->sample, run->srgb,
                       (unsigned char *) dst->data + (size_t) i * dst->stride);
}

/* The region's row of window row i. */
static float *
region_row (const fft_run *run, int i)
{
  return run->img + (size_t) (run->y.offset + i) * run->stride;
}

/* Window rows i.. (count of them) of one channel, transformed together in
 * place: the transforms read a whole row before its outputs come back. */
static void
horizontal_channel_rows (const fft_run *run, int i, int count, int worker)
{
  convolve_lines (run, &run->x, region_row (run, i), run->stride, count, worker, run->precise);
  for (int r = i; r < i + count; r++)
    store_window_row (run, region_row (run, r) + run->x.offset, r);
}

/* Window row i of pixels: the channels apart, a line each, transformed
 * together, and back together. */
static void
horizontal_pixel_row (const fft_run *run, int i, int worker)
{
  const int    c = run->c;
  const size_t pitch = line_pitch (run);
  float       *values = region_row (run, i);
  float       *lines = run->lines[worker], *out = run->out[worker];
  float       *channel[GBLUR_MAX_CHANNELS];
  const float  largest = run->repair ? largest_magnitude (values, run->reg.w * c) : 0.0f;
  const int    precise = pixel_precise (run, values + c - 1, (size_t) c, run->reg.w, largest);

  transpose (values, (size_t) c, lines, pitch, run->reg.w, c);
  convolve_lines (run, &run->x, lines, pitch, c, worker, precise);
  for (int ch = 0; ch < c; ch++)
    channel[ch] = lines + (size_t) ch * pitch;
  if (run->repair)
    repair_pixel (&run->x, channel, c, values, (size_t) c, largest, run->nonzero[worker]);
  transpose (lines + run->x.offset, pitch, out, (size_t) c, c, run->job->geo.win_w);
  store_window_row (run, out, i);
}

/* Window rows i.. (count of them) into dst. */
static void
horizontal_rows (const fft_run *run, int i, int count, int worker)
{
  if (run->x.radius == 0)
    for (int r = i; r < i + count; r++)
      store_window_row (run, region_row (run, r) + (size_t) run->x.offset * run->c, r);
  else if (run->c == 1)
    horizontal_channel_rows (run, i, count, worker);
  else
    for (int r = i; r < i + count; r++)
      horizontal_pixel_row (run, r, worker);
}

/* ---- Work sharing ---- */

/* The next `want` items of [.., end) (*count of them, fewer at the end):
 * the first, or -1 when none is left. */
static int
take_items (fft_run *run, int want, int *count)
{
  int i;

  pthread_mutex_lock (&run->lock);
  i = run->next < run->end ? run->next : -1;
  *count = run->end - run->next < want ? run->end - run->next : want;
  run->next += *count;
  pthread_mutex_unlock (&run->lock);
  return i;
}

static int
take_item (fft_run *run)
{
  int count;

  return take_items (run, 1, &count);
}

static void
load_worker (void *data, int worker)
{
  fft_run *run = data;

  if (worker >= run->workers)
    return;
  for (int i; (i = take_item (run)) >= 0;)
    load_region_row (run, i);
}

static void
vertical_worker (void *data, int worker)
{
  fft_run *run = data;

  if (worker >= run->workers)
    return;
  for (int b; (b = take_item (run)) >= 0;)
    vertical_block (run, b, worker);
}

static void
horizontal_worker (void *data, int worker)
{
  fft_run *run = data;

  if (worker >= run->workers)
    return;
  /* one channel's rows two at a time: a transform takes two lines */
  for (int i, count; (i = take_items (run, run->c == 1 ? 2 : 1, &count)) >= 0;)
    horizontal_rows (run, i, count, worker);
}

/* Items [first, end) on the workers, a few at a time (take_items) to
 * whichever is free. */
static void
share (gblur_cpu *cpu, fft_run *run, pool_fn fn, int first, int end)
{
  run->next = first;
  run->end = end;
  gblur_cpu_pool_run (cpu, fn, run);
}

/* Worker w's buffers, each library's from its own allocator (the
 * alignment its plans assumed); 0 when out of memory. */
static int
alloc_worker (fft_run *run, int w, int fail)
{
  const size_t n = max_length (run);
  const int    single = uses_single (run), precise = run->precise;

  run->lines[w] = fftwf_malloc (BLOCK_FLOATS * line_pitch (run) * sizeof (float));
  run->pair[w] = single ? fftwf_malloc (n * sizeof (fftwf_complex)) : NULL;
  run->pair_spec[w] = single ? fftwf_malloc (n * sizeof (fftwf_complex)) : NULL;
  run->spec[w] = precise ? fftw_malloc ((n / 2 + 1) * sizeof (fftw_complex)) : NULL;
  run->work[w] = precise ? fftw_malloc (n * sizeof (double)) : NULL;
  run->nonzero[w] = run->repair ? malloc ((n + 1) * sizeof (int)) : NULL;
  run->out[w] = fail ? NULL : malloc ((size_t) run->job->geo.win_w * run->c * sizeof (float));
  return run->lines[w] && (!single || (run->pair[w] && run->pair_spec[w]))
         && (!precise || (run->spec[w] && run->work[w])) && (!run->repair || run->nonzero[w]) && run->out[w];
}

/* Plans, kernel spectra, img and each worker's buffers; 0 when out of
 * memory (or an injected cpu-alloc fault: the last buffer fails). */
static int
alloc_run (fft_run *run, int threads)
{
  const gblur_job *job = run->job;
  int              ok;

  run->lines = calloc ((size_t) threads, sizeof *run->lines);
  run->pair = calloc ((size_t) threads, sizeof *run->pair);
  run->pair_spec = calloc ((size_t) threads, sizeof *run->pair_spec);
  run->spec = calloc ((size_t) threads, sizeof *run->spec);
  run->work = calloc ((size_t) threads, sizeof *run->work);
  run->nonzero = calloc ((size_t) threads, sizeof *run->nonzero);
  run->out = calloc ((size_t) threads, sizeof *run->out);
  run->img = gblur_kept_alloc (run->img_kept, region_bytes (run), &run->img_bytes);
  ok = run->lines && run->pair && run->pair_spec && run->spec && run->work && run->nonzero && run->out
       && run->img;
  ok = ok && prepare_axis (&run->y, job->weights_y) && prepare_axis (&run->x, job->weights_x);
  for (int w = 0; ok && w < run->workers; w++)
    ok = alloc_worker (run, w, job->faults->cpu_alloc && w == run->workers - 1);
  return ok;
}

static void
free_run (fft_run *run, int threads)
{
  for (int w = 0; w < threads; w++)
    {
      if (run->lines) fftwf_free (run->lines[w]);
      if (run->pair) fftwf_free (run->pair[w]);
      if (run->pair_spec) fftwf_free (run->pair_spec[w]);
      if (run->spec) fftw_free (run->spec[w]);
      if (run->work) fftw_free (run->work[w]);
      if (run->nonzero) free (run->nonzero[w]);
      if (run->out) free (run->out[w]);
    }
  free (run->lines);
  free (run->pair);
  free (run->pair_spec);
  free (run->spec);
  free (run->work);
  free (run->nonzero);
  free (run->out);
  gblur_kept_give (run->img_kept, run->img, run->img_bytes);
  free_axis (&run->y);
  free_axis (&run->x);
}

/* ---- The run: the region converted, the vertical pass, then the rows in
 * bands (progress steps, about 8 as on the direct path) ---- */

/* cpu-stripe:N (gblur-internal.h): the run fails before its Nth step. */
static gblur_status
step_fault (const gblur_job *job, int step, char *err, size_t err_size)
{
  if (step != job->faults->cpu_stripe)
    return GBLUR_OK;
  snprintf (err, err_size, "injected fault: the CPU backend failed at step %d, "
            "after %d of %d rows", step, job->rows_valid, job->geo.win_h);
  return GBLUR_E_NOMEM;
}

static gblur_status
run_rows (gblur_cpu *cpu, fft_run *run, gblur_job *job, char *err, size_t err_size)
{
  const int H = job->geo.win_h;
  const int band = (H + 7) / 8;
  int       step = 1;

  for (int first = 0; first < H; first += band, step++)
    {
      gblur_status status = step_fault (job, step, err, err_size);
      if (status != GBLUR_OK)
        return status;
      share (cpu, run, horizontal_worker, first, first + band < H ? first + band : H);
      job->rows_valid = run->end;
      if (job->progress && job->progress (job->rows_valid, H, job->user_data) && job->rows_valid < H)
        {
          snprintf (err, err_size, "cancelled after %d of %d rows", job->rows_valid, H);
          return GBLUR_E_CANCELLED;
        }
    }
  return GBLUR_OK;
}

gblur_status
gblur_cpu_fft_run (gblur_cpu *cpu, gblur_job *job, char *err, size_t err_size)
{
  const int    threads = gblur_cpu_threads (cpu);
  fft_run      run;
  gblur_status status = GBLUR_OK;

  job->rows_valid = 0;
  plan_lengths (&run, job);
  /* fewer workers when the memory limit cannot give each its buffers */
  for (run.workers = threads; run.workers > 1; run.workers--)
    if (run_bytes (&run, run.workers) <= job->memory_limit)
      break;
  pthread_mutex_init (&run.lock, NULL);
  run.img_kept = gblur_cpu_kept_region (cpu);
  if (!alloc_run (&run, threads))
    {
      snprintf (err, err_size, "out of host memory for the CPU backend's FFT buffers%s",
                job->faults->cpu_alloc ? " (injected fault)" : "");
      status = GBLUR_E_NOMEM;
    }
  if (status == GBLUR_OK)
    {
      share (cpu, &run, load_worker, 0, run.reg.h);
      if (job->radius_y > 0)
        share (cpu, &run, vertical_worker, 0,
               (int) (((size_t) run.reg.w * run.c + BLOCK_FLOATS - 1) / BLOCK_FLOATS));
      status = run_rows (cpu, &run, job, err, err_size);
    }
  pthread_mutex_destroy (&run.lock);
  free_run (&run, threads);
  return status;
}

#endif /* HAVE_FFTW */
