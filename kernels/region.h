/* The source region a rectangle of outputs reads: the rectangle grown by
 * the blur's radii, clamped to the image.  Not installed. */
#ifndef GBLUR_REGION_H
#define GBLUR_REGION_H

#include "gblur-internal.h"
#include "int-math.h"

/* A rectangle in source image coordinates. */
typedef struct {
  int x0, y0, w, h;
} gblur_region;

/* What outputs [x0, x0 + w) x [y0, y0 + h) of geo's window read. */
static inline gblur_region
gblur_read_region (const gblur_geometry *geo, int x0, int y0, int w, int h)
{
  const int x1 = clamp_int (x0 + w + geo->radius_x, 0, geo->img_w);
  const int y1 = clamp_int (y0 + h + geo->radius_y, 0, geo->img_h);
  gblur_region r;

  r.x0 = clamp_int (x0 - geo->radius_x, 0, geo->img_w);
  r.y0 = clamp_int (y0 - geo->radius_y, 0, geo->img_h);
  r.w = x1 - r.x0;
  r.h = y1 - r.y0;
  return r;
}

/* The most samples of an axis of image_len that `outputs` outputs read:
 * the widest a tile's region can be, for sizing its buffers. */
static inline int
gblur_read_span (int outputs, int radius, int image_len)
{
  return outputs + 2 * radius < image_len ? outputs + 2 * radius : image_len;
}

#endif
