/* Conversions between stored samples and the CPU backend's working floats
 * (convert.c), for its direct loops and its FFT path.  Not installed.
 *
 * Built once, with the baseline flags, whatever the loops calling them: their
 * arithmetic (no FMA contraction) is the same on every path. */
#ifndef GBLUR_CPU_CONVERT_H
#define GBLUR_CPU_CONVERT_H

#include "optimize.h"

#include "gblur-internal.h"

void gblur_cpu_load_row (const unsigned char *row, gblur_sample sample, int pixels, int channels,
                         unsigned flags, const gblur_srgb_tables *srgb, float *out);
void gblur_cpu_store_row (float *values, int pixels, int channels, unsigned flags,
                          gblur_sample sample, const gblur_srgb_tables *srgb,
                          unsigned char *row);

#endif
