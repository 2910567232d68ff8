/* The FFT path's cost model: what a job needs (its region, its precision)
 * and whether the FFT path is expected to beat the direct loops, both
 * costed in direct taps with the fitted constants of tuning.h. */
#include "fft-internal.h"

#ifdef HAVE_FFTW

#include "tuning.h"

#include <math.h>

gblur_region
gblur_fft_job_region (const gblur_job *job)
{
  const gblur_geometry *g = &job->geo;

  return gblur_read_region (g, g->win_x, g->win_y, g->win_w, g->win_h);
}

int
gblur_fft_divides_by_alpha (const gblur_job *job)
{
  return (job->flags & GBLUR_PREMULTIPLY_ALPHA) && job->src->channels > 1;
}

int
gblur_fft_needs_precision (const gblur_job *job)
{
  return gblur_fft_divides_by_alpha (job)
         || (job->src->sample == GBLUR_U16 && (job->flags & GBLUR_LINEAR_LIGHT));
}

int
gblur_fft_bounded_applies (const gblur_job *job, int ny, int nx)
{
  return job->src->sample == GBLUR_U16 && (job->flags & GBLUR_LINEAR_LIGHT) && !gblur_fft_divides_by_alpha (job)
         && ny <= BOUNDED_MAX_LENGTH && nx <= BOUNDED_MAX_LENGTH;
}

/* The vertical pass takes BLOCK_FLOATS columns at a time. */
int
gblur_fft_format_allows (const gblur_job *job)
{
  return !gblur_fft_divides_by_alpha (job) || BLOCK_FLOATS % job->src->channels == 0;
}

/* Cost per output sample of one pass, in direct taps; lines_ratio: lines
 * transformed per output line (the vertical pass transforms the region's
 * columns, more than the window's). */
static double
fft_pass_cost (double unit, int radius, int n, int outputs, double lines_ratio)
{
  return radius > 0 ? unit * lines_ratio * n * log2 (n) / outputs : 0.0;
}

static double
direct_pass_cost (int radius)
{
  return radius > 0 ? 2 * radius + 1 : 0.0;
}

static double
precision_cost (const gblur_job *job, int ny, int nx)
{
  if (!gblur_fft_needs_precision (job))
    return 1.0;
  if (gblur_fft_bounded_applies (job, ny, nx))
    return CPU_FFT_COST_BOUNDED;
  return gblur_fft_divides_by_alpha (job) && job->src->sample == GBLUR_U8 ? CPU_FFT_COST_MOSTLY_SINGLE
                                                                          : CPU_FFT_COST_DOUBLE;
}

int
gblur_fft_expected_faster (const gblur_job *job, double tap_cost, int threads)
{
  const gblur_geometry *g = &job->geo;
  const gblur_region    reg = gblur_fft_job_region (job);
  const int             rx = job->radius_x, ry = job->radius_y;
  const int             ny = gblur_fft_axis_length (reg.h, g->win_y - reg.y0, g->win_h, ry);
  const int             nx = gblur_fft_axis_length (reg.w, g->win_x - reg.x0, g->win_w, rx);
  double fft = fft_pass_cost (CPU_FFT_COST_V, ry, ny, g->win_h, (double) reg.w / g->win_w)
               + fft_pass_cost (CPU_FFT_COST_H, rx, nx, g->win_w, 1.0);
  double direct = (direct_pass_cost (ry) + direct_pass_cost (rx)) * tap_cost
                  * (threads > 2 ? pow (threads / 2.0, CPU_THREAD_EXPONENT) : 1.0);

  return fft * precision_cost (job, ny, nx) < direct;
}

#endif /* HAVE_FFTW */
