/* The CPU backend: the image is cut into tiles (full-width stripes unless
 * the memory limit asks for column blocks), handed to the pool's threads a
 * band at a time.  Each tile converts its input rows to float once into a
 * ring, blurs them vertically several rows at a time into padded lines, then
 * horizontally, straight into the destination for 8-bit data without
 * options.  The hot loops are built three times, for the baseline
 * instruction set (SSE2 on x86-64), for AVX2+FMA and for AVX-512, and picked
 * at run time (see "Instruction sets" and "The blur of one tile").
 *
 * This file includes itself once per instruction set: its last part, under
 * "#else" of "#ifndef GBLUR_CPU_KERNELS", holds the hot loops, written once
 * over a vector of VL floats. */
#ifndef GBLUR_CPU_KERNELS

#include "gblur-internal.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define GBLUR_X86 1
#include <immintrin.h>
#endif

#define ROWS 8                     /* output rows per vertical sub-block (registers) */
#define BLOCK_MAX (8 * ROWS)       /* output rows per ring step, at most */
#define VMAX 16                    /* floats per vector in the widest instruction set */
#define HSTRIP_MAX (4 * VMAX)      /* floats per horizontal strip, at most */
#define FOLD_MAX_RADIUS 24         /* radii up to this: the row-by-row vertical pass */

/* ---- Instruction sets ----
 *
 * The hot loops exist for the baseline (any x86-64: SSE2, 4 floats per
 * vector), for AVX2+FMA (8 floats) and for AVX-512 F/BW/VL (16 floats: the
 * same number of instructions as AVX2 for twice the pixels).  The best one the
 * CPU and OS support is used, up to the engine's cap (GBLUR_CPU_ISA: to test
 * or time the narrower paths on a newer CPU).  All use float32 arithmetic; with and
 * without FMA the results differ by float rounding only. */
typedef enum { ISA_BASELINE, ISA_AVX2, ISA_AVX512, ISA_COUNT } cpu_isa;

static cpu_isa
pick_isa (int cap)
{
  cpu_isa isa = ISA_BASELINE;

#ifdef GBLUR_X86
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma"))
    {
      isa = ISA_AVX2;
      if (__builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512bw")
          && __builtin_cpu_supports ("avx512vl"))
        isa = ISA_AVX512;
    }
#endif
  if (cap >= 0 && cap < (int) isa)
    isa = (cpu_isa) cap;
  return isa;
}

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
  int             isa;        /* cpu_isa: the hot loops to use, chosen once */
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
gblur_cpu_new (int threads, int isa_cap)
{
  gblur_cpu *cpu = calloc (1, sizeof *cpu);

  if (!cpu)
    return NULL;
  cpu->threads = threads < 1 ? 1 : threads;
  cpu->isa = pick_isa (isa_cap);
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
 * of 2r + block rows (8-bit data without options is kept in 0..255, so the
 * conversion is a plain integer to float; other data is normalised to [0,1],
 * decoded and premultiplied as asked).  Then, for a block of output rows:
 *
 * - the vertical pass.  Radii up to FOLD_MAX_RADIUS: row by row, symmetric
 *   taps folded (w[k] (above + below)), over column chunks small enough
 *   (about 24 KiB of the block's input rows) that a chunk, read by each of
 *   the block's output rows, stays in the L1 cache.  Ring rows and lines are
 *   an odd number of cache lines apart, so a column of them does not pile up
 *   in one cache set.  Larger radii: ROWS output rows at a time,
 *   each input vector loaded once and multiply-added into the ROWS
 *   accumulators it contributes to (zero-padded weights, no branches), so the
 *   ring, larger than the caches at large radii, is read once per ROWS
 *   outputs and BLOCK_MAX rows are made per ring step;
 * - the horizontal pass on each padded line (edges replicated), four vectors
 *   of sums in registers over all taps (symmetric taps folded); for 8-bit
 *   data without options the sums are rounded and packed to bytes in
 *   registers and written to the destination row directly.
 *
 * The arithmetic of an output sample does not depend on where its tile or
 * window lies, only on the radius, the format and the instruction set. */

typedef struct cpu_run cpu_run;
typedef void (*blur_tile_fn) (const cpu_run *, const gblur_tile *, float *, float *, float *);

struct cpu_run {
  const gblur_job         *job;
  const gblur_srgb_tables *srgb;
  blur_tile_fn             blur_tile;   /* for the engine's instruction set */
  gblur_tiling             tiling;
  int                      tiles_x;
  int                      band_first;  /* first tile index of the band being processed */
  int                      band_end;
  int                      next_tile;   /* guarded by lock */
  int                      workers;     /* how many workers the memory limit allows */
  int                      block;       /* output rows per ring step, a multiple of ROWS */
  int                      fold;        /* row-by-row folded vertical pass (small radii) */
  int                      u8_direct;   /* 8-bit data, no options: values 0..255, direct store */
  int                      ring_rows;   /* rows in each ring */
  size_t                   ring_stride; /* floats per ring row */
  size_t                   line_len;    /* floats per line */
  float                   *wz;          /* the full kernel, each tap broadcast to VMAX
                                           floats, ROWS - 1 zero taps each side */
  pthread_mutex_t          lock;
  float                  **ring;        /* per worker scratch */
  float                  **lines;       /* block + 1 lines: block outputs, one spare */
  float                  **out;
};

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

#define GBLUR_CPU_KERNELS
#define ISA baseline
#define VL 4
#include "gblur-cpu.c"
#undef ISA
#undef VL

#ifdef GBLUR_X86
#ifdef __clang__
#pragma clang attribute push (__attribute__ ((target ("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target ("avx2,fma")
#endif
#define ISA avx2
#define VL 8
#include "gblur-cpu.c"
#undef ISA
#undef VL
#ifdef __clang__
#pragma clang attribute pop
#pragma clang attribute push (__attribute__ ((target ("avx512f,avx512bw,avx512vl,avx2,fma"))), apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target ("avx512f,avx512bw,avx512vl,avx2,fma")
#endif
#define ISA avx512
#define VL 16
#include "gblur-cpu.c"
#undef ISA
#undef VL
#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif
#undef GBLUR_CPU_KERNELS

static blur_tile_fn
blur_tile_for (int isa)
{
#ifdef GBLUR_X86
  if (isa == ISA_AVX512)
    return blur_tile_avx512;
  if (isa == ISA_AVX2)
    return blur_tile_avx2;
#else
  (void) isa;
#endif
  return blur_tile_baseline;
}

static void
run_band_worker (void *data, int worker)
{
  cpu_run *run = data;

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
      run->blur_tile (run, &tile, run->ring[worker], run->lines[worker], run->out[worker]);
    }
}

/* Scratch buffers start on a cache line (vector loads of aligned rows do
 * not straddle two lines). */
static void *
alloc_aligned (size_t bytes)
{
  void *p = NULL;

  return posix_memalign (&p, 64, bytes ? bytes : 1) == 0 ? p : NULL;
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
  /* An odd number of 64-byte units: rows (a column of the ring, the lines)
   * fall in different cache sets, as a multiple of 4 KiB would not. */
  *ring_stride = round_up ((size_t) reg_cols * c, VMAX) | VMAX;
  *line_len = round_up (((size_t) tile_w + 3 * (size_t) r) * c + 2 * HSTRIP_MAX + VMAX, VMAX) | VMAX;
  *out_len = round_up ((size_t) tile_w * c, HSTRIP_MAX);
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
 * progress is reported a few times: about 8 progress steps, each of
 * TILES_PER_WORKER tiles per worker, handed out one at a time, so that a
 * thread slowed down (by another process) holds the others up by one small
 * tile at most.  Large radii read 2r rows of halo per tile: fewer, taller
 * tiles there. */
#define TILES_PER_WORKER(radius) ((radius) > FOLD_MAX_RADIUS ? 2 : 4)

static int
plan_tiles (const gblur_job *job, int threads, gblur_tiling *tiling, int *block)
{
  const int    W = job->geo.win_w, H = job->geo.win_h;
  const size_t budget = job->memory_limit / (size_t) threads;
  int          tile_w = W;
  int          stripes = 8 * threads * TILES_PER_WORKER (job->radius);

  /* Large radii: several sub-blocks per ring step, so each input line is
   * fetched once per BLOCK_MAX rows; small radii: the lines stay in L2. */
  *block = job->radius > FOLD_MAX_RADIUS ? BLOCK_MAX : ROWS;
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
  run.blur_tile = blur_tile_for (cpu->isa);
  run.fold = r <= FOLD_MAX_RADIUS;
  run.u8_direct = job->src->sample == GBLUR_U8 && job->flags == 0;
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
    size_t wz_bytes = (size_t) (2 * r + 1 + 2 * (ROWS - 1)) * VMAX * sizeof (float);
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
      size_t lines_bytes = (size_t) (run.block + 1) * run.line_len * sizeof (float);
      run.ring[i] = alloc_aligned ((size_t) run.ring_rows * run.ring_stride * sizeof (float));
      run.lines[i] = alloc_aligned (lines_bytes);
      run.out[i] = fail ? NULL : alloc_aligned (out_len * sizeof (float));
      if (run.lines[i]) /* line padding read by the vector loops starts finite */
        memset (run.lines[i], 0, lines_bytes);
      if (!run.ring[i] || !run.lines[i] || !run.out[i])
        status = GBLUR_E_NOMEM;
    }
  if (status != GBLUR_OK)
    snprintf (err, err_size, "out of host memory for the CPU backend's scratch buffers%s",
              job->faults->cpu_alloc ? " (injected fault)" : "");
  else
    for (int k = -r; k <= r; k++)
      for (int l = 0; l < VMAX; l++)
        run.wz[(size_t) (ROWS - 1 + r + k) * VMAX + l] = job->weights[k < 0 ? -k : k];

  /* A band is TILES_PER_WORKER tiles per worker (whole stripes); progress
   * after each. */
  band = run.workers * TILES_PER_WORKER (r);
  band = band > run.tiles_x ? band : run.tiles_x;
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

#else /* GBLUR_CPU_KERNELS */

/* ---- The hot loops for one instruction set: VL floats per vector ---- */

#define CAT_(a, b) a##_##b
#define CAT(a, b)  CAT_ (a, b)
#define FN(name)   CAT (name, ISA)
#define V          FN (vf)
#define HS         (4 * VL)        /* floats per horizontal strip */
#define INLINE     static inline __attribute__ ((always_inline))

typedef float V __attribute__ ((vector_size (VL * sizeof (float))));

/* Unaligned vector load and store. */
#define VLOAD(p)     ({ V v_; memcpy (&v_, (p), sizeof v_); v_; })
#define VSTORE(p, v) do { V s_ = (v); memcpy ((p), &s_, sizeof s_); } while (0)

/* VL bytes -> VL floats 0..255. */
INLINE V
FN (load_u8) (const unsigned char *p)
{
#if VL == 16
  return (V) _mm512_cvtepi32_ps (_mm512_cvtepu8_epi32 (_mm_loadu_si128 ((const __m128i *) p)));
#elif VL == 8
  return (V) _mm256_cvtepi32_ps (_mm256_cvtepu8_epi32 (_mm_loadl_epi64 ((const __m128i *) p)));
#elif defined(__SSE2__)
  int32_t       b;
  const __m128i z = _mm_setzero_si128 ();
  memcpy (&b, p, sizeof b);
  return (V) _mm_cvtepi32_ps (_mm_unpacklo_epi16 (_mm_unpacklo_epi8 (_mm_cvtsi32_si128 (b), z), z));
#else
  V v;
  for (int i = 0; i < VL; i++)
    v[i] = p[i];
  return v;
#endif
}

/* Four vectors of values (0..255 give or take rounding) -> 4 VL bytes,
 * rounded half up and saturated, as store_row does. */
INLINE void
FN (store_u8x4) (unsigned char *p, V a, V b, V c, V d)
{
  const V h = (V) { 0 } + 0.5f;
#if VL == 16
  __m512i ab = _mm512_packs_epi32 (_mm512_cvttps_epi32 ((__m512) (a + h)),
                                   _mm512_cvttps_epi32 ((__m512) (b + h)));
  __m512i cd = _mm512_packs_epi32 (_mm512_cvttps_epi32 ((__m512) (c + h)),
                                   _mm512_cvttps_epi32 ((__m512) (d + h)));
  /* packs work per 128-bit lane: put the lanes' 4-byte groups in order */
  __m512i x = _mm512_permutexvar_epi32 (_mm512_setr_epi32 (0, 4, 8, 12, 1, 5, 9, 13,
                                                           2, 6, 10, 14, 3, 7, 11, 15),
                                        _mm512_packus_epi16 (ab, cd));
  _mm512_storeu_si512 ((void *) p, x);
#elif VL == 8
  __m256i ab = _mm256_packs_epi32 (_mm256_cvttps_epi32 ((__m256) (a + h)),
                                   _mm256_cvttps_epi32 ((__m256) (b + h)));
  __m256i cd = _mm256_packs_epi32 (_mm256_cvttps_epi32 ((__m256) (c + h)),
                                   _mm256_cvttps_epi32 ((__m256) (d + h)));
  __m256i x = _mm256_permutevar8x32_epi32 (_mm256_packus_epi16 (ab, cd),
                                           _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7));
  _mm256_storeu_si256 ((__m256i *) p, x);
#elif defined(__SSE2__)
  __m128i ab = _mm_packs_epi32 (_mm_cvttps_epi32 ((__m128) (a + h)), _mm_cvttps_epi32 ((__m128) (b + h)));
  __m128i cd = _mm_packs_epi32 (_mm_cvttps_epi32 ((__m128) (c + h)), _mm_cvttps_epi32 ((__m128) (d + h)));
  _mm_storeu_si128 ((__m128i *) p, _mm_packus_epi16 (ab, cd));
#else
  const V *v[4] = { &a, &b, &c, &d };
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < VL; i++)
      {
        float f = (*v[k])[i] + 0.5f;
        p[k * VL + i] = (unsigned char) (f < 0.0f ? 0.0f : f > 255.0f ? 255.0f : f);
      }
#endif
}

/* n bytes -> floats 0..255, zeros up to n_pad. */
INLINE void
FN (convert_u8) (const unsigned char *p, size_t n, float *out, size_t n_pad)
{
  size_t i = 0;

  for (; i + 4 * VL <= n; i += 4 * VL)
    {
      V a = FN (load_u8) (p + i), b = FN (load_u8) (p + i + VL);
      V c = FN (load_u8) (p + i + 2 * VL), d = FN (load_u8) (p + i + 3 * VL);
      VSTORE (out + i, a);
      VSTORE (out + i + VL, b);
      VSTORE (out + i + 2 * VL, c);
      VSTORE (out + i + 3 * VL, d);
    }
  for (; i + VL <= n; i += VL)
    VSTORE (out + i, FN (load_u8) (p + i));
  for (; i < n; i++)
    out[i] = p[i];
  for (; i < n_pad; i++)
    out[i] = 0.0f;
}

/* outs[j][x] = w[0] rows[j + r][x] + sum_k w[k] (rows[j + r - k][x] + rows[j + r + k][x])
 * for j < nout and x < n (a multiple of VL), column chunk by column chunk. */
INLINE void
FN (vertical_fold) (const float *const *rows, int r, const float *w, float *const *outs,
                    int nout, size_t n)
{
  /* chunks of the 2r + nout input rows of about 24 KiB */
  const size_t chunk = clamp_int (24576 / (int) ((2 * r + nout) * sizeof (float)) / 64 * 64, 64, 1024);

  for (size_t x0 = 0; x0 < n; x0 += chunk)
    {
      const size_t x1 = x0 + chunk < n ? x0 + chunk : n;
      for (int j = 0; j < nout; j++)
        {
          const float *const *mid = rows + j + r;
          float              *o = outs[j];
          size_t              x = x0;
          for (; x + 4 * VL <= x1; x += 4 * VL)
            {
              const float *m = mid[0] + x;
              V a0 = VLOAD (m) * w[0], a1 = VLOAD (m + VL) * w[0];
              V a2 = VLOAD (m + 2 * VL) * w[0], a3 = VLOAD (m + 3 * VL) * w[0];
              for (int k = 1; k <= r; k++)
                {
                  const float *lo = mid[-k] + x, *hi = mid[k] + x;
                  const float  wk = w[k];
                  a0 += (VLOAD (lo) + VLOAD (hi)) * wk;
                  a1 += (VLOAD (lo + VL) + VLOAD (hi + VL)) * wk;
                  a2 += (VLOAD (lo + 2 * VL) + VLOAD (hi + 2 * VL)) * wk;
                  a3 += (VLOAD (lo + 3 * VL) + VLOAD (hi + 3 * VL)) * wk;
                }
              VSTORE (o + x, a0);
              VSTORE (o + x + VL, a1);
              VSTORE (o + x + 2 * VL, a2);
              VSTORE (o + x + 3 * VL, a3);
            }
          for (; x < x1; x += VL)
            {
              V a = VLOAD (mid[0] + x) * w[0];
              for (int k = 1; k <= r; k++)
                a += (VLOAD (mid[-k] + x) + VLOAD (mid[k] + x)) * w[k];
              VSTORE (o + x, a);
            }
        }
    }
}

/* outs[j][x] = sum_i wz[i - j + ROWS - 1] * rows[i][x] for j < nblk * ROWS,
 * over rows i of [j - ROWS + 1, j + 2r] (nrows = 2r + ROWS per sub-block of
 * ROWS outputs); n is a multiple of VL; wz holds one tap per VMAX floats.
 * The zero padding of wz makes every (i, j) pair of a sub-block valid, so
 * the inner loop has no branches.  The sub-blocks of one column strip run
 * one after the other, so the strip's input lines are fetched once and then
 * found in the L1 cache. */
INLINE void
FN (vertical_block) (const float *const *rows, int nrows, int nblk, const float *wz,
                     float *const *outs, size_t n)
{
  for (size_t x = 0; x < n; x += VL)
    for (int b = 0; b < nblk; b++)
      {
        const float *const *brows = rows + b * ROWS;
        V acc[ROWS];
        for (int j = 0; j < ROWS; j++)
          acc[j] = (V) { 0 };
        for (int i = 0; i < nrows; i++)
          {
            const V      v = VLOAD (brows[i] + x);
            const float *wi = wz + (size_t) (i + ROWS - 1) * VMAX;
            for (int j = 0; j < ROWS; j++)
              acc[j] += v * VLOAD (wi - (size_t) j * VMAX);
          }
        for (int j = 0; j < ROWS; j++)
          VSTORE (outs[b * ROWS + j] + x, acc[j]);
      }
}

/* Four vectors of horizontal sums at mid + x:
 * w[0] mid[i] + sum_k w[k] (mid[i - k step] + mid[i + k step]). */
#define HSUMS(mid, x, w, r, step, a0, a1, a2, a3)                          \
  do {                                                                     \
    const float *m_ = (mid) + (x);                                         \
    a0 = VLOAD (m_) * (w)[0];                                              \
    a1 = VLOAD (m_ + VL) * (w)[0];                                         \
    a2 = VLOAD (m_ + 2 * VL) * (w)[0];                                     \
    a3 = VLOAD (m_ + 3 * VL) * (w)[0];                                     \
    for (int k_ = 1; k_ <= (r); k_++)                                      \
      {                                                                    \
        const float *l_ = m_ - (size_t) k_ * (step);                       \
        const float *r_ = m_ + (size_t) k_ * (step);                       \
        const float  w_ = (w)[k_];                                         \
        a0 += (VLOAD (l_) + VLOAD (r_)) * w_;                              \
        a1 += (VLOAD (l_ + VL) + VLOAD (r_ + VL)) * w_;                    \
        a2 += (VLOAD (l_ + 2 * VL) + VLOAD (r_ + 2 * VL)) * w_;            \
        a3 += (VLOAD (l_ + 3 * VL) + VLOAD (r_ + 3 * VL)) * w_;            \
      }                                                                    \
  } while (0)

/* out[i] = the horizontal sum at mid + i for i < n, n a multiple of HS. */
INLINE void
FN (horizontal_row) (const float *mid, const float *w, int r, int step, float *out, size_t n)
{
  for (size_t x = 0; x < n; x += HS)
    {
      V a0, a1, a2, a3;
      HSUMS (mid, x, w, r, step, a0, a1, a2, a3);
      VSTORE (out + x, a0);
      VSTORE (out + x + VL, a1);
      VSTORE (out + x + 2 * VL, a2);
      VSTORE (out + x + 3 * VL, a3);
    }
}

/* dst[i] = the horizontal sum at mid + i, rounded to a byte, for i < n. */
INLINE void
FN (horizontal_row_u8) (const float *mid, const float *w, int r, int step,
                        unsigned char *dst, size_t n)
{
  for (size_t x = 0; x < n; x += HS)
    {
      V a0, a1, a2, a3;
      HSUMS (mid, x, w, r, step, a0, a1, a2, a3);
      if (x + HS <= n)
        FN (store_u8x4) (dst + x, a0, a1, a2, a3);
      else
        {
          unsigned char tail[HS];
          FN (store_u8x4) (tail, a0, a1, a2, a3);
          memcpy (dst + x, tail, n - x);
        }
    }
}

static void
FN (blur_tile) (const cpu_run *run, const gblur_tile *t, float *ring, float *lines, float *out)
{
  const gblur_job   *job = run->job;
  const gblur_image *src = job->src;
  gblur_image       *dst = job->dst;
  const int          r = job->radius;
  const int          c = src->channels;
  const size_t       sample_bytes = gblur_sample_size (src->sample);
  const size_t       n_row = (size_t) t->reg_w * c;
  const size_t       n_reg = round_up (n_row, VL);
  const size_t       n_out = round_up ((size_t) t->out_w * c, HS);
  const int          line_x0 = t->out_x0 - r;                  /* image column of line[0] */
  const int          nrows = 2 * r + ROWS;
  const int          last_reg_row = t->reg_y0 + t->reg_h - 1;
  const int          block = run->block;
  const int          direct = run->u8_direct;
  /* Lines start VMAX-aligned at their centre column out_x0 (line[r c]), where
   * the vertical pass of a full-width tile stores and the horizontal pass
   * loads its middle taps. */
  float             *const lines0 = lines + (VMAX - (size_t) r * c % VMAX) % VMAX;
  int                next_row = t->reg_y0;                     /* next region row to convert */
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
          float               *ring_row = ring + (size_t) (next_row % run->ring_rows) * run->ring_stride;
          const unsigned char *in = (const unsigned char *) src->data + (size_t) next_row * src->stride
                                    + (size_t) t->reg_x0 * c * sample_bytes;
          if (direct)
            FN (convert_u8) (in, n_row, ring_row, n_reg);
          else
            {
              load_row (in, src->sample, t->reg_w, c, job->flags, run->srgb, ring_row);
              for (size_t i = n_row; i < n_reg; i++)
                ring_row[i] = 0.0f;   /* finite padding: its sums are discarded */
            }
        }
      /* Clamp to the region, which holds the image edge whenever a valid
       * output's kernel reaches past it. */
      if (run->fold)
        {
          for (int i = 0; i < 2 * r + nout; i++)
            rows[i] = ring + (size_t) (clamp_int (y0 - r + i, t->reg_y0, last_reg_row) % run->ring_rows)
                             * run->ring_stride;
          for (int j = 0; j < nout; j++)
            outs[j] = lines0 + (size_t) j * run->line_len + (size_t) (t->reg_x0 - line_x0) * c;
          FN (vertical_fold) (rows, r, job->weights, outs, nout, n_reg);
        }
      else
        {
          for (int i = 0; i < nrows + (nblk - 1) * ROWS; i++)
            rows[i] = ring + (size_t) (clamp_int (y0 - r + i, t->reg_y0, last_reg_row) % run->ring_rows)
                             * run->ring_stride;
          /* Rows past the tile's end go to the spare line. */
          for (int j = 0; j < nblk * ROWS; j++)
            outs[j] = lines0 + (size_t) (j < nout ? j : block) * run->line_len
                      + (size_t) (t->reg_x0 - line_x0) * c;
          FN (vertical_block) (rows, nrows, nblk, run->wz, outs, n_reg);
        }

      for (int j = 0; j < nout; j++)
        {
          float         *line = lines0 + (size_t) j * run->line_len;
          float         *v = outs[j];
          unsigned char *drow = (unsigned char *) dst->data
                                + (size_t) (y0 + j - job->geo.win_y) * dst->stride
                                + (size_t) (t->out_x0 - job->geo.win_x) * c * sample_bytes;

          /* Clamp to edge: columns left of the region repeat its first pixel
           * (only when the region starts at column 0), likewise on the right. */
          for (int x = line_x0; x < t->reg_x0; x++)
            memcpy (line + (size_t) (x - line_x0) * c, v, (size_t) c * sizeof (float));
          for (int x = t->reg_x0 + t->reg_w; x < t->out_x0 + t->out_w + r; x++)
            memcpy (line + (size_t) (x - line_x0) * c,
                    v + (size_t) (t->reg_w - 1) * c, (size_t) c * sizeof (float));

          if (direct)
            FN (horizontal_row_u8) (line + (size_t) r * c, job->weights, r, c, drow,
                                    (size_t) t->out_w * c);
          else
            {
              FN (horizontal_row) (line + (size_t) r * c, job->weights, r, c, out, n_out);
              store_row (out, t->out_w, c, job->flags, dst->sample, run->srgb, drow);
            }
        }
    }
}

#undef HSUMS
#undef VLOAD
#undef VSTORE
#undef INLINE
#undef HS
#undef V
#undef FN
#undef CAT
#undef CAT_

#endif /* GBLUR_CPU_KERNELS */
