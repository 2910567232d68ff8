/* The CUDA backend.  Two kernels per tile, each with one idea:
 *   vertical_*   reads the stored samples, converts them (linear light,
 *                premultiplied alpha) and blurs down the columns into a float
 *                intermediate;
 *   horizontal_* blurs along the rows of the intermediate and converts back
 *                to the stored sample type.
 * Each has a shared-memory tiled form and, for radii whose tile would not fit
 * in shared memory, a direct form that reads through the cache.
 * Host images are processed in stripes (tiles) with halos, double-buffered
 * over two streams, so device memory stays under the engine's limit.
 *
 * Which kernel a tile gets (first that applies):
 *   8-bit gray, radius 9..512, no sRGB curve, sm_80+  tensor cores, two
 *        passes through an fp16 intermediate (gblur-cuda-mma.cuh);
 *   one channel (u8 or float), radius <= 64             the one-channel
 *        kernels with the taps in the kernel parameters (gblur-cuda-gray.cuh);
 *   anything whose tile fits in shared memory           fused_tile below;
 *   the rest                                             vertical_* + horizontal_*.
 * GBLUR_CUDA_NO_MMA, GBLUR_CUDA_NO_GRAY and GBLUR_CUDA_NO_FUSED skip the
 * first, the first two, or the fused kernel, so tests can reach each one. */
#include "gblur-internal.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHARED_LIMIT   (48 * 1024)
#define V_BLOCK_X      32
#define V_BLOCK_Y      8
#define V_ROWS         32      /* output rows per vertical block */
#define H_BLOCK        128     /* output pixels per horizontal block */

struct TileArgs {
  const unsigned char *src;   /* region origin: image (reg_y0, reg_x0) */
  size_t               src_pitch;
  int                  reg_x0, reg_y0, reg_w, reg_h;
  int                  out_x0, out_y0, out_w, out_h;
  float               *mid;   /* out_h rows x reg_w pixels */
  size_t               mid_pitch;
  size_t               mid_bytes;  /* what `mid` holds */
  unsigned char       *dst;   /* output tile origin */
  size_t               dst_pitch;
  const float         *w;     /* w[0..r] */
  int                  r;
  unsigned             flags;
  const float         *decode_u8;
  const float         *encode_u8_threshold;
};

/* ---- sample conversions (the same arithmetic as gblur-cpu.c) ---- */

__device__ __forceinline__ float unit (unsigned char v) { return v * (1.0f / 255.0f); }
__device__ __forceinline__ float unit (unsigned short v) { return v * (1.0f / 65535.0f); }
__device__ __forceinline__ float unit (float v) { return v; }

__device__ __forceinline__ float decode (unsigned char v, const TileArgs &a) { return __ldg (&a.decode_u8[v]); }
__device__ __forceinline__ float decode (unsigned short v, const TileArgs &)
{
  float x = v * (1.0f / 65535.0f);
  return x <= 0.04045f ? x / 12.92f : powf ((x + 0.055f) / 1.055f, 2.4f);
}
__device__ __forceinline__ float decode (float v, const TileArgs &) { return v; }

__device__ __forceinline__ float clamp01 (float v) { return fminf (fmaxf (v, 0.0f), 1.0f); }

__device__ __forceinline__ void
encode (float v, bool curve, const TileArgs &a, unsigned char *out)
{
  if (curve)
    {
      int lo = 0, hi = 255;
      while (lo < hi)
        {
          int mid = (lo + hi) >> 1;
          if (__ldg (&a.encode_u8_threshold[mid]) <= v)
            lo = mid + 1;
          else
            hi = mid;
        }
      *out = (unsigned char) lo;
    }
  else
    *out = (unsigned char) (clamp01 (v) * 255.0f + 0.5f);
}

__device__ __forceinline__ void
encode (float v, bool curve, const TileArgs &, unsigned short *out)
{
  v = clamp01 (v);
  if (curve)
    v = v <= 0.0031308f ? 12.92f * v : 1.055f * powf (v, 1.0f / 2.4f) - 0.055f;
  *out = (unsigned short) (clamp01 (v) * 65535.0f + 0.5f);
}

__device__ __forceinline__ void
encode (float v, bool, const TileArgs &, float *out)
{
  *out = v;
}

template <typename T, int C>
__device__ __forceinline__ void
load_pixel (const TileArgs &a, int image_y, int region_x, float px[C])
{
  const T *p = (const T *) (a.src + (size_t) (image_y - a.reg_y0) * a.src_pitch) + (size_t) region_x * C;
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

template <typename T, int C>
__device__ __forceinline__ void
store_pixel (const TileArgs &a, float px[C], T *out)
{
  const bool linear = a.flags & GBLUR_LINEAR_LIGHT;
  const bool alpha = a.flags & GBLUR_PREMULTIPLY_ALPHA;

  if (alpha)
    {
      float inv = px[C - 1] >= 0x1p-100f ? 1.0f / px[C - 1] : 0.0f;   /* as gblur-cpu.c */
#pragma unroll
      for (int c = 0; c < C - 1; c++)
        px[c] *= inv;
    }
#pragma unroll
  for (int c = 0; c < C; c++)
    encode (px[c], linear && !(alpha && c == C - 1), a, &out[c]);
}

__device__ __forceinline__ int clampi (int v, int lo, int hi) { return min (max (v, lo), hi); }

/* Clamp-to-edge, expressed on the tile's region: the region holds every row
 * and column a valid output needs (including the image edge when the kernel
 * reaches past it), so clamping into the region is clamping to the edge for
 * those, and keeps the loads of idle threads in bounds. */
__device__ __forceinline__ int
region_row (const TileArgs &a, int image_y)
{
  return clampi (image_y, a.reg_y0, a.reg_y0 + a.reg_h - 1);
}

__device__ __forceinline__ int
region_col (const TileArgs &a, int image_x)
{
  return clampi (image_x, a.reg_x0, a.reg_x0 + a.reg_w - 1) - a.reg_x0;
}

/* ---- vertical pass ---- */

template <typename T, int C>
__global__ void
vertical_direct (TileArgs a)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;   /* output row within the tile */
  if (x >= a.reg_w || y >= a.out_h)
    return;
  int   iy = a.out_y0 + y;
  float acc[C], up[C], down[C];

  load_pixel<T, C> (a, iy, x, acc);
  float w0 = __ldg (&a.w[0]);
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] *= w0;
  for (int k = 1; k <= a.r; k++)
    {
      float wk = __ldg (&a.w[k]);
      load_pixel<T, C> (a, region_row (a, iy - k), x, up);
      load_pixel<T, C> (a, region_row (a, iy + k), x, down);
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[c] += wk * (up[c] + down[c]);
    }
  float *m = (float *) ((char *) a.mid + (size_t) y * a.mid_pitch) + (size_t) x * C;
#pragma unroll
  for (int c = 0; c < C; c++)
    m[c] = acc[c];
}

/* Shared tile: (V_ROWS + 2r) rows x V_BLOCK_X pixels, one plane per channel
 * so neighbouring threads read neighbouring words. */
template <typename T, int C>
__global__ void
vertical_tiled (TileArgs a)
{
  extern __shared__ float tile[];
  const int rows = V_ROWS + 2 * a.r;
  const int x = blockIdx.x * V_BLOCK_X + threadIdx.x;
  const int y0 = blockIdx.y * V_ROWS;              /* first output row of the block */
  const int xs = min (x, a.reg_w - 1);             /* keep loads inside the region */

  for (int i = threadIdx.y; i < rows; i += V_BLOCK_Y)
    {
      float px[C];
      int   iy = region_row (a, a.out_y0 + y0 - a.r + i);
      load_pixel<T, C> (a, iy, xs, px);
#pragma unroll
      for (int c = 0; c < C; c++)
        tile[(c * rows + i) * V_BLOCK_X + threadIdx.x] = px[c];
    }
  __syncthreads ();
  if (x >= a.reg_w)
    return;
  for (int j = threadIdx.y; j < V_ROWS; j += V_BLOCK_Y)
    {
      int y = y0 + j;
      if (y >= a.out_h)
        break;
      float w0 = __ldg (&a.w[0]);
      float acc[C];
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[c] = w0 * tile[(c * rows + j + a.r) * V_BLOCK_X + threadIdx.x];
      for (int k = 1; k <= a.r; k++)
        {
          float wk = __ldg (&a.w[k]);
#pragma unroll
          for (int c = 0; c < C; c++)
            acc[c] += wk * (tile[(c * rows + j + a.r - k) * V_BLOCK_X + threadIdx.x]
                            + tile[(c * rows + j + a.r + k) * V_BLOCK_X + threadIdx.x]);
        }
      float *m = (float *) ((char *) a.mid + (size_t) y * a.mid_pitch) + (size_t) x * C;
#pragma unroll
      for (int c = 0; c < C; c++)
        m[c] = acc[c];
    }
}

/* ---- horizontal pass ---- */

__device__ __forceinline__ const float *
mid_pixel (const TileArgs &a, int y, int image_x, int C)
{
  int rx = region_col (a, image_x);
  return (const float *) ((const char *) a.mid + (size_t) y * a.mid_pitch) + (size_t) rx * C;
}

template <typename T, int C>
__global__ void
horizontal_direct (TileArgs a)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x >= a.out_w)
    return;
  int          ix = a.out_x0 + x;
  float        acc[C];
  const float *p = mid_pixel (a, y, ix, C);
  float        w0 = __ldg (&a.w[0]);
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] = w0 * p[c];
  for (int k = 1; k <= a.r; k++)
    {
      float        wk = __ldg (&a.w[k]);
      const float *l = mid_pixel (a, y, ix - k, C);
      const float *r = mid_pixel (a, y, ix + k, C);
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[c] += wk * (l[c] + r[c]);
    }
  T *out = (T *) (a.dst + (size_t) y * a.dst_pitch) + (size_t) x * C;
  store_pixel<T, C> (a, acc, out);
}

template <typename T, int C>
__global__ void
horizontal_tiled (TileArgs a)
{
  extern __shared__ float tile[];
  const int width = H_BLOCK + 2 * a.r;
  const int x0 = blockIdx.x * H_BLOCK;      /* first output pixel of the block */
  const int y = blockIdx.y;

  for (int i = threadIdx.x; i < width; i += H_BLOCK)
    {
      const float *p = mid_pixel (a, y, a.out_x0 + x0 - a.r + i, C);
#pragma unroll
      for (int c = 0; c < C; c++)
        tile[c * width + i] = p[c];
    }
  __syncthreads ();
  int x = x0 + threadIdx.x;
  if (x >= a.out_w)
    return;
  float acc[C];
  float w0 = __ldg (&a.w[0]);
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] = w0 * tile[c * width + threadIdx.x + a.r];
  for (int k = 1; k <= a.r; k++)
    {
      float wk = __ldg (&a.w[k]);
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[c] += wk * (tile[c * width + threadIdx.x + a.r - k] + tile[c * width + threadIdx.x + a.r + k]);
    }
  T *out = (T *) (a.dst + (size_t) y * a.dst_pitch) + (size_t) x * C;
  store_pixel<T, C> (a, acc, out);
}

/* ---- fused pass: one kernel per tile for radii whose tile fits in shared memory ----
 *
 * A block makes TW x TH outputs.  Vertical: each work item walks one column
 * of the block's (TW + 2r)-wide strip down 8 output rows, loading each input
 * pixel once from global memory (converted on the fly) and multiply-adding it
 * into the 8 sums it belongs to, with the weights sliding through a register
 * window; the sums go to shared memory, so the float intermediate never
 * reaches global memory.  Horizontal: each item makes 8 consecutive outputs
 * of one row the same way, reading shared memory (neighbouring lanes take
 * neighbouring rows of an odd stride: no bank conflicts).  The results are
 * staged in shared memory again and stored coalesced. */

#define F_THREADS 256
#define F_GROUP   8             /* outputs per work item */

/* ws[m] = w[|m - F_GROUP + 1 - r|] for m - F_GROUP + 1 in [0, 2r], else 0. */
__device__ __forceinline__ int fused_ws_len (int r) { return ((2 * r + F_GROUP + 7) & ~7) + 2 * F_GROUP; }

template <int C>
__device__ __forceinline__ void
slide_accumulate (const float *ws, int i0, const float (&vin)[F_GROUP][C], float (&acc)[F_GROUP][C])
{
  float wwin[2 * F_GROUP - 1];
#pragma unroll
  for (int q = 0; q < 2 * F_GROUP - 1; q++)
    wwin[q] = ws[i0 + q];
#pragma unroll
  for (int a = 0; a < F_GROUP; a++)
#pragma unroll
    for (int j = 0; j < F_GROUP; j++)
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[j][c] = fmaf (wwin[a - j + F_GROUP - 1], vin[a][c], acc[j][c]);
}

template <typename T, int C, int TW, int TH>
__global__ void __launch_bounds__ (F_THREADS)
fused_tile (TileArgs a)
{
  extern __shared__ float smem[];
  const int r = a.r;
  const int nin = (2 * r + F_GROUP + 7) & ~7;        /* inputs per item, padded */
  const int S = TW + 2 * r + 9;                       /* odd row stride */
  float    *ws = smem;
  float    *vs = smem + fused_ws_len (r);             /* C planes of TH x S */
  const int bx0 = a.out_x0 + blockIdx.x * TW;         /* image column of the first output */
  const int by0 = a.out_y0 + blockIdx.y * TH;

  for (int m = threadIdx.x; m < fused_ws_len (r); m += F_THREADS)
    {
      int k = m - (F_GROUP - 1) - r;
      ws[m] = k >= -r && k <= r ? __ldg (&a.w[k < 0 ? -k : k]) : 0.0f;
    }
  __syncthreads ();

  /* Vertical: items are (column of the strip, group of 8 rows). */
  for (int item = threadIdx.x; item < S * (TH / F_GROUP); item += F_THREADS)
    {
      const int col = item % S, g = item / S;
      float     acc[F_GROUP][C];
#pragma unroll
      for (int j = 0; j < F_GROUP; j++)
#pragma unroll
        for (int c = 0; c < C; c++)
          acc[j][c] = 0.0f;
      if (col < TW + 2 * r)
        {
          const int rx = region_col (a, bx0 - r + col);
          const int iy0 = by0 + g * F_GROUP - r;      /* image row of input 0 */
          for (int i0 = 0; i0 < nin; i0 += F_GROUP)
            {
              float vin[F_GROUP][C];
#pragma unroll
              for (int q = 0; q < F_GROUP; q++)
                load_pixel<T, C> (a, region_row (a, iy0 + i0 + q), rx, vin[q]);
              slide_accumulate<C> (ws, i0, vin, acc);
            }
        }
#pragma unroll
      for (int j = 0; j < F_GROUP; j++)
#pragma unroll
        for (int c = 0; c < C; c++)
          vs[(c * TH + g * F_GROUP + j) * S + col] = acc[j][c];
    }
  __syncthreads ();

  /* Horizontal: items are (row, group of 8 columns, channel); lanes take rows. */
  constexpr int ITEMS = C * TH * (TW / F_GROUP) / F_THREADS;
  static_assert (C * TH * (TW / F_GROUP) % F_THREADS == 0, "whole items per thread");
  float res[ITEMS][F_GROUP];
#pragma unroll
  for (int n = 0; n < ITEMS; n++)
    {
      const int item = threadIdx.x + n * F_THREADS;
      const int y = item % TH, g = (item / TH) % (TW / F_GROUP), c = item / (TH * (TW / F_GROUP));
      const float *row = vs + (c * TH + y) * S + g * F_GROUP;
      float acc[F_GROUP][1];
#pragma unroll
      for (int j = 0; j < F_GROUP; j++)
        acc[j][0] = 0.0f;
      for (int i0 = 0; i0 < nin; i0 += F_GROUP)
        {
          float vin[F_GROUP][1];
#pragma unroll
          for (int q = 0; q < F_GROUP; q++)
            vin[q][0] = row[i0 + q];
          slide_accumulate<1> (ws, i0, vin, acc);
        }
#pragma unroll
      for (int j = 0; j < F_GROUP; j++)
        res[n][j] = acc[j][0];
    }
  __syncthreads ();
#pragma unroll
  for (int n = 0; n < ITEMS; n++)
    {
      const int item = threadIdx.x + n * F_THREADS;
      const int y = item % TH, g = (item / TH) % (TW / F_GROUP), c = item / (TH * (TW / F_GROUP));
#pragma unroll
      for (int j = 0; j < F_GROUP; j++)
        vs[(c * TH + y) * S + g * F_GROUP + j] = res[n][j];
    }
  __syncthreads ();

  /* Store: consecutive threads take consecutive pixels. */
  for (int p = threadIdx.x; p < TH * TW; p += F_THREADS)
    {
      const int y = p / TW, x = p % TW;
      const int ox = bx0 + x - a.out_x0, oy = by0 + y - a.out_y0;
      if (ox >= a.out_w || oy >= a.out_h)
        continue;
      float px[C];
#pragma unroll
      for (int c = 0; c < C; c++)
        px[c] = vs[(c * TH + y) * S + x];
      T *out = (T *) (a.dst + (size_t) oy * a.dst_pitch) + (size_t) ox * C;
      store_pixel<T, C> (a, px, out);
    }
}

template <int TW, int TH>
static size_t
fused_shared (int r, int C)
{
  return ((size_t) (((2 * r + F_GROUP + 7) & ~7) + 2 * F_GROUP) + (size_t) C * TH * (TW + 2 * r + 9))
         * sizeof (float);
}

/* Launches the fused kernel when its tile fits the shared-memory limit;
 * returns cudaErrorNotSupported (nothing launched) when it does not. */
template <typename T, int C, int TW, int TH>
static cudaError_t
launch_fused_shape (const TileArgs &a, size_t shared_limit, cudaStream_t stream)
{
  static size_t opted = 0;   /* the dynamic shared memory this kernel was allowed */
  size_t        bytes = fused_shared<TW, TH> (a.r, C);

  if (bytes > shared_limit)
    return cudaErrorNotSupported;
  if (bytes > opted)
    {
      cudaError_t e = cudaFuncSetAttribute (fused_tile<T, C, TW, TH>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes);
      if (e != cudaSuccess)
        return e;
      opted = bytes;
    }
  dim3 grid ((a.out_w + TW - 1) / TW, (a.out_h + TH - 1) / TH);
  fused_tile<T, C, TW, TH><<<grid, F_THREADS, bytes, stream>>> (a);
  return cudaGetLastError ();
}

/* Small radii: square-ish tiles (few halo rows to re-read); larger radii: wide
 * flat tiles, so the 2r halo columns cost little vertical work. */
template <typename T, int C>
static cudaError_t
launch_fused (const TileArgs &a, size_t shared_limit, cudaStream_t stream)
{
  if (a.r <= 16)
    return launch_fused_shape<T, C, 128, 32> (a, shared_limit, stream);
  return launch_fused_shape<T, C, 512, 8> (a, shared_limit, stream);
}


/* GBLUR_CUDA_NO_GRAY=1 (read when CUDA opens) sends one-channel images down
 * the general kernels, to test or time those. */
static bool gray_path_off;
#include "gblur-cuda-gray.cuh"
#include "gblur-cuda-mma.cuh"
/* GBLUR_CUDA_NO_MMA=1 (or a GPU older than sm_80): u8 gray at radii > 8 on
 * the FP32 kernels instead of the tensor cores. */
static bool mma_path_off;

/* ---- launching ---- */

/* One channel of u8 or float, radius up to GRAY_MAX_RADIUS: the one-channel
 * kernel.  Returns cudaErrorNotSupported otherwise. */
template <typename T, int C>
static cudaError_t
launch_gray (const TileArgs &a, const float *host_weights, cudaStream_t stream)
{
  if constexpr (C != 1 || sizeof (T) == 2)
    return cudaErrorNotSupported;
  else
    {
      if (gray_path_off)
        return cudaErrorNotSupported;
      if (sizeof (T) == 1 && a.r > GRAY_EXACT_RADIUS && !(a.flags & GBLUR_LINEAR_LIGHT) && !mma_path_off)
        {
          cudaError_t e = launch_mma_gray (a.src, a.src_pitch, a.reg_x0, a.reg_y0, a.reg_w, a.reg_h, a.out_x0,
                                           a.out_y0, a.out_w, a.out_h, a.dst, a.dst_pitch, a.mid, a.mid_bytes,
                                           a.w, a.r, stream);
          if (e != cudaErrorNotSupported)
            return e;
        }
      const GrayTile tile = { a.src, a.src_pitch, a.reg_x0, a.reg_y0, a.reg_w, a.reg_h, a.out_x0, a.out_y0,
                              a.out_w, a.out_h, a.dst, a.dst_pitch, a.decode_u8, a.encode_u8_threshold };
      return launch_gray_tile<T> (tile, a.r, host_weights, (a.flags & GBLUR_LINEAR_LIGHT) != 0, stream);
    }
}

template <typename T, int C>
static cudaError_t
launch_tile_typed (const TileArgs &a, const float *host_weights, size_t shared_limit, cudaStream_t stream)
{
  cudaError_t ge = launch_gray<T, C> (a, host_weights, stream);
  if (ge != cudaErrorNotSupported)
    return ge;
  cudaError_t fe = launch_fused<T, C> (a, shared_limit, stream);
  if (fe != cudaErrorNotSupported)
    return fe;
  /* Two kernels through the float intermediate: the general fallback. */
  size_t v_shared = (size_t) (V_ROWS + 2 * a.r) * V_BLOCK_X * C * sizeof (float);
  size_t h_shared = (size_t) (H_BLOCK + 2 * a.r) * C * sizeof (float);

  if (v_shared <= SHARED_LIMIT)
    {
      dim3 grid ((a.reg_w + V_BLOCK_X - 1) / V_BLOCK_X, (a.out_h + V_ROWS - 1) / V_ROWS);
      vertical_tiled<T, C><<<grid, dim3 (V_BLOCK_X, V_BLOCK_Y), v_shared, stream>>> (a);
    }
  else
    {
      dim3 grid ((a.reg_w + V_BLOCK_X - 1) / V_BLOCK_X, (a.out_h + V_BLOCK_Y - 1) / V_BLOCK_Y);
      vertical_direct<T, C><<<grid, dim3 (V_BLOCK_X, V_BLOCK_Y), 0, stream>>> (a);
    }
  cudaError_t e = cudaGetLastError ();
  if (e != cudaSuccess)
    return e;
  dim3 grid ((a.out_w + H_BLOCK - 1) / H_BLOCK, a.out_h);
  if (h_shared <= SHARED_LIMIT)
    horizontal_tiled<T, C><<<grid, H_BLOCK, h_shared, stream>>> (a);
  else
    horizontal_direct<T, C><<<grid, H_BLOCK, 0, stream>>> (a);
  return cudaGetLastError ();
}

template <typename T>
static cudaError_t
launch_tile_channels (const TileArgs &a, const float *host_weights, int channels, size_t shared_limit,
                      cudaStream_t stream)
{
  switch (channels)
    {
    case 1: return launch_tile_typed<T, 1> (a, host_weights, shared_limit, stream);
    case 2: return launch_tile_typed<T, 2> (a, host_weights, shared_limit, stream);
    case 3: return launch_tile_typed<T, 3> (a, host_weights, shared_limit, stream);
    default: return launch_tile_typed<T, 4> (a, host_weights, shared_limit, stream);
    }
}

static cudaError_t
launch_tile (const TileArgs &a, const gblur_job *job, size_t shared_limit, cudaStream_t stream)
{
  const int channels = job->src->channels;
  switch (job->src->sample)
    {
    case GBLUR_U8: return launch_tile_channels<unsigned char> (a, job->weights, channels, shared_limit, stream);
    case GBLUR_U16: return launch_tile_channels<unsigned short> (a, job->weights, channels, shared_limit, stream);
    default: return launch_tile_channels<float> (a, job->weights, channels, shared_limit, stream);
    }
}

/* ---- the backend object ---- */

#define SETS 2

struct gblur_cuda {
  int           device;
  char          name[256];
  size_t        fused_shared_limit; /* dynamic shared memory a fused tile may use */
  cudaStream_t  stream[SETS];
  cudaEvent_t   done[SETS];
  void         *region[SETS];
  void         *mid[SETS];
  void         *out[SETS];
  size_t        region_cap[SETS], mid_cap[SETS], out_cap[SETS];
  float        *weights;            /* device copy of w[0..GBLUR_MAX_RADIUS] */
  int           weights_radius;     /* what `weights` holds: -1 unknown */
  float         weights_held[GBLUR_MAX_RADIUS + 1];
  float        *decode_u8;          /* 256 */
  float        *encode_u8_threshold; /* 255 */
};

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess)                                                     \
      {                                                                        \
        snprintf (err, err_size, "%s: %s", #call, cudaGetErrorString (e_));    \
        goto fail;                                                             \
      }                                                                        \
  } while (0)

/* `call`, unless an injected fault (GBLUR_FAULT, see gblur-internal.h) fails it
 * first: then the run takes the same path as on a real CUDA error. */
#define CHECK_FAULT(hit, call, ...)                                            \
  do {                                                                         \
    if (hit)                                                                   \
      {                                                                        \
        snprintf (err, err_size, "injected fault: " __VA_ARGS__);              \
        goto fail;                                                             \
      }                                                                        \
    CHECK (call);                                                              \
  } while (0)

/* Counts an occurrence of a fault site; true for the one that must fail. */
static bool
fault_hit (int nth, int *count)
{
  return nth > 0 && ++*count == nth;
}

extern "C" gblur_cuda *
gblur_cuda_open (const gblur_settings *settings, char *err, size_t err_size)
{
  int                      count = 0, device = settings->cuda_device;
  cudaDeviceProp           prop;
  cudaFuncAttributes       attr;
  gblur_cuda              *cuda = NULL;
  const gblur_srgb_tables *srgb = gblur_srgb_tables_get ();
  cudaError_t              e = cudaGetDeviceCount (&count);

  if (e != cudaSuccess)
    {
      snprintf (err, err_size, "no CUDA device: %s", cudaGetErrorString (e));
      cudaGetLastError (); /* clear */
      return NULL;
    }
  if (count == 0)
    {
      snprintf (err, err_size, "no CUDA device");
      return NULL;
    }
  if (device < 0 || device >= count)
    {
      snprintf (err, err_size, "GBLUR_CUDA_DEVICE=%s but %d device(s) present",
                settings->cuda_device_env, count);
      return NULL;
    }
  cuda = (gblur_cuda *) calloc (1, sizeof *cuda);
  if (!cuda)
    {
      snprintf (err, err_size, "out of memory");
      return NULL;
    }
  cuda->device = device;
  CHECK (cudaSetDevice (device));
  CHECK (cudaGetDeviceProperties (&prop, device));
  /* A GPU older than the build's targets has no image for our kernels. */
  e = cudaFuncGetAttributes (&attr, horizontal_tiled<unsigned char, 1>);
  if (e != cudaSuccess)
    {
      snprintf (err, err_size, "%s (compute capability %d.%d) is not supported by this build: %s",
                prop.name, prop.major, prop.minor, cudaGetErrorString (e));
      goto fail;
    }
  snprintf (cuda->name, sizeof cuda->name, "%s", prop.name);
  /* Up to the opt-in maximum, but at most 160 KiB so that big tiles (whose
   * halo would dominate anyway) take the two-kernel path. */
  cuda->fused_shared_limit = prop.sharedMemPerBlockOptin < ((size_t) 160 << 10)
                               ? prop.sharedMemPerBlockOptin : ((size_t) 160 << 10);
  if (settings->cuda_no_fused)   /* to time or test the fallback alone */
    cuda->fused_shared_limit = 0;
  gray_path_off = settings->cuda_no_gray;
  mma_path_off = settings->cuda_no_mma || prop.major < 8;   /* mma.m16n8k16: sm_80 */
  for (int s = 0; s < SETS; s++)
    {
      CHECK (cudaStreamCreateWithFlags (&cuda->stream[s], cudaStreamNonBlocking));
      CHECK (cudaEventCreateWithFlags (&cuda->done[s], cudaEventDisableTiming));
    }
  CHECK (cudaMalloc (&cuda->weights, (GBLUR_MAX_RADIUS + 1) * sizeof (float)));
  cuda->weights_radius = -1;
  CHECK (cudaMalloc (&cuda->decode_u8, sizeof srgb->decode_u8));
  CHECK (cudaMalloc (&cuda->encode_u8_threshold, sizeof srgb->encode_u8_threshold));
  CHECK (cudaMemcpy (cuda->decode_u8, srgb->decode_u8, sizeof srgb->decode_u8,
                     cudaMemcpyHostToDevice));
  CHECK (cudaMemcpy (cuda->encode_u8_threshold, srgb->encode_u8_threshold,
                     sizeof srgb->encode_u8_threshold, cudaMemcpyHostToDevice));
  return cuda;

fail:
  cudaGetLastError ();
  gblur_cuda_close (cuda);
  return NULL;
}

extern "C" void
gblur_cuda_close (gblur_cuda *cuda)
{
  if (!cuda)
    return;
  for (int s = 0; s < SETS; s++)
    {
      if (cuda->stream[s])
        cudaStreamSynchronize (cuda->stream[s]);
      cudaFree (cuda->region[s]);
      cudaFree (cuda->mid[s]);
      cudaFree (cuda->out[s]);
      if (cuda->done[s])
        cudaEventDestroy (cuda->done[s]);
      if (cuda->stream[s])
        cudaStreamDestroy (cuda->stream[s]);
    }
  cudaFree (cuda->weights);
  cudaFree (cuda->decode_u8);
  cudaFree (cuda->encode_u8_threshold);
  free (cuda);
}

extern "C" const char *
gblur_cuda_device_name (const gblur_cuda *cuda)
{
  return cuda->name;
}

extern "C" void *
gblur_cuda_host_alloc (size_t size)
{
  void *p = NULL;
  if (cudaMallocHost (&p, size) != cudaSuccess)
    {
      cudaGetLastError ();
      return NULL;
    }
  return p;
}

extern "C" void
gblur_cuda_host_free (void *ptr)
{
  cudaFreeHost (ptr);
}

/* An injected allocation failure leaves the buffer as a failed cudaMalloc
 * in reserve() would: freed. */
static bool
alloc_fault (void **buf, size_t *cap, const gblur_faults *faults, int *count)
{
  if (!fault_hit (faults->cuda_alloc, count))
    return false;
  cudaFree (*buf);
  *buf = NULL;
  *cap = 0;
  return true;
}

/* Grows a device buffer to at least `size` bytes. */
static cudaError_t
reserve (void **buf, size_t *cap, size_t size)
{
  if (*cap >= size)
    return cudaSuccess;
  cudaFree (*buf);
  *buf = NULL;
  *cap = 0;
  cudaError_t e = cudaMalloc (buf, size);
  if (e == cudaSuccess)
    *cap = size;
  return e;
}

/* Puts the job's taps in device memory unless they are there already (a live
 * preview or a benchmark repeats the same sigma); complete on return. */
static cudaError_t
upload_weights (gblur_cuda *cuda, const gblur_job *job)
{
  size_t      n = (size_t) (job->radius + 1) * sizeof (float);
  cudaError_t e;

  if (cuda->weights_radius == job->radius && memcmp (cuda->weights_held, job->weights, n) == 0)
    return cudaSuccess;
  cuda->weights_radius = -1;
  e = cudaMemcpyAsync (cuda->weights, job->weights, n, cudaMemcpyHostToDevice, cuda->stream[0]);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize (cuda->stream[0]);
  if (e == cudaSuccess)
    {
      memcpy (cuda->weights_held, job->weights, n);
      cuda->weights_radius = job->radius;
    }
  return e;
}

static void
fill_args (gblur_cuda *cuda, const gblur_job *job, const gblur_tile *t, TileArgs *a)
{
  memset (a, 0, sizeof *a);
  a->reg_x0 = t->reg_x0;
  a->reg_y0 = t->reg_y0;
  a->reg_w = t->reg_w;
  a->reg_h = t->reg_h;
  a->out_x0 = t->out_x0;
  a->out_y0 = t->out_y0;
  a->out_w = t->out_w;
  a->out_h = t->out_h;
  a->w = cuda->weights;
  a->r = job->radius;
  a->flags = job->flags;
  a->decode_u8 = cuda->decode_u8;
  a->encode_u8_threshold = cuda->encode_u8_threshold;
}

/* Tile size for a per-set byte budget; full-width stripes when they fit. */
static int
plan (const gblur_job *job, size_t budget, size_t reg_elem, size_t mid_elem, size_t out_elem,
      int max_h, gblur_tiling *tiling)
{
  int tile_w = job->geo.win_w;
  for (;;)
    {
      int h = gblur_fit_tile_height (&job->geo, tile_w, max_h, budget, reg_elem, mid_elem, out_elem);
      if (h > 0)
        {
          tiling->tile_w = tile_w;
          tiling->tile_h = h;
          return 1;
        }
      if (tile_w == 1)
        return 0;
      tile_w = (tile_w + 1) / 2;
    }
}

extern "C" gblur_status
gblur_cuda_run (gblur_cuda *cuda, gblur_job *job, char *err, size_t err_size)
{
  const gblur_image *src = job->src;
  gblur_image       *dst = job->dst;
  const int          W = job->geo.win_w, H = job->geo.win_h, C = src->channels;
  const int          img_w = job->geo.img_w, img_h = job->geo.img_h;
  const size_t       bytes = gblur_sample_size (src->sample);
  gblur_tiling       tiling;
  int                tiles_x, tiles_y, ntiles, completed = 0;
  gblur_status       status = GBLUR_OK;
  int                n_alloc = 0, n_copy = 0;   /* for injected faults */
  const gblur_faults *faults = job->faults;
  /* enough stripes to overlap upload, compute and download */
  int                max_h = H / 8 > 256 ? (H + 7) / 8 : 256;

  job->rows_valid = 0;
  if (max_h > 65535)
    max_h = 65535;
  if (!plan (job, job->memory_limit / SETS, C * bytes, C * sizeof (float), C * bytes, max_h, &tiling))
    {
      snprintf (err, err_size, "device memory limit of %zu bytes is too small for radius %d",
                job->memory_limit, job->radius);
      return GBLUR_E_NOMEM;
    }
  tiles_x = (W + tiling.tile_w - 1) / tiling.tile_w;
  tiles_y = (H + tiling.tile_h - 1) / tiling.tile_h;
  ntiles = tiles_x * tiles_y;

  CHECK (cudaSetDevice (cuda->device));
  CHECK_FAULT (fault_hit (faults->cuda_copy, &n_copy),
               upload_weights (cuda, job),
               "copy %d (the weights)", n_copy);
  {
    int    reg_cols = tiling.tile_w + 2 * job->radius < img_w ? tiling.tile_w + 2 * job->radius : img_w;
    int    reg_rows = tiling.tile_h + 2 * job->radius < img_h ? tiling.tile_h + 2 * job->radius : img_h;
    for (int s = 0; s < SETS && s < ntiles; s++)
      {
        CHECK_FAULT (alloc_fault (&cuda->region[s], &cuda->region_cap[s], faults, &n_alloc),
                     reserve (&cuda->region[s], &cuda->region_cap[s], (size_t) reg_rows * reg_cols * C * bytes),
                     "device allocation %d", n_alloc);
        CHECK_FAULT (alloc_fault (&cuda->mid[s], &cuda->mid_cap[s], faults, &n_alloc),
                     reserve (&cuda->mid[s], &cuda->mid_cap[s], (size_t) tiling.tile_h * reg_cols * C * sizeof (float)),
                     "device allocation %d", n_alloc);
        CHECK_FAULT (alloc_fault (&cuda->out[s], &cuda->out_cap[s], faults, &n_alloc),
                     reserve (&cuda->out[s], &cuda->out_cap[s], (size_t) tiling.tile_h * tiling.tile_w * C * bytes),
                     "device allocation %d", n_alloc);
      }
  }

  for (int i = 0; i <= ntiles; i++)
    {
      /* Before reusing set s, wait for tile i - SETS; report finished stripes. */
      if (i >= SETS || i == ntiles)
        {
          int upto = i == ntiles ? ntiles : i - SETS + 1;   /* tiles known complete */
          for (int s = 0; s < SETS && i == ntiles; s++)
            CHECK (cudaStreamSynchronize (cuda->stream[s]));
          if (i < ntiles)
            CHECK (cudaEventSynchronize (cuda->done[i % SETS]));
          while (completed < upto)
            {
              completed++;
              if (completed % tiles_x == 0 || completed == ntiles)
                {
                  int rows = completed / tiles_x * tiling.tile_h;
                  job->rows_valid = rows < H ? rows : H;
                  if (job->progress && job->progress (job->rows_valid, H, job->user_data)
                      && job->rows_valid < H && status == GBLUR_OK)
                    status = GBLUR_E_CANCELLED;
                }
            }
          if (status == GBLUR_E_CANCELLED)
            {
              for (int s = 0; s < SETS; s++)
                cudaStreamSynchronize (cuda->stream[s]);
              snprintf (err, err_size, "cancelled after %d of %d rows", job->rows_valid, H);
              return status;
            }
        }
      if (i == ntiles)
        break;

      int          s = i % SETS;
      gblur_tile   t;
      TileArgs     a;
      cudaStream_t st = cuda->stream[s];
      gblur_tile_at (&job->geo, &tiling, i % tiles_x, i / tiles_x, &t);
      fill_args (cuda, job, &t, &a);
      a.src = (const unsigned char *) cuda->region[s];
      a.src_pitch = (size_t) t.reg_w * C * bytes;
      a.mid = (float *) cuda->mid[s];
      a.mid_pitch = (size_t) t.reg_w * C * sizeof (float);
      a.mid_bytes = cuda->mid_cap[s];
      a.dst = (unsigned char *) cuda->out[s];
      a.dst_pitch = (size_t) t.out_w * C * bytes;
      CHECK_FAULT (fault_hit (faults->cuda_copy, &n_copy),
                   cudaMemcpy2DAsync (cuda->region[s], a.src_pitch,
                                      (const unsigned char *) src->data + (size_t) t.reg_y0 * src->stride
                                        + (size_t) t.reg_x0 * C * bytes,
                                      src->stride, a.src_pitch, t.reg_h, cudaMemcpyHostToDevice, st),
                   "copy %d (upload of tile %d)", n_copy, i + 1);
      CHECK_FAULT (i + 1 == faults->cuda_launch,
                   launch_tile (a, job, cuda->fused_shared_limit, st),
                   "kernel launch of tile %d", i + 1);
      CHECK_FAULT (fault_hit (faults->cuda_copy, &n_copy),
                   cudaMemcpy2DAsync ((unsigned char *) dst->data + (size_t) (t.out_y0 - job->geo.win_y) * dst->stride
                                        + (size_t) (t.out_x0 - job->geo.win_x) * C * bytes,
                                      dst->stride, cuda->out[s], a.dst_pitch, a.dst_pitch, t.out_h,
                                      cudaMemcpyDeviceToHost, st),
                   "copy %d (download of tile %d)", n_copy, i + 1);
      CHECK (cudaEventRecord (cuda->done[s], st));
    }
  return GBLUR_OK;

fail:
  /* Wait for whatever is still queued so nothing writes dst after we return. */
  for (int s = 0; s < SETS; s++)
    cudaStreamSynchronize (cuda->stream[s]);
  cudaGetLastError ();
  return GBLUR_E_CUDA;
}

extern "C" gblur_status
gblur_cuda_run_device (gblur_cuda *cuda, gblur_job *job, char *err, size_t err_size)
{
  const gblur_image *src = job->src;
  gblur_image       *dst = job->dst;
  const int          W = job->geo.win_w, H = job->geo.win_h, C = src->channels;
  const int          img_w = job->geo.img_w;
  const size_t       bytes = gblur_sample_size (src->sample);
  gblur_tiling       tiling;
  cudaStream_t       st = cuda->stream[0];
  int                n_alloc = 0, n_copy = 0, tile = 0;   /* for injected faults */
  const gblur_faults *faults = job->faults;

  /* Only the float intermediate needs memory of ours. */
  if (!plan (job, job->memory_limit, 0, C * sizeof (float), 0, 65535, &tiling))
    {
      snprintf (err, err_size, "device memory limit of %zu bytes is too small for radius %d",
                job->memory_limit, job->radius);
      return GBLUR_E_NOMEM;
    }
  {
    int reg_cols = tiling.tile_w + 2 * job->radius < img_w ? tiling.tile_w + 2 * job->radius : img_w;
    CHECK (cudaSetDevice (cuda->device));
    CHECK_FAULT (alloc_fault (&cuda->mid[0], &cuda->mid_cap[0], faults, &n_alloc),
                 reserve (&cuda->mid[0], &cuda->mid_cap[0], (size_t) tiling.tile_h * reg_cols * C * sizeof (float)),
                 "device allocation %d", n_alloc);
    CHECK_FAULT (fault_hit (faults->cuda_copy, &n_copy),
                 upload_weights (cuda, job),
                 "copy %d (the weights)", n_copy);
  }
  for (int ty = 0; ty * tiling.tile_h < H; ty++)
    for (int tx = 0; tx * tiling.tile_w < W; tx++)
      {
        gblur_tile t;
        TileArgs   a;
        gblur_tile_at (&job->geo, &tiling, tx, ty, &t);
        fill_args (cuda, job, &t, &a);
        a.src = (const unsigned char *) src->data + (size_t) t.reg_y0 * src->stride
                + (size_t) t.reg_x0 * C * bytes;
        a.src_pitch = src->stride;
        a.mid = (float *) cuda->mid[0];
        a.mid_pitch = (size_t) t.reg_w * C * sizeof (float);
        a.mid_bytes = cuda->mid_cap[0];
        a.dst = (unsigned char *) dst->data + (size_t) (t.out_y0 - job->geo.win_y) * dst->stride
                + (size_t) (t.out_x0 - job->geo.win_x) * C * bytes;
        a.dst_pitch = dst->stride;
        tile++;
        CHECK_FAULT (tile == faults->cuda_launch,
                     launch_tile (a, job, cuda->fused_shared_limit, st),
                     "kernel launch of tile %d", tile);
      }
  CHECK (cudaStreamSynchronize (st));
  job->rows_valid = H;
  return GBLUR_OK;

fail:
  cudaStreamSynchronize (st);
  cudaGetLastError ();
  return GBLUR_E_CUDA;
}
