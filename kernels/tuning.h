/* The engine's tuned constants, each fitted to measurements: the fits, the
 * machines and the commands are in docs/performance.md ("Tuned constants").
 * A refit edits this file and that section only. */
#ifndef GBLUR_TUNING_H
#define GBLUR_TUNING_H

/* ---- the CPU backend: direct loops against the FFT path ---- */

/* A direct tap's cost against the FFT path's, per instruction set. */
#define CPU_TAP_COST_AVX512 1.0
#define CPU_TAP_COST_AVX2 1.29
#define CPU_TAP_COST_BASELINE 3.14

/* The FFT path's cost per output sample, in AVX-512 taps, per n log2 n / outputs
 * of a pass: horizontal, and vertical (which transposes blocks in and out). */
#define CPU_FFT_COST_H 6.9
#define CPU_FFT_COST_V 11.45

/* Precise runs' FFT cost factors: 8-bit premultiplied alpha (mostly single
 * precision), and double precision throughout. */
#define CPU_FFT_COST_MOSTLY_SINGLE 1.55
#define CPU_FFT_COST_DOUBLE 1.74
/* 16-bit data in single precision with the error bound (fft-bounds.c). */
#define CPU_FFT_COST_BOUNDED 1.74

/* A line's outputs are summed directly while their taps cost at most this
 * times its n log2 n; past that it is transformed again in double. */
#define CPU_FFT_RESUM_LIMIT 0.3
/* A bounded line with more than this share of its inputs too dark for the
 * bound takes double precision before its single-precision transform. */
#define CPU_FFT_DARK_SHARE 0.2

/* A direct tap costs (threads / 2)^CPU_THREAD_EXPONENT times as much past 2
 * threads, which share caches and memory bandwidth. */
#define CPU_THREAD_EXPONENT 0.25

/* FFT lengths: {odd part, ns per n log2 n} of FFTW_ESTIMATE plans; the
 * fastest expected n >= a line's length is taken. */
#define CPU_FFT_ODD_PARTS                                                                   \
  { { 1, 0.11 }, { 3, 0.13 }, { 5, 0.105 }, { 9, 0.155 }, { 15, 0.107 }, { 25, 0.145 },     \
    { 27, 0.156 }, { 45, 0.153 }, { 75, 0.133 } }

/* Bytes of a worker's ring that stay in a core's L2 cache: tiles narrow to fit. */
#define CPU_RING_CACHE_BYTES (1 << 20)

/* Bytes of input rows per column chunk of the folded vertical pass: a chunk
 * stays in the L1 cache while each output row reads it. */
#define CPU_FOLD_CHUNK_BYTES 24576

/* Rows of a strided side the FFT path's transposes prefetch ahead. */
#define CPU_PREFETCH_ROWS 16

/* ---- the engine and the CUDA backend ---- */

/* Seconds that starting CUDA costs a one-shot process (a context, the first pinned buffers). */
#define CUDA_START_SECONDS 0.3
/* A deferring engine hands CUDA the rows left when the CPU would need longer than this for them. */
#define HANDOFF_SECONDS (2 * CUDA_START_SECONDS)
/* Freed page-locked host buffers kept for reuse (a live preview asks for two an update), and
 * their most bytes together: a 6000x4000 16-bit layer's input and output on the canvas. */
#define PINNED_KEPT 4
#define PINNED_KEEP_BYTES ((size_t) 384 << 20)
/* A 16-bit linear-light run on CUDA decodes its regions to floats first only when its tiles, made
 * smaller by the floats, read at most this times the region pixels of tiles without them: at large
 * radii the smaller tiles would read their halos many times over, or not fit at all. */
#define CUDA_DECODE_READ_GAIN 2.0
/* 8-bit RGBA stored as is goes to the tensor cores from this radius on. */
#define MMA_RGBA_MIN_RADIUS 1

#endif
