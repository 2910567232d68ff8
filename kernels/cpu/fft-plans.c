/* The FFT path's transforms: the FFT length of a line and FFTW's plans for
 * it, made once per length and kept for the life of the process.
 *
 * FFTW's planner is not thread safe (only fftw*_execute* is): plans are made
 * under a lock with FFTW_ESTIMATE (no timing runs: planning takes
 * microseconds) and executed on the workers' own buffers (fftw*_malloc'd,
 * so aligned as the planner assumed). */
#include "fft-internal.h"

#ifdef HAVE_FFTW

#include "tuning.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
static fft_plans      *plan_cache;
static int             wisdom_read;

/* Transforms of one line of length n: complex -> complex out of place and
 * back (single), real -> n/2 + 1 complex and back (double); plans for one
 * line at a time ran faster per sample than plans for many. */
static fft_plans *
make_plans (int n)
{
  fft_plans     *p = calloc (1, sizeof *p);
  fftwf_complex *line = fftwf_malloc ((size_t) n * sizeof (fftwf_complex));
  fftwf_complex *spec = fftwf_malloc ((size_t) n * sizeof (fftwf_complex));
  double        *real_d = fftw_malloc ((size_t) n * sizeof (double));
  fftw_complex  *spec_d = fftw_malloc ((size_t) (n / 2 + 1) * sizeof (fftw_complex));

  if (p && line && spec && real_d && spec_d)
    {
      p->n = n;
      p->forward = fftwf_plan_dft_1d (n, line, spec, FFTW_FORWARD, FFTW_ESTIMATE);
      p->backward = fftwf_plan_dft_1d (n, spec, line, FFTW_BACKWARD, FFTW_ESTIMATE);
      p->forward_d = fftw_plan_dft_r2c_1d (n, real_d, spec_d, FFTW_ESTIMATE);
      p->backward_d = fftw_plan_dft_c2r_1d (n, spec_d, real_d, FFTW_ESTIMATE);
    }
  fftwf_free (line);
  fftwf_free (spec);
  fftw_free (real_d);
  fftw_free (spec_d);
  if (p && (!p->forward || !p->backward || !p->forward_d || !p->backward_d))
    {
      if (p->forward) fftwf_destroy_plan (p->forward);
      if (p->backward) fftwf_destroy_plan (p->backward);
      if (p->forward_d) fftw_destroy_plan (p->forward_d);
      if (p->backward_d) fftw_destroy_plan (p->backward_d);
      free (p);
      p = NULL;
    }
  return p;
}

const fft_plans *
gblur_fft_plans_for (int n)
{
  fft_plans *p;

  pthread_mutex_lock (&plan_lock);
  /* Measured plans an administrator saved (fftwf-wisdom -o /etc/fftw/
   * wisdomf), if any, are used in place of the estimates. */
  if (!wisdom_read)
    {
      fftwf_import_system_wisdom ();
      fftw_import_system_wisdom ();
      wisdom_read = 1;
    }
  for (p = plan_cache; p; p = p->next)
    if (p->n == n)
      break;
  if (!p && (p = make_plans (n)))
    {
      p->next = plan_cache;
      plan_cache = p;
    }
  pthread_mutex_unlock (&plan_lock);
  return p;
}

/* ---- Lengths ---- */

/* The FFT length for lines of len samples: n >= len, a power of two times
 * one of a few small odd numbers, whichever is expected to be fastest by
 * n log2 n times its odd part's time per n log2 n (tuning.h). */
static int
fft_length (int len)
{
  static const struct { int odd; double ns; } kinds[] = CPU_FFT_ODD_PARTS;
  int    best = 0;
  double best_cost = 0.0;

  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    {
      int    n = 2 * kinds[i].odd;
      double cost;
      while (n < len)
        n *= 2;
      cost = kinds[i].ns * n * log2 (n);
      if (best == 0 || cost < best_cost)
        {
          best = n;
          best_cost = cost;
        }
    }
  return best;
}

int
gblur_fft_axis_length (int reg, int offset, int outputs, int radius)
{
  const int right = offset + outputs + radius, left = reg + radius - offset;

  return fft_length (right > left ? right : left);
}

#endif /* HAVE_FFTW */
