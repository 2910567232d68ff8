/* The FFT path's single precision with an error bound, for 16-bit runs in
 * linear light (no alpha divided): lines transform in single precision,
 * and every output whose bound cannot keep it within LEVEL_BUDGET of the
 * exact value is summed directly, or its line transformed in double
 * precision where that costs less.  The bound and why it holds:
 * docs/blur.md. */
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

/* A directly summed output's error, of itself: the double sum's rounding
 * to float, and the float taps' (whose errors are relative, each tap's
 * input being at least 0 in linear light). */
#define DIRECT_ERROR 0x1p-23

int
gblur_fft_bounded_direct (const fft_axis *a)
{
  return a->radius > 0 && a->radius < BOUNDED_MIN_RADIUS;
}

double
gblur_fft_single_error (int n)
{
  return n > 1 ? SINGLE_ERROR_PER_SQRT_LOG2 * sqrt (log2 (n)) : 0.0;
}

/* u16 levels per unit of linear light at v, at most over
 * [v, v + 1/GBLUR_SLOPE_BINS): the sRGB curve flattens as v grows. */
static float
slope_at (const fft_run *run, float v)
{
  const int bin = v > 0.0f ? (v < 1.0f ? (int) (v * GBLUR_SLOPE_BINS) : GBLUR_SLOPE_BINS) : 0;

  return run->srgb->slope_u16[bin];
}

/* Levels a value v off by at most e may move by. */
static float
level_error (const fft_run *run, float v, float e)
{
  return slope_at (run, v - e) * e;
}

/* The relative error the vertical pass holds its small outputs to.  An
 * output summed again along x keeps only the vertical pass's error,
 * min (rel v, err_y); where slope (v) err_y leaves the budget, slope (v) v
 * rel must fit it. */
static double
vertical_relative_error (const fft_run *run)
{
  double gain = 0.0;

  for (int i = 0; i < GBLUR_SLOPE_BINS; i++)
    {
      const double v = (double) i / GBLUR_SLOPE_BINS, s = run->srgb->slope_u16[i];
      if (s * run->err_y > LEVEL_BUDGET)
        gain = s * (v + 1.0 / GBLUR_SLOPE_BINS) > gain ? s * (v + 1.0 / GBLUR_SLOPE_BINS) : gain;
    }
  return gain > 0.0 ? LEVEL_BUDGET / gain : 1.0;
}

void
gblur_fft_bounds_plan (fft_run *run)
{
  run->err_y = gblur_fft_bounded_direct (&run->y) ? DIRECT_ERROR : gblur_fft_single_error (run->y.n);
  run->err_x = gblur_fft_bounded_direct (&run->x) ? DIRECT_ERROR : gblur_fft_single_error (run->x.n);
  /* direct sums are within DIRECT_ERROR of each output itself */
  run->rel_v = gblur_fft_bounded_direct (&run->y) ? DIRECT_ERROR : vertical_relative_error (run);
  /* a vertical output at least dark_v times its pair's largest input is
   * within rel_v of itself */
  run->dark_v = (float) (run->err_y + run->err_y / run->rel_v);
}

/* Whether summing count outputs directly costs more than transforming
 * their line in double precision. */
static int
cheaper_again (const fft_axis *a, int count)
{
  return (double) count * (2 * a->radius + 1) > CPU_FFT_RESUM_LIMIT * a->n * log2 (a->n);
}

/* Whether a line whose n inputs hold `dark` under the bound's reach takes
 * double precision at once: its outputs would likely need it anyway (an
 * input alone, as in noise, is outweighed by its neighbours). */
static int
mostly_dark (int dark, int n)
{
  return dark > CPU_FFT_DARK_SHARE * n;
}

/* How many of n samples are under floor. */
static int
count_under (const float *v, size_t step, int n, float floor)
{
  int count = 0;

  for (int i = 0; i < n; i++)
    count += !(fabsf (v[(size_t) i * step]) >= floor);
  return count;
}

/* Outputs of a line (out; its input from `in`, step floats apart) under
 * floor summed directly, or 0 where every input they reach is 0; how many
 * reach an input that is not.  The input is copied into the worker's
 * column first: the sums then read it from the cache.  count: only count. */
static int
resum_under (const fft_run *run, const fft_axis *a, float *out, const float *in, size_t step, float floor,
             int count, int worker)
{
  int   *nonzero = run->nonzero[worker];
  float *column = run->column[worker];
  int    costly = 0, copied = 0;

  for (int j = a->offset; j < a->offset + a->outputs; j++)
    if (!(fabsf (out[j]) >= floor))
      {
        if (!copied)
          {
            for (int i = 0; i < a->len; i++)
              column[i] = in[(size_t) i * step];
            gblur_fft_count_nonzero (column, 1, 1, a->len, nonzero);
          }
        copied = 1;
        costly += gblur_fft_reaches_nonzero (a, j, nonzero);
        if (!count)
          gblur_fft_resum_output (a, &out, 1, column, 1, j, nonzero);
      }
  return costly;
}

/* Outputs of a line (its input in column, contiguous) summed directly in
 * double precision (float taps times float inputs are exact there): the
 * interior tap by tap over all outputs at once (the loop vectorises), the
 * outputs whose taps reach past an end one by one, clamped.  acc: a->len
 * doubles of scratch. */
static void
direct_line (const fft_axis *a, float *out, const float *column, double *acc)
{
  const int r = a->radius, end = a->offset + a->outputs;
  const int lo = a->offset > r ? a->offset : r, hi = end < a->len - r ? end : a->len - r;

  for (int j = a->offset; j < end; j++)
    if (j < lo || j >= hi)
      out[j] = gblur_fft_direct_sum (a, column, 1, j);
  if (lo >= hi)
    return;
  for (int j = lo; j < hi; j++)
    acc[j] = (double) a->w[0] * column[j];
  for (int k = 1; k <= r; k++)
    {
      const double w = a->w[k];
      for (int j = lo; j < hi; j++)
        acc[j] += w * ((double) column[j - k] + (double) column[j + k]);
    }
  for (int j = lo; j < hi; j++)
    out[j] = (float) acc[j];
}

/* count lines (pitch floats apart; line k's input in[k + j step]) summed
 * directly, each through the worker's column (a line is its own output). */
static void
direct_lines (const fft_run *run, const fft_axis *a, float *lines, size_t pitch, int count, const float *in,
              size_t step, int worker)
{
  float *column = run->column[worker];

  for (int k = 0; k < count; k++)
    {
      for (int i = 0; i < a->len; i++)
        column[i] = in[k + (size_t) i * step];
      direct_line (a, lines + (size_t) k * pitch, column, run->work[worker]);  /* bounded runs are precise */
    }
}

/* ---- The vertical pass: every output within rel_v of itself, or err_y ---- */

void
gblur_fft_bounded_lines (const fft_run *run, const fft_axis *a, float *lines, size_t pitch, int count,
                         const float *in, size_t step, const float *largest, int worker)
{
  if (gblur_fft_bounded_direct (a))
    {
      direct_lines (run, a, lines, pitch, count, in, step, worker);
      return;
    }
  /* lines 2i and 2i + 1 go through one transform: in double precision
   * when either is mostly dark */
  for (int k = 0; k < count; k += 2)
    {
      const int   n = count - k < 2 ? count - k : 2;
      const float pair = n == 2 && largest[k + 1] > largest[k] ? largest[k + 1] : largest[k];
      int         precise = 0;

      for (int i = k; i < k + n; i++)  /* the inputs, gathered: not yet transformed */
        precise |= mostly_dark (count_under (lines + (size_t) i * pitch, 1, a->len, run->dark_v * pair), a->len);
      gblur_fft_convolve_lines (run, a, lines + (size_t) k * pitch, pitch, n, worker, precise);
      for (int i = k; i < k + n; i++)
        {
          float      *out = lines + (size_t) i * pitch;
          const float floor = precise ? (float) ALPHA_FLOOR * largest[i] : run->dark_v * pair;
          if (!precise && cheaper_again (a, resum_under (run, a, out, in + i, step, floor, 1, worker)))
            {
              for (int j = 0; j < a->len; j++)
                out[j] = in[i + (size_t) j * step];
              gblur_fft_convolve_lines (run, a, out, 0, 1, worker, 1);
              resum_under (run, a, out, in + i, step, (float) ALPHA_FLOOR * largest[i], 0, worker);
            }
          else
            resum_under (run, a, out, in + i, step, floor, 0, worker);
        }
    }
}

/* ---- The horizontal pass: each output within LEVEL_BUDGET ---- */

/* The smallest value (a bin's start; +inf for none) whose level an error
 * of e cannot move by more than LEVEL_BUDGET. */
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

/* A sample's error from the vertical pass. */
static float
vertical_error (const fft_run *run, float v)
{
  const float rel = (float) run->rel_v * fabsf (v), abs = (float) run->err_y;

  return rel < abs ? rel : abs;
}

/* Whether output j of a line may be off by more than LEVEL_BUDGET: off by
 * its vertical error and err (this pass's transforms); values of at least
 * `decided` are not. */
static int
undecided (const fft_run *run, const float *out, int j, float err, float decided)
{
  return !(out[j] >= decided) && !(level_error (run, out[j], vertical_error (run, out[j]) + err) <= LEVEL_BUDGET);
}

/* One channel line of a row after the transforms (out; its input in,
 * step floats apart): undecided outputs summed directly, or the line
 * transformed again in double precision. */
static void
settle_row_line (const fft_run *run, float *out, const float *in, size_t step, float largest, int worker)
{
  const fft_axis *a = &run->x;
  const float     err = (float) run->err_x * largest;
  const float     decided = decided_from (run, (float) run->err_y + err);
  int            *nonzero = run->nonzero[worker];
  int             costly = 0, counted = 0;

  if (gblur_fft_smallest_value (out + a->offset, a->outputs) >= decided)
    return;
  for (int j = a->offset; j < a->offset + a->outputs; j++)
    if (undecided (run, out, j, err, decided))
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
      return;
    }
  for (int j = a->offset; j < a->offset + a->outputs; j++)
    if (undecided (run, out, j, err, decided))
      gblur_fft_resum_output (a, &out, 1, in, step, j, nonzero);
}

void
gblur_fft_bounded_rows (const fft_run *run, float *lines, size_t pitch, const float *const *rows, int count,
                        int worker)
{
  const int c = run->c, len = run->x.len;
  float     largest = 0.0f, decided;
  int       precise = 0;

  /* each output then keeps the vertical pass's error (within the budget,
   * by rel_v) and DIRECT_ERROR of itself */
  if (gblur_fft_bounded_direct (&run->x))
    {
      for (int r = 0; r < count; r++)
        direct_lines (run, &run->x, lines + (size_t) r * c * pitch, pitch, c, rows[r], (size_t) c, worker);
      return;
    }
  for (int r = 0; r < count; r++)
    {
      const float m = gblur_fft_largest_magnitude (rows[r], len * c);
      largest = m > largest ? m : largest;
    }
  /* mostly dark rows take double precision at once */
  decided = decided_from (run, (float) (run->err_y + run->err_x * largest));
  for (int r = 0; r < count; r++)
    precise |= mostly_dark (count_under (rows[r], 1, len * c, decided), len * c);
  gblur_fft_convolve_lines (run, &run->x, lines, pitch, count * c, worker, precise);
  for (int r = 0; !precise && r < count; r++)
    for (int ch = 0; ch < c; ch++)
      settle_row_line (run, lines + (size_t) (r * c + ch) * pitch, rows[r] + ch, (size_t) c, largest, worker);
}

#endif /* HAVE_FFTW */
