/* Small integer helpers for the engine and the GIMP side.  Not installed. */
#ifndef GBLUR_INT_MATH_H
#define GBLUR_INT_MATH_H

#include <stddef.h>

static inline int
clamp_int (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

static inline size_t
round_up (size_t v, size_t m)
{
  return (v + m - 1) / m * m;
}

/* The largest multiple of m (m > 0) not above v, for negative v too. */
static inline int
floor_to (int v, int m)
{
  return (v >= 0 ? v / m : -((-v + m - 1) / m)) * m;
}

#endif
