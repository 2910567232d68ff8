/* A double-precision evaluation of the engine's definition, written
 * independently of kernels/ for the tests to compare against. */
#ifndef REFERENCE_H
#define REFERENCE_H

#include "gblur.h"

/* out[(y * width + x) * channels + c] receives the exact result in the
 * sample's own units (0..255, 0..65535, or float), clamped, not rounded. */
void reference_blur (const gblur_image *src, double sigma, unsigned flags, double *out);

/* The same with a sigma per axis: sigma_x across the rows, sigma_y down the
 * columns; 0 leaves that axis as it is (radius 0, the one weight 1). */
void reference_blur_xy (const gblur_image *src, double sigma_x, double sigma_y, unsigned flags,
                        double *out);

/* Reads sample i of row y as a double in the sample's own units. */
double reference_sample (const gblur_image *img, int x, int y, int c);

#endif
