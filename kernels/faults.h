/* Where the engine injects a test's faults (gblur_config.faults, gblur.h):
 * product code asks these few questions and reads as product code. */
#ifndef GBLUR_FAULTS_H
#define GBLUR_FAULTS_H

#include <stdio.h>

#include "gblur-internal.h"

/* cpu-alloc: whether buffer i of n fails; the last one, after the others,
 * so that freeing a partial allocation is tested too. */
static inline int
gblur_fault_cpu_alloc (const gblur_job *job, int i, int n)
{
  return job->faults->cpu_alloc && i == n - 1;
}

/* What an out-of-memory message adds when cpu-alloc is set. */
static inline const char *
gblur_fault_cpu_alloc_note (const gblur_job *job)
{
  return job->faults->cpu_alloc ? " (injected fault)" : "";
}

/* cpu-stripe:N: the CPU backend fails before its Nth progress step. */
static inline gblur_status
gblur_fault_cpu_step (const gblur_job *job, int step, char *err, size_t err_size)
{
  if (step != job->faults->cpu_stripe)
    return GBLUR_OK;
  snprintf (err, err_size, "injected fault: the CPU backend failed at step %d, after %d of %d rows", step,
            job->rows_valid, job->geo.win_h);
  return GBLUR_E_NOMEM;
}

/* cuda-init: whether CUDA counts as unusable. */
static inline int
gblur_fault_cuda_init (const gblur_faults *faults)
{
  return faults->cuda_init;
}

/* host-alloc: whether gblur_engine_alloc_host fails. */
static inline int
gblur_fault_host_alloc (const gblur_faults *faults)
{
  return faults->host_alloc;
}

#endif
