/* The general kernels' sample conversions: stored samples (u8, u16, float)
 * to floats and back, with linear light and premultiplied alpha as the
 * tile's flags ask; the same arithmetic as cpu/convert.c.  Device code,
 * included by kernels-general.cu only. */
#ifndef GBLUR_CUDA_SAMPLES_CUH
#define GBLUR_CUDA_SAMPLES_CUH

#include "device-common.cuh"

__device__ __forceinline__ float unit (unsigned char v) { return v * (1.0f / 255.0f); }
__device__ __forceinline__ float unit (unsigned short v) { return v * (1.0f / 65535.0f); }
__device__ __forceinline__ float unit (float v) { return v; }

__device__ __forceinline__ float decode (unsigned char v, const cuda_tile &a) { return __ldg (&a.decode_u8[v]); }
__device__ __forceinline__ float decode (unsigned short v, const cuda_tile &) { return srgb_decode (v * (1.0f / 65535.0f)); }
__device__ __forceinline__ float decode (float v, const cuda_tile &) { return v; }

__device__ __forceinline__ void
encode (float v, bool curve, const cuda_tile &a, unsigned char *out)
{
  if (curve)
    *out = (unsigned char) srgb_encode_u8 (a.encode_u8_threshold, v);
  else
    *out = (unsigned char) (clamp01 (v) * 255.0f + 0.5f);
}

__device__ __forceinline__ void
encode (float v, bool curve, const cuda_tile &, unsigned short *out)
{
  v = clamp01 (v);
  if (curve)
    v = srgb_encode (v);
  *out = (unsigned short) (clamp01 (v) * 65535.0f + 0.5f);
}

__device__ __forceinline__ void
encode (float v, bool, const cuda_tile &, float *out)
{
  *out = v;
}

/* One pixel of the region as floats: linear light and premultiplied as the
 * flags ask. */
template <typename T, int C>
__device__ __forceinline__ void
load_pixel (const cuda_tile &a, int image_y, int region_x, float px[C])
{
  const T *p = (const T *) (a.src + (size_t) (image_y - a.rect.reg_y0) * a.src_pitch) + (size_t) region_x * C;
  const bool linear = a.flags & GBLUR_LINEAR_LIGHT;
  const bool alpha = a.flags & GBLUR_PREMULTIPLY_ALPHA;

#pragma unroll
  for (int c = 0; c < C; c++)
    {
      T v = p[c];
      px[c] = linear && !(alpha && c == C - 1) ? decode (v, a) : unit (v);
    }
  if (alpha)
#pragma unroll
    for (int c = 0; c < C - 1; c++)
      px[c] *= px[C - 1];
}

/* The inverse of load_pixel (px is changed). */
template <typename T, int C>
__device__ __forceinline__ void
store_pixel (const cuda_tile &a, float px[C], T *out)
{
  const bool linear = a.flags & GBLUR_LINEAR_LIGHT;
  const bool alpha = a.flags & GBLUR_PREMULTIPLY_ALPHA;

  if (alpha)
    {
      float inv = px[C - 1] >= 0x1p-100f ? 1.0f / px[C - 1] : 0.0f;   /* as cpu/convert.c */
#pragma unroll
      for (int c = 0; c < C - 1; c++)
        px[c] *= inv;
    }
#pragma unroll
  for (int c = 0; c < C; c++)
    encode (px[c], linear && !(alpha && c == C - 1), a, &out[c]);
}

template <typename T, int C>
__device__ __forceinline__ void
store_output (const cuda_tile &a, int y, int x, float px[C])
{
  T *out = (T *) (a.dst + (size_t) y * a.dst_pitch) + (size_t) x * C;
  store_pixel<T, C> (a, px, out);
}

#endif
