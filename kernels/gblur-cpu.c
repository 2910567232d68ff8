/* The CPU backend: the image is cut into tiles (full-width stripes unless
 * the memory limit asks for column blocks), handed to the pool's threads a
 * band at a time.  Each tile converts its input rows to float once into a
 * ring, blurs them vertically several rows at a time into padded lines, then
 * horizontally; the hot loops are built for the baseline instruction set and
 * for AVX2+FMA, picked at run time (see "The blur of one tile"). */
#include "gblur-internal.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define ROWS 8                     /* output rows per vertical sub-block (registers) */
#define BLOCK_MAX (8 * ROWS)       /* output rows per ring step, at most */
#define VLEN 8                     /* floats per vector */
#define HSTRIP (4 * VLEN)          /* floats per horizontal strip */

typedef float vecf __attribute__ ((vector_size (VLEN * sizeof (float))));

/* Unaligned vector load and store (statement expressions rather than
 * functions: a vector return value would change the baseline ABI). */
#define vload(p)     ({ vecf v_; memcpy (&v_, (p), sizeof v_); v_; })
#define vstore(p, v) do { vecf s_ = (v); memcpy ((p), &s_, sizeof s_); } while (0)

/* ---- A small persistent thread pool: run fn(ctx, i) for i in 0..n-1. ---- */

typedef void (*pool_fn) (void *ctx, int worker);

struct gblur_cpu {
  int             threads;
  pthread_t      *workers;    /* threads - 1 of them; the caller is worker 0 */
  pthread_mutex_t lock;
  pthread_cond_t  wake;
  pthread_cond_t  idle;
  unsigned        generation;
  int             busy;
  int             stop;
  pool_fn         fn;
  void           *ctx;
};

typedef struct {
  gblur_cpu *cpu;
  int        index;
} worker_arg;

static void *
worker_main (void *data)
{
  worker_arg *arg = data;
  gblur_cpu  *cpu = arg->cpu;
  int         index = arg->index;
  unsigned    seen = 0;

  free (arg);
  pthread_mutex_lock (&cpu->lock);
  for (;;)
    {
      while (!cpu->stop && cpu->generation == seen)
        pthread_cond_wait (&cpu->wake, &cpu->lock);
      if (cpu->stop)
        break;
      seen = cpu->generation;
      pthread_mutex_unlock (&cpu->lock);
      cpu->fn (cpu->ctx, index);
      pthread_mutex_lock (&cpu->lock);
      if (--cpu->busy == 0)
        pthread_cond_signal (&cpu->idle);
    }
  pthread_mutex_unlock (&cpu->lock);
  return NULL;
}

static void
pool_run (gblur_cpu *cpu, pool_fn fn, void *ctx)
{
  if (cpu->threads > 1)
    {
      pthread_mutex_lock (&cpu->lock);
      cpu->fn = fn;
      cpu->ctx = ctx;
      cpu->busy = cpu->threads - 1;
      cpu->generation++;
      pthread_cond_broadcast (&cpu->wake);
      pthread_mutex_unlock (&cpu->lock);
    }
  fn (ctx, 0);
  if (cpu->threads > 1)
    {
      pthread_mutex_lock (&cpu->lock);
      while (cpu->busy > 0)
        pthread_cond_wait (&cpu->idle, &cpu->lock);
      pthread_mutex_unlock (&cpu->lock);
    }
}

gblur_cpu *
gblur_cpu_new (int threads)
{
  gblur_cpu *cpu = calloc (1, sizeof *cpu);

  if (!cpu)
    return NULL;
  cpu->threads = threads < 1 ? 1 : threads;
  pthread_mutex_init (&cpu->lock, NULL);
  pthread_cond_init (&cpu->wake, NULL);
  pthread_cond_init (&cpu->idle, NULL);
  cpu->workers = calloc ((size_t) cpu->threads, sizeof *cpu->workers);
  if (!cpu->workers)
    {
      free (cpu);
      return NULL;
    }
  for (int i = 1; i < cpu->threads; i++)
    {
      worker_arg *arg = malloc (sizeof *arg);
      if (arg)
        {
          arg->cpu = cpu;
          arg->index = i;
        }
      if (!arg || pthread_create (&cpu->workers[i - 1], NULL, worker_main, arg) != 0)
        {
          free (arg);
          cpu->threads = i; /* run with the workers we have */
          break;
        }
    }
  return cpu;
}

void
gblur_cpu_free (gblur_cpu *cpu)
{
  if (!cpu)
    return;
  pthread_mutex_lock (&cpu->lock);
  cpu->stop = 1;
  pthread_cond_broadcast (&cpu->wake);
  pthread_mutex_unlock (&cpu->lock);
  for (int i = 1; i < cpu->threads; i++)
    pthread_join (cpu->workers[i - 1], NULL);
  pthread_mutex_destroy (&cpu->lock);
  pthread_cond_destroy (&cpu->wake);
  pthread_cond_destroy (&cpu->idle);
  free (cpu->workers);
  free (cpu);
}

int
gblur_cpu_threads (const gblur_cpu *cpu)
{
  return cpu->threads;
}

/* ---- Conversions between stored samples and the working float values ---- */

/* Working values are normalised to [0,1] (u8 / 255, u16 / 65535, float as
 * is), in linear light when asked, premultiplied when asked. */
static void
load_row (const unsigned char *row, gblur_sample sample, int pixels, int channels,
          unsigned flags, const gblur_srgb_tables *srgb, float *out)
{
  int n = pixels * channels;
  int has_alpha = (flags & GBLUR_PREMULTIPLY_ALPHA) != 0;
  int linear = (flags & GBLUR_LINEAR_LIGHT) != 0;

  switch (sample)
    {
    case GBLUR_U8:
      if (linear)
        for (int i = 0; i < n; i++)
          out[i] = srgb->decode_u8[row[i]];
      else
        for (int i = 0; i < n; i++)
          out[i] = row[i] * (1.0f / 255.0f);
      if (linear && has_alpha) /* alpha is never curve-encoded */
        for (int i = channels - 1; i < n; i += channels)
          out[i] = row[i] * (1.0f / 255.0f);
      break;
    case GBLUR_U16:
      for (int i = 0; i < n; i++)
        {
          uint16_t v;
          memcpy (&v, row + 2 * (size_t) i, 2);
          out[i] = linear && !(has_alpha && i % channels == channels - 1)
                     ? srgb->decode_u16[v] : v * (1.0f / 65535.0f);
        }
      break;
    case GBLUR_F32:
      memcpy (out, row, (size_t) n * sizeof (float));
      break;
    }
  if (has_alpha)
    for (int p = 0; p < pixels; p++)
      {
        float *px = out + (size_t) p * channels;
        for (int c = 0; c < channels - 1; c++)
          px[c] *= px[channels - 1];
      }
}

static float
clamp01 (float v)
{
  return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
}

/* The common cases of load_row and store_row as plain loops the compiler
 * vectorises (inlined into each instruction-set clone); same arithmetic. */
static inline __attribute__ ((always_inline)) void
load_row_fast (const unsigned char *row, gblur_sample sample, int pixels, int channels,
               unsigned flags, const gblur_srgb_tables *srgb, float *out)
{
  const int n = pixels * channels;

  if (sample == GBLUR_U8 && flags == 0)
    for (int i = 0; i < n; i++)
      out[i] = row[i] * (1.0f / 255.0f);
  else
    load_row (row, sample, pixels, channels, flags, srgb, out);
}

static void store_row (float *values, int pixels, int channels, unsigned flags,
                       gblur_sample sample, const gblur_srgb_tables *srgb, unsigned char *row);

static inline __attribute__ ((always_inline)) void
store_row_fast (float *values, int pixels, int channels, unsigned flags, gblur_sample sample,
                const gblur_srgb_tables *srgb, unsigned char *row)
{
  const int n = pixels * channels;

#ifdef __SSE2__
  if (sample == GBLUR_U8 && flags == 0)
    {
      /* SSE2 is in every x86-64: min/max clamp, truncating convert, packs. */
      const __m128 zero = _mm_setzero_ps (), one = _mm_set1_ps (1.0f);
      const __m128 scale = _mm_set1_ps (255.0f), half = _mm_set1_ps (0.5f);
      int          i = 0;
      for (; i + 16 <= n; i += 16)
        {
          __m128i q[4];
          for (int k = 0; k < 4; k++)
            {
              __m128 v = _mm_loadu_ps (values + i + 4 * k);
              v = _mm_min_ps (_mm_max_ps (v, zero), one);
              q[k] = _mm_cvttps_epi32 (_mm_add_ps (_mm_mul_ps (v, scale), half));
            }
          _mm_storeu_si128 ((__m128i *) (row + i),
                            _mm_packus_epi16 (_mm_packs_epi32 (q[0], q[1]),
                                              _mm_packs_epi32 (q[2], q[3])));
        }
      for (; i < n; i++)
        row[i] = (unsigned char) (clamp01 (values[i]) * 255.0f + 0.5f);
    }
#else
  if (0)
    ;
#endif
  else
    store_row (values, pixels, channels, flags, sample, srgb, row);
}

static void
store_row (float *values, int pixels, int channels, unsigned flags, gblur_sample sample,
           const gblur_srgb_tables *srgb, unsigned char *row)
{
  int n = pixels * channels;
  int has_alpha = (flags & GBLUR_PREMULTIPLY_ALPHA) != 0;
  int linear = (flags & GBLUR_LINEAR_LIGHT) != 0;

  if (has_alpha)
    for (int p = 0; p < pixels; p++)
      {
        float *px = values + (size_t) p * channels;
        float  a = px[channels - 1];
        /* Alpha under 2^-100 counts as 0 (only sigma < 0.125 gets there):
         * 1/a would overflow for subnormal a, making colours inf or NaN. */
        float  inv = a >= 0x1p-100f ? 1.0f / a : 0.0f;
        for (int c = 0; c < channels - 1; c++)
          px[c] *= inv;
      }

  switch (sample)
    {
    case GBLUR_U8:
      for (int i = 0; i < n; i++)
        {
          if (linear && !(has_alpha && i % channels == channels - 1))
            row[i] = (unsigned char) gblur_encode_u8_linear (srgb, values[i]);
          else
            row[i] = (unsigned char) (clamp01 (values[i]) * 255.0f + 0.5f);
        }
      break;
    case GBLUR_U16:
      for (int i = 0; i < n; i++)
        {
          float    v = clamp01 (values[i]);
          uint16_t code;
          if (linear && !(has_alpha && i % channels == channels - 1))
            v = v <= 0.0031308f ? 12.92f * v : 1.055f * powf (v, 1.0f / 2.4f) - 0.055f;
          code = (uint16_t) (clamp01 (v) * 65535.0f + 0.5f);
          memcpy (row + 2 * (size_t) i, &code, 2);
        }
      break;
    case GBLUR_F32:
      memcpy (row, values, (size_t) n * sizeof (float));
      break;
    }
}

/* ---- The blur of one tile ----
 *
 * Rows of the tile's input region are converted to float once, into a ring
 * of 2r + ROWS rows.  The vertical pass makes ROWS output rows at a time:
 * walking down a column strip, each input vector is loaded once and
 * multiply-added into the ROWS accumulators it contributes to, so the ring is
 * read once per ROWS outputs (it may be larger than the L2 cache at large
 * radii).  The horizontal pass keeps each strip's sums in registers over all
 * taps (symmetric taps folded).  The loops use GCC vector types: compiled
 * for the baseline instruction set, and again for AVX2+FMA, chosen at run
 * time; both use float32 arithmetic. */

typedef struct {
  const gblur_job         *job;
  const gblur_srgb_tables *srgb;
  gblur_tiling             tiling;
  int                      tiles_x;
  int                      band_first;  /* first tile index of the band being processed */
  int                      band_end;
  int                      next_tile;   /* guarded by lock */
  int                      workers;     /* how many workers the memory limit allows */
  int                      block;       /* output rows per ring step, a multiple of ROWS */
  int                      ring_rows;   /* rows in each ring */
  size_t                   ring_stride; /* floats per ring row */
  size_t                   line_len;    /* floats per line */
  vecf                    *wz;          /* the full kernel, broadcast, ROWS - 1 zeros each side */
  pthread_mutex_t          lock;
  float                  **ring;        /* per worker scratch */
  float                  **lines;       /* block + 1 lines: block outputs, one spare */
  float                  **out;
} cpu_run;

static int
clamp_int (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

static size_t
round_up (size_t v, size_t m)
{
  return (v + m - 1) / m * m;
}

/* outs[j][x] = sum_i wz[i - j + ROWS - 1] * rows[i][x] for j < nblk * ROWS,
 * over rows i of [j - ROWS + 1, j + 2r] (nrows = 2r + ROWS per sub-block of
 * ROWS outputs); n is a multiple of VLEN.  The zero padding of wz makes
 * every (i, j) pair of a sub-block valid, so the inner loop has no branches.
 * The sub-blocks of one column strip run one after the other, so the strip's
 * input lines are fetched once and then found in the L1 cache. */
static inline __attribute__ ((always_inline)) void
vertical_block (const float *const *rows, int nrows, int nblk, const vecf *wz,
                float *const *outs, size_t n)
{
  for (size_t x = 0; x < n; x += VLEN)
    for (int b = 0; b < nblk; b++)
      {
        const float *const *brows = rows + b * ROWS;
        vecf acc[ROWS];
        for (int j = 0; j < ROWS; j++)
          acc[j] = (vecf) { 0 };
        for (int i = 0; i < nrows; i++)
          {
            const vecf   v = vload (brows[i] + x);
            const vecf  *wi = wz + i + ROWS - 1;
            for (int j = 0; j < ROWS; j++)
              acc[j] += v * wi[-j];
          }
        for (int j = 0; j < ROWS; j++)
          vstore (outs[b * ROWS + j] + x, acc[j]);
      }
}

/* out[i] = w[0] mid[i] + sum_k w[k] (mid[i - k step] + mid[i + k step]) for i < n,
 * n a multiple of HSTRIP. */
static inline __attribute__ ((always_inline)) void
horizontal_row (const float *mid, const float *w, int r, int step, float *out, size_t n)
{
  for (size_t x = 0; x < n; x += HSTRIP)
    {
      vecf acc[HSTRIP / VLEN];
      for (int v = 0; v < HSTRIP / VLEN; v++)
        acc[v] = vload (mid + x + v * VLEN) * w[0];
      for (int k = 1; k <= r; k++)
        {
          const float *left = mid + x - (size_t) k * step;
          const float *right = mid + x + (size_t) k * step;
          const float  wk = w[k];
          for (int v = 0; v < HSTRIP / VLEN; v++)
            acc[v] += (vload (left + v * VLEN) + vload (right + v * VLEN)) * wk;
        }
      for (int v = 0; v < HSTRIP / VLEN; v++)
        vstore (out + x + v * VLEN, acc[v]);
    }
}

static inline __attribute__ ((always_inline)) void
blur_tile_body (const cpu_run *run, const gblur_tile *t, float *ring, float *lines, float *out)
{
  const gblur_job   *job = run->job;
  const gblur_image *src = job->src;
  gblur_image       *dst = job->dst;
  const int          r = job->radius;
  const int          c = src->channels;
  const size_t       sample_bytes = gblur_sample_size (src->sample);
  const size_t       n_reg = round_up ((size_t) t->reg_w * c, VLEN);
  const size_t       n_out = round_up ((size_t) t->out_w * c, HSTRIP);
  const int          line_x0 = t->out_x0 - r;                  /* image column of line[0] */
  const int          nrows = 2 * r + ROWS;
  const int          last_reg_row = t->reg_y0 + t->reg_h - 1;
  int                next_row = t->reg_y0;                     /* next region row to convert */
  const int          block = run->block;
  const float       *rows[2 * GBLUR_MAX_RADIUS + BLOCK_MAX];
  float             *outs[BLOCK_MAX];

  for (int y0 = t->out_y0; y0 < t->out_y0 + t->out_h; y0 += block)
    {
      const int need = y0 + block - 1 + r < last_reg_row ? y0 + block - 1 + r : last_reg_row;
      const int nout = t->out_y0 + t->out_h - y0 < block ? t->out_y0 + t->out_h - y0 : block;
      const int nblk = (nout + ROWS - 1) / ROWS;

      /* Convert the rows this block adds; no row still needed is overwritten
       * since a block spans at most ring_rows distinct rows. */
      for (; next_row <= need; next_row++)
        {
          float *dst_row = ring + (size_t) (next_row % run->ring_rows) * run->ring_stride;
          load_row_fast ((const unsigned char *) src->data + (size_t) next_row * src->stride
                      + (size_t) t->reg_x0 * c * sample_bytes,
                         src->sample, t->reg_w, c, job->flags, run->srgb, dst_row);
          for (size_t i = (size_t) t->reg_w * c; i < n_reg; i++)
            dst_row[i] = 0.0f;   /* finite padding: its sums are discarded */
        }
      /* Clamp to the region, which holds the image edge whenever a valid
       * output's kernel reaches past it. */
      for (int i = 0; i < nrows + (nblk - 1) * ROWS; i++)
        rows[i] = ring + (size_t) (clamp_int (y0 - r + i, t->reg_y0, last_reg_row) % run->ring_rows)
                         * run->ring_stride;
      /* Rows past the tile's end go to the spare line. */
      for (int j = 0; j < nblk * ROWS; j++)
        outs[j] = lines + (size_t) (j < nout ? j : block) * run->line_len
                  + (size_t) (t->reg_x0 - line_x0) * c;
      vertical_block (rows, nrows, nblk, run->wz, outs, n_reg);

      for (int j = 0; j < nout; j++)
        {
          float *line = lines + (size_t) j * run->line_len;
          float *v = outs[j];
          const int y = y0 + j;

          /* Clamp to edge: columns left of the region repeat its first pixel
           * (only when the region starts at column 0), likewise on the right. */
          for (int x = line_x0; x < t->reg_x0; x++)
            memcpy (line + (size_t) (x - line_x0) * c, v, (size_t) c * sizeof (float));
          for (int x = t->reg_x0 + t->reg_w; x < t->out_x0 + t->out_w + r; x++)
            memcpy (line + (size_t) (x - line_x0) * c,
                    v + (size_t) (t->reg_w - 1) * c, (size_t) c * sizeof (float));

          horizontal_row (line + (size_t) r * c, job->weights, r, c, out, n_out);
          store_row_fast (out, t->out_w, c, job->flags, dst->sample, run->srgb,
                          (unsigned char *) dst->data + (size_t) (y - job->geo.win_y) * dst->stride
                          + (size_t) (t->out_x0 - job->geo.win_x) * c * sample_bytes);
        }
    }
}

static void
blur_tile_generic (const cpu_run *run, const gblur_tile *t, float *ring, float *lines, float *out)
{
  blur_tile_body (run, t, ring, lines, out);
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_AVX2_CLONE 1
__attribute__ ((target ("avx2,fma"))) static void
blur_tile_avx2 (const cpu_run *run, const gblur_tile *t, float *ring, float *lines, float *out)
{
  blur_tile_body (run, t, ring, lines, out);
}
#endif

typedef void (*blur_tile_fn) (const cpu_run *, const gblur_tile *, float *, float *, float *);

static blur_tile_fn
pick_blur_tile (void)
{
#ifdef HAVE_AVX2_CLONE
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma"))
    return blur_tile_avx2;
#endif
  return blur_tile_generic;
}

static void
run_band_worker (void *data, int worker)
{
  cpu_run     *run = data;
  blur_tile_fn blur_tile = pick_blur_tile ();

  if (worker >= run->workers)
    return;
  for (;;)
    {
      int        i;
      gblur_tile tile;

      pthread_mutex_lock (&run->lock);
      i = run->band_first + run->next_tile++;
      pthread_mutex_unlock (&run->lock);
      if (i >= run->band_end)
        break;
      gblur_tile_at (&run->job->geo, &run->tiling, i % run->tiles_x, i / run->tiles_x, &tile);
      blur_tile (run, &tile, run->ring[worker], run->lines[worker], run->out[worker]);
    }
}

/* Scratch floats of one worker for tiles tile_w wide. */
static void
scratch_sizes (const gblur_job *job, int tile_w, int block, int *ring_rows, size_t *ring_stride,
               size_t *line_len, size_t *out_len)
{
  const int    r = job->radius, img_w = job->geo.img_w, img_h = job->geo.img_h;
  const size_t c = (size_t) job->src->channels;
  const int    reg_cols = tile_w + 2 * r < img_w ? tile_w + 2 * r : img_w;

  *ring_rows = 2 * r + block < img_h ? 2 * r + block : img_h;
  *ring_stride = round_up ((size_t) reg_cols * c, VLEN);
  *line_len = ((size_t) tile_w + 3 * (size_t) r) * c + 2 * HSTRIP;
  *out_len = round_up ((size_t) tile_w * c, HSTRIP);
}

static size_t
scratch_bytes (const gblur_job *job, int tile_w, int block)
{
  int    ring_rows;
  size_t ring_stride, line_len, out_len;

  scratch_sizes (job, tile_w, block, &ring_rows, &ring_stride, &line_len, &out_len);
  return ((size_t) ring_rows * ring_stride + (size_t) (block + 1) * line_len + out_len)
         * sizeof (float);
}

/* Tiles: full-width stripes (the vertical pass reads the ring once per
 * BLOCK rows, so it need not fit a cache), narrower only when the memory
 * limit says so.  Stripes are short enough that every thread gets work and
 * progress is reported a few times. */
static int
plan_tiles (const gblur_job *job, int threads, gblur_tiling *tiling, int *block)
{
  const int    W = job->geo.win_w, H = job->geo.win_h;
  const size_t budget = job->memory_limit / (size_t) threads;
  int          tile_w = W;
  int          stripes = 8 * threads;

  /* Large radii: several sub-blocks per ring step, so each input line is
   * fetched once per BLOCK_MAX rows; small radii: the lines stay in L2. */
  *block = job->radius >= 16 ? BLOCK_MAX : ROWS;
  while (scratch_bytes (job, tile_w, *block) > budget)
    {
      if (*block > ROWS)
        *block /= 2;
      else if (tile_w == 1)
        return 0;
      else
        tile_w = (tile_w + 1) / 2;
    }
  tiling->tile_w = tile_w;
  tiling->tile_h = (H + stripes - 1) / stripes;
  if (tiling->tile_h < ROWS && H > ROWS)
    tiling->tile_h = ROWS;
  return 1;
}

gblur_status
gblur_cpu_run (gblur_cpu *cpu, gblur_job *job, char *err, size_t err_size)
{
  const int    W = job->geo.win_w, H = job->geo.win_h, r = job->radius;
  const int    threads = cpu->threads;
  cpu_run      run;
  int          tiles_y, ntiles, band;
  size_t       out_len;
  gblur_status status = GBLUR_OK;

  memset (&run, 0, sizeof run);
  run.job = job;
  run.srgb = gblur_srgb_tables_get ();
  job->rows_valid = 0;
  /* Fewer workers when the memory limit cannot give each its scratch. */
  for (run.workers = threads; run.workers > 0; run.workers--)
    if (plan_tiles (job, run.workers, &run.tiling, &run.block))
      break;
  if (run.workers == 0)
    {
      snprintf (err, err_size, "memory limit of %zu bytes is too small for radius %d", 
                job->memory_limit, r);
      return GBLUR_E_NOMEM;
    }
  run.tiles_x = (W + run.tiling.tile_w - 1) / run.tiling.tile_w;
  tiles_y = (H + run.tiling.tile_h - 1) / run.tiling.tile_h;
  ntiles = run.tiles_x * tiles_y;
  scratch_sizes (job, run.tiling.tile_w, run.block, &run.ring_rows, &run.ring_stride, &run.line_len, &out_len);

  {
    /* vector-aligned: the vertical loop reads it as whole vectors */
    size_t wz_bytes = (size_t) (2 * r + 1 + 2 * (ROWS - 1)) * sizeof (vecf);
    void  *p = NULL;
    if (posix_memalign (&p, 64, wz_bytes) == 0)
      memset (p, 0, wz_bytes);
    run.wz = p;
  }
  run.ring = calloc ((size_t) threads, sizeof (float *));
  run.lines = calloc ((size_t) threads, sizeof (float *));
  run.out = calloc ((size_t) threads, sizeof (float *));
  if (!run.wz || !run.ring || !run.lines || !run.out)
    status = GBLUR_E_NOMEM;
  for (int i = 0; status == GBLUR_OK && i < run.workers; i++)
    {
      /* An injected fault fails the last buffer, after the others were
       * allocated, so that the cleanup of a partial allocation is tested. */
      int fail = job->faults->cpu_alloc && i == run.workers - 1;
      /* calloc: line padding read by the vector loops starts finite */
      run.ring[i] = malloc ((size_t) run.ring_rows * run.ring_stride * sizeof (float));
      run.lines[i] = calloc ((size_t) (run.block + 1) * run.line_len, sizeof (float));
      run.out[i] = fail ? NULL : malloc (out_len * sizeof (float));
      if (!run.ring[i] || !run.lines[i] || !run.out[i])
        status = GBLUR_E_NOMEM;
    }
  if (status != GBLUR_OK)
    snprintf (err, err_size, "out of host memory for the CPU backend's scratch buffers%s",
              job->faults->cpu_alloc ? " (injected fault)" : "");
  else
    for (int k = -r; k <= r; k++)
      run.wz[ROWS - 1 + r + k] = (vecf) { 0 } + job->weights[k < 0 ? -k : k];

  /* A band is as many tiles as workers (whole stripes); progress after each. */
  band = run.workers > run.tiles_x ? run.workers : run.tiles_x;
  band = (band + run.tiles_x - 1) / run.tiles_x * run.tiles_x;
  pthread_mutex_init (&run.lock, NULL);
  for (int first = 0, step = 1; status == GBLUR_OK && first < ntiles; first += band, step++)
    {
      if (step == job->faults->cpu_stripe)
        {
          snprintf (err, err_size, "injected fault: the CPU backend failed at step %d, "
                    "after %d of %d rows", step, job->rows_valid, H);
          status = GBLUR_E_NOMEM;
          break;
        }
      run.band_first = first;
      run.band_end = first + band < ntiles ? first + band : ntiles;
      run.next_tile = 0;
      pool_run (cpu, run_band_worker, &run);
      job->rows_valid = run.band_end == ntiles ? H : run.band_end / run.tiles_x * run.tiling.tile_h;
      if (job->progress && job->progress (job->rows_valid, H, job->user_data))
        {
          if (job->rows_valid < H)
            {
              snprintf (err, err_size, "cancelled after %d of %d rows", job->rows_valid, H);
              status = GBLUR_E_CANCELLED;
            }
        }
    }
  pthread_mutex_destroy (&run.lock);

  for (int i = 0; i < threads; i++)
    {
      if (run.ring) free (run.ring[i]);
      if (run.lines) free (run.lines[i]);
      if (run.out) free (run.out[i]);
    }
  free (run.ring);
  free (run.lines);
  free (run.out);
  free (run.wz);
  return status;
}
