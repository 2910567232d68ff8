/* The engine's tap cache: the half kernels of the last sigmas, kept so that
 * repeated calls with the same sigma (a live preview) do not remake them. */
#ifndef GBLUR_TAPS_H
#define GBLUR_TAPS_H

#include "gblur-internal.h"

/* A half kernel and the sigma it is for (radius -1: none yet). */
typedef struct {
  double sigma;
  int    radius;
  float  weights[GBLUR_MAX_RADIUS + 1];
} gblur_taps;

/* Empties a cache slot. */
void              gblur_taps_init (gblur_taps *slot);
/* The taps for sigma, from the slot or made there. */
const gblur_taps *gblur_taps_for (gblur_taps *slot, double sigma);

#endif
