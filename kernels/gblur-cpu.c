/* The CPU backend: the image is cut into tiles (stripes from the top, split
 * into one column block per thread); each tile's input region is converted
 * to float once, blurred vertically row by row into a padded line, then
 * horizontally.  The inner loops are plain multiply-adds over contiguous
 * floats, which the compiler vectorises for the baseline instruction set. */
#include "gblur-internal.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int
encode_u8_linear (const gblur_srgb_tables *srgb, float v)
{
  int lo = 0, hi = 255; /* the code = how many thresholds v reaches */

  while (lo < hi)
    {
      int mid = (lo + hi) >> 1;
      if (srgb->encode_u8_threshold[mid] <= v)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
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
        float  inv = a != 0.0f ? 1.0f / a : 0.0f;
        for (int c = 0; c < channels - 1; c++)
          px[c] *= inv;
      }

  switch (sample)
    {
    case GBLUR_U8:
      for (int i = 0; i < n; i++)
        {
          if (linear && !(has_alpha && i % channels == channels - 1))
            row[i] = (unsigned char) encode_u8_linear (srgb, values[i]);
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

/* ---- The blur of one tile ---- */

typedef struct {
  const gblur_job         *job;
  const gblur_srgb_tables *srgb;
  gblur_tiling             tiling;
  int                      tiles_x;
  int                      stripe;      /* tile row being processed */
  int                      next_tile;   /* guarded by lock */
  int                      workers;     /* how many workers the memory limit allows */
  pthread_mutex_t          lock;
  float                  **region;      /* per worker scratch */
  float                  **line;
  float                  **out;
} cpu_run;

static int
clamp_int (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

static void
blur_tile (const cpu_run *run, const gblur_tile *t, float *region, float *line, float *out)
{
  const gblur_job   *job = run->job;
  const gblur_image *src = job->src;
  gblur_image       *dst = job->dst;
  const float       *w = job->weights;
  const int          r = job->radius;
  const int          c = src->channels;
  const size_t       sample_bytes = gblur_sample_size (src->sample);
  const size_t       region_stride = (size_t) t->reg_w * c;   /* floats */
  const int          line_x0 = t->out_x0 - r;                  /* image column of line[0] */
  const int          out_n = t->out_w * c;

  for (int y = 0; y < t->reg_h; y++)
    {
      const unsigned char *row = (const unsigned char *) src->data
                                 + (size_t) (t->reg_y0 + y) * src->stride
                                 + (size_t) t->reg_x0 * c * sample_bytes;
      load_row (row, src->sample, t->reg_w, c, job->flags, run->srgb,
                region + (size_t) y * region_stride);
    }

  for (int y = t->out_y0; y < t->out_y0 + t->out_h; y++)
    {
      /* Vertical pass, into the line at the region's columns. */
      float *restrict       v = line + (size_t) (t->reg_x0 - line_x0) * c;
      const float *restrict centre = region + (size_t) (y - t->reg_y0) * region_stride;
      const int             n = (int) region_stride;

      for (int i = 0; i < n; i++)
        v[i] = w[0] * centre[i];
      for (int k = 1; k <= r; k++)
        {
          const float *restrict up = region
            + (size_t) (clamp_int (y - k, 0, src->height - 1) - t->reg_y0) * region_stride;
          const float *restrict down = region
            + (size_t) (clamp_int (y + k, 0, src->height - 1) - t->reg_y0) * region_stride;
          const float wk = w[k];
          for (int i = 0; i < n; i++)
            v[i] += wk * (up[i] + down[i]);
        }

      /* Clamp to edge: columns left of the region repeat its first pixel
       * (only when the region starts at column 0), likewise on the right. */
      for (int x = line_x0; x < t->reg_x0; x++)
        memcpy (line + (size_t) (x - line_x0) * c, v, (size_t) c * sizeof (float));
      for (int x = t->reg_x0 + t->reg_w; x < t->out_x0 + t->out_w + r; x++)
        memcpy (line + (size_t) (x - line_x0) * c,
                v + (size_t) (t->reg_w - 1) * c, (size_t) c * sizeof (float));

      /* Horizontal pass. */
      {
        const float *restrict mid = line + (size_t) r * c;
        float *restrict       h = out;
        for (int i = 0; i < out_n; i++)
          h[i] = w[0] * mid[i];
        for (int k = 1; k <= r; k++)
          {
            const float *restrict left = mid - (size_t) k * c;
            const float *restrict right = mid + (size_t) k * c;
            const float wk = w[k];
            for (int i = 0; i < out_n; i++)
              h[i] += wk * (left[i] + right[i]);
          }
      }

      store_row (out, t->out_w, c, job->flags, dst->sample, run->srgb,
                 (unsigned char *) dst->data + (size_t) (y - job->geo.win_y) * dst->stride
                 + (size_t) (t->out_x0 - job->geo.win_x) * c * sample_bytes);
    }
}

static void
run_stripe_worker (void *data, int worker)
{
  cpu_run *run = data;

  if (worker >= run->workers)
    return;
  for (;;)
    {
      int        tx;
      gblur_tile tile;

      pthread_mutex_lock (&run->lock);
      tx = run->next_tile++;
      pthread_mutex_unlock (&run->lock);
      if (tx >= run->tiles_x)
        break;
      gblur_tile_at (&run->job->geo, &run->tiling, tx, run->stripe, &tile);
      blur_tile (run, &tile, run->region[worker], run->line[worker], run->out[worker]);
    }
}

/* Tiles: one column block per thread, stripes tall enough that converting
 * the 2r halo rows again costs little, all within the memory limit. */
static int
plan_tiles (const gblur_job *job, int threads, gblur_tiling *tiling)
{
  const int    W = job->geo.win_w, r = job->radius;
  const size_t c = (size_t) job->src->channels;
  const size_t budget = job->memory_limit / (size_t) threads;
  int          tile_w = (W + threads - 1) / threads;
  int          want_h = 8 * r > 64 ? 8 * r : 64;

  for (;;)
    {
      /* region floats + line + output floats per worker */
      size_t line_bytes = ((size_t) tile_w + 2 * (size_t) r) * c * sizeof (float);
      int    h = line_bytes * 2 <= budget
                   ? gblur_fit_tile_height (&job->geo, tile_w, want_h, budget - line_bytes * 2,
                                            c * sizeof (float), 0, 0)
                   : 0;
      if (h > 0)
        {
          tiling->tile_w = tile_w;
          tiling->tile_h = h;
          return 1;
        }
      if (tile_w == 1)
        return 0;
      tile_w = (tile_w + 1) / 2;
    }
}

gblur_status
gblur_cpu_run (gblur_cpu *cpu, gblur_job *job, char *err, size_t err_size)
{
  const int    W = job->geo.win_w, H = job->geo.win_h, r = job->radius;
  const int    img_w = job->geo.img_w, img_h = job->geo.img_h;
  const size_t c = (size_t) job->src->channels;
  const int    threads = cpu->threads;
  cpu_run      run;
  int          tiles_y;
  gblur_status status = GBLUR_OK;

  memset (&run, 0, sizeof run);
  run.job = job;
  run.srgb = gblur_srgb_tables_get ();
  job->rows_valid = 0;
  /* Fewer workers when the memory limit cannot give each its scratch. */
  for (run.workers = threads; run.workers > 0; run.workers--)
    if (plan_tiles (job, run.workers, &run.tiling))
      break;
  if (run.workers == 0)
    {
      snprintf (err, err_size, "memory limit of %zu bytes is too small for radius %d", 
                job->memory_limit, r);
      return GBLUR_E_NOMEM;
    }
  run.tiles_x = (W + run.tiling.tile_w - 1) / run.tiling.tile_w;
  tiles_y = (H + run.tiling.tile_h - 1) / run.tiling.tile_h;

  run.region = calloc ((size_t) threads, sizeof (float *));
  run.line = calloc ((size_t) threads, sizeof (float *));
  run.out = calloc ((size_t) threads, sizeof (float *));
  if (!run.region || !run.line || !run.out)
    status = GBLUR_E_NOMEM;
  for (int i = 0; status == GBLUR_OK && i < run.workers; i++)
    {
      size_t reg_rows = (size_t) (run.tiling.tile_h + 2 * r < img_h ? run.tiling.tile_h + 2 * r : img_h);
      size_t reg_cols = (size_t) (run.tiling.tile_w + 2 * r < img_w ? run.tiling.tile_w + 2 * r : img_w);
      run.region[i] = malloc (reg_rows * reg_cols * c * sizeof (float));
      run.line[i] = malloc (((size_t) run.tiling.tile_w + 2 * (size_t) r) * c * sizeof (float));
      run.out[i] = malloc ((size_t) run.tiling.tile_w * c * sizeof (float));
      if (!run.region[i] || !run.line[i] || !run.out[i])
        status = GBLUR_E_NOMEM;
    }
  if (status != GBLUR_OK)
    snprintf (err, err_size, "out of host memory for the CPU backend's scratch buffers");

  pthread_mutex_init (&run.lock, NULL);
  for (int ty = 0; status == GBLUR_OK && ty < tiles_y; ty++)
    {
      run.stripe = ty;
      run.next_tile = 0;
      pool_run (cpu, run_stripe_worker, &run);
      job->rows_valid = ty == tiles_y - 1 ? H : (ty + 1) * run.tiling.tile_h;
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
      if (run.region) free (run.region[i]);
      if (run.line) free (run.line[i]);
      if (run.out) free (run.out[i]);
    }
  free (run.region);
  free (run.line);
  free (run.out);
  return status;
}
