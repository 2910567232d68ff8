#include "test-util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int      passed, failed;
uint64_t rng_state = 1;

void
check (int ok, const char *fmt, ...)
{
  va_list args;

  if (ok)
    {
      passed++;
      return;
    }
  failed++;
  va_start (args, fmt);
  printf ("FAIL: ");
  vprintf (fmt, args);
  printf ("\n");
  va_end (args);
}

uint64_t
rng (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

void
set_sample (gblur_image *img, int x, int y, int ch, double u)
{
  unsigned char *p = (unsigned char *) img->data + (size_t) y * img->stride
                     + ((size_t) x * img->channels + ch) * gblur_sample_size (img->sample);

  if (img->sample == GBLUR_U8)
    *p = (unsigned char) (u * 255.0 + 0.5);
  else if (img->sample == GBLUR_U16)
    {
      uint16_t v = (uint16_t) (u * 65535.0 + 0.5);
      memcpy (p, &v, 2);
    }
  else
    {
      float v = (float) u;
      memcpy (p, &v, 4);
    }
}

gblur_image
make_image (int w, int h, int c, gblur_sample s, size_t pad, int pattern)
{
  gblur_image img;
  int         block = 1 + (int) (rng () % 9);

  img.width = w;
  img.height = h;
  img.channels = c;
  img.sample = s;
  img.stride = (size_t) w * c * gblur_sample_size (s) + pad;
  img.data = malloc (img.stride * h);
  memset (img.data, POISON, img.stride * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int ch = 0; ch < c; ch++)
        {
          double u = pattern ? (((x / block + y / block + ch) % 2) ? 1.0 : 0.0)
                             : (double) (rng () % 1000001) / 1000000.0;
          set_sample (&img, x, y, ch, u);
        }
  return img;
}

gblur_image
make_poisoned (int w, int h, const gblur_image *like, size_t pad)
{
  gblur_image img = *like;

  img.width = w;
  img.height = h;
  img.stride = (size_t) w * like->channels * gblur_sample_size (like->sample) + pad;
  img.data = malloc (img.stride * h);
  memset (img.data, POISON, img.stride * h);
  return img;
}

size_t
refusal_bound (int rx, int ry, int c)
{
  return (size_t) 64 * c * (2 * (size_t) rx + 17) * (2 * (size_t) ry + 17);
}

const char *
refusal_flaw (const char *msg, size_t limit, const gblur_params *params, const gblur_image *dst, int rows_valid,
              char *why, size_t why_size)
{
  const int rx = gblur_radius (params->sigma != 0.0 ? params->sigma : params->sigma_x);
  const int ry = gblur_radius (params->sigma != 0.0 ? params->sigma : params->sigma_y);
  char      want[160];
  size_t    at = 0, bytes = dst->stride * (size_t) dst->height;

  if (rx == ry)
    snprintf (want, sizeof want, "memory limit of %zu bytes is too small for radius %d", limit, rx);
  else
    snprintf (want, sizeof want, "memory limit of %zu bytes is too small for radii %d (x) and %d (y)", limit, rx,
              ry);
  while (at < bytes && ((const unsigned char *) dst->data)[at] == POISON)
    at++;
  if (!strstr (msg, want))
    snprintf (why, why_size, "refused with '%s', not '%s'", msg, want);
  else if (limit >= refusal_bound (rx, ry, dst->channels))
    snprintf (why, why_size, "refused under a limit of %zu bytes, which fits radii %d and %d (%zu bytes)", limit,
              rx, ry, refusal_bound (rx, ry, dst->channels));
  else if (rows_valid != 0)
    snprintf (why, why_size, "refused with %d rows valid", rows_valid);
  else if (at < bytes)
    snprintf (why, why_size, "refused after writing byte %zu of the destination", at);
  else
    return NULL;
  return why;
}
