/* The stall fault (GBLUR_FAULT=stall:N, pixel-env.h), held in the front
 * ends' progress callbacks, not in the engine: a test that must act in
 * mid-blur waits for its line on stderr instead of guessing how long a
 * blur takes.  Plain C: the engine's fault tests call it too. */
#ifndef PIXEL_STALL_H
#define PIXEL_STALL_H

/* Counts a progress report of this process; the `at`th (at >= 1) prints
 * "gblur: stalled at progress step N (injected fault)" on stderr and waits
 * there for up to a minute.  Counted over the process, so that a caller
 * that splits an image into several runs stalls once, and in mid-image.
 * Does nothing when at is 0.  Any thread may call it. */
void pixel_stall_step (int at);

#endif
