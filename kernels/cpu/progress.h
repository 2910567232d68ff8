/* The progress steps both CPU paths share: the injected step fault before a
 * step, the caller's progress and cancel after it.  Not installed. */
#ifndef GBLUR_CPU_PROGRESS_H
#define GBLUR_CPU_PROGRESS_H

#include "faults.h"
#include "gblur-internal.h"

#include <stdio.h>

/* Tells the caller how far the run is; a cancel before the last row stops
 * it (after the last, the result is complete anyway). */
static inline gblur_status
gblur_cpu_report_progress (const gblur_job *job, char *err, size_t err_size)
{
  const int H = job->geo.win_h;

  if (job->progress && job->progress (job->rows_valid, H, job->user_data) && job->rows_valid < H)
    {
      snprintf (err, err_size, "cancelled after %d of %d rows", job->rows_valid, H);
      return GBLUR_E_CANCELLED;
    }
  return GBLUR_OK;
}

#endif
