/* The CPU backend: the image is cut into tiles (plan_tiles), handed to the
 * pool's threads a band at a time; progress is reported after each band.  Each tile is
 * blurred by the hot loops of one instruction set (loops.h), built for the
 * baseline (SSE2 on x86-64), for AVX2+FMA and for AVX-512, each in a file of
 * its own with its own compiler flags, and picked here at run time. */
#include "backend.h"
#include "faults.h"
#include "fft.h"
#include "pool.h"
#include "progress.h"
#include "region.h"
#include "tuning.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Instruction sets ----
 *
 * The hot loops exist for the baseline (any x86-64: SSE2, 4 floats per
 * vector), for AVX2+FMA (8 floats) and for AVX-512 F/BW/VL (16 floats: the
 * same number of instructions as AVX2 for twice the pixels).  The best one the
 * CPU and OS support is used, up to the engine's cap (GBLUR_CPU_ISA: to test
 * or time the narrower paths on a newer CPU).  All use float32 arithmetic; with and
 * without FMA the results differ by float rounding only.  Other CPUs than
 * x86 have the baseline loops only, in portable C. */
typedef enum { ISA_BASELINE, ISA_AVX2, ISA_AVX512, ISA_COUNT } cpu_isa;

static cpu_isa
best_isa (void)
{
  cpu_isa isa = ISA_BASELINE;

#ifdef GBLUR_CPU_X86_LOOPS
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma"))
    {
      isa = ISA_AVX2;
      if (__builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512bw")
          && __builtin_cpu_supports ("avx512vl"))
        isa = ISA_AVX512;
    }
#endif
  return isa;
}

/* The loops of the best instruction set the CPU has, capped by cap (0
 * baseline, 1 avx2, 2 avx512, -1 no cap): the only way into code built with
 * AVX flags. */
static const cpu_loops *
pick_loops (int cap)
{
  cpu_isa isa = best_isa ();

  if (cap >= 0 && cap < (int) isa)
    isa = (cpu_isa) cap;
  switch (isa)
    {
#ifdef GBLUR_CPU_X86_LOOPS
    case ISA_AVX512:
      return &gblur_cpu_loops_avx512;
    case ISA_AVX2:
      return &gblur_cpu_loops_avx2;
#endif
    default:
      return &gblur_cpu_loops_baseline;
    }
}

/* ---- The engine's CPU backend: its pool, loops and kept buffers ---- */

struct gblur_cpu {
  cpu_pool        *pool;
  const cpu_loops *loops;      /* the instruction set's loops, chosen once */
  gblur_fft_mode   fft;        /* when to take the FFT path (fft.h) */
  gblur_kept       fft_region; /* its region buffer between runs */
  gblur_kept      *rings;      /* each worker's ring between runs */
};

gblur_cpu *
gblur_cpu_new (int threads, int isa_cap, gblur_fft_mode fft)
{
  gblur_cpu *cpu = calloc (1, sizeof *cpu);

  if (!cpu)
    return NULL;
  cpu->loops = pick_loops (isa_cap);
  cpu->fft = fft;
  gblur_kept_init (&cpu->fft_region);
  cpu->pool = gblur_cpu_pool_new (threads);
  cpu->rings = cpu->pool ? calloc ((size_t) gblur_cpu_pool_threads (cpu->pool), sizeof *cpu->rings) : NULL;
  if (!cpu->rings)
    {
      gblur_cpu_pool_free (cpu->pool);
      free (cpu);
      return NULL;
    }
  for (int i = 0; i < gblur_cpu_pool_threads (cpu->pool); i++)
    gblur_kept_init (&cpu->rings[i]);
  return cpu;
}

void
gblur_cpu_free (gblur_cpu *cpu)
{
  if (!cpu)
    return;
  for (int i = 0; i < gblur_cpu_pool_threads (cpu->pool); i++)
    gblur_kept_clear (&cpu->rings[i]);
  gblur_cpu_pool_free (cpu->pool);
  gblur_kept_clear (&cpu->fft_region);
  free (cpu->rings);
  free (cpu);
}

int
gblur_cpu_threads (const gblur_cpu *cpu)
{
  return gblur_cpu_pool_threads (cpu->pool);
}

/* ---- Planning a run: tiles, workers, scratch sizes ---- */

/* Scratch floats of one worker for tiles tile_w wide: the ring holds 2 ry +
 * block rows of reg_cols pixels, a line tile_w + 2 rx pixels. */
static void
scratch_sizes (const gblur_job *job, int tile_w, int block, int *ring_rows, size_t *ring_stride,
               size_t *line_len, size_t *out_len)
{
  const int    rx = job->radius_x;
  const size_t c = (size_t) job->src->channels;
  const int    reg_cols = gblur_read_span (tile_w, rx, job->geo.img_w);

  *ring_rows = gblur_read_span (block, job->radius_y, job->geo.img_h);
  /* An odd number of 64-byte units: rows (a column of the ring, the lines)
   * fall in different cache sets, as a multiple of 4 KiB would not. */
  *ring_stride = round_up ((size_t) reg_cols * c, VMAX) | VMAX;
  *line_len = round_up (((size_t) tile_w + 3 * (size_t) rx) * c + 2 * HSTRIP_MAX + VMAX, VMAX) | VMAX;
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

/* Tiles.  The run wants about 8 progress steps, each of TILES_PER_WORKER
 * tiles per worker, handed out one at a time, so that a thread slowed down
 * (by another process) holds the others up by one small tile at most.
 * Full-width stripes where they can, since columns cost halo and per-row
 * work.  But each tile converts 2 ry rows of halo: beyond the 8 stripes that
 * progress needs, stripes stay 4 ry tall (halo at most half the rows) and
 * columns give the other tiles.  And the vertical pass reads each ring row
 * 2 ry + block times: tiles narrow enough for a worker's ring to stay in a
 * core's L2 cache (CPU_RING_CACHE_BYTES), where they stay 16 rx wide.  Large
 * vertical radii read more halo: fewer tiles there. */
#define TILES_PER_WORKER(radius_y) ((radius_y) > FOLD_MAX_RADIUS ? 2 : 4)
#define PROGRESS_STEPS 8

/* The fewest tile columns whose rings fit CPU_RING_CACHE_BYTES, as long as the
 * tiles stay 16 rx wide. */
static int
cache_tile_columns (const gblur_job *job, int block)
{
  const int    W = job->geo.win_w, rx = job->radius_x;
  const size_t column_bytes = (size_t) (2 * job->radius_y + block) * job->src->channels * sizeof (float);
  const long   fit = (long) (CPU_RING_CACHE_BYTES / column_bytes) - 2L * rx;
  const long   least = rx > 0 ? 16L * rx : 16L;
  const long   tile_w = fit > least ? fit : least;

  return tile_w >= W ? 1 : (int) ((W + tile_w - 1) / tile_w);
}

/* Columns and stripes of a grid of `wanted` tiles (as many as fit, tiles
 * 16 wide and ROWS tall at least, where the window is too small). */
static void
tile_grid (const gblur_job *job, int wanted, int block, int *cols, int *rows)
{
  const int W = job->geo.win_w, H = job->geo.win_h, ry = job->radius_y;
  const int max_cols = W > 16 ? (W + 15) / 16 : 1;
  const int max_rows = H > ROWS ? (H + ROWS - 1) / ROWS : 1;
  const int tall_rows = ry > 0 ? H / (4 * ry) : max_rows;    /* stripes 4 ry tall */
  const int row_cap = clamp_int (tall_rows, PROGRESS_STEPS < max_rows ? PROGRESS_STEPS : max_rows,
                                 max_rows);
  const int min_cols = cache_tile_columns (job, block);

  *cols = clamp_int ((wanted + row_cap - 1) / row_cap, min_cols, max_cols);
  *rows = clamp_int ((wanted + *cols - 1) / *cols, 1, row_cap);
}

static int
plan_tiles (const gblur_job *job, int threads, gblur_tiling *tiling, int *block)
{
  const int    W = job->geo.win_w, H = job->geo.win_h;
  const size_t budget = job->memory_limit / (size_t) threads;
  int          cols, rows, tile_w;

  /* Large vertical radii: several sub-blocks per ring step, so each input
   * line is fetched once per BLOCK_MAX rows; small radii: the lines stay in
   * L2. */
  *block = job->radius_y > FOLD_MAX_RADIUS ? BLOCK_MAX : ROWS;
  tile_grid (job, PROGRESS_STEPS * threads * TILES_PER_WORKER (job->radius_y), *block, &cols, &rows);
  tile_w = (W + cols - 1) / cols;
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
  tiling->tile_h = (H + rows - 1) / rows;
  return 1;
}

/* Fills run for job: the loops, the tiling, how many workers the memory
 * limit allows, the bands of tiles and the scratch sizes. */
static gblur_status
plan_run (const gblur_cpu *cpu, const gblur_job *job, cpu_run *run, char *err, size_t err_size)
{
  const int W = job->geo.win_w, H = job->geo.win_h, rx = job->radius_x, ry = job->radius_y;
  int       band;

  memset (run, 0, sizeof *run);
  run->job = job;
  run->srgb = gblur_srgb_tables_get ();
  run->blur_tile = cpu->loops->blur_tile;
  run->fold = ry <= FOLD_MAX_RADIUS;
  run->u8_direct = job->src->sample == GBLUR_U8 && job->flags == 0;
  /* Fewer workers when the memory limit cannot give each its scratch. */
  for (run->workers = gblur_cpu_threads (cpu); run->workers > 0; run->workers--)
    if (plan_tiles (job, run->workers, &run->tiling, &run->block))
      break;
  if (run->workers == 0)
    {
      char radii[64];

      if (rx == ry)
        snprintf (radii, sizeof radii, "radius %d", rx);
      else
        snprintf (radii, sizeof radii, "radii %d (x) and %d (y)", rx, ry);
      snprintf (err, err_size, "memory limit of %zu bytes is too small for %s", job->memory_limit, radii);
      return GBLUR_E_NOMEM;
    }
  run->tiles_x = (W + run->tiling.tile_w - 1) / run->tiling.tile_w;
  run->ntiles = run->tiles_x * ((H + run->tiling.tile_h - 1) / run->tiling.tile_h);
  scratch_sizes (job, run->tiling.tile_w, run->block, &run->ring_rows, &run->ring_stride,
                 &run->line_len, &run->out_len);
  /* A band is TILES_PER_WORKER tiles per worker (whole stripes); progress
   * after each. */
  band = run->workers * TILES_PER_WORKER (ry);
  band = band > run->tiles_x ? band : run->tiles_x;
  run->band = (band + run->tiles_x - 1) / run->tiles_x * run->tiles_x;
  return GBLUR_OK;
}

/* ---- Scratch buffers ---- */

/* Scratch buffers start on a cache line (vector loads of aligned rows do
 * not straddle two lines). */
static void *
alloc_aligned (size_t bytes)
{
  void *p = NULL;

  return posix_memalign (&p, 64, bytes ? bytes : 1) == 0 ? p : NULL;
}

/* The ring, lines and output row of worker i; 0 when out of memory (some
 * may then be allocated: free_scratch frees them). */
static int
alloc_worker_scratch (gblur_cpu *cpu, cpu_run *run, int i)
{
  const int    fail = gblur_fault_cpu_alloc (run->job, i, run->workers);
  const size_t lines_bytes = (size_t) (run->block + 1) * run->line_len * sizeof (float);

  run->ring[i] = gblur_kept_alloc (&cpu->rings[i], (size_t) run->ring_rows * run->ring_stride * sizeof (float),
                                  &run->ring_bytes[i]);
  run->lines[i] = alloc_aligned (lines_bytes);
  run->out[i] = fail ? NULL : alloc_aligned (run->out_len * sizeof (float));
  if (run->lines[i]) /* line padding read by the vector loops starts finite */
    memset (run->lines[i], 0, lines_bytes);
  return run->ring[i] && run->lines[i] && run->out[i];
}

/* The weights and the scratch of each of run->workers workers, in arrays
 * of `threads` entries. */
static gblur_status
alloc_scratch (gblur_cpu *cpu, cpu_run *run, int threads, char *err, size_t err_size)
{
  int ok;

  run->ring = calloc ((size_t) threads, sizeof (float *));
  run->ring_bytes = calloc ((size_t) threads, sizeof (size_t));
  run->lines = calloc ((size_t) threads, sizeof (float *));
  run->out = calloc ((size_t) threads, sizeof (float *));
  ok = run->ring && run->ring_bytes && run->lines && run->out;
  for (int i = 0; ok && i < run->workers; i++)
    ok = alloc_worker_scratch (cpu, run, i);
  if (ok)
    return GBLUR_OK;
  snprintf (err, err_size, "out of host memory for the CPU backend's scratch buffers%s",
            gblur_fault_cpu_alloc_note (run->job));
  return GBLUR_E_NOMEM;
}

static void
free_scratch (gblur_cpu *cpu, cpu_run *run, int threads)
{
  for (int i = 0; i < threads; i++)
    {
      if (run->ring && run->ring_bytes) gblur_kept_give (&cpu->rings[i], run->ring[i], run->ring_bytes[i]);
      if (run->lines) free (run->lines[i]);
      if (run->out) free (run->out[i]);
    }
  free (run->ring);
  free (run->ring_bytes);
  free (run->lines);
  free (run->out);
}

/* ---- Running the bands ---- */

/* Each worker takes the band's next tile until none is left. */
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

/* Tiles [first, first + band) on all workers; then the rows above the next
 * band's first stripe are final. */
static void
run_band (gblur_cpu *cpu, cpu_run *run, gblur_job *job, int first)
{
  run->band_first = first;
  run->band_end = first + run->band < run->ntiles ? first + run->band : run->ntiles;
  run->next_tile = 0;
  gblur_cpu_pool_run (cpu->pool, run_band_worker, run);
  job->rows_valid = run->band_end == run->ntiles ? job->geo.win_h
                    : run->band_end / run->tiles_x * run->tiling.tile_h;
}

/* The bands in turn, each a progress step, until the end, a fault or a
 * cancel. */
static gblur_status
run_bands (gblur_cpu *cpu, cpu_run *run, gblur_job *job, char *err, size_t err_size)
{
  gblur_status status = GBLUR_OK;

  pthread_mutex_init (&run->lock, NULL);
  for (int first = 0, step = 1; status == GBLUR_OK && first < run->ntiles;
       first += run->band, step++)
    {
      status = gblur_fault_cpu_step (job, step, err, err_size);
      if (status != GBLUR_OK)
        break;
      run_band (cpu, run, job, first);
      status = gblur_cpu_report_progress (job, err, err_size);
    }
  pthread_mutex_destroy (&run->lock);
  return status;
}

/* ---- The entry point ---- */

/* Whether every alpha sample the job reads (its window and halo, clamped
 * to the image) is at its maximum (float: exactly 1). */
static int
reads_only_opaque (const gblur_job *job)
{
  const gblur_image  *src = job->src;
  const gblur_tiling  whole = { job->geo.win_w, job->geo.win_h };
  const int           c = src->channels, size = (int) gblur_sample_size (src->sample);
  gblur_tile          t;   /* the window as one tile: its region is what the job reads */

  gblur_tile_at (&job->geo, &whole, 0, 0, &t);
  for (int y = t.reg_y0; y < t.reg_y0 + t.reg_h; y++)
    {
      const unsigned char *row = (const unsigned char *) src->data + (size_t) y * src->stride
                                 + ((size_t) t.reg_x0 * c + c - 1) * size;
      unsigned all = ~0u;   /* u8, u16: the AND of the row's alphas */

      for (int x = 0; x < t.reg_w; x++, row += (size_t) c * size)
        {
          uint16_t v16;
          float    v32;
          switch (src->sample)
            {
            case GBLUR_U8:  all &= *row | 0xffffff00u; break;
            case GBLUR_U16: memcpy (&v16, row, 2); all &= v16 | 0xffff0000u; break;
            case GBLUR_F32: memcpy (&v32, row, 4); if (v32 != 1.0f) return 0; break;
            }
        }
      if (all != ~0u)
        return 0;
    }
  return 1;
}

gblur_status
gblur_cpu_run (gblur_cpu *cpu, gblur_job *job, char *err, size_t err_size)
{
  cpu_run      run;
  gblur_status status;

  job->rows_valid = 0;
  /* Premultiplying by alpha 1 changes nothing: an opaque image is blurred
   * straight, without the multiply and divide, and on the FFT path in
   * single precision (the division by alpha that needs double is gone). */
  if ((job->flags & GBLUR_PREMULTIPLY_ALPHA) && reads_only_opaque (job))
    job->flags &= ~(unsigned) GBLUR_PREMULTIPLY_ALPHA;
#ifdef HAVE_FFTW
  if (gblur_cpu_fft_wanted (job, cpu->fft, cpu->loops->tap_cost, gblur_cpu_threads (cpu)))
    return gblur_cpu_fft_run (cpu->pool, &cpu->fft_region, job, err, err_size);
#endif
  status = plan_run (cpu, job, &run, err, err_size);
  if (status != GBLUR_OK)
    return status;
  status = alloc_scratch (cpu, &run, gblur_cpu_threads (cpu), err, err_size);
  if (status == GBLUR_OK)
    status = run_bands (cpu, &run, job, err, err_size);
  free_scratch (cpu, &run, gblur_cpu_threads (cpu));
  return status;
}
