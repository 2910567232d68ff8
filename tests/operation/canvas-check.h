/* A canvas rendered in chunks against a one-request render: the benchmark's
 * and the soak's check that every shown pixel is right. */
#ifndef CANVAS_CHECK_H
#define CANVAS_CHECK_H

#include <gegl.h>

/* Largest difference, in levels of max_level, between `canvas` and `ref`
 * rendered over `all` in one request. */
double canvas_difference (GeglNode *ref, const GeglRectangle *all, GeglBuffer *canvas, int max_level);

#endif
