/* The CPU backend's row conversions: stored samples (u8, u16, float) to the
 * loops' working floats and back.  One copy, built with the baseline flags
 * and called by every instruction set's loops and by the FFT path. */
#include "convert.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Code i of a row of u8 or u16 codes (native order, maybe unaligned); an
 * int, which SSE2 converts to float in one instruction. */
static inline int
code_at (const unsigned char *row, int bytes, size_t i)
{
  uint16_t v;

  if (bytes == 1)
    return row[i];
  memcpy (&v, row + 2 * i, 2);
  return v;
}

/* Codes to floats, through a table (decoded colours) or times scale
 * (codes stored as is), colours times their alpha (code * scale, never
 * curve-encoded) where premultiplied: one pass. */
static inline __attribute__ ((always_inline)) void
convert_codes (const unsigned char *row, int bytes, int pixels, int channels, int has_alpha,
               int by_table, const float *table, float scale, float *out)
{
  if (!has_alpha)
    {
      for (size_t i = 0; i < (size_t) pixels * channels; i++)
        out[i] = by_table ? table[code_at (row, bytes, i)] : code_at (row, bytes, i) * scale;
      return;
    }
  for (int p = 0; p < pixels; p++, row += (size_t) bytes * channels, out += channels)
    {
      const float a = code_at (row, bytes, channels - 1) * scale;
      for (int c = 0; c < channels - 1; c++)
        out[c] = (by_table ? table[code_at (row, bytes, c)] : code_at (row, bytes, c) * scale) * a;
      out[channels - 1] = a;
    }
}

/* The same, through table where there is one.  Inlined with constant
 * bytes and by_table, each case is a loop of its own: the scaled ones
 * vectorise. */
static inline __attribute__ ((always_inline)) void
load_codes (const unsigned char *row, int bytes, int pixels, int channels, int has_alpha,
            const float *table, float scale, float *out)
{
  if (table)
    convert_codes (row, bytes, pixels, channels, has_alpha, 1, table, scale, out);
  else
    convert_codes (row, bytes, pixels, channels, has_alpha, 0, NULL, scale, out);
}

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
      load_codes (row, 1, pixels, channels, has_alpha, linear ? srgb->decode_u8 : NULL, 1.0f / 255.0f, out);
      return;
    case GBLUR_U16:
      load_codes (row, 2, pixels, channels, has_alpha, linear ? srgb->decode_u16 : NULL, 1.0f / 65535.0f,
                  out);
      return;
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

/* What a premultiplied colour is multiplied by: 1 / alpha.  Alpha under
 * 2^-100 counts as 0 (only sigma < 0.125 gets there): 1/a would overflow
 * for subnormal a, making colours inf or NaN. */
static inline float
unpremultiply_factor (float a)
{
  return a >= 0x1p-100f ? 1.0f / a : 0.0f;
}

/* Linear colours (premultiplied where has_alpha: divided by alpha here)
 * encoded to sRGB codes, alpha (last) scaled as is. */
static void
store_u8_linear_pixels (const float *values, int pixels, int channels, int has_alpha,
                        const gblur_srgb_tables *srgb, unsigned char *row)
{
  const int colours = has_alpha ? channels - 1 : channels;

  for (int p = 0; p < pixels; p++, values += channels, row += channels)
    {
      const float inv = has_alpha ? unpremultiply_factor (values[channels - 1]) : 1.0f;
      for (int c = 0; c < colours; c++)
        row[c] = (unsigned char) gblur_encode_u8_linear (srgb, has_alpha ? values[c] * inv : values[c]);
      if (has_alpha)
        row[channels - 1] = (unsigned char) (clamp01 (values[channels - 1]) * 255.0f + 0.5f);
    }
}

#ifdef __SSE2__
/* The same for RGBA, a pixel per SSE register: the division, clamps and
 * bin indices four at a time (the compiler made the scalar loop's clamps
 * branches), then the lookups.  The same arithmetic, lane by lane; maxps
 * returns its second operand, 0, for NaN as the scalar clamp does. */
static void
store_rgba_u8_linear (const float *values, int pixels, const gblur_srgb_tables *srgb,
                      unsigned char *row)
{
  const __m128 zero = _mm_setzero_ps (), one = _mm_set1_ps (1.0f), tiny = _mm_set1_ps (0x1p-100f);
  const __m128 bins = _mm_set1_ps (4096.0f), scale = _mm_set1_ps (255.0f), half = _mm_set1_ps (0.5f);

  for (int p = 0; p < pixels; p++, values += 4, row += 4)
    {
      const __m128 v = _mm_loadu_ps (values);
      const __m128 a = _mm_shuffle_ps (v, v, _MM_SHUFFLE (3, 3, 3, 3));
      const __m128 inv = _mm_and_ps (_mm_cmpge_ps (a, tiny), _mm_div_ps (one, a));
      const __m128 colour = _mm_min_ps (_mm_max_ps (_mm_mul_ps (v, inv), zero), one);
      const __m128 alpha = _mm_min_ps (_mm_max_ps (v, zero), one);
      int          bin[4], alpha_code[4];
      float        c[4];

      _mm_storeu_si128 ((__m128i *) bin, _mm_cvttps_epi32 (_mm_mul_ps (colour, bins)));
      _mm_storeu_si128 ((__m128i *) alpha_code,
                        _mm_cvttps_epi32 (_mm_add_ps (_mm_mul_ps (alpha, scale), half)));
      _mm_storeu_ps (c, colour);
      for (int k = 0; k < 3; k++)
        {
          const int code = srgb->encode_u8_bin[bin[k]];
          row[k] = (unsigned char) (code + (c[k] >= srgb->encode_u8_next[code]));
        }
      row[3] = (unsigned char) alpha_code[3];
    }
}
#endif

static void
store_u8_linear (const float *values, int pixels, int channels, int has_alpha,
                 const gblur_srgb_tables *srgb, unsigned char *row)
{
#ifdef __SSE2__
  if (channels == 4 && has_alpha)
    {
      store_rgba_u8_linear (values, pixels, srgb, row);
      return;
    }
#endif
  store_u8_linear_pixels (values, pixels, channels, has_alpha, srgb, row);
}

/* Premultiplied colours divided by their alpha, in place. */
static void
unpremultiply_row (float *values, int pixels, int channels)
{
  for (int p = 0; p < pixels; p++)
    {
      float      *px = values + (size_t) p * channels;
      const float inv = unpremultiply_factor (px[channels - 1]);
      for (int c = 0; c < channels - 1; c++)
        px[c] *= inv;
    }
}

/* 16-bit codes, sRGB-encoded in linear light, colours divided by alpha
 * (when premultiplied) in the same pass; alpha stays linear. */
static void
store_u16_linear (const float *values, int pixels, int channels, int has_alpha,
                  const gblur_srgb_tables *srgb, unsigned char *row)
{
  const int colours = has_alpha ? channels - 1 : channels;
  uint16_t  code[8];

  for (int p = 0; p < pixels; p++, values += channels, row += 2 * channels)
    {
      const float inv = has_alpha ? unpremultiply_factor (values[channels - 1]) : 1.0f;
      for (int c = 0; c < colours; c++)
        code[c] = (uint16_t) gblur_encode_u16_linear (srgb, has_alpha ? values[c] * inv : values[c]);
      if (has_alpha)
        code[channels - 1] = (uint16_t) (clamp01 (values[channels - 1]) * 65535.0f + 0.5f);
      memcpy (row, code, 2 * (size_t) channels);
    }
}

/* 16-bit codes stored as is (values already unpremultiplied). */
static void
store_u16_plain (const float *values, int n, unsigned char *row)
{
  for (int i = 0; i < n; i++)
    {
      const uint16_t code = (uint16_t) (clamp01 (values[i]) * 65535.0f + 0.5f);
      memcpy (row + 2 * (size_t) i, &code, 2);
    }
}

void
gblur_cpu_store_row (float *values, int pixels, int channels, unsigned flags, gblur_sample sample,
                     const gblur_srgb_tables *srgb, unsigned char *row)
{
  int n = pixels * channels;
  int has_alpha = (flags & GBLUR_PREMULTIPLY_ALPHA) != 0;
  int linear = (flags & GBLUR_LINEAR_LIGHT) != 0;

  if (sample == GBLUR_U8 && linear)
    {
      store_u8_linear (values, pixels, channels, has_alpha, srgb, row);
      return;
    }
  if (sample == GBLUR_U16 && linear)
    {
      store_u16_linear (values, pixels, channels, has_alpha, srgb, row);
      return;
    }
  if (has_alpha)
    unpremultiply_row (values, pixels, channels);

  switch (sample)
    {
    case GBLUR_U8:
      for (int i = store_u8_plain (values, n, row); i < n; i++)
        row[i] = (unsigned char) (clamp01 (values[i]) * 255.0f + 0.5f);
      break;
    case GBLUR_U16:
      store_u16_plain (values, n, row);
      break;
    case GBLUR_F32:
      memcpy (row, values, (size_t) n * sizeof (float));
      break;
    }
}
