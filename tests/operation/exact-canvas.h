/* A canvas against the double-precision definition (tests/engine/
 * reference.c), sharing nothing with the operation. */
#ifndef EXACT_CANVAS_H
#define EXACT_CANVAS_H

#include <gegl.h>

/* Largest distance in levels between canvas and the exact blur of layer
 * (R'G'B'A u8 or u16, depth 8 or 16) with the operation's sigmas, light and
 * abyss policy (0 none, 1 clamp, 2 black, 3 white). */
double exact_canvas_difference (GeglBuffer *layer, GeglBuffer *canvas, double sigma_x, double sigma_y,
                                gboolean linear, int abyss, int depth);

#endif
