/* The FFT path's 2-D run: the region converted to floats, the vertical
 * pass on blocks of BLOCK_FLOATS columns, then the horizontal pass row by
 * row in progress steps, each shared among the pool's workers. */
#include "fft-internal.h"

#ifdef HAVE_FFTW

#include "faults.h"
#include "progress.h"
#include "tuning.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- Lengths and sizes ---- */

static fft_axis
plan_axis (int radius, int reg0, int reg_len, int win0, int win_len)
{
  fft_axis a = { 0 };

  a.radius = radius;
  a.len = reg_len;
  a.offset = win0 - reg0;
  a.outputs = win_len;
  if (radius > 0)
    a.n = gblur_fft_axis_length (reg_len, a.offset, win_len, radius);
  return a;
}

static void
plan_lengths (fft_run *run, const gblur_job *job)
{
  const gblur_geometry *g = &job->geo;

  memset (run, 0, sizeof *run);
  run->job = job;
  run->srgb = gblur_srgb_tables_get ();
  run->reg = gblur_fft_job_region (job);
  run->c = job->src->channels;
  run->precise = gblur_fft_needs_precision (job);
  run->repair = gblur_fft_divides_by_alpha (job);
  run->single_first = run->repair && job->src->sample == GBLUR_U8;
  /* an odd number of cache lines: a block's column of rows spreads over
   * the cache sets (a row of 2048 floats put them all in a few) */
  run->stride = round_up ((size_t) run->reg.w * run->c, BLOCK_FLOATS) | BLOCK_FLOATS;
  run->y = plan_axis (job->radius_y, run->reg.y0, run->reg.h, g->win_y, g->win_h);
  run->x = plan_axis (job->radius_x, run->reg.x0, run->reg.w, g->win_x, g->win_w);
  run->bounded = gblur_fft_bounded_applies (job, run->y.n, run->x.n);
  if (run->bounded)
    gblur_fft_bounds_plan (run);
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
  return !run->precise || run->single_first || run->bounded;
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
                            + (run->repair || run->bounded ? (n + 1) * sizeof (int) : 0)
                            + (run->bounded ? n * sizeof (float) : 0);

  return region_bytes (run)
         + (size_t) (run->y.n + run->x.n) * (sizeof (double) + 2 * sizeof (float))
         + (size_t) (run->y.radius + run->x.radius + 4) * sizeof (float)
         + (size_t) workers * per_worker;
}

int
gblur_cpu_fft_wanted (const gblur_job *job, gblur_fft_mode mode, double tap_cost, int threads)
{
  fft_run run;

  if (mode == GBLUR_FFT_OFF || !gblur_fft_format_allows (job))
    return 0;
  if (mode == GBLUR_FFT_AUTO && !gblur_fft_expected_faster (job, tap_cost, threads))
    return 0;
  plan_lengths (&run, job);
  return run_bytes (&run, 1) <= job->memory_limit;
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
        if (r + CPU_PREFETCH_ROWS + 4 <= rows)
          for (int i = 0; i < 4; i++)
            _mm_prefetch ((const char *) (src + (size_t) (r + CPU_PREFETCH_ROWS + i) * src_stride), _MM_HINT_T0);
        for (int c = 0; c < c4; c += 4)
          transpose4 (src + (size_t) r * src_stride + c, src_stride, dst + (size_t) c * dst_stride + r, dst_stride);
      }
  else
    for (int c = 0; c < c4; c += 4)
      {
        if (c + CPU_PREFETCH_ROWS + 4 <= cols)
          for (int i = 0; i < 4; i++)
            _mm_prefetch ((const char *) (dst + (size_t) (c + CPU_PREFETCH_ROWS + i) * dst_stride), _MM_HINT_T0);
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
      gblur_fft_repair_pixel (&run->y, out, c, run->img + x + (size_t) p * c, run->stride, m, run->nonzero[worker]);
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
    largest[k] = run->repair || run->bounded ? gblur_fft_largest_magnitude (lines + (size_t) k * pitch, run->reg.h)
                                             : 0.0f;
  if (run->bounded)
    gblur_fft_bounded_lines (run, &run->y, lines, pitch, bw, run->img + x, run->stride, largest, worker);
  else if (!run->single_first)
    gblur_fft_convolve_lines (run, &run->y, lines, pitch, bw, worker, run->precise);
  else /* whole pixels (format_allows_fft), each in the precision it needs */
    for (int p = 0; p < bw / c; p++)
      {
        float *first = lines + (size_t) p * c * pitch, m = 0.0f;
        for (int ch = 0; ch < c; ch++)
          m = largest[p * c + ch] > m ? largest[p * c + ch] : m;
        const int precise = gblur_fft_pixel_precise (run, first + (size_t) (c - 1) * pitch, 1, run->reg.h, m);
        gblur_fft_convolve_lines (run, &run->y, first, pitch, c, worker, precise);
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
  gblur_fft_convolve_lines (run, &run->x, region_row (run, i), run->stride, count, worker, run->precise);
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
  const float  largest = run->repair ? gblur_fft_largest_magnitude (values, run->reg.w * c) : 0.0f;
  const int    precise = gblur_fft_pixel_precise (run, values + c - 1, (size_t) c, run->reg.w, largest);

  transpose (values, (size_t) c, lines, pitch, run->reg.w, c);
  gblur_fft_convolve_lines (run, &run->x, lines, pitch, c, worker, precise);
  for (int ch = 0; ch < c; ch++)
    channel[ch] = lines + (size_t) ch * pitch;
  if (run->repair)
    gblur_fft_repair_pixel (&run->x, channel, c, values, (size_t) c, largest, run->nonzero[worker]);
  transpose (lines + run->x.offset, pitch, out, (size_t) c, c, run->job->geo.win_w);
  store_window_row (run, out, i);
}

/* Window rows i.. (count of them, at most 2) in single precision with the
 * error bound (fft-bounds.c), a line per channel, into dst. */
static void
horizontal_bounded_rows (const fft_run *run, int i, int count, int worker)
{
  const int    c = run->c;
  const size_t pitch = line_pitch (run);
  float       *lines = run->lines[worker], *out = run->out[worker];
  const float *rows[2];

  for (int r = 0; r < count; r++)
    {
      rows[r] = region_row (run, i + r);
      if (c == 1)
        memcpy (lines + (size_t) r * pitch, rows[r], (size_t) run->reg.w * sizeof (float));
      else
        transpose (rows[r], (size_t) c, lines + (size_t) r * c * pitch, pitch, run->reg.w, c);
    }
  gblur_fft_bounded_rows (run, lines, pitch, rows, count, worker);
  for (int r = 0; r < count; r++)
    {
      float *row = lines + (size_t) r * c * pitch + run->x.offset;
      if (c > 1)
        transpose (row, pitch, out, (size_t) c, c, run->job->geo.win_w);
      store_window_row (run, c > 1 ? out : row, i + r);
    }
}

/* Window rows i.. (count of them) into dst. */
static void
horizontal_rows (const fft_run *run, int i, int count, int worker)
{
  if (run->x.radius == 0)
    for (int r = i; r < i + count; r++)
      store_window_row (run, region_row (run, r) + (size_t) run->x.offset * run->c, r);
  else if (run->bounded)
    horizontal_bounded_rows (run, i, count, worker);
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
share (cpu_pool *pool, fft_run *run, pool_fn fn, int first, int end)
{
  run->next = first;
  run->end = end;
  gblur_cpu_pool_run (pool, fn, run);
}

/* Whether worker w has every buffer the run needs. */
static int
worker_ready (const fft_run *run, int w)
{
  return run->lines[w] && (!uses_single (run) || (run->pair[w] && run->pair_spec[w]))
         && (!run->precise || (run->spec[w] && run->work[w])) && (!(run->repair || run->bounded) || run->nonzero[w])
         && (!run->bounded || run->column[w]) && run->out[w];
}

/* Worker w's buffers, each library's from its own allocator (the
 * alignment its plans assumed); 0 when out of memory. */
static int
alloc_worker (fft_run *run, int w)
{
  const int    fail = gblur_fault_cpu_alloc (run->job, w, run->workers);
  const size_t n = max_length (run);
  const int    single = uses_single (run), precise = run->precise;

  run->lines[w] = fftwf_malloc (BLOCK_FLOATS * line_pitch (run) * sizeof (float));
  run->pair[w] = single ? fftwf_malloc (n * sizeof (fftwf_complex)) : NULL;
  run->pair_spec[w] = single ? fftwf_malloc (n * sizeof (fftwf_complex)) : NULL;
  run->spec[w] = precise ? fftw_malloc ((n / 2 + 1) * sizeof (fftw_complex)) : NULL;
  run->work[w] = precise ? fftw_malloc (n * sizeof (double)) : NULL;
  run->nonzero[w] = run->repair || run->bounded ? malloc ((n + 1) * sizeof (int)) : NULL;
  run->column[w] = run->bounded ? malloc (n * sizeof (float)) : NULL;
  run->out[w] = fail ? NULL : malloc ((size_t) run->job->geo.win_w * run->c * sizeof (float));
  return worker_ready (run, w);
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
  run->column = calloc ((size_t) threads, sizeof *run->column);
  run->out = calloc ((size_t) threads, sizeof *run->out);
  run->img = gblur_kept_alloc (run->img_kept, region_bytes (run), &run->img_bytes);
  ok = run->lines && run->pair && run->pair_spec && run->spec && run->work && run->nonzero && run->column && run->out
       && run->img;
  ok = ok && gblur_fft_prepare_axis (&run->y, job->weights_y) && gblur_fft_prepare_axis (&run->x, job->weights_x);
  for (int w = 0; ok && w < run->workers; w++)
    ok = alloc_worker (run, w);
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
      if (run->column) free (run->column[w]);
      if (run->out) free (run->out[w]);
    }
  free (run->lines);
  free (run->pair);
  free (run->pair_spec);
  free (run->spec);
  free (run->work);
  free (run->nonzero);
  free (run->column);
  free (run->out);
  gblur_kept_give (run->img_kept, run->img, run->img_bytes);
  gblur_fft_free_axis (&run->y);
  gblur_fft_free_axis (&run->x);
}

/* ---- The run: the region converted, the vertical pass, then the rows in
 * bands (progress steps, about 8 as on the direct path) ---- */

static gblur_status
run_rows (cpu_pool *pool, fft_run *run, gblur_job *job, char *err, size_t err_size)
{
  const int H = job->geo.win_h;
  const int band = (H + 7) / 8;
  int       step = 1;

  for (int first = 0; first < H; first += band, step++)
    {
      gblur_status status = gblur_fault_cpu_step (job, step, err, err_size);
      if (status != GBLUR_OK)
        return status;
      share (pool, run, horizontal_worker, first, first + band < H ? first + band : H);
      job->rows_valid = run->end;
      status = gblur_cpu_report_progress (job, err, err_size);
      if (status != GBLUR_OK)
        return status;
    }
  return GBLUR_OK;
}

gblur_status
gblur_cpu_fft_run (cpu_pool *pool, gblur_kept *region, gblur_job *job, char *err, size_t err_size)
{
  const int    threads = gblur_cpu_pool_threads (pool);
  fft_run      run;
  gblur_status status = GBLUR_OK;

  job->rows_valid = 0;
  plan_lengths (&run, job);
  /* fewer workers when the memory limit cannot give each its buffers */
  for (run.workers = threads; run.workers > 1; run.workers--)
    if (run_bytes (&run, run.workers) <= job->memory_limit)
      break;
  pthread_mutex_init (&run.lock, NULL);
  run.img_kept = region;
  if (!alloc_run (&run, threads))
    {
      snprintf (err, err_size, "out of host memory for the CPU backend's FFT buffers%s",
                gblur_fault_cpu_alloc_note (job));
      status = GBLUR_E_NOMEM;
    }
  if (status == GBLUR_OK)
    {
      share (pool, &run, load_worker, 0, run.reg.h);
      if (job->radius_y > 0)
        share (pool, &run, vertical_worker, 0,
               (int) (((size_t) run.reg.w * run.c + BLOCK_FLOATS - 1) / BLOCK_FLOATS));
      status = run_rows (pool, &run, job, err, err_size);
    }
  pthread_mutex_destroy (&run.lock);
  free_run (&run, threads);
  return status;
}

#endif /* HAVE_FFTW */
