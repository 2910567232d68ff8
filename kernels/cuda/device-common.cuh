/* Device helpers the kernel units share: index clamping and the sRGB curve
 * (its constants from gblur-internal.h, as floats).  Everything here is
 * __device__ __forceinline__: each unit gets its own inlined copy. */
#ifndef GBLUR_CUDA_DEVICE_COMMON_CUH
#define GBLUR_CUDA_DEVICE_COMMON_CUH

#include "gblur-internal.h"
#include "tile.cuh"

/* Kernel arguments read in place from the constant bank; before sm_70 nvcc
 * refuses the annotation, and they are copied as any argument is. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
#define GRID_CONSTANT
#else
#define GRID_CONSTANT __grid_constant__
#endif

__device__ __forceinline__ int clampi (int v, int lo, int hi) { return min (max (v, lo), hi); }

__device__ __forceinline__ float clamp01 (float v) { return fminf (fmaxf (v, 0.0f), 1.0f); }

/* Sets a block of sums to 0 before they accumulate. */
template <int N, int C>
__device__ __forceinline__ void
zero_sums (float (&acc)[N][C])
{
#pragma unroll
  for (int j = 0; j < N; j++)
#pragma unroll
    for (int c = 0; c < C; c++)
      acc[j][c] = 0.0f;
}

/* Byte offset in t.src of the region's row nearest to image row y (rows
 * past the region's edges clamp to them). */
__device__ __forceinline__ size_t
tile_row_offset (const cuda_tile &t, int y)
{
  return (size_t) (clampi (y, t.rect.reg_y0, t.rect.reg_y0 + t.rect.reg_h - 1) - t.rect.reg_y0) * t.src_pitch;
}

/* u8 sample -> float 0..255 without the slow int-to-float unit: the byte
 * becomes the low mantissa bits of 2^23. */
__device__ __forceinline__ float
u8_to_float (unsigned v)
{
  return __uint_as_float (0x4B000000u | v) - 8388608.0f;
}

/* Byte c (0..3) of a word as a float 0..255, the same trick. */
__device__ __forceinline__ float
u8_byte_to_float (unsigned word, int c)
{
  return __uint_as_float (__byte_perm (word, 0x4B000000u, 0x7440 + c)) - 8388608.0f;
}

/* A sum in 0..255 rounded with the 1.5 * 2^23 trick: the low byte of the
 * result is rint(v) (the sums of non-negative taps over 0..255 need no
 * clamping). */
__device__ __forceinline__ unsigned
u8_round_bits (float v)
{
  return __float_as_uint (v + 12582912.0f);
}

/* The low bytes of four words as one word, b0's lowest. */
__device__ __forceinline__ unsigned
pack_low_bytes (unsigned b0, unsigned b1, unsigned b2, unsigned b3)
{
  return __byte_perm (__byte_perm (b0, b1, 0x0040), __byte_perm (b2, b3, 0x0040), 0x5410);
}

/* ---- the sRGB curve in float ---- */

constexpr float SRGB_DECODE_KNEE = (float) GBLUR_SRGB_DECODE_KNEE;
constexpr float SRGB_ENCODE_KNEE = (float) GBLUR_SRGB_ENCODE_KNEE;
constexpr float SRGB_SLOPE       = (float) GBLUR_SRGB_SLOPE;
constexpr float SRGB_OFFSET      = (float) GBLUR_SRGB_OFFSET;
constexpr float SRGB_SCALE       = (float) GBLUR_SRGB_SCALE;
constexpr float SRGB_GAMMA       = (float) GBLUR_SRGB_GAMMA;

/* encoded [0,1] -> linear */
__device__ __forceinline__ float
srgb_decode (float x)
{
  return x <= SRGB_DECODE_KNEE ? x / SRGB_SLOPE : powf ((x + SRGB_OFFSET) / SRGB_SCALE, SRGB_GAMMA);
}

/* linear [0,1] -> encoded */
__device__ __forceinline__ float
srgb_encode (float v)
{
  return v <= SRGB_ENCODE_KNEE ? SRGB_SLOPE * v : SRGB_SCALE * powf (v, 1.0f / SRGB_GAMMA) - SRGB_OFFSET;
}

/* linear -> the nearest u8 code in the encoded space: the number of
 * thresholds (gblur_srgb_tables.encode_u8_threshold, in device memory) at
 * or below v, by binary search. */
__device__ __forceinline__ unsigned
srgb_encode_u8 (const float *threshold, float v)
{
  int lo = 0, hi = 255;
  while (lo < hi)
    {
      int mid = (lo + hi) >> 1;
      if (__ldg (&threshold[mid]) <= v)
        lo = mid + 1;
      else
        hi = mid;
    }
  return (unsigned) lo;
}

#endif
