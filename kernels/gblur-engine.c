/* The engine object: its life, its backend (CUDA, or the CPU, which also
 * finishes a run CUDA fails), and the runs handed to it.  The argument
 * checks (checks.c), the tap cache (taps.c), a deferring engine's hand-off
 * estimate (handoff.c) and the host buffers (host-alloc.c) have their own
 * units. */
#include "gblur-internal.h"

#include "checks.h"
#include "faults.h"
#include "handoff.h"
#include "host-alloc.h"
#include "taps.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gblur_engine {
  gblur_backend backend;
  gblur_cpu    *cpu;
  gblur_cuda   *cuda;          /* NULL when the CPU backend is in use */
  int           cuda_deferred; /* CUDA not tried yet (gblur_config.defer_cuda) */
  gblur_settings settings;     /* its configuration, read once */
  char          description[320];
  char          cuda_reason[256];
  char          last_error[512];
  gblur_host_pool host;        /* gblur_engine_alloc_host's buffers */
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
  else if (gblur_fault_cuda_init (&settings->faults))
    snprintf (engine->cuda_reason, sizeof engine->cuda_reason,
              "no CUDA device: injected fault (cuda-init)");
  else if (settings->backend == GBLUR_BACKEND_AUTO && settings->defer_cuda)
    {
      /* Where CUDA can never start, that reason, and nothing deferred. */
      engine->cuda_deferred = gblur_cuda_possible (engine->cuda_reason, sizeof engine->cuda_reason);
      if (engine->cuda_deferred)
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
  gblur_host_pool_init (&engine->host);
  if (!gblur_settings_read (config ? config : &defaults, &engine->settings, msg, msg_size))
    {
      *status = GBLUR_E_INVALID;
      free (engine);
      return NULL;
    }
  gblur_taps_init (&engine->taps[0]);
  gblur_taps_init (&engine->taps[1]);
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
  gblur_host_pool_clear (&engine->host);
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

static void
prepare_job (gblur_engine *engine, const gblur_image *src, int src_x, int src_y,
             gblur_image *dst, const gblur_params *params, gblur_job *job)
{
  /* sigma > 0: both axes; else one each (validated: not both 0).  The same
   * sigma on both axes shares one set of taps (gblur_job_isotropic). */
  const double sigma_x = params->sigma != 0.0 ? params->sigma : params->sigma_x;
  const double sigma_y = params->sigma != 0.0 ? params->sigma : params->sigma_y;
  const gblur_taps *tx = gblur_taps_for (&engine->taps[0], sigma_x);
  const gblur_taps *ty = sigma_y == sigma_x ? tx : gblur_taps_for (&engine->taps[1], sigma_y);

  *job = (gblur_job) {
    .src = src,
    .dst = dst,
    .geo = { .img_w = src->width, .img_h = src->height,
             .win_x = src_x, .win_y = src_y, .win_w = dst->width, .win_h = dst->height,
             .radius_x = tx->radius, .radius_y = ty->radius },
    .radius_x = tx->radius,
    .radius_y = ty->radius,
    .weights_x = tx->weights,
    .weights_y = ty->weights,
    .flags = params->flags,
    .memory_limit = engine->settings.memory_limit,
    .progress = params->progress,
    .user_data = params->user_data,
    .faults = &engine->settings.faults,
  };
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
  result->upload_ms += job->device_ms[0];
  result->kernel_ms += job->device_ms[1];
  result->download_ms += job->device_ms[2];
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

/* A deferring engine's run: on the CPU, which hands the rows it has not
 * done to CUDA (started then) when they would take it too long. */
static gblur_status
run_deferring (gblur_engine *engine, gblur_job *job, const gblur_image *src, int src_x, int src_y,
               gblur_image *dst, const gblur_params *params, gblur_result *result)
{
  gblur_handoff h = { .progress = job->progress, .user_data = job->user_data, .total = dst->height };
  gblur_image   rest = *dst;
  gblur_job     rest_job;
  gblur_status  status;

  job->progress = gblur_handoff_cpu_progress;
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
  rest_job.progress = gblur_handoff_cuda_progress;
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
  if ((status = gblur_check_call (src, src_x, src_y, dst, params, engine->last_error,
                                  sizeof engine->last_error)) != GBLUR_OK)
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

/* Whether a device image's samples all lie on their own alignment. */
static int
whole_samples (const gblur_image *image)
{
  return ((uintptr_t) image->data | image->stride) % gblur_sample_size (image->sample) == 0;
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
  if ((status = gblur_check_call (src, 0, 0, dst, params, engine->last_error,
                                  sizeof engine->last_error)) != GBLUR_OK)
    return status;
  if (!whole_samples (src) || !whole_samples (dst))
    {
      set_error (engine, "a device image's address and row stride must be whole %zu-byte samples",
                 gblur_sample_size (src->sample));
      return GBLUR_E_INVALID;
    }
  prepare_job (engine, src, 0, 0, dst, params, &job);
  return gblur_cuda_run_device (engine->cuda, &job, engine->last_error, sizeof engine->last_error);
}

void *
gblur_engine_alloc_host (gblur_engine *engine, size_t size)
{
  if (!engine || gblur_fault_host_alloc (&engine->settings.faults))
    return NULL;
  return gblur_host_pool_alloc (&engine->host, engine->cuda != NULL, size);
}

void
gblur_engine_free_host (gblur_engine *engine, void *ptr)
{
  gblur_host_pool_free (engine ? &engine->host : NULL, ptr);
}

void
gblur_engine_release_kept (gblur_engine *engine)
{
  if (!engine)
    return;
  gblur_host_pool_clear (&engine->host);
  if (engine->cuda)
    gblur_cuda_release_kept (engine->cuda);
}

size_t
gblur_engine_kept_device_bytes (const gblur_engine *engine)
{
  return engine && engine->cuda ? gblur_cuda_kept_bytes (engine->cuda) : 0;
}
