/* Timing helpers for the benchmarks. */
#ifndef TIMING_H
#define TIMING_H

#include <stdlib.h>
#include <time.h>

static inline double
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Median of n timings (sorts them). */
static inline double
median_ms (double *t, int n)
{
  qsort (t, (size_t) n, sizeof *t, cmp_double);
  return t[n / 2];
}

#endif
