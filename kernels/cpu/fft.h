/* The CPU backend's FFT path for large radii (built with FFTW: HAVE_FFTW),
 * as backend.c calls it.  Not installed.
 *
 * Each pass convolves whole lines (columns of the window's region, then
 * rows of the window) by FFT: its cost per sample grows with log(radius +
 * length), not with the radius.  Its error is relative to the largest value
 * of a line, or of the line it is transformed with (in single precision two
 * lines, of one pixel or neighbours, share a transform; float lines only
 * when of like magnitude), not to each output.  Single precision keeps the
 * 1-level contract for most formats; two need more and transform in double
 * precision: 16-bit linear light (the sRGB curve's slope near black
 * magnifies the error) and premultiplied alpha, where dividing by a small
 * blurred alpha magnifies it without bound (8-bit data: only the lines of
 * pixels with an alpha under 5% of their largest input): there the outputs
 * whose alpha is too small for double precision too are summed again
 * directly. */
#ifndef GBLUR_CPU_FFT_H
#define GBLUR_CPU_FFT_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gblur-internal.h"
#include "pool.h"

#include <stddef.h>

#ifdef HAVE_FFTW
/* Whether a job takes the FFT path: the format allows it, mode is not off,
 * its scratch fits the memory limit and (mode auto) it is expected to be
 * faster than direct loops whose taps cost tap_cost (tuning.h) on
 * `threads` threads. */
int          gblur_cpu_fft_wanted (const gblur_job *job, gblur_fft_mode mode, double tap_cost, int threads);
/* Runs job on pool's threads; region: the engine's slot for the region
 * buffer, kept between runs (gblur_kept). */
gblur_status gblur_cpu_fft_run (cpu_pool *pool, gblur_kept *region, gblur_job *job, char *err,
                                size_t err_size);
#endif

#endif
