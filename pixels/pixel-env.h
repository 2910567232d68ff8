/* The environment, read in this one place: every GBLUR_ variable, for the
 * engine's configuration and the GIMP side's own switches.  Plain C, no
 * GLib: the tests and benchmarks read it too.
 *
 * For users:
 *   GBLUR_BACKEND=cpu|cuda|auto   the backend of the front ends' engines
 *   GBLUR_THREADS=N               CPU worker threads (0: one per core)
 *   GBLUR_CUDA_DEVICE=N           the CUDA device to use (default 0)
 *   GBLUR_VERBOSE=1               timings and steps on stderr
 *   GBLUR_PROFILE=1               where each region's time went, on stderr
 *   GBLUR_OVERLAP=0               the plug-in reads, blurs and writes in turn
 *   GBLUR_GEGL_MODULES=1          a batch call loads GEGL's operations anyway
 * For the tests and benchmarks, to reach or time each path:
 *   GBLUR_CPU_ISA=baseline|avx2|avx512   caps the CPU loops' instruction set
 *   GBLUR_CPU_FFT=off|always             the CPU backend's FFT path for large
 *                                        radii: never, or whenever the format
 *                                        allows (unset: where it is expected
 *                                        to be faster)
 *   GBLUR_CUDA_NO_FUSED=1, GBLUR_CUDA_NO_GRAY=1, GBLUR_CUDA_NO_MMA=1
 *                                        leave out the fused, gray and
 *                                        tensor-core CUDA paths
 *   GBLUR_FAULT=SITE[:N][,SITE[:N]]...   injects faults, N >= 1 (default 1):
 *     the engine's sites cuda-init, cuda-alloc, cuda-copy, cuda-launch,
 *     cpu-alloc, cpu-stripe, host-alloc (gblur_faults in gblur.h), and
 *     stall: the Nth progress report of the process prints "gblur: stalled
 *     at progress step N (injected fault)" on stderr and waits there for up
 *     to a minute (pixel-stall.h), so that a test that must act in mid-blur
 *     (kill the process, press Cancel) waits for that line instead of
 *     guessing how long the blur takes.
 * An empty variable counts as unset; any other value not listed is an error
 * that names the variable. */
#ifndef PIXEL_ENV_H
#define PIXEL_ENV_H

#include <stddef.h>

#include "gblur.h"

typedef struct {
  /* For the engine: pixel_env_apply. */
  int            backend_set;   /* GBLUR_BACKEND was given */
  gblur_backend  backend;
  int            threads;       /* 0: unset */
  int            cuda_device;
  gblur_cpu_isa  cpu_isa;
  gblur_fft_mode cpu_fft;
  unsigned       cuda_skip;     /* GBLUR_CUDA_SKIP_* */
  gblur_faults   faults;        /* GBLUR_FAULT's engine sites */
  /* For the front ends. */
  int            stall_at;      /* GBLUR_FAULT's stall:N; 0: none */
  int            verbose;
  int            profile;
  int            overlap;
  int            gegl_modules;
} PixelEnv;

/* Reads the environment now into *env; 0 when a variable is malformed,
 * with a message naming it in msg (and *env then holds the defaults). */
int  pixel_env_read (PixelEnv *env, char *msg, size_t msg_size);

/* The environment as this process read it the first time it asked (the
 * defaults when it was malformed: pixel_env_error says why). */
const PixelEnv *pixel_env (void);
/* Why the environment was refused; "" when it was not. */
const char     *pixel_env_error (void);

/* The engine's settings that env gives, over config: every variable that
 * was set, except the backend (the caller decides whether it may choose). */
void pixel_env_apply (const PixelEnv *env, gblur_config *config);

/* Parses a GBLUR_FAULT value into the engine's *faults and the front
 * ends' *stall_at; 0 when malformed, with the reason in msg. */
int  pixel_env_parse_faults (const char *spec, gblur_faults *faults, int *stall_at, char *msg,
                             size_t msg_size);

#endif
