/* The CPU backend's FFT path for large radii (see backend.h): the vertical
 * pass on blocks of columns of the window's region, then the horizontal
 * pass row by row, each a linear convolution of whole lines by FFTW's
 * single-precision real transforms.
 *
 * A line holds the window's outputs and radius samples each side, the
 * edges clamped (replicated) where the region reaches the image edge, as
 * the direct loops do; it is zero-padded to an FFT length n >= its length,
 * so the circular convolution with the centred kernel (tap k at index k mod
 * n) equals the linear one at every output.  The kernel is the job's own
 * truncated, normalised half kernel; its spectrum is real (the kernel is
 * even) and is made once per run and length, with the 1/n of the inverse
 * transform folded in.
 *
 * FFTW's planner is not thread safe (only fftwf_execute* is): plans are made
 * under a lock with FFTW_ESTIMATE (no timing runs: planning takes
 * microseconds), kept for the life of the process, one pair per length and
 * number of interleaved lines, and executed on the workers' own buffers
 * (fftwf_malloc'd, so aligned as the planner assumed). */
#include "backend.h"

#ifdef HAVE_FFTW

#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Floats per block of columns of the vertical pass: the block's lines are
 * interleaved (one transform of many lines, vectorised across them). */
#define BLOCK_FLOATS 16

/* Relative costs per output sample, measured with tests/bench on a 2-core
 * AVX-512 machine (see fft_expected_faster): a direct tap, and one unit
 * of n log2 n / outputs of a transform pass. */
#define DIRECT_TAP_COST 1.0
#define FFT_UNIT_COST   0.55

/* ---- Plans, shared by all engines ---- */

typedef struct fft_plans {
  int               n, howmany;
  fftwf_plan        forward, backward;
  struct fft_plans *next;
} fft_plans;

static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
static fft_plans      *plan_cache;

/* Transforms of howmany interleaved lines of length n (line j at j, j +
 * howmany, ...): real -> n/2 + 1 complex and back. */
static fft_plans *
make_plans (int n, int howmany)
{
  fft_plans     *p = calloc (1, sizeof *p);
  float         *real = fftwf_malloc ((size_t) n * howmany * sizeof (float));
  fftwf_complex *spec = fftwf_malloc ((size_t) (n / 2 + 1) * howmany * sizeof (fftwf_complex));

  if (p && real && spec)
    {
      p->n = n;
      p->howmany = howmany;
      p->forward = fftwf_plan_many_dft_r2c (1, &n, howmany, real, NULL, howmany, 1,
                                            spec, NULL, howmany, 1, FFTW_ESTIMATE);
      p->backward = fftwf_plan_many_dft_c2r (1, &n, howmany, spec, NULL, howmany, 1,
                                             real, NULL, howmany, 1, FFTW_ESTIMATE);
    }
  fftwf_free (real);
  fftwf_free (spec);
  if (p && (!p->forward || !p->backward))
    {
      if (p->forward) fftwf_destroy_plan (p->forward);
      if (p->backward) fftwf_destroy_plan (p->backward);
      free (p);
      p = NULL;
    }
  return p;
}

/* The cached plans for (n, howmany), made on first use; NULL when out of
 * memory. */
static const fft_plans *
plans_for (int n, int howmany)
{
  fft_plans *p;

  pthread_mutex_lock (&plan_lock);
  for (p = plan_cache; p; p = p->next)
    if (p->n == n && p->howmany == howmany)
      break;
  if (!p && (p = make_plans (n, howmany)))
    {
      p->next = plan_cache;
      plan_cache = p;
    }
  pthread_mutex_unlock (&plan_lock);
  return p;
}

/* ---- Lengths and the decision ---- */

/* The smallest even n >= len whose only prime factors are 2, 3 and 5:
 * the lengths FFTW transforms fastest. */
static int
fft_length (int len)
{
  for (int n = len + (len & 1);; n += 2)
    {
      int m = n;
      while (m % 2 == 0) m /= 2;
      while (m % 3 == 0) m /= 3;
      while (m % 5 == 0) m /= 5;
      if (m == 1)
        return n;
    }
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

/* Formats whose single-precision FFT error stays well under half a level
 * (see backend.h). */
static int
format_allows_fft (const gblur_job *job)
{
  if (job->flags & GBLUR_PREMULTIPLY_ALPHA)
    return 0;
  return !(job->src->sample == GBLUR_U16 && (job->flags & GBLUR_LINEAR_LIGHT));
}

/* Cost per output sample of one pass over lines of `outputs` samples,
 * `lines_per_output_line` lines per output line (the vertical pass
 * transforms the region's columns, more than the window's). */
static double
fft_pass_cost (int radius, int outputs, double lines_ratio)
{
  const double n = fft_length (outputs + 2 * radius);

  return radius > 0 ? FFT_UNIT_COST * lines_ratio * n * log2 (n) / outputs : 0.0;
}

static double
direct_pass_cost (int radius)
{
  return radius > 0 ? DIRECT_TAP_COST * (2 * radius + 1) : 0.0;
}

static int
fft_expected_faster (const gblur_job *job)
{
  const gblur_geometry *g = &job->geo;
  const region          reg = job_region (job);
  double fft = fft_pass_cost (job->radius_y, g->win_h, (double) reg.w / g->win_w)
               + fft_pass_cost (job->radius_x, g->win_w, 1.0);
  double direct = direct_pass_cost (job->radius_y) + direct_pass_cost (job->radius_x);

  return fft < direct;
}

/* ---- One run ---- */

typedef struct {
  const gblur_job         *job;
  const gblur_srgb_tables *srgb;
  region                   reg;
  int                      c;
  int                      workers;
  /* vertical pass (radius_y > 0): blocks of block_px columns */
  int                      ny, block_px, nblocks;
  const fft_plans         *vplans, *vplans_last;  /* full blocks, the last one */
  float                   *ky;                    /* ny/2 + 1 real spectrum / ny */
  float                   *mid;                   /* win_h rows of reg.w * c floats */
  /* horizontal pass (radius_x > 0) */
  int                      nx;
  const fft_plans         *hplans;
  float                   *kx;
  /* per worker */
  float                  **line;
  fftwf_complex          **spec;
  float                  **row;                   /* a converted source row (radius_y 0) */
  /* work sharing */
  pthread_mutex_t          lock;
  int                      next, end;             /* next block or row, and the end */
} fft_run;

/* Floats of each worker's line buffer, complex values of its spectrum. */
static size_t
line_floats (const fft_run *run)
{
  size_t v = run->job->radius_y > 0 ? (size_t) run->ny * run->block_px * run->c : 0;
  size_t h = run->job->radius_x > 0 ? (size_t) run->nx * run->c : 0;

  return v > h ? v : h;
}

static size_t
spec_values (const fft_run *run)
{
  size_t v = run->job->radius_y > 0 ? (size_t) (run->ny / 2 + 1) * run->block_px * run->c : 0;
  size_t h = run->job->radius_x > 0 ? (size_t) (run->nx / 2 + 1) * run->c : 0;

  return v > h ? v : h;
}

static void
plan_lengths (fft_run *run, const gblur_job *job)
{
  memset (run, 0, sizeof *run);
  run->job = job;
  run->srgb = gblur_srgb_tables_get ();
  run->reg = job_region (job);
  run->c = job->src->channels;
  run->block_px = BLOCK_FLOATS / run->c;
  run->nblocks = (run->reg.w + run->block_px - 1) / run->block_px;
  if (job->radius_y > 0)
    run->ny = fft_length (job->geo.win_h + 2 * job->radius_y);
  if (job->radius_x > 0)
    run->nx = fft_length (job->geo.win_w + 2 * job->radius_x);
}

/* Bytes the run allocates with `workers` workers. */
static size_t
run_bytes (const fft_run *run, int workers)
{
  const gblur_job *job = run->job;
  size_t mid = job->radius_y > 0 ? (size_t) job->geo.win_h * run->reg.w * run->c : 0;
  size_t row = job->radius_y > 0 ? 0 : (size_t) run->reg.w * run->c;
  size_t per_worker = (line_floats (run) + row) * sizeof (float)
                      + spec_values (run) * sizeof (fftwf_complex);

  return mid * sizeof (float) + (size_t) (run->ny + run->nx) * sizeof (float)
         + (size_t) workers * per_worker;
}

int
gblur_cpu_fft_wanted (const gblur_job *job, gblur_fft_mode mode)
{
  fft_run run;

  if (mode == GBLUR_FFT_OFF || !format_allows_fft (job))
    return 0;
  if (mode == GBLUR_FFT_AUTO && !fft_expected_faster (job))
    return 0;
  plan_lengths (&run, job);
  return run_bytes (&run, 1) <= job->memory_limit;
}

/* The spectrum of the centred kernel w[0..r] for length n, real parts
 * only (those of an even sequence; the imaginary parts are rounding), each
 * divided by n.  NULL when out of memory. */
static float *
kernel_spectrum (int n, const float *w, int r)
{
  const fft_plans *p = plans_for (n, 1);
  float           *k = fftwf_malloc ((size_t) n * sizeof (float));
  fftwf_complex   *s = fftwf_malloc ((size_t) (n / 2 + 1) * sizeof (fftwf_complex));
  float           *re = malloc ((size_t) (n / 2 + 1) * sizeof (float));

  if (p && k && s && re)
    {
      memset (k, 0, (size_t) n * sizeof (float));
      k[0] = w[0];
      for (int d = 1; d <= r; d++)
        k[d] = k[n - d] = w[d];
      fftwf_execute_dft_r2c (p->forward, k, s);
      for (int i = 0; i <= n / 2; i++)
        re[i] = s[i][0] / (float) n;
    }
  else
    {
      free (re);
      re = NULL;
    }
  fftwf_free (k);
  fftwf_free (s);
  return re;
}

/* Multiplies howmany interleaved spectra by the real spectrum k. */
static void
multiply_spectra (fftwf_complex *s, const float *k, int n, int howmany)
{
  float *f = (float *) s;

  for (int i = 0; i <= n / 2; i++)
    {
      float *v = f + (size_t) i * 2 * howmany;
      for (int j = 0; j < 2 * howmany; j++)
        v[j] *= k[i];
    }
}

/* ---- The vertical pass: block b of columns into mid ---- */

/* The block's lines, interleaved: line position p is image row
 * win_y - ry + p clamped to the region; zeros up to ny. */
static void
load_column_block (const fft_run *run, int x0, int px, float *line)
{
  const gblur_job   *job = run->job;
  const gblur_image *src = job->src;
  const int          ry = job->radius_y, len = job->geo.win_h + 2 * ry;
  const size_t       bw = (size_t) px * run->c;
  const size_t       offset = (size_t) x0 * run->c * gblur_sample_size (src->sample);
  int                prev = -1;

  for (int p = 0; p < len; p++)
    {
      int    y = clamp_int (job->geo.win_y - ry + p, run->reg.y0, run->reg.y0 + run->reg.h - 1);
      float *out = line + (size_t) p * bw;

      if (y == prev)  /* a clamped row: the one before again */
        memcpy (out, out - bw, bw * sizeof (float));
      else
        gblur_cpu_load_row ((const unsigned char *) src->data + (size_t) y * src->stride + offset,
                            src->sample, px, run->c, job->flags, run->srgb, out);
      prev = y;
    }
  memset (line + (size_t) len * bw, 0, (size_t) (run->ny - len) * bw * sizeof (float));
}

static void
vertical_block (const fft_run *run, int b, float *line, fftwf_complex *spec)
{
  const gblur_job *job = run->job;
  const int        x0 = run->reg.x0 + b * run->block_px;
  const int        px = run->reg.x0 + run->reg.w - x0 < run->block_px
                        ? run->reg.x0 + run->reg.w - x0 : run->block_px;
  const int        howmany = px * run->c;
  const fft_plans *p = px == run->block_px ? run->vplans : run->vplans_last;
  const size_t     stride = (size_t) run->reg.w * run->c;

  load_column_block (run, x0, px, line);
  fftwf_execute_dft_r2c (p->forward, line, spec);
  multiply_spectra (spec, run->ky, run->ny, howmany);
  fftwf_execute_dft_c2r (p->backward, spec, line);
  for (int i = 0; i < job->geo.win_h; i++)
    memcpy (run->mid + (size_t) i * stride + (size_t) (x0 - run->reg.x0) * run->c,
            line + (size_t) (i + job->radius_y) * howmany, (size_t) howmany * sizeof (float));
}

/* ---- The horizontal pass: window row i into dst ---- */

/* The row's line, channels interleaved: position p is image column
 * win_x - rx + p clamped to the region; zeros up to nx. */
static void
load_row_line (const fft_run *run, const float *values, float *line)
{
  const gblur_job *job = run->job;
  const int        rx = job->radius_x, c = run->c, len = job->geo.win_w + 2 * rx;
  const int        first = job->geo.win_x - rx;  /* image column of position 0 */
  const int        lo = run->reg.x0 - first;     /* positions [lo, hi) are in the region */
  const int        hi = lo + run->reg.w;

  for (int p = 0; p < lo; p++)
    memcpy (line + (size_t) p * c, values, (size_t) c * sizeof (float));
  memcpy (line + (size_t) lo * c, values, (size_t) run->reg.w * c * sizeof (float));
  for (int p = hi; p < len; p++)
    memcpy (line + (size_t) p * c, values + (size_t) (run->reg.w - 1) * c, (size_t) c * sizeof (float));
  memset (line + (size_t) len * c, 0, (size_t) (run->nx - len) * c * sizeof (float));
}

static void
horizontal_row (const fft_run *run, int i, float *line, fftwf_complex *spec, float *row)
{
  const gblur_job   *job = run->job;
  const gblur_image *src = job->src;
  gblur_image       *dst = job->dst;
  const int          y = job->geo.win_y + i, c = run->c;
  float             *values, *out;

  if (job->radius_y > 0)
    values = run->mid + (size_t) i * run->reg.w * c;
  else
    {
      gblur_cpu_load_row ((const unsigned char *) src->data + (size_t) y * src->stride
                          + (size_t) run->reg.x0 * c * gblur_sample_size (src->sample),
                          src->sample, run->reg.w, c, job->flags, run->srgb, row);
      values = row;
    }
  if (job->radius_x > 0)
    {
      load_row_line (run, values, line);
      fftwf_execute_dft_r2c (run->hplans->forward, line, spec);
      multiply_spectra (spec, run->kx, run->nx, c);
      fftwf_execute_dft_c2r (run->hplans->backward, spec, line);
      out = line + (size_t) job->radius_x * c;
    }
  else
    out = values + (size_t) (job->geo.win_x - run->reg.x0) * c;
  gblur_cpu_store_row (out, job->geo.win_w, c, job->flags, dst->sample, run->srgb,
                       (unsigned char *) dst->data + (size_t) i * dst->stride);
}

/* ---- Work sharing ---- */

/* The next item of [.., end), or -1 when none is left. */
static int
take_item (fft_run *run)
{
  int i;

  pthread_mutex_lock (&run->lock);
  i = run->next < run->end ? run->next++ : -1;
  pthread_mutex_unlock (&run->lock);
  return i;
}

static void
vertical_worker (void *data, int worker)
{
  fft_run *run = data;

  if (worker >= run->workers)
    return;
  for (int b; (b = take_item (run)) >= 0;)
    vertical_block (run, b, run->line[worker], run->spec[worker]);
}

static void
horizontal_worker (void *data, int worker)
{
  fft_run *run = data;

  if (worker >= run->workers)
    return;
  for (int i; (i = take_item (run)) >= 0;)
    horizontal_row (run, i, run->line[worker], run->spec[worker], run->row[worker]);
}

/* ---- Memory ---- */

/* Plans, kernel spectra, the mid buffer and each worker's buffers; 0 when
 * out of memory (or an injected cpu-alloc fault: the last buffer fails). */
static int
alloc_run (fft_run *run, int threads)
{
  const gblur_job *job = run->job;
  const int        rx = job->radius_x, ry = job->radius_y, c = run->c;
  const int        last_px = run->reg.w - (run->nblocks - 1) * run->block_px;
  int              ok;

  run->line = calloc ((size_t) threads, sizeof *run->line);
  run->spec = calloc ((size_t) threads, sizeof *run->spec);
  run->row = calloc ((size_t) threads, sizeof *run->row);
  ok = run->line && run->spec && run->row;
  if (ok && ry > 0)
    {
      run->vplans = plans_for (run->ny, run->block_px * c);
      run->vplans_last = plans_for (run->ny, last_px * c);
      run->ky = kernel_spectrum (run->ny, job->weights_y, ry);
      run->mid = malloc ((size_t) job->geo.win_h * run->reg.w * c * sizeof (float));
      ok = run->vplans && run->vplans_last && run->ky && run->mid;
    }
  if (ok && rx > 0)
    {
      run->hplans = plans_for (run->nx, c);
      run->kx = kernel_spectrum (run->nx, job->weights_x, rx);
      ok = run->hplans && run->kx;
    }
  for (int w = 0; ok && w < run->workers; w++)
    {
      const int fail = job->faults->cpu_alloc && w == run->workers - 1;
      run->line[w] = fftwf_malloc (line_floats (run) * sizeof (float) + 1);
      run->spec[w] = fail ? NULL : fftwf_malloc (spec_values (run) * sizeof (fftwf_complex) + 1);
      run->row[w] = ry > 0 ? NULL : malloc ((size_t) run->reg.w * c * sizeof (float));
      ok = run->line[w] && run->spec[w] && (ry > 0 || run->row[w]);
    }
  return ok;
}

static void
free_run (fft_run *run, int threads)
{
  for (int w = 0; w < threads; w++)
    {
      if (run->line) fftwf_free (run->line[w]);
      if (run->spec) fftwf_free (run->spec[w]);
      if (run->row) free (run->row[w]);
    }
  free (run->line);
  free (run->spec);
  free (run->row);
  free (run->ky);
  free (run->kx);
  free (run->mid);
}

/* ---- The run: the vertical pass, then the rows in bands (progress steps,
 * as the direct path reports them) ---- */

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
      run->next = first;
      run->end = first + band < H ? first + band : H;
      gblur_cpu_pool_run (cpu, horizontal_worker, run);
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
  if (!alloc_run (&run, threads))
    {
      snprintf (err, err_size, "out of host memory for the CPU backend's FFT buffers%s",
                job->faults->cpu_alloc ? " (injected fault)" : "");
      status = GBLUR_E_NOMEM;
    }
  if (status == GBLUR_OK && job->radius_y > 0)
    {
      run.next = 0;
      run.end = run.nblocks;
      gblur_cpu_pool_run (cpu, vertical_worker, &run);
    }
  if (status == GBLUR_OK)
    status = run_rows (cpu, &run, job, err, err_size);
  pthread_mutex_destroy (&run.lock);
  free_run (&run, threads);
  return status;
}

#endif /* HAVE_FFTW */
