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
