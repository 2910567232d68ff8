/* The engine object: argument checks, backend choice, CUDA-to-CPU fallback,
 * host buffers.  The arithmetic lives in the backends. */
#include "gblur-internal.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PINNED_KEPT 4
/* Ordinary host buffers kept for reuse: a run's input and output. */
#define PLAIN_KEPT 2

#define STALL_SECONDS 60

/* What starting CUDA costs a one-shot process, about (a context and the
 * first pinned buffers: 0.23-0.33 s on the H200).  A deferring engine
 * (gblur_config.defer_cuda) hands a run's rows left to CUDA only when the CPU
 * would take more than HANDOFF_SECONDS for them, so that the start, the
 * transfers and the estimate's error cannot make the run slower than the
 * CPU alone. */
#define CUDA_START_SECONDS 0.3
#define HANDOFF_SECONDS (2 * CUDA_START_SECONDS)

/* Between a run's progress reports and its caller's callback when
 * GBLUR_FAULT=stall:N is set; never installed otherwise. */
typedef struct {
  gblur_progress_fn progress;   /* the caller's */
  void             *user_data;
  int               at;         /* N */
  int               steps;      /* reports so far, over all the engine's runs */
} gblur_stall;

/* A half kernel and the sigma it is for (radius -1: none yet). */
typedef struct {
  double sigma;
  int    radius;
  float  weights[GBLUR_MAX_RADIUS + 1];
} gblur_taps;

struct gblur_engine {
  gblur_backend backend;
  gblur_cpu    *cpu;
  gblur_cuda   *cuda;          /* NULL when the CPU backend is in use */
  int           cuda_deferred; /* CUDA not tried yet (gblur_config.defer_cuda) */
  gblur_settings settings;     /* configuration and environment, read once */
  gblur_stall   stall;         /* GBLUR_FAULT=stall: the run's progress relay */
  char          description[160];
  char          cuda_reason[256];
  char          last_error[512];
  unsigned char *pinned_kept[PINNED_KEPT];  /* freed page-locked buffers, for reuse */
  gblur_kept    plain_kept[PLAIN_KEPT];     /* freed large ordinary ones */
  /* the taps of the last sigmas, kept for repeated calls (a live preview):
   * [0] for x (and for both axes when they have the same sigma), [1] for y */
  gblur_taps    taps[2];
};

static void
set_error (gblur_engine *engine, const char *fmt, ...)
{
  va_list args;

  va_start (args, fmt);
  vsnprintf (engine->last_error, sizeof engine->last_error, fmt, args);
  va_end (args);
}

static void
copy_message (char *msg, size_t msg_size, const char *text)
{
  if (msg && msg_size > 0)
    snprintf (msg, msg_size, "%s", text);
}

/* CUDA unless the CPU is asked for (or CUDA's start is a test's fault);
 * the CPU backend always, for CPU runs and fallbacks.  0 on failure. */
static int
open_backends (gblur_engine *engine, gblur_status *status, char *msg, size_t msg_size)
{
  const gblur_settings *settings = &engine->settings;
  int                   threads = settings->threads;

  if (settings->backend == GBLUR_BACKEND_CPU)
    snprintf (engine->cuda_reason, sizeof engine->cuda_reason, "CPU backend requested");
  else if (settings->faults.cuda_init)
    snprintf (engine->cuda_reason, sizeof engine->cuda_reason,
              "no CUDA device: injected fault (GBLUR_FAULT=cuda-init)");
  else if (settings->backend == GBLUR_BACKEND_AUTO && settings->defer_cuda)
    {
      engine->cuda_deferred = 1;
      snprintf (engine->cuda_reason, sizeof engine->cuda_reason,
                "CUDA not started yet: the CPU is faster for small runs");
    }
  else
    engine->cuda = gblur_cuda_open (settings, engine->cuda_reason, sizeof engine->cuda_reason);

  if (settings->backend == GBLUR_BACKEND_CUDA && !engine->cuda)
    {
      *status = GBLUR_E_BACKEND;
      if (msg && msg_size)
        snprintf (msg, msg_size, "CUDA backend requested but unusable: %s", engine->cuda_reason);
      return 0;
    }

  if (threads <= 0)
    threads = (int) sysconf (_SC_NPROCESSORS_ONLN);
  engine->cpu = gblur_cpu_new (threads > 0 ? threads : 1, settings->cpu_isa_cap,
                               settings->cpu_fft);
  if (!engine->cpu)
    {
      *status = GBLUR_E_NOMEM;
      copy_message (msg, msg_size, "out of memory");
      return 0;
    }
  return 1;
}

static void
describe_backend (gblur_engine *engine)
{
  if (engine->cuda)
    {
      engine->backend = GBLUR_BACKEND_CUDA;
      snprintf (engine->description, sizeof engine->description, "%s",
                gblur_cuda_device_name (engine->cuda));
    }
  else
    {
      int n = gblur_cpu_threads (engine->cpu);
      engine->backend = GBLUR_BACKEND_CPU;
      snprintf (engine->description, sizeof engine->description, "CPU, %d thread%s",
                n, n == 1 ? "" : "s");
    }
}

gblur_engine *
gblur_engine_new (const gblur_config *config, gblur_status *status, char *msg, size_t msg_size)
{
  gblur_config  defaults = { .backend = GBLUR_BACKEND_AUTO };
  gblur_engine *engine;
  gblur_status  dummy;

  if (!status)
    status = &dummy;
  engine = calloc (1, sizeof *engine);
  if (!engine)
    {
      *status = GBLUR_E_NOMEM;
      copy_message (msg, msg_size, "out of memory");
      return NULL;
    }
  for (int i = 0; i < PLAIN_KEPT; i++)
    gblur_kept_init (&engine->plain_kept[i]);
  if (!gblur_settings_read (config ? config : &defaults, &engine->settings, msg, msg_size))
    {
      *status = GBLUR_E_INVALID;
      free (engine);
      return NULL;
    }
  engine->taps[0].radius = -1;
  engine->taps[1].radius = -1;
  if (!open_backends (engine, status, msg, msg_size))
    {
      gblur_cuda_close (engine->cuda);
      free (engine);
      return NULL;
    }

  describe_backend (engine);
  *status = GBLUR_OK;
  copy_message (msg, msg_size, "");
  return engine;
}

void
gblur_engine_free (gblur_engine *engine)
{
  if (!engine)
    return;
  for (int i = 0; i < PINNED_KEPT; i++)
    if (engine->pinned_kept[i])
      gblur_cuda_host_free (engine->pinned_kept[i]);
  for (int i = 0; i < PLAIN_KEPT; i++)
    gblur_kept_clear (&engine->plain_kept[i]);
  gblur_cuda_close (engine->cuda);
  gblur_cpu_free (engine->cpu);
  free (engine);
}

gblur_backend
gblur_engine_backend (const gblur_engine *engine)
{
  return engine->backend;
}

const char *
gblur_engine_describe (const gblur_engine *engine)
{
  return engine->description;
}

int
gblur_engine_cpu_threads (const gblur_engine *engine)
{
  return gblur_cpu_threads (engine->cpu);
}

const char *
gblur_engine_cuda_unavailable_reason (const gblur_engine *engine)
{
  return engine->cuda ? "" : engine->cuda_reason;
}

const char *
gblur_engine_last_error (const gblur_engine *engine)
{
  return engine->last_error;
}

static gblur_status
check_image (gblur_engine *engine, const gblur_image *img, const char *what)
{
  size_t row_bytes;

  if (!img)
    {
      set_error (engine, "%s image is NULL", what);
      return GBLUR_E_INVALID;
    }
  if (!img->data)
    {
      set_error (engine, "%s image has no data", what);
      return GBLUR_E_INVALID;
    }
  if (img->width < 1 || img->height < 1)
    {
      set_error (engine, "%s image size %dx%d: width and height must be at least 1",
                 what, img->width, img->height);
      return GBLUR_E_INVALID;
    }
  if (img->channels < 1 || img->channels > GBLUR_MAX_CHANNELS)
    {
      set_error (engine, "%s image has %d channels: 1 to %d are supported",
                 what, img->channels, GBLUR_MAX_CHANNELS);
      return GBLUR_E_FORMAT;
    }
  if (img->sample != GBLUR_U8 && img->sample != GBLUR_U16 && img->sample != GBLUR_F32)
    {
      set_error (engine, "%s image has an unknown sample type %d", what, (int) img->sample);
      return GBLUR_E_FORMAT;
    }
  row_bytes = (size_t) img->width * img->channels * gblur_sample_size (img->sample);
  if (img->stride < row_bytes)
    {
      set_error (engine, "%s image stride %zu is smaller than a row (%zu bytes)",
                 what, img->stride, row_bytes);
      return GBLUR_E_INVALID;
    }
  if ((size_t) img->height > SIZE_MAX / img->stride)
    {
      set_error (engine, "%s image is too large to address", what);
      return GBLUR_E_INVALID;
    }
  return GBLUR_OK;
}

static size_t
image_span (const gblur_image *img)
{
  return (size_t) (img->height - 1) * img->stride
         + (size_t) img->width * img->channels * gblur_sample_size (img->sample);
}

/* One sigma of a per-axis pair (params->sigma 0): [0, GBLUR_SIGMA_MAX]. */
static gblur_status
check_axis_sigma (gblur_engine *engine, const char *name, double sigma)
{
  if (isnan (sigma))
    {
      set_error (engine, "sigma is 0 (one sigma per axis) but %s is not a number", name);
      return GBLUR_E_SIGMA;
    }
  if (!(sigma >= 0.0 && sigma <= GBLUR_SIGMA_MAX))
    {
      set_error (engine, "%s %g is outside [0, %g]", name, sigma, GBLUR_SIGMA_MAX);
      return GBLUR_E_SIGMA;
    }
  return GBLUR_OK;
}

/* sigma > 0 for both axes, as ever; sigma 0 for sigma_x and sigma_y. */
static gblur_status
check_sigmas (gblur_engine *engine, const gblur_params *params)
{
  gblur_status status;

  if (params->sigma != 0.0)   /* NaN included: the one-sigma message */
    {
      if (!(params->sigma >= GBLUR_SIGMA_MIN && params->sigma <= GBLUR_SIGMA_MAX))
        {
          set_error (engine, "sigma %g is outside [%g, %g]", params->sigma,
                     GBLUR_SIGMA_MIN, GBLUR_SIGMA_MAX);
          return GBLUR_E_SIGMA;
        }
      return GBLUR_OK;
    }
  if ((status = check_axis_sigma (engine, "sigma_x", params->sigma_x)) != GBLUR_OK
      || (status = check_axis_sigma (engine, "sigma_y", params->sigma_y)) != GBLUR_OK)
    return status;
  if (params->sigma_x == 0.0 && params->sigma_y == 0.0)
    {
      set_error (engine, "sigma is 0 (one sigma per axis) but sigma_x and sigma_y are both 0: "
                 "at least one axis must be blurred");
      return GBLUR_E_SIGMA;
    }
  return GBLUR_OK;
}

static gblur_status
check_call (gblur_engine *engine, const gblur_image *src, int src_x, int src_y,
            const gblur_image *dst, const gblur_params *params)
{
  gblur_status status;
  uintptr_t    s0, s1, d0, d1;

  if ((status = check_image (engine, src, "source")) != GBLUR_OK
      || (status = check_image (engine, dst, "destination")) != GBLUR_OK)
    return status;
  if (!params)
    {
      set_error (engine, "params is NULL");
      return GBLUR_E_INVALID;
    }
  if ((status = check_sigmas (engine, params)) != GBLUR_OK)
    return status;
  if (src->channels != dst->channels || src->sample != dst->sample)
    {
      set_error (engine, "source and destination differ in channels or sample type");
      return GBLUR_E_INVALID;
    }
  if (src_x < 0 || src_y < 0 || dst->width > src->width - src_x || dst->height > src->height - src_y)
    {
      set_error (engine, "the %dx%d window at (%d, %d) does not lie inside the %dx%d source",
                 dst->width, dst->height, src_x, src_y, src->width, src->height);
      return GBLUR_E_INVALID;
    }
  if (params->flags & ~(unsigned) (GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA))
    {
      set_error (engine, "unknown option bits 0x%x", params->flags);
      return GBLUR_E_INVALID;
    }
  if ((params->flags & GBLUR_LINEAR_LIGHT) && src->sample == GBLUR_F32)
    {
      set_error (engine, "the linear-light option is for u8/u16 data; pass float data in linear light");
      return GBLUR_E_FORMAT;
    }
  if ((params->flags & GBLUR_PREMULTIPLY_ALPHA) && src->channels < 2)
    {
      set_error (engine, "premultiplied alpha needs at least 2 channels");
      return GBLUR_E_FORMAT;
    }
  s0 = (uintptr_t) src->data;
  s1 = s0 + image_span (src);
  d0 = (uintptr_t) dst->data;
  d1 = d0 + image_span (dst);
  if (s0 < d1 && d0 < s1)
    {
      set_error (engine, "source and destination overlap; in-place blurring is not supported");
      return GBLUR_E_INVALID;
    }
  return GBLUR_OK;
}

/* The Nth report says so and waits, so that a test acts while the run is
 * known to be in mid-blur; bounded, so that a test that never acts cannot
 * hang.  Counted over the engine's life, so that a caller that splits an
 * image into several runs stalls once, and in mid-image. */
static int
stalling_progress (int rows_done, int rows_total, void *user_data)
{
  gblur_stall *stall = user_data;

  if (__atomic_add_fetch (&stall->steps, 1, __ATOMIC_SEQ_CST) == stall->at)
    {
      fprintf (stderr, "gblur: stalled at progress step %d (injected fault)\n", stall->at);
      fflush (stderr);
      for (int i = 0; i < STALL_SECONDS; i++)
        sleep (1);
    }
  return stall->progress ? stall->progress (rows_done, rows_total, stall->user_data) : 0;
}

/* The taps for sigma, from the cache slot or made there. */
static const gblur_taps *
taps_for (gblur_taps *slot, double sigma)
{
  if (slot->radius < 0 || slot->sigma != sigma)
    {
      slot->sigma = sigma;
      slot->radius = gblur_radius (sigma);
      gblur_make_weights (sigma, slot->radius, slot->weights);
    }
  return slot;
}

static void
prepare_job (gblur_engine *engine, const gblur_image *src, int src_x, int src_y,
             gblur_image *dst, const gblur_params *params, gblur_job *job)
{
  /* sigma > 0: both axes; else one each (validated: not both 0).  The same
   * sigma on both axes shares one set of taps (gblur_job_isotropic). */
  const double sigma_x = params->sigma != 0.0 ? params->sigma : params->sigma_x;
  const double sigma_y = params->sigma != 0.0 ? params->sigma : params->sigma_y;
  const gblur_taps *tx = taps_for (&engine->taps[0], sigma_x);
  const gblur_taps *ty = sigma_y == sigma_x ? tx : taps_for (&engine->taps[1], sigma_y);

  memset (job, 0, sizeof *job);
  job->src = src;
  job->dst = dst;
  job->radius_x = tx->radius;
  job->radius_y = ty->radius;
  job->geo.img_w = src->width;
  job->geo.img_h = src->height;
  job->geo.win_x = src_x;
  job->geo.win_y = src_y;
  job->geo.win_w = dst->width;
  job->geo.win_h = dst->height;
  job->geo.radius_x = job->radius_x;
  job->geo.radius_y = job->radius_y;
  job->weights_x = tx->weights;
  job->weights_y = ty->weights;
  job->flags = params->flags;
  job->memory_limit = engine->settings.memory_limit;
  job->progress = params->progress;
  job->user_data = params->user_data;
  job->faults = &engine->settings.faults;
  if (engine->settings.faults.stall)
    {
      engine->stall.progress = params->progress;
      engine->stall.user_data = params->user_data;
      engine->stall.at = engine->settings.faults.stall;
      job->progress = stalling_progress;
      job->user_data = &engine->stall;
    }
}

/* The job on the engine's backend: CUDA, and the CPU for the whole job if
 * CUDA fails (rows the GPU finished are recomputed to the same values, both
 * backends meeting the same contract, and nothing is left half-written). */
static gblur_status
run_job (gblur_engine *engine, gblur_job *job, gblur_result *result)
{
  gblur_status status;

  if (!engine->cuda)
    status = gblur_cpu_run (engine->cpu, job, engine->last_error, sizeof engine->last_error);
  else
    {
      status = gblur_cuda_run (engine->cuda, job, engine->last_error, sizeof engine->last_error);
      if (status == GBLUR_E_CUDA && !engine->settings.no_fallback)
        {
          fprintf (stderr, "gblur: CUDA failed (%s); finishing on the CPU\n", engine->last_error);
          result->fell_back_to_cpu = 1;
          engine->last_error[0] = '\0';
          status = gblur_cpu_run (engine->cpu, job, engine->last_error, sizeof engine->last_error);
        }
    }
  result->rows_valid = job->rows_valid;
  return status;
}

/* A deferring engine's CUDA start (gblur_config.defer_cuda): once; on
 * failure the engine stays on the CPU, with the reason. */
static void
start_deferred_cuda (gblur_engine *engine)
{
  engine->cuda_deferred = 0;
  engine->cuda = gblur_cuda_open (&engine->settings, engine->cuda_reason, sizeof engine->cuda_reason);
  describe_backend (engine);
}

/* Between a deferring engine's run and its caller's progress callback. */
typedef struct {
  gblur_progress_fn progress;   /* the job's own: the caller's, or the stall relay */
  void             *user_data;
  double            first_time; /* seconds, at the CPU's first report */
  int               first_rows; /* rows done then; 0 before it */
  int               offset;     /* rows the CPU finished before CUDA took over */
  int               total;      /* rows of the whole window */
  int               handoff;    /* the CPU stopped so that CUDA does the rest */
} gblur_handoff;

static double
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The CPU part: the caller's report, then the CPU stops when the rows left
 * would take it longer than HANDOFF_SECONDS.  The rate is the one since the
 * first report: what came before it (threads, buffers and, on the FFT
 * path, the whole vertical pass) is not paid again per row. */
static int
cpu_part_progress (int rows_done, int rows_total, void *data)
{
  gblur_handoff *h = data;
  const double   now = now_seconds ();

  if (h->progress && h->progress (rows_done, rows_total, h->user_data))
    return 1;
  if (h->first_rows == 0)
    {
      h->first_time = now;
      h->first_rows = rows_done;
      return 0;
    }
  h->handoff = rows_done > h->first_rows && rows_done < rows_total
               && (now - h->first_time) / (rows_done - h->first_rows) * (rows_total - rows_done)
                    > HANDOFF_SECONDS;
  return h->handoff;
}

/* The CUDA part reports in rows of the whole window. */
static int
cuda_part_progress (int rows_done, int rows_total, void *data)
{
  gblur_handoff *h = data;

  (void) rows_total;
  return h->progress ? h->progress (h->offset + rows_done, h->total, h->user_data) : 0;
}

/* A deferring engine's run: on the CPU, which hands the rows it has not
 * done to CUDA (started then) when they would take it too long. */
static gblur_status
run_deferring (gblur_engine *engine, gblur_job *job, const gblur_image *src, int src_x, int src_y,
               gblur_image *dst, const gblur_params *params, gblur_result *result)
{
  gblur_handoff h = { job->progress, job->user_data, 0.0, 0, 0, dst->height, 0 };
  gblur_image   rest = *dst;
  gblur_job     rest_job;
  gblur_status  status;

  job->progress = cpu_part_progress;
  job->user_data = &h;
  status = gblur_cpu_run (engine->cpu, job, engine->last_error, sizeof engine->last_error);
  result->rows_valid = job->rows_valid;
  if (status != GBLUR_E_CANCELLED || !h.handoff)
    return status;

  engine->last_error[0] = '\0';
  start_deferred_cuda (engine);
  h.offset = job->rows_valid;
  rest.data = (unsigned char *) dst->data + (size_t) h.offset * dst->stride;
  rest.height = dst->height - h.offset;
  prepare_job (engine, src, src_x, src_y + h.offset, &rest, params, &rest_job);
  h.progress = rest_job.progress;
  h.user_data = rest_job.user_data;
  rest_job.progress = cuda_part_progress;
  rest_job.user_data = &h;
  status = run_job (engine, &rest_job, result);
  result->rows_valid = h.offset + rest_job.rows_valid;
  return status;
}

gblur_backend
gblur_engine_start_cuda (gblur_engine *engine)
{
  if (!engine)
    return GBLUR_BACKEND_CPU;
  if (engine->cuda_deferred)
    start_deferred_cuda (engine);
  return gblur_engine_backend (engine);
}

gblur_status
gblur_engine_run (gblur_engine *engine, const gblur_image *src, gblur_image *dst,
                  const gblur_params *params, gblur_result *result)
{
  if (engine && src && dst && (src->width != dst->width || src->height != dst->height))
    {
      if (result)
        memset (result, 0, sizeof *result);
      set_error (engine, "source and destination differ in size");
      return GBLUR_E_INVALID;
    }
  return gblur_engine_run_window (engine, src, 0, 0, dst, params, result);
}

gblur_status
gblur_engine_run_window (gblur_engine *engine, const gblur_image *src, int src_x, int src_y,
                         gblur_image *dst, const gblur_params *params, gblur_result *result)
{
  gblur_job    job;
  gblur_status status;
  gblur_result dummy;

  if (!result)
    result = &dummy;
  memset (result, 0, sizeof *result);
  if (!engine)
    return GBLUR_E_INVALID;
  engine->last_error[0] = '\0';
  if ((status = check_call (engine, src, src_x, src_y, dst, params)) != GBLUR_OK)
    return status;
  prepare_job (engine, src, src_x, src_y, dst, params, &job);
  if (engine->cuda_deferred)
    status = run_deferring (engine, &job, src, src_x, src_y, dst, params, result);
  else
    status = run_job (engine, &job, result);
  if (status == GBLUR_OK)
    engine->last_error[0] = '\0';
  return status;
}

gblur_status
gblur_engine_run_device (gblur_engine *engine, const gblur_image *src, gblur_image *dst,
                         const gblur_params *params)
{
  gblur_job    job;
  gblur_status status;

  if (!engine)
    return GBLUR_E_INVALID;
  engine->last_error[0] = '\0';
  if (engine->cuda_deferred)
    start_deferred_cuda (engine);
  if (!engine->cuda)
    {
      set_error (engine, "device-resident images need the CUDA backend (%s)", engine->cuda_reason);
      return GBLUR_E_BACKEND;
    }
  if (src && dst && (src->width != dst->width || src->height != dst->height))
    {
      set_error (engine, "source and destination differ in size");
      return GBLUR_E_INVALID;
    }
  if ((status = check_call (engine, src, 0, 0, dst, params)) != GBLUR_OK)
    return status;
  prepare_job (engine, src, 0, 0, dst, params, &job);
  return gblur_cuda_run_device (engine->cuda, &job, engine->last_error, sizeof engine->last_error);
}

/* Host buffers carry a header saying how they were allocated, so they can be
 * freed correctly whatever happens to the backend in between. */
#define HOST_HEADER 64
/* Page-locked buffers are slow to get (milliseconds), and a live preview asks
 * for two per update: freed ones up to this size are kept for reuse. */
#define PINNED_KEEP_MAX ((size_t) 64 << 20)

static size_t
host_capacity (const unsigned char *base)
{
  size_t capacity;
  memcpy (&capacity, base + 8, sizeof capacity);
  return capacity;
}

/* An ordinary buffer of `bytes`, a kept one if one fits; *size: the bytes
 * it has after the header. */
static unsigned char *
plain_alloc (gblur_engine *engine, size_t bytes, size_t *size)
{
  unsigned char *base = NULL;
  size_t         capacity = 0;

  for (int i = 0; !base && i < PLAIN_KEPT; i++)
    base = gblur_kept_take (&engine->plain_kept[i], bytes, &capacity);
  if (!base)
    {
      capacity = gblur_large_capacity (bytes);
      base = gblur_alloc_large (bytes);
    }
  if (base)
    *size = capacity - HOST_HEADER;
  return base;
}

/* Large ones are kept, in an empty slot or else in place of the first. */
static void
plain_free (gblur_engine *engine, unsigned char *base)
{
  const size_t capacity = host_capacity (base) + HOST_HEADER;
  int          slot = 0;

  for (int i = 0; engine && i < PLAIN_KEPT; i++)
    if (gblur_kept_empty (&engine->plain_kept[i]))
      {
        slot = i;
        break;
      }
  if (engine)
    gblur_kept_give (&engine->plain_kept[slot], base, capacity);
  else
    free (base);
}

void *
gblur_engine_alloc_host (gblur_engine *engine, size_t size)
{
  unsigned char *base = NULL;
  int            pinned = 0;

  if (!engine || size > SIZE_MAX - HOST_HEADER || engine->settings.faults.host_alloc)
    return NULL;
  if (engine->cuda)
    {
      for (int i = 0; i < PINNED_KEPT; i++)
        if (engine->pinned_kept[i] && host_capacity (engine->pinned_kept[i]) >= size
            && host_capacity (engine->pinned_kept[i]) <= 2 * size + ((size_t) 1 << 20))
          {
            base = engine->pinned_kept[i];
            engine->pinned_kept[i] = NULL;
            return base + HOST_HEADER;
          }
      base = gblur_cuda_host_alloc (size + HOST_HEADER);
      pinned = base != NULL;
    }
  if (!base)
    base = plain_alloc (engine, size + HOST_HEADER, &size);
  if (!base)
    return NULL;
  base[0] = (unsigned char) pinned;
  memcpy (base + 8, &size, sizeof size);
  return base + HOST_HEADER;
}

void
gblur_engine_free_host (gblur_engine *engine, void *ptr)
{
  unsigned char *base;

  if (!ptr)
    return;
  base = (unsigned char *) ptr - HOST_HEADER;
  if (!base[0])
    {
      plain_free (engine, base);
      return;
    }
  if (engine && host_capacity (base) <= PINNED_KEEP_MAX)
    for (int i = 0; i < PINNED_KEPT; i++)
      if (!engine->pinned_kept[i])
        {
          engine->pinned_kept[i] = base;
          return;
        }
  gblur_cuda_host_free (base);
}
