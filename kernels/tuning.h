/* The engine's tuned constants, each fitted to measurements: the fits, the
 * machines and the commands are in docs/performance.md ("Tuned constants").
 * A refit edits this file and that section only. */
#ifndef GBLUR_TUNING_H
#define GBLUR_TUNING_H

/* ---- the CPU backend: direct loops against the FFT path ---- */

/* ---- the engine and the CUDA backend ---- */

/* Seconds a one-shot process pays to start CUDA (a context and the first
 * pinned buffers). */
#define CUDA_START_SECONDS 0.3
/* A deferring engine hands the rows left to CUDA only when the CPU would
 * take longer than this for them. */
#define HANDOFF_SECONDS (2 * CUDA_START_SECONDS)
/* Freed page-locked host buffers kept for reuse (a live preview's). */
#define PINNED_KEPT 4
/* RGBA8 goes to the tensor cores from this radius on. */
#define MMA_RGBA_MIN_RADIUS 1

#endif
