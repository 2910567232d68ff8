/* The engine's tuned constants, each fitted to measurements: the fits, the
 * machines and the commands are in docs/performance.md ("Tuned constants").
 * A refit edits this file and that section only. */
#ifndef GBLUR_TUNING_H
#define GBLUR_TUNING_H

/* ---- the CPU backend: direct loops against the FFT path ---- */

/* ---- the engine and the CUDA backend ---- */

#endif
