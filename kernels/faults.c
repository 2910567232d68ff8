/* The stall fault's relay (faults.h): a test that must act in mid-blur
 * waits for its line on stderr instead of guessing how long a blur takes. */
#include "faults.h"

#include <unistd.h>

/* How long the stall waits at most, so that a test that never acts cannot
 * hang. */
#define STALL_SECONDS 60

/* The Nth report says so and waits.  Counted over the engine's life, so
 * that a caller that splits an image into several runs stalls once, and in
 * mid-image. */
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

void
gblur_fault_stall_relay (gblur_stall *stall, gblur_job *job)
{
  if (!job->faults->stall)
    return;
  stall->progress = job->progress;
  stall->user_data = job->user_data;
  stall->at = job->faults->stall;
  job->progress = stalling_progress;
  job->user_data = stall;
}
