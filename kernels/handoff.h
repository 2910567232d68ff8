/* A deferring engine's estimate (gblur_config.defer_cuda): progress relays
 * that time the CPU's rows and stop it when the rows left are worth
 * starting CUDA for (HANDOFF_SECONDS, tuning.h). */
#ifndef GBLUR_HANDOFF_H
#define GBLUR_HANDOFF_H

#include "gblur.h"

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

/* The CPU part's progress callback (data: a gblur_handoff): the caller's
 * report, then 1 (stop) when CUDA should take the rows left. */
int gblur_handoff_cpu_progress (int rows_done, int rows_total, void *data);
/* The CUDA part's: reports in rows of the whole window. */
int gblur_handoff_cuda_progress (int rows_done, int rows_total, void *data);

#endif
