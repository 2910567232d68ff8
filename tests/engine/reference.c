#include "reference.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static double
to_linear (double v)
{
  return v <= 0.04045 ? v / 12.92 : pow ((v + 0.055) / 1.055, 2.4);
}

static double
from_linear (double l)
{
  return l <= 0.0031308 ? 12.92 * l : 1.055 * pow (l, 1.0 / 2.4) - 0.055;
}

static double
full_scale (gblur_sample s)
{
  return s == GBLUR_U8 ? 255.0 : s == GBLUR_U16 ? 65535.0 : 1.0;
}

double
reference_sample (const gblur_image *img, int x, int y, int c)
{
  const unsigned char *row = (const unsigned char *) img->data + (size_t) y * img->stride;
  size_t               i = (size_t) x * img->channels + c;

  switch (img->sample)
    {
    case GBLUR_U8:
      return row[i];
    case GBLUR_U16:
      {
        uint16_t v;
        memcpy (&v, row + 2 * i, 2);
        return v;
      }
    case GBLUR_F32:
      {
        float v;
        memcpy (&v, row + 4 * i, 4);
        return v;
      }
    }
  return 0;
}

static int
clampi (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* The sampled, normalised Gaussian w[0..2r] (centre r), r = ceil(3 sigma);
 * the centre weight exp(0) = 1 written out, so that sigma 0 gives r = 0 and
 * the one weight 1 (not exp(-0/0)). */
static double *
kernel (double sigma, int *radius)
{
  const int r = (int) ceil (3.0 * sigma);
  double   *w = malloc ((2 * (size_t) r + 1) * sizeof *w);
  double    sum = 0;

  for (int k = -r; k <= r; k++)
    sum += w[k + r] = k == 0 ? 1.0 : exp (-(double) k * k / (2 * sigma * sigma));
  for (int k = 0; k <= 2 * r; k++)
    w[k] /= sum;
  *radius = r;
  return w;
}

void
reference_blur (const gblur_image *src, double sigma, unsigned flags, double *out)
{
  reference_blur_xy (src, sigma, sigma, flags, out);
}

void
reference_blur_xy (const gblur_image *src, double sigma_x, double sigma_y, unsigned flags,
                   double *out)
{
  const int    W = src->width, H = src->height, C = src->channels;
  const int    alpha = (flags & GBLUR_PREMULTIPLY_ALPHA) != 0;
  const int    linear = (flags & GBLUR_LINEAR_LIGHT) != 0;
  const double scale = full_scale (src->sample);
  int          rx, ry;
  double      *wx = kernel (sigma_x, &rx);
  double      *wy = kernel (sigma_y, &ry);
  double      *in = malloc ((size_t) W * H * C * sizeof *in);
  double      *tmp = malloc ((size_t) W * H * C * sizeof *tmp);

  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      {
        double *px = in + ((size_t) y * W + x) * C;
        for (int c = 0; c < C; c++)
          {
            double v = reference_sample (src, x, y, c) / scale;
            int    is_alpha = alpha && c == C - 1;
            px[c] = linear && !is_alpha ? to_linear (v) : v;
          }
        if (alpha)
          for (int c = 0; c < C - 1; c++)
            px[c] *= px[C - 1];
      }

  for (int y = 0; y < H; y++)            /* vertical */
    for (int i = 0; i < W * C; i++)
      {
        double acc = 0;
        for (int k = -ry; k <= ry; k++)
          acc += wy[k + ry] * in[(size_t) clampi (y + k, 0, H - 1) * W * C + i];
        tmp[(size_t) y * W * C + i] = acc;
      }
  for (int y = 0; y < H; y++)            /* horizontal */
    for (int x = 0; x < W; x++)
      {
        double *px = out + ((size_t) y * W + x) * C;
        for (int c = 0; c < C; c++)
          {
            double acc = 0;
            for (int k = -rx; k <= rx; k++)
              acc += wx[k + rx] * tmp[((size_t) y * W + clampi (x + k, 0, W - 1)) * C + c];
            px[c] = acc;
          }
        if (alpha)
          for (int c = 0; c < C - 1; c++)
            px[c] = px[C - 1] > 0x1p-100 ? px[c] / px[C - 1] : 0; /* the engine's rule */
        for (int c = 0; c < C; c++)
          {
            int is_alpha = alpha && c == C - 1;
            if (src->sample == GBLUR_F32)
              continue;
            px[c] = px[c] < 0 ? 0 : px[c] > 1 ? 1 : px[c];
            if (linear && !is_alpha)
              px[c] = from_linear (px[c]);
            px[c] *= scale;
          }
      }
  free (wx);
  free (wy);
  free (in);
  free (tmp);
}
