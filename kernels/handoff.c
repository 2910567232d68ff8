/* A deferring engine's estimate of when CUDA is worth starting (handoff.h). */
#include "handoff.h"

#include "tuning.h"

#include <time.h>

static double
now_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The rate is the one since the first report: what came before it
 * (threads, buffers and, on the FFT path, the whole vertical pass) is not
 * paid again per row. */
int
gblur_handoff_cpu_progress (int rows_done, int rows_total, void *data)
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

int
gblur_handoff_cuda_progress (int rows_done, int rows_total, void *data)
{
  gblur_handoff *h = data;

  (void) rows_total;
  return h->progress ? h->progress (h->offset + rows_done, h->total, h->user_data) : 0;
}
