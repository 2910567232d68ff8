/* The stall fault (pixel-stall.h). */
#include "pixel-stall.h"

#include <stdio.h>
#include <unistd.h>

/* How long the stall waits at most, so that a test that never acts cannot
 * hang. */
#define STALL_SECONDS 60

static int steps;   /* progress reports so far, over the whole process */

void
pixel_stall_step (int at)
{
  if (at <= 0 || __atomic_add_fetch (&steps, 1, __ATOMIC_SEQ_CST) != at)
    return;
  fprintf (stderr, "gblur: stalled at progress step %d (injected fault)\n", at);
  fflush (stderr);
  for (int i = 0; i < STALL_SECONDS; i++)   /* a signal cuts one sleep short, not the stall */
    sleep (1);
}
