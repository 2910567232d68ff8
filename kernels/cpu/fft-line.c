/* The FFT path's 1-D maths: the kernel's spectrum and edge tails of an
 * axis, the convolution of lines by FFT in single or double precision, and
 * the direct re-summing of outputs whose blurred alpha is too small. */
#include "fft-internal.h"

#ifdef HAVE_FFTW

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* A double-precision FFT convolution is off by at most 1e-13 of the
 * largest input of its line (assumed for lines up to the 32768-sample FFTs
 * measured: under 2e-16 for lines of 600 to 15000 samples, radii 30 to
 * 1500).  With premultiplied alpha a colour c is divided by its blurred
 * alpha A, off by up to (dP + |c| dA) / A; an output whose A is under
 * ALPHA_FLOOR times the largest input of its pixel's lines is summed again
 * directly, so every other colour is within 1e-7 (1 + |c|), as the direct
 * loops' float sums are.  The vertical pass's errors, each within 1e-7 of
 * its own alpha, go through the horizontal pass's positive taps within
 * 1e-7 of the final alpha; its re-summed outputs with no input are exact
 * zeros, which the horizontal pass then sees as such.  (ALPHA_FLOOR:
 * fft-internal.h.) */

/* 8-bit data with premultiplied alpha transforms a pixel's lines in single
 * precision where every alpha they hold is at least SINGLE_ALPHA_FLOOR
 * times their largest input: its blurred alphas are too (the taps are
 * positive and sum to 1), and a single-precision convolution is off by at
 * most 1e-6 of the largest input of its pair of lines (assumed; a pixel's
 * lines pair only with each other, and the floor is taken against the
 * pixel's largest input), so each colour is off by at most 4e-5 after one
 * pass, 8e-5 after both: a quarter of an
 * 8-bit level where the sRGB curve is steepest (lines with no input at
 * all give exact zeros either way).  Other lines take double precision. */
#define SINGLE_ALPHA_FLOOR 0.05f

/* The spectrum of the centred kernel w[-r..r] for length n, real parts
 * only (those of an even sequence; the imaginary parts are rounding), each
 * divided by n; made in double precision.  NULL when out of memory. */
static double *
kernel_spectrum (int n, const float *w, int r)
{
  const fft_plans *p = gblur_fft_plans_for (n);
  double          *k = fftw_malloc ((size_t) n * sizeof (double));
  fftw_complex    *s = fftw_malloc ((size_t) (n / 2 + 1) * sizeof (fftw_complex));
  double          *re = malloc ((size_t) (n / 2 + 1) * sizeof (double));

  if (p && k && s && re)
    {
      /* taps d and -d at d and n - d mod n, summed where a short line
       * (n < 2r + 1) makes two fall together: the periodised kernel, whose
       * circular convolution is the linear one at the outputs */
      memset (k, 0, (size_t) n * sizeof (double));
      k[0] = w[0];
      for (int d = 1; d <= r; d++)
        {
          k[d % n] += w[d];
          k[(n - d % n) % n] += w[d];
        }
      fftw_execute_dft_r2c (p->forward_d, k, s);
      for (int i = 0; i <= n / 2; i++)
        re[i] = s[i][0] / n;
    }
  else
    {
      free (re);
      re = NULL;
    }
  fftw_free (k);
  fftw_free (s);
  return re;
}

/* The spectrum's n bins in single precision, each twice (a complex
 * spectrum's parts are then multiplied in one plain loop), from bins
 * 0..n/2 (the spectrum is even: bin n - i is bin i). */
static float *
all_bins (const double *half, int n)
{
  float *f = half ? malloc (2 * (size_t) n * sizeof (float)) : NULL;

  for (int i = 0; f && i < n; i++)
    f[2 * i] = f[2 * i + 1] = (float) half[i <= n / 2 ? i : n - i];
  return f;
}

/* tail[m] = w[m] + ... + w[r] (summed in double) for m in 1..r, 0 at r + 1:
 * what a clamped edge sample adds, times the sample, to an output m samples
 * inside the edge.  NULL when out of memory. */
static float *
kernel_tails (const float *w, int r)
{
  float *tail = malloc ((size_t) (r + 2) * sizeof (float));
  double sum = 0.0;

  if (!tail)
    return NULL;
  tail[r + 1] = 0.0f;
  for (int m = r; m >= 1; m--)
    tail[m] = (float) (sum += w[m]);
  tail[0] = 0.0f;  /* unused */
  return tail;
}

/* Spectra, tails and plans of an axis; 0 when out of memory. */
int
gblur_fft_prepare_axis (fft_axis *a, const float *weights)
{
  if (a->radius == 0)
    return 1;
  a->plans = gblur_fft_plans_for (a->n);
  a->w = weights;
  a->kd = kernel_spectrum (a->n, weights, a->radius);
  a->k = all_bins (a->kd, a->n);
  a->tail = kernel_tails (weights, a->radius);
  return a->plans && a->kd && a->k && a->tail;
}

void
gblur_fft_free_axis (fft_axis *a)
{
  free (a->kd);
  free (a->k);
  free (a->tail);
}

/* What the clamped edges add: the edge sample times tail[m] at m samples
 * inside the edge, m <= radius (a region that does not reach the image edge
 * extends a radius past its outputs, which then get nothing). */
static void
add_edge_tails (const fft_axis *a, float first, float last, float *line)
{
  const int    end = a->offset + a->outputs;
  const int    left_end = end < a->radius ? end : a->radius;  /* one bound: the loop vectorises */
  const float *tail = a->tail;

  for (int j = a->offset; j < left_end; j++)
    line[j] += first * tail[j + 1];
  for (int j = a->len - a->radius > a->offset ? a->len - a->radius : a->offset; j < end; j++)
    line[j] += last * tail[a->len - j];
}

/* The circular convolutions of l0 and l1 (a->len samples each, zero-padded
 * to a->n; l1 NULL: zeros) with the kernel, at once: the spectrum of
 * l0 + i l1 times the kernel's, which is real and even, is that of
 * (l0 * k) + i (l1 * k).  Only the outputs come back. */
static void
convolve_pair (const fft_axis *a, float *l0, float *l1, fftwf_complex *z, fftwf_complex *spec)
{
  for (int i = 0; i < a->len; i++)
    {
      z[i][0] = l0[i];
      z[i][1] = l1 ? l1[i] : 0.0f;
    }
  memset (z + a->len, 0, (size_t) (a->n - a->len) * sizeof *z);
  fftwf_execute_dft (a->plans->forward, z, spec);
  for (int i = 0; i < 2 * a->n; i++)
    ((float *) spec)[i] *= a->k[i];
  fftwf_execute_dft (a->plans->backward, spec, z);
  for (int i = a->offset; i < a->offset + a->outputs; i++)
    {
      l0[i] = z[i][0];
      if (l1)
        l1[i] = z[i][1];
    }
}

/* The circular convolution of line with the kernel in double precision,
 * through work; only the outputs come back. */
static void
convolve_double (const fft_axis *a, float *line, double *work, fftw_complex *spec)
{
  for (int i = 0; i < a->len; i++)
    work[i] = line[i];
  memset (work + a->len, 0, (size_t) (a->n - a->len) * sizeof (double));
  fftw_execute_dft_r2c (a->plans->forward_d, work, spec);
  for (int i = 0; i <= a->n / 2; i++)
    {
      spec[i][0] *= a->kd[i];
      spec[i][1] *= a->kd[i];
    }
  fftw_execute_dft_c2r (a->plans->backward_d, spec, work);
  for (int i = a->offset; i < a->offset + a->outputs; i++)
    line[i] = (float) work[i];
}

/* The largest |v[i]|; NaNs are passed over (the compiler keeps the scalar
 * loop scalar for them: maxps passes them over too, 4 at a time). */
float
gblur_fft_largest_magnitude (const float *v, int n)
{
  float m = 0.0f;
  int   i = 0;

#ifdef __SSE2__
  const __m128 magnitude_bits = _mm_castsi128_ps (_mm_set1_epi32 (0x7fffffff));
  __m128       m4 = _mm_setzero_ps ();
  float        lanes[4];

  for (; i + 4 <= n; i += 4)
    m4 = _mm_max_ps (_mm_and_ps (_mm_loadu_ps (v + i), magnitude_bits), m4);
  _mm_storeu_ps (lanes, m4);
  for (int k = 0; k < 4; k++)
    m = lanes[k] > m ? lanes[k] : m;
#endif
  for (; i < n; i++)
    {
      const float a = fabsf (v[i]);
      m = a > m ? a : m;
    }
  return m;
}

/* The smallest v[i]; NaNs are passed over (in SSE registers too). */
float
gblur_fft_smallest_value (const float *v, int n)
{
  float m = INFINITY;
  int   i = 0;

#ifdef __SSE2__
  __m128 m4 = _mm_set1_ps (INFINITY);
  float  lanes[4];

  for (; i + 4 <= n; i += 4)
    m4 = _mm_min_ps (_mm_loadu_ps (v + i), m4);
  _mm_storeu_ps (lanes, m4);
  for (int k = 0; k < 4; k++)
    m = lanes[k] < m ? lanes[k] : m;
#endif
  for (; i < n; i++)
    m = v[i] < m ? v[i] : m;
  return m;
}

/* Float data may hold lines of any magnitude side by side (HDR): two
 * lines are transformed together only when their largest inputs are
 * within PAIR_RANGE of each other, so that each line's error stays within
 * that factor of its own largest input.  (8- and 16-bit data is bounded by
 * full scale.) */
#define PAIR_RANGE 16.0f

static int
may_pair (const fft_run *run, const fft_axis *a, const float *l0, const float *l1)
{
  float m0, m1;

  if (run->job->src->sample != GBLUR_F32)
    return 1;
  m0 = gblur_fft_largest_magnitude (l0, a->len);
  m1 = gblur_fft_largest_magnitude (l1, a->len);
  return m0 <= PAIR_RANGE * m1 && m1 <= PAIR_RANGE * m0;
}

/* count lines (a->len samples each, pitch floats apart from first)
 * convolved with the axis's kernel, the edges clamped, on worker's buffers:
 * in double precision one by one when `precise`, else two at a time where
 * they may pair; output i (0 <= i < a->outputs) of a line in
 * line[a->offset + i]. */
void
gblur_fft_convolve_lines (const fft_run *run, const fft_axis *a, float *first, size_t pitch, int count,
                          int worker, int precise)
{
  for (int k = 0; k < count;)
    {
      float      *l0 = first + (size_t) k * pitch;
      float      *l1 = !precise && k + 1 < count && may_pair (run, a, l0, l0 + pitch) ? l0 + pitch : NULL;
      const float first0 = l0[0], last0 = l0[a->len - 1];
      const float first1 = l1 ? l1[0] : 0.0f, last1 = l1 ? l1[a->len - 1] : 0.0f;

      if (precise)
        convolve_double (a, l0, run->work[worker], run->spec[worker]);
      else
        convolve_pair (a, l0, l1, run->pair[worker], run->pair_spec[worker]);
      add_edge_tails (a, first0, last0, l0);
      if (l1)
        add_edge_tails (a, first1, last1, l1);
      k += l1 ? 2 : 1;
    }
}

/* The smallest of n > 0 values `step` floats apart. */
static float
smallest (const float *v, size_t step, int n)
{
  float m = v[0];

  for (int i = 1; i < n; i++)
    m = v[(size_t) i * step] < m ? v[(size_t) i * step] : m;
  return m;
}

/* Whether a pixel's lines (alphas `step` floats apart, largest: their
 * largest input) transform in double precision (see SINGLE_ALPHA_FLOOR). */
int
gblur_fft_pixel_precise (const fft_run *run, const float *alpha, size_t step, int n, float largest)
{
  return run->precise && !(run->single_first && smallest (alpha, step, n) >= SINGLE_ALPHA_FLOOR * largest);
}

/* ---- Repair: outputs whose blurred alpha is under the FFT's error ---- */

float
gblur_fft_direct_sum (const fft_axis *a, const float *in, size_t step, int j)
{
  double sum = 0.0;

  for (int k = -a->radius; k <= a->radius; k++)
    sum += a->w[k < 0 ? -k : k] * in[(size_t) clamp_int (j + k, 0, a->len - 1) * step];
  return (float) sum;
}

void
gblur_fft_count_nonzero (const float *in, size_t step, int c, int len, int *nonzero)
{
  nonzero[0] = 0;
  for (int j = 0; j < len; j++)
    {
      int any = 0;
      for (int ch = 0; ch < c; ch++)
        any |= in[(size_t) j * step + ch] != 0.0f;
      nonzero[j + 1] = nonzero[j] + any;
    }
}

int
gblur_fft_reaches_nonzero (const fft_axis *a, int j, const int *nonzero)
{
  const int lo = clamp_int (j - a->radius, 0, a->len - 1), hi = clamp_int (j + a->radius, 0, a->len - 1);

  return nonzero[hi + 1] != nonzero[lo];
}

void
gblur_fft_resum_output (const fft_axis *a, float *const *out, int c, const float *in, size_t step, int j,
                        const int *nonzero)
{
  const int any = gblur_fft_reaches_nonzero (a, j, nonzero);

  for (int ch = 0; ch < c; ch++)
    out[ch][j] = any ? gblur_fft_direct_sum (a, in + ch, step, j) : 0.0f;
}

/* One pixel's c channel lines after the transforms (output j of channel ch
 * in out[ch][j], alpha last), their inputs (in[j step + ch]) and the
 * largest magnitude among those: outputs whose alpha is under ALPHA_FLOOR
 * times that are summed again directly, or set to 0 where every input they
 * reach is 0 (as the direct loops' sums are).  nonzero: a->len + 1 ints of
 * scratch. */
void
gblur_fft_repair_pixel (const fft_axis *a, float *const *out, int c, const float *in, size_t step,
                        float largest, int *nonzero)
{
  const int    end = a->offset + a->outputs;
  const float  alpha_floor = (float) ALPHA_FLOOR * largest;
  const float *alpha = out[c - 1];
  int          counted = 0;

  for (int j = a->offset; j < end; j++)
    {
      if (fabsf (alpha[j]) >= alpha_floor)  /* false for NaN */
        continue;
      if (!counted)
        gblur_fft_count_nonzero (in, step, c, a->len, nonzero);
      counted = 1;
      gblur_fft_resum_output (a, out, c, in, step, j, nonzero);
    }
}

#endif /* HAVE_FFTW */
