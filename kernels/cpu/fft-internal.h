/* What the files of the CPU backend's FFT path share: its plans
 * (fft-plans.c), its cost model (fft-cost.c), its 1-D convolutions
 * (fft-line.c) and its 2-D run (fft-run.c).  Not installed.
 *
 * Each pass convolves whole lines by FFTW's transforms: in single precision
 * two lines at once, as the real and imaginary parts of one complex line
 * (the kernel's spectrum is real and even, so the parts stay apart), or one
 * by one by real transforms in double precision for precise runs.
 *
 * A line holds the region's samples (the window's and up to a radius each
 * side, less where the image ends), zero-padded to an FFT length n long
 * enough that the circular convolution with the centred kernel (tap k at
 * index k mod n) equals the linear one at every output.  Clamping at the
 * image edges (the edge sample repeated, as the direct loops do) is added
 * after the transforms: the repeated samples are constant, so what they
 * add to an output is the edge sample times the sum of the kernel's taps
 * that reach past the edge (its tail sums, made once per run), and the
 * lines need no padding: n >= length + radius instead of length + 2 radius.
 * The kernel is the job's own truncated, normalised half kernel; its
 * spectrum is real (the kernel is even) and is made once per run and
 * length, with the 1/n of the inverse transform folded in.
 *
 * Precise runs (premultiplied alpha, 16-bit linear light: see fft.h)
 * transform in double precision, each line through a double copy; with
 * premultiplied alpha, the outputs whose blurred alpha is too small for
 * even that (gblur_fft_repair_pixel) are summed again directly. */
#ifndef GBLUR_CPU_FFT_INTERNAL_H
#define GBLUR_CPU_FFT_INTERNAL_H

#include "optimize.h"

#include "convert.h"
#include "fft.h"
#include "int-math.h"
#include "region.h"

#include <fftw3.h>
#include <pthread.h>

/* Columns (floats) per block of the vertical pass: a cache line of each
 * row is read once for the block's lines, which then go through the
 * transforms two at a time. */
#define BLOCK_FLOATS 16

/* Double-precision outputs under this times their line's largest input
 * are summed again directly: the transforms' error is no longer small
 * beside them (fft-line.c). */
#define ALPHA_FLOOR 1e-6

/* Transforms up to this length were measured for the bound; longer ones
 * stay in double precision. */
#define BOUNDED_MAX_LENGTH 65536

/* Bounded runs sum an axis of a smaller radius directly (in double, each
 * output within 2^-23 of itself): transforms of radius 1 broke the bound's
 * constant (1.29 times it), of radii 2 to 11 came within 0.72 to 1.01 of
 * it, from 12 on within 0.73 as at large radii (docs/blur.md). */
#define BOUNDED_MIN_RADIUS 12

/* ---- Plans (fft-plans.c) ---- */

typedef struct fft_plans {
  int               n;
  fftwf_plan        forward, backward;        /* single precision, complex */
  fftw_plan         forward_d, backward_d;    /* double, real, for precise runs */
  struct fft_plans *next;
} fft_plans;

/* The cached plans for length n, made on first use; NULL when out of
 * memory. */
const fft_plans *gblur_fft_plans_for (int n);
/* The FFT length for lines of reg samples whose outputs are samples
 * [offset, offset + outputs): the outputs' taps must not wrap around into
 * the line's samples. */
int gblur_fft_axis_length (int reg, int offset, int outputs, int radius);

/* ---- What a job needs, and the cost model (fft-cost.c) ---- */

/* Where the window's region (window grown by the radii, clamped to the
 * image) lies. */
gblur_region gblur_fft_job_region (const gblur_job *job);
/* Premultiplied colours are divided by their blurred alpha (at least two
 * channels: one alone is alpha, divided by nothing). */
int    gblur_fft_divides_by_alpha (const gblur_job *job);
/* Runs whose single-precision FFT error would not stay well under half a
 * level (see fft.h): they transform in double precision. */
int    gblur_fft_needs_precision (const gblur_job *job);
/* Whether a job transforms in single precision with the bound of
 * fft-bounds.c (16-bit data in linear light, no alpha divided, transforms
 * of lengths ny and nx). */
int    gblur_fft_bounded_applies (const gblur_job *job, int ny, int nx);
/* Whether the vertical pass's blocks hold whole pixels where colours are
 * divided by alpha. */
int    gblur_fft_format_allows (const gblur_job *job);
/* Whether the FFT path is expected to beat direct loops whose taps cost
 * tap_cost, on `threads` threads. */
int    gblur_fft_expected_faster (const gblur_job *job, double tap_cost, int threads);

/* ---- One run's axes and buffers (fft-run.c) ---- */

/* One axis of the run: lines of len region samples whose outputs are
 * samples [offset, offset + outputs). */
typedef struct {
  int              radius, len, offset, outputs;
  int              n;            /* FFT length, 0 for radius 0 */
  const fft_plans *plans;
  const float     *w;            /* the job's half kernel w[0..radius] */
  double          *kd;           /* the kernel's spectrum / n, bins 0..n/2 */
  float           *k;            /* the same in single precision, bins 0..n-1,
                                    each twice (real and imaginary parts) */
  float           *tail;         /* tail[m] = w[m] + ... + w[radius], tail[radius + 1] = 0 */
} fft_axis;

typedef struct {
  const gblur_job         *job;
  const gblur_srgb_tables *srgb;
  gblur_region             reg;
  int                      c;
  int                      workers;
  int                      precise;      /* double transforms: gblur_fft_needs_precision */
  int                      repair;       /* outputs re-summed: gblur_fft_divides_by_alpha */
  int                      single_first; /* precise, but single precision for the
                                            pixels whose alphas allow it: 8-bit
                                            data divided by alpha */
  int                      bounded;      /* 16-bit linear light: single precision,
                                            outputs the bound cannot decide
                                            summed again (fft-bounds.c) */
  double                   rel_v;        /* bounded: a vertical output's error, of itself,
                                            where under err_y of its largest input */
  double                   err_y, err_x; /* bounded: the transforms' error, of the largest input */
  float                    dark_v;       /* bounded: vertical outputs under this times
                                            their largest input are summed again */
  size_t                   stride;       /* floats per row of img, >= reg.w * c */
  float                   *img;          /* the region in working floats; the
                                            vertical pass writes its outputs
                                            over the window's rows */
  size_t                   img_bytes;    /* its capacity (gblur_kept) */
  gblur_kept              *img_kept;     /* the engine's slot for it */
  fft_axis                 y, x;
  /* per worker */
  float                  **lines;        /* BLOCK_FLOATS lines, line_pitch floats apart */
  fftwf_complex          **pair;         /* single precision: two lines as one */
  fftwf_complex          **pair_spec;    /* and its spectrum */
  fftw_complex           **spec;         /* precise: a line's spectrum */
  double                 **work;         /* precise: a line in double */
  int                    **nonzero;      /* repair: counts of non-zero pixels */
  float                  **column;       /* bounded: a vertical line's input, in a row */
  float                  **out;          /* an output row */
  /* work sharing */
  pthread_mutex_t          lock;
  int                      next, end;    /* the next item, and the end */
} fft_run;

/* ---- Single precision with an error bound (fft-bounds.c) ---- */

/* A single-precision convolution's error bound for length n, of the
 * largest input of its pair of lines. */
double gblur_fft_single_error (int n);
/* Whether a bounded run sums axis a directly, not by transforms. */
int    gblur_fft_bounded_direct (const fft_axis *a);
/* The run's thresholds, once its axes are planned. */
void   gblur_fft_bounds_plan (fft_run *run);
/* count lines (pitch floats apart; line k's input in[k + j step], largest[k]
 * its largest) convolved, every output within run->rel_v of itself or of
 * the transforms' error. */
void   gblur_fft_bounded_lines (const fft_run *run, const fft_axis *a, float *lines, size_t pitch, int count,
                                const float *in, size_t step, const float *largest, int worker);
/* count rows of pixels (rows[r]: run->x.len pixels), already split into
 * channel lines (row r's channel ch at line r c + ch, pitch floats apart),
 * convolved along x, every output pixel within the level budget. */
void   gblur_fft_bounded_rows (const fft_run *run, float *lines, size_t pitch, const float *const *rows,
                               int count, int worker);

/* ---- The 1-D maths (fft-line.c) ---- */

/* Spectra, tails and plans of an axis; 0 when out of memory. */
int   gblur_fft_prepare_axis (fft_axis *a, const float *weights);
void  gblur_fft_free_axis (fft_axis *a);
/* count lines (a->len samples each, pitch floats apart from first)
 * convolved with the axis's kernel, the edges clamped, on worker's buffers:
 * in double precision one by one when `precise`, else two at a time where
 * they may pair; output i (0 <= i < a->outputs) of a line in
 * line[a->offset + i]. */
void  gblur_fft_convolve_lines (const fft_run *run, const fft_axis *a, float *first, size_t pitch,
                                int count, int worker, int precise);
/* Output j of in (a->len samples, step floats apart) summed directly, the
 * edges clamped. */
float gblur_fft_direct_sum (const fft_axis *a, const float *in, size_t step, int j);
/* nonzero[j + 1] - nonzero[0]: how many of the pixels 0..j of in (c
 * channels, step floats apart, len pixels) have a channel that is not 0. */
void  gblur_fft_count_nonzero (const float *in, size_t step, int c, int len, int *nonzero);
/* Whether output j reaches an input pixel that is not 0. */
int   gblur_fft_reaches_nonzero (const fft_axis *a, int j, const int *nonzero);
/* Output j of c channel lines (out[ch][j]; inputs in[k step + ch]) summed
 * again directly, or 0 where every input it reaches is 0. */
void  gblur_fft_resum_output (const fft_axis *a, float *const *out, int c, const float *in, size_t step, int j,
                              const int *nonzero);
/* The smallest v[i], NaNs passed over. */
float gblur_fft_smallest_value (const float *v, int n);
/* The largest |v[i]|, NaNs passed over. */
float gblur_fft_largest_magnitude (const float *v, int n);
/* Whether a pixel's lines (alphas `step` floats apart, largest: their
 * largest input) transform in double precision. */
int   gblur_fft_pixel_precise (const fft_run *run, const float *alpha, size_t step, int n, float largest);
/* One pixel's c channel lines after the transforms (alpha last), their
 * inputs (in[j step + ch]) and the largest magnitude among those: outputs
 * whose alpha is too small for the transforms' error are summed again
 * directly.  nonzero: a->len + 1 ints of scratch. */
void  gblur_fft_repair_pixel (const fft_axis *a, float *const *out, int c, const float *in, size_t step,
                              float largest, int *nonzero);

#endif
