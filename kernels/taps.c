/* The engine's tap cache (taps.h). */
#include "taps.h"

void
gblur_taps_init (gblur_taps *slot)
{
  slot->radius = -1;
}

const gblur_taps *
gblur_taps_for (gblur_taps *slot, double sigma)
{
  if (slot->radius < 0 || slot->sigma != sigma)
    {
      slot->sigma = sigma;
      slot->radius = gblur_radius (sigma);
      gblur_make_weights (sigma, slot->radius, slot->weights);
    }
  return slot;
}
