/* The CPU backend's row conversions: stored samples (u8, u16, float) to the
 * loops' working floats and back.  One copy, built with the baseline flags
 * and called by every instruction set's loops (see backend.h). */
#include "backend.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Working values are normalised to [0,1] (u8 / 255, u16 / 65535, float as
 * is), in linear light when asked, premultiplied when asked. */
void
gblur_cpu_load_row (const unsigned char *row, gblur_sample sample, int pixels, int channels,
                    unsigned flags, const gblur_srgb_tables *srgb, float *out)
{
  int n = pixels * channels;
  int has_alpha = (flags & GBLUR_PREMULTIPLY_ALPHA) != 0;
  int linear = (flags & GBLUR_LINEAR_LIGHT) != 0;

  switch (sample)
    {
    case GBLUR_U8:
      if (linear)
        for (int i = 0; i < n; i++)
          out[i] = srgb->decode_u8[row[i]];
      else
        for (int i = 0; i < n; i++)
          out[i] = row[i] * (1.0f / 255.0f);
      if (linear && has_alpha) /* alpha is never curve-encoded */
        for (int i = channels - 1; i < n; i += channels)
          out[i] = row[i] * (1.0f / 255.0f);
      break;
    case GBLUR_U16:
      for (int i = 0; i < n; i++)
        {
          uint16_t v;
          memcpy (&v, row + 2 * (size_t) i, 2);
          out[i] = linear && !(has_alpha && i % channels == channels - 1)
                     ? srgb->decode_u16[v] : v * (1.0f / 65535.0f);
        }
      break;
    case GBLUR_F32:
      memcpy (out, row, (size_t) n * sizeof (float));
      break;
    }
  if (has_alpha)
    for (int p = 0; p < pixels; p++)
      {
        float *px = out + (size_t) p * channels;
        for (int c = 0; c < channels - 1; c++)
          px[c] *= px[channels - 1];
      }
}

static float
clamp01 (float v)
{
  return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
}

/* Stores values[0..] as bytes, clamp01 (v) * 255 + 0.5 truncated, 16 at a
 * time in SSE registers (the compiler leaves the scalar loop's branches
 * alone); returns how many it stored, a multiple of 16. */
static int
store_u8_plain (const float *values, int n, unsigned char *row)
{
  int i = 0;

#ifdef __SSE2__
  const __m128 zero = _mm_setzero_ps (), one = _mm_set1_ps (1.0f);
  const __m128 scale = _mm_set1_ps (255.0f), half = _mm_set1_ps (0.5f);
  __m128i      q[4];

  for (; i + 16 <= n; i += 16)
    {
      for (int k = 0; k < 4; k++)
        {
          __m128 v = _mm_min_ps (_mm_max_ps (_mm_loadu_ps (values + i + 4 * k), zero), one);
          q[k] = _mm_cvttps_epi32 (_mm_add_ps (_mm_mul_ps (v, scale), half));
        }
      _mm_storeu_si128 ((__m128i *) (row + i),
                        _mm_packus_epi16 (_mm_packs_epi32 (q[0], q[1]), _mm_packs_epi32 (q[2], q[3])));
    }
#else
  (void) values;
  (void) row;
  (void) n;
#endif
  return i;
}

void
gblur_cpu_store_row (float *values, int pixels, int channels, unsigned flags, gblur_sample sample,
                     const gblur_srgb_tables *srgb, unsigned char *row)
{
  int n = pixels * channels;
  int has_alpha = (flags & GBLUR_PREMULTIPLY_ALPHA) != 0;
  int linear = (flags & GBLUR_LINEAR_LIGHT) != 0;

  if (has_alpha)
    for (int p = 0; p < pixels; p++)
      {
        float *px = values + (size_t) p * channels;
        float  a = px[channels - 1];
        /* Alpha under 2^-100 counts as 0 (only sigma < 0.125 gets there):
         * 1/a would overflow for subnormal a, making colours inf or NaN. */
        float  inv = a >= 0x1p-100f ? 1.0f / a : 0.0f;
        for (int c = 0; c < channels - 1; c++)
          px[c] *= inv;
      }

  switch (sample)
    {
    case GBLUR_U8:
      for (int i = linear ? 0 : store_u8_plain (values, n, row); i < n; i++)
        {
          if (linear && !(has_alpha && i % channels == channels - 1))
            row[i] = (unsigned char) gblur_encode_u8_linear (srgb, values[i]);
          else
            row[i] = (unsigned char) (clamp01 (values[i]) * 255.0f + 0.5f);
        }
      break;
    case GBLUR_U16:
      for (int i = 0; i < n; i++)
        {
          float    v = clamp01 (values[i]);
          uint16_t code;
          if (linear && !(has_alpha && i % channels == channels - 1))
            v = v <= (float) GBLUR_SRGB_ENCODE_KNEE
                  ? (float) GBLUR_SRGB_SLOPE * v
                  : (float) GBLUR_SRGB_SCALE * powf (v, 1.0f / (float) GBLUR_SRGB_GAMMA)
                      - (float) GBLUR_SRGB_OFFSET;
          code = (uint16_t) (clamp01 (v) * 65535.0f + 0.5f);
          memcpy (row + 2 * (size_t) i, &code, 2);
        }
      break;
    case GBLUR_F32:
      memcpy (row, values, (size_t) n * sizeof (float));
      break;
    }
}
