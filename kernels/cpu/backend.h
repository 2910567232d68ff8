/* What the CPU backend (backend.c) shares with its hot loops (loops.h,
 * built once per instruction set in loops-baseline.c, loops-avx2.c and
 * loops-avx512.c).  Not installed.
 *
 * The loops of one instruction set are compiled with that set's flags
 * (-mavx2, -mavx512f...), so none of their code may run before backend.c has
 * checked that the CPU has the set: backend.c reaches them only through the
 * entry points below, picked by pick_isa.  The static inline helpers of the
 * headers included here get a static copy in each file that uses them; never
 * make them extern inline (the linker could keep an AVX copy for all). */
#ifndef GBLUR_CPU_BACKEND_H
#define GBLUR_CPU_BACKEND_H

#include "optimize.h"

#include "gblur-internal.h"
#include "int-math.h"

#include <pthread.h>
#include <stddef.h>

/* The x86 loops (AVX2+FMA, AVX-512) are built: configure decides in the
 * Automake build (config.h); a build by hand without config.h
 * (tests/engine/fuzz-run.sh, tests/gpu/gpu-check.sh) builds them on any x86
 * GCC or clang. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#elif defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define GBLUR_CPU_X86_LOOPS 1
#endif

#define ROWS 8                     /* output rows per vertical sub-block (registers) */
#define BLOCK_MAX (8 * ROWS)       /* output rows per ring step, at most */
#define VMAX 16                    /* floats per vector in the widest instruction set */
#define HSTRIP_MAX (4 * VMAX)      /* floats per horizontal strip, at most */
#define FOLD_MAX_RADIUS 24         /* radii up to this: the row-by-row vertical pass */

/* One run as the loops see it: the job, the scratch layout and the shared
 * tile counter. */
typedef struct cpu_run cpu_run;
typedef void (*blur_tile_fn) (const cpu_run *, const gblur_tile *, float *, float *, float *);

struct cpu_run {
  const gblur_job         *job;
  const gblur_srgb_tables *srgb;
  blur_tile_fn             blur_tile;   /* for the engine's instruction set */
  gblur_tiling             tiling;
  int                      tiles_x;
  int                      ntiles;
  int                      band;        /* tiles per progress step (whole stripes) */
  int                      band_first;  /* first tile index of the band being processed */
  int                      band_end;
  int                      next_tile;   /* guarded by lock */
  int                      workers;     /* how many workers the memory limit allows */
  int                      block;       /* output rows per ring step, a multiple of ROWS */
  int                      fold;        /* row-by-row folded vertical pass (small radii) */
  int                      u8_direct;   /* 8-bit data, no options: values 0..255, direct store */
  int                      ring_rows;   /* rows in each ring */
  size_t                   ring_stride; /* floats per ring row */
  size_t                   line_len;    /* floats per line */
  size_t                   out_len;     /* floats per output row buffer */
  pthread_mutex_t          lock;
  float                  **ring;        /* per worker scratch */
  size_t                  *ring_bytes;  /* their capacity (gblur_kept) */
  float                  **lines;       /* block + 1 lines: block outputs, one spare */
  float                  **out;
};

/* ---- The entry points of one instruction set's loops ---- */
typedef struct {
  const char  *name;                    /* as GBLUR_CPU_ISA spells it */
  blur_tile_fn blur_tile;               /* blurs one tile: see loops.h */
  double       tap_cost;                /* a tap's cost against the FFT path's (tuning.h) */
} cpu_loops;

extern const cpu_loops gblur_cpu_loops_baseline;  /* loops-baseline.c: any CPU */
#ifdef GBLUR_CPU_X86_LOOPS
extern const cpu_loops gblur_cpu_loops_avx2;      /* loops-avx2.c: AVX2 and FMA */
extern const cpu_loops gblur_cpu_loops_avx512;    /* loops-avx512.c: AVX-512 F, BW, VL */
#endif

#endif
