/* The engine's tuned constants, each fitted to measurements: the fits, the
 * machines and the commands are in docs/performance.md ("Tuned constants").
 * A refit edits this file and that section only. */
#ifndef GBLUR_TUNING_H
#define GBLUR_TUNING_H

/* ---- the CPU backend: direct loops against the FFT path ---- */

/* ---- the engine and the CUDA backend ---- */

/* Seconds that starting CUDA costs a one-shot process (a context, the first pinned buffers). */
#define CUDA_START_SECONDS 0.3
/* A deferring engine hands CUDA the rows left when the CPU would need longer than this for them. */
#define HANDOFF_SECONDS (2 * CUDA_START_SECONDS)
/* Freed page-locked host buffers kept for reuse (a live preview asks for two an update). */
#define PINNED_KEPT 4
/* 8-bit RGBA stored as is goes to the tensor cores from this radius on. */
#define MMA_RGBA_MIN_RADIUS 1

#endif
