/* The general kernels' decoded regions: a tile's region converted to
 * floats once (decode_region) and read back a pixel at a time
 * (load_decoded), for samples general_decodes_first names.  Device code,
 * included by kernels-general.cu only. */
#ifndef GBLUR_CUDA_DECODE_CUH
#define GBLUR_CUDA_DECODE_CUH

#include "samples.cuh"

/* Bytes between rows of a decoded region: reg_w pixels of C floats. */
__host__ __device__ __forceinline__ size_t
decoded_pitch (const cuda_tile &a, int C)
{
  return (size_t) a.rect.reg_w * C * sizeof (float);
}

/* The region as floats, linear light and premultiplied as the flags ask,
 * into `out` (reg_h rows of decoded_pitch bytes). */
template <typename T, int C>
__global__ void
decode_region (cuda_tile a, float *out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.rect.reg_w || y >= a.rect.reg_h)
    return;
  float px[C];
  load_pixel<T, C> (a, a.rect.reg_y0 + y, x, px);
  float *o = (float *) ((char *) out + (size_t) y * decoded_pitch (a, C)) + (size_t) x * C;
#pragma unroll
  for (int c = 0; c < C; c++)
    o[c] = px[c];
}

/* A pixel of a decoded region (a.src, a.src_pitch), as one vector load
 * where C allows: the rows are whole vectors, cudaMalloc aligns the start. */
template <int C>
__device__ __forceinline__ void
load_decoded (const cuda_tile &a, int image_y, int region_x, float (&px)[C])
{
  const float *p = (const float *) (a.src + (size_t) (image_y - a.rect.reg_y0) * a.src_pitch) + (size_t) region_x * C;
  if constexpr (C == 4)
    {
      float4 v = __ldg ((const float4 *) p);
      px[0] = v.x, px[1] = v.y, px[2] = v.z, px[3] = v.w;
    }
  else if constexpr (C == 2)
    {
      float2 v = __ldg ((const float2 *) p);
      px[0] = v.x, px[1] = v.y;
    }
  else
#pragma unroll
    for (int c = 0; c < C; c++)
      px[c] = __ldg (&p[c]);
}

#endif
