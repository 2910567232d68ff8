/* The FFT path's single precision with an error bound, for the 16-bit runs
 * that need more than single precision gives at once (linear light, alpha
 * divided): lines transform in single precision, and every output whose
 * bound cannot keep it within LEVEL_BUDGET of the exact value is summed
 * directly, or its whole line transformed again in double precision where
 * that costs less.  The bound and why it holds: docs/blur.md. */
#include "fft-internal.h"

#ifdef HAVE_FFTW

#include "tuning.h"

#include <math.h>
#include <string.h>

/* A single-precision convolution (forward, product, inverse) is off by at
 * most this times sqrt (log2 n) of the largest input of its pair of lines:
 * 1.7 to 2.7 times the largest error measured over lengths 512 to 65536
 * (docs/blur.md). */
#define SINGLE_ERROR_PER_SQRT_LOG2 1.2e-7

/* Levels of a 16-bit output the transforms' error may move it by: with
 * the rounding (half a level) and the float arithmetic around them (under
 * 0.01), it stays within the definition's 1 level. */
#define LEVEL_BUDGET 0.3f

double
gblur_fft_single_error (int n)
{
  return n > 1 ? SINGLE_ERROR_PER_SQRT_LOG2 * sqrt (log2 (n)) : 0.0;
}

/* Levels per unit of stored value at v, at most over [v, v + 1/GBLUR_SLOPE_BINS)
 * (in linear light the curve's slope; else 65535). */
static double
slope_at (const fft_run *run, double v)
{
  const int bin = v <= 0.0 ? 0 : v < 1.0 ? (int) (v * GBLUR_SLOPE_BINS) : GBLUR_SLOPE_BINS;

  return run->job->flags & GBLUR_LINEAR_LIGHT ? run->srgb->slope_u16[bin] : 65535.0;
}

/* The relative error the vertical pass holds its small outputs to.  An
 * output pixel summed again along x keeps only the vertical pass's error:
 * min (rel v, err_y) a sample, its colour off by that over an alpha of at
 * least BOUNDED_ALPHA_FLOOR (1 without alpha) and by colour err_y / alpha
 * from its alpha.  Where slope err_y / alpha leaves the budget, the colour
 * needs rel: it must keep slope (c) c rel within what is left. */
static double
vertical_relative_error (const fft_run *run)
{
  const int    divides = run->repair;
  const double alpha = divides ? BOUNDED_ALPHA_FLOOR - run->err_y : 1.0;
  const double most = run->job->flags & GBLUR_LINEAR_LIGHT ? 65535.0 * GBLUR_SRGB_SCALE / GBLUR_SRGB_GAMMA : 65535.0;
  const double left = LEVEL_BUDGET - (divides ? most * run->err_y / alpha : 0.0);
  double       gain = 0.0;

  for (int i = 0; i < GBLUR_SLOPE_BINS; i++)
    {
      const double c = (double) i / GBLUR_SLOPE_BINS, s = slope_at (run, c);
      if (s * run->err_y / alpha > left)
        gain = s * (c + 1.0 / GBLUR_SLOPE_BINS) > gain ? s * (c + 1.0 / GBLUR_SLOPE_BINS) : gain;
    }
  return gain > 0.0 ? left / gain : 1.0;
}

void
gblur_fft_bounds_plan (fft_run *run)
{
  run->err_y = gblur_fft_single_error (run->y.n);
  run->err_x = gblur_fft_single_error (run->x.n);
  run->rel_v = vertical_relative_error (run);
  /* a vertical output at least dark_v times its pair's largest input is
   * within rel_v of itself */
  run->dark_v = (float) (run->err_y + run->err_y / run->rel_v);
}

/* Whether summing count outputs directly costs more than transforming
 * their line again in double precision. */
static int
cheaper_again (const fft_axis *a, int count)
{
  return (double) count * (2 * a->radius + 1) > CPU_FFT_RESUM_LIMIT * a->n * log2 (a->n);
}

/* ---- The vertical pass: every output within rel_v of itself ---- */

/* Line k (of count, pitch floats apart; its input from `in`: see
 * gblur_fft_bounded_lines) after the transforms: its outputs under the
 * bound's reach summed directly, or the line transformed again in double
 * precision (and its outputs too small for that summed). */
static void
settle_line (const fft_run *run, const fft_axis *a, float *out, const float *in, size_t step, float largest,
             int worker)
{
  int  *nonzero = run->nonzero[worker];
  float floor = run->dark_v * largest;
  int   costly = 0, counted = 0;

  for (int j = a->offset; j < a->offset + a->outputs; j++)
    if (!(fabsf (out[j]) >= floor))
      {
        if (!counted)
          gblur_fft_count_nonzero (in, step, 1, a->len, nonzero);
        counted = 1;
        costly += gblur_fft_reaches_nonzero (a, j, nonzero);
      }
  if (!counted)
    return;
  if (cheaper_again (a, costly))
    {
      for (int j = 0; j < a->len; j++)
        out[j] = in[(size_t) j * step];
      gblur_fft_convolve_lines (run, a, out, 0, 1, worker, 1);
      floor = (float) ALPHA_FLOOR * largest;
    }
  for (int j = a->offset; j < a->offset + a->outputs; j++)
    if (!(fabsf (out[j]) >= floor))
      gblur_fft_resum_output (a, &out, 1, in, step, j, nonzero);
}

void
gblur_fft_bounded_lines (const fft_run *run, const fft_axis *a, float *lines, size_t pitch, int count,
                         const float *in, size_t step, const float *largest, int worker)
{
  gblur_fft_convolve_lines (run, a, lines, pitch, count, worker, 0);
  for (int k = 0; k < count; k++)
    {
      /* lines 2i and 2i + 1 went through one transform */
      const int   other = k ^ 1;
      const float pair = other < count && largest[other] > largest[k] ? largest[other] : largest[k];
      settle_line (run, a, lines + (size_t) k * pitch, in + k, step, pair, worker);
    }
}

/* ---- The horizontal pass: each output pixel within LEVEL_BUDGET ---- */

/* Levels a stored value v off by at most e may move by: the curve's
 * steepest slope over [v - e, v] times e (it flattens as v grows). */
static float
level_error (const fft_run *run, float v, float e)
{
  return (float) slope_at (run, v - e) * e;
}

/* A sample's error from the vertical pass (see vertical_relative_error). */
static float
vertical_error (const fft_run *run, float v)
{
  const float rel = (float) run->rel_v * fabsf (v), abs = (float) run->err_y;

  return rel < abs ? rel : abs;
}

/* The smallest colour (a bin's start; +inf for none) whose level an error
 * of e cannot move by more than LEVEL_BUDGET (the curve flattens). */
static float
decided_from (const fft_run *run, float e)
{
  int lo = 0, hi = GBLUR_SLOPE_BINS + 1;

  while (lo < hi)
    {
      const int mid = (lo + hi) / 2;
      if (level_error (run, (float) mid / GBLUR_SLOPE_BINS, e) <= LEVEL_BUDGET)
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo <= GBLUR_SLOPE_BINS ? (float) lo / GBLUR_SLOPE_BINS : INFINITY;
}

/* For a row whose samples are off by at most e and whose alphas are at
 * least `alpha` (1 without): colours at least the result (times their
 * alpha, premultiplied) are decided at once.  A colour is off by at most
 * (e + colour e) / (alpha - e), colours at most 1 (and a rounding). */
static float
row_decided_from (const fft_run *run, float e, float alpha)
{
  if (!run->repair)
    return decided_from (run, e);
  if (!(alpha > e) || 65535.0f * e > LEVEL_BUDGET)
    return INFINITY;
  return decided_from (run, 2.01f * e / (alpha - e));
}

/* Whether output pixel j (channel ch in out[ch][j], alpha last) may be
 * off by more than LEVEL_BUDGET: each sample off by its vertical error
 * and err (this pass's transforms); colours of at least `decided` (see
 * row_decided_from) are. */
static int
undecided (const fft_run *run, float *const *out, int j, float err, float decided)
{
  const int c = run->c, colours = run->repair ? c - 1 : c;
  const float scale = run->repair ? out[c - 1][j] : 1.0f;
  float     a, ea;
  int       quick = decided < INFINITY && scale > 0.0f;

  for (int ch = 0; ch < colours; ch++)
    quick &= out[ch][j] >= decided * scale;
  if (quick)
    return 0;

  if (!run->repair)
    {
      for (int ch = 0; ch < c; ch++)
        if (!(level_error (run, out[ch][j], vertical_error (run, out[ch][j]) + err) <= LEVEL_BUDGET))
          return 1;
      return 0;
    }
  a = out[c - 1][j];
  ea = vertical_error (run, a) + err;
  if (!(a - ea > 0.0f) || 65535.0f * ea > LEVEL_BUDGET)
    return 1;
  for (int ch = 0; ch < c - 1; ch++)
    {
      const float colour = out[ch][j] / a;
      const float e = (vertical_error (run, out[ch][j]) + err + fabsf (colour) * ea) / (a - ea);
      if (!(level_error (run, colour, e) <= LEVEL_BUDGET))
        return 1;
    }
  return 0;
}

/* The smallest alpha of a row of pixels (1 without alpha). */
static float
smallest_alpha (const fft_run *run, const float *values)
{
  float m = 1.0f;

  if (run->repair)
    for (int j = 0; j < run->x.len; j++)
      m = values[(size_t) j * run->c + run->c - 1] < m ? values[(size_t) j * run->c + run->c - 1] : m;
  return m;
}

/* Whether every output pixel of a row (channel ch in out[ch]) is decided
 * at once: its colours at least `decided` times the largest alpha. */
static int
row_decided (const fft_run *run, float *const *out, float decided)
{
  const fft_axis *a = &run->x;
  const int       colours = run->repair ? run->c - 1 : run->c;
  const float     scale = run->repair ? gblur_fft_largest_magnitude (out[run->c - 1] + a->offset, a->outputs) : 1.0f;
  float           low = INFINITY;

  if (!(decided < INFINITY))
    return 0;
  for (int ch = 0; ch < colours; ch++)
    {
      const float m = gblur_fft_smallest_value (out[ch] + a->offset, a->outputs);
      low = m < low ? m : low;
    }
  return low >= decided * scale;
}

/* A row's c channel lines (pitch floats apart) from its pixels. */
static void
split_channels (const float *values, int c, int len, float *lines, size_t pitch)
{
  for (int ch = 0; ch < c; ch++)
    for (int j = 0; j < len; j++)
      lines[(size_t) ch * pitch + j] = values[(size_t) j * c + ch];
}

/* One row after the transforms (its channel lines from lines, its pixels
 * in values): undecided pixels summed directly, or the row transformed
 * again in double precision (its pixels of tiny alpha summed). */
static void
settle_row (const fft_run *run, float *lines, size_t pitch, const float *values, float largest, int worker)
{
  const fft_axis *a = &run->x;
  const int       c = run->c;
  const float     err = (float) run->err_x * largest;
  const float     decided = row_decided_from (run, (float) run->err_y + err, smallest_alpha (run, values) - err);
  int            *nonzero = run->nonzero[worker];
  float          *out[GBLUR_MAX_CHANNELS];
  int             costly = 0, counted = 0;

  for (int ch = 0; ch < c; ch++)
    out[ch] = lines + (size_t) ch * pitch;
  if (row_decided (run, out, decided))
    return;
  for (int j = a->offset; j < a->offset + a->outputs; j++)
    if (undecided (run, out, j, err, decided))
      {
        if (!counted)
          gblur_fft_count_nonzero (values, (size_t) c, c, a->len, nonzero);
        counted = 1;
        costly += gblur_fft_reaches_nonzero (a, j, nonzero);
      }
  if (!counted)
    return;
  if (cheaper_again (a, costly))
    {
      split_channels (values, c, a->len, lines, pitch);
      gblur_fft_convolve_lines (run, a, lines, pitch, c, worker, 1);
      if (run->repair)
        gblur_fft_repair_pixel (a, out, c, values, (size_t) c, largest, nonzero);
      return;
    }
  for (int j = a->offset; j < a->offset + a->outputs; j++)
    if (undecided (run, out, j, err, decided))
      gblur_fft_resum_output (a, out, c, values, (size_t) c, j, nonzero);
}

void
gblur_fft_bounded_rows (const fft_run *run, float *lines, size_t pitch, const float *const *rows, int count,
                        int worker)
{
  const int c = run->c, len = run->x.len;
  float     largest = 0.0f;

  for (int r = 0; r < count; r++)
    {
      const float m = gblur_fft_largest_magnitude (rows[r], len * c);
      largest = m > largest ? m : largest;
    }
  gblur_fft_convolve_lines (run, &run->x, lines, pitch, count * c, worker, 0);
  for (int r = 0; r < count; r++)
    settle_row (run, lines + (size_t) r * c * pitch, pitch, rows[r], largest, worker);
}

#endif /* HAVE_FFTW */
