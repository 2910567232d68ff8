/* What the engine suite's files share: test-engine.c reads the options and
 * runs the subjects, one file each (test-engine-*.c); test-engine-cases.c
 * holds one case against the reference, which they all use. */
#ifndef TEST_ENGINE_H
#define TEST_ENGINE_H

/* The CUDA parts hang on HAVE_CUDA, which a configured build defines in
 * config.h: without it first, `make check` would skip them unsaid. */
#if defined HAVE_CONFIG_H && !defined PACKAGE
#error "include config.h before test-engine.h"
#endif

#include <stddef.h>
#include <stdio.h>

#include "gblur.h"
#include "pixel-env.h"

/* test-engine.c: the options, and the environment every engine gets. */
extern gblur_backend backend;    /* --backend cpu|cuda */
extern int           quick;      /* --quick (and --sanitize): fewer cases */
extern FILE         *hash_out;   /* --hash FILE: a hash of each checked output */
extern PixelEnv      test_env;   /* GBLUR_CPU_ISA and the like, for every engine */

/* test-engine-cases.c: engines on the suite's backend, and one case
 * against the reference. */
const char   *sample_name (gblur_sample s);
double        max_error (const gblur_image *out, const double *ref, int rows);
double        tolerance (gblur_sample s);
gblur_config  with_env (gblur_config config);
gblur_engine *new_engine_forced (size_t memory_limit, int threads, gblur_fft_mode fft, unsigned cuda_skip);
gblur_engine *new_engine (size_t memory_limit, int threads);
int           format_valid (gblur_sample s, int c, unsigned flags);
void          axis_sigmas (const gblur_params *params, double *sx, double *sy, char *text, size_t size);
void          blur_case_params (gblur_engine *engine, int w, int h, int c, gblur_sample s,
                                const gblur_params *params, size_t src_pad, size_t dst_pad, int pattern,
                                const char *label);
void          blur_case (gblur_engine *engine, int w, int h, int c, gblur_sample s, double sigma,
                         unsigned flags, size_t src_pad, size_t dst_pad, int pattern, const char *label);
void          blur_case_xy (gblur_engine *engine, int w, int h, int c, gblur_sample s, double sigma_x,
                            double sigma_y, unsigned flags, size_t src_pad, size_t dst_pad, int pattern,
                            const char *label);
double        window_error (gblur_engine *engine, const gblur_image *src, int wx, int wy, gblur_image *dst,
                            const gblur_params *params, gblur_result *result, gblur_status *st);
void          check_against_reference (gblur_engine *engine, gblur_image *src, const gblur_params *params,
                                       const char *label);

/* test-engine-formats.c: formats and sizes. */
void run_matrix (gblur_engine *engine, const gblur_params *sigmas, size_t n, const char *label);
void test_matrix (gblur_engine *engine);
void test_rgba8 (gblur_engine *engine);
void test_rgba8_small_radii (gblur_engine *engine);
void test_gray8_small_radii (gblur_engine *engine);

/* test-engine-axes.c: a sigma per axis. */
#define N_AXIS_PAIRS 18
extern const double axis_pairs[N_AXIS_PAIRS][2];   /* (sigma_x, sigma_y) */
void test_axis_matrix (gblur_engine *engine);
void test_long_sums (gblur_engine *engine, const char *label);

/* test-engine-windows.c: windows, tiles, progress and cancel. */
void test_windows (gblur_engine *engine, int per_axis);
void test_tiling (void);
void test_cuda_tile_plan (void);
void test_progress_and_cancel (void);

/* test-engine-fft.c: the CPU's FFT path. */
gblur_engine *new_fft_engine (const char *mode, size_t memory_limit, int threads);
void          test_fft_forced (void);
void          test_fft_hdr_rows (void);
void          test_fft_vs_direct (void);
void          test_kept_buffers (void);
void          test_fft_hard (void);
void          test_fft_bounded (void);
void          test_fft_bounded_small (void);

/* test-engine-conversions.c: alpha and the sRGB encoder. */
void test_opaque_alpha (void);
void test_srgb_encode (void);

/* test-engine-errors.c and test-engine-environment.c. */
void test_errors (void);
void test_environment (void);

/* test-engine-cuda.c: the deferred start; with HAVE_CUDA, the GPU's own. */
void test_deferred_reason (void);
void test_deferred_cuda (void);
#ifdef HAVE_CUDA
void device_case (gblur_engine *engine, int w, int h, int c, gblur_sample s, size_t pad, size_t offset,
                  int pattern, const gblur_params *params, const char *label);
void test_cuda_specific (gblur_engine *engine);
void test_cuda_paths (void);
#endif

/* test-engine-sanitize.c: --sanitize. */
void run_sanitize (void);

#endif
