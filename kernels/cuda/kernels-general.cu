/* The general kernels: any sample type (u8, u16, float), 1..4 channels,
 * optional linear light and premultiplied alpha, any radius.
 *   fused_tile        one kernel per tile: both passes through shared
 *                     memory, for tiles that fit there;
 *   vertical_*        read the stored samples, convert them (linear light,
 *                     premultiplied alpha) and blur down the columns into the
 *                     float intermediate t.mid;
 *   horizontal_*      blur along the rows of the intermediate and convert
 *                     back to the stored sample type.
 * Each of the two passes has a shared-memory tiled form and, for radii whose
 * tile would not fit in shared memory, a direct form that reads through the
 * cache.  The conversions are the same arithmetic as cpu/convert.c.
 *   decode_region     converts a tile's region to floats once, for samples
 *                     whose decoding costs more than reading them (launch_general).
 *
 * The vertical pass uses the y taps (tile_wy (a), radius a.ry: a halo of ry rows),
 * the horizontal pass the x taps (a.wx, a.rx: rx columns); either radius may
 * be 0, which makes that pass w[0] = 1 times the input: a copy. */
#include "device-common.cuh"
#include "launchers.cuh"
#include "decode.cuh"
#include "samples.cuh"

#include <type_traits>

#define SHARED_LIMIT   (48 * 1024)
#define V_BLOCK_X      32
#define V_BLOCK_Y      8
#define V_ROWS         32      /* output rows per vertical block */
#define H_BLOCK        128     /* output pixels per horizontal block */

/* Clamp-to-edge, expressed on the tile's region: the region holds every row
 * and column a valid output needs (including the image edge when the kernel
 * reaches past it), so clamping into the region is clamping to the edge for
 * those, and keeps the loads of idle threads in bounds. */
__device__ __forceinline__ int
region_row (const cuda_tile &a, int image_y)
{
  return clampi (image_y, a.rect.reg_y0, a.rect.reg_y0 + a.rect.reg_h - 1);
}

__device__ __forceinline__ int
region_col (const cuda_tile &a, int image_x)
{
  return clampi (image_x, a.rect.reg_x0, a.rect.reg_x0 + a.rect.reg_w - 1) - a.rect.reg_x0;
}

/* The intermediate: out_h rows x reg_w pixels of C floats. */
template <int C>
__device__ __forceinline__ void
store_mid (const cuda_tile &a, int y, int x, const float acc[C])
{
  float *m = (float *) ((char *) a.mid + (size_t) y * a.mid_pitch) + (size_t) x * C;
#pragma unroll
  for (int c = 0; c < C; c++)
    m[c] = acc[c];
}

__device__ __forceinline__ const float *
mid_pixel (const cuda_tile &a, int y, int image_x, int C)
{
  int rx = region_col (a, image_x);
  return (const float *) ((const char *) a.mid + (size_t) y * a.mid_pitch) + (size_t) rx * C;
}

/* ---- vertical pass ----
 *
 * SAME_TAPS (tile_same_taps): the y taps are the x taps, read as a.wx and
 * a.rx as the isotropic kernels always did; the two cases are compiled apart
 * so that the isotropic kernels keep their code and registers. */

template <bool SAME_TAPS>
__device__ __forceinline__ const float *
taps_y (const cuda_tile &a)
{
  return SAME_TAPS ? a.wx : tile_wy (a);
}

template <bool SAME_TAPS>
__device__ __forceinline__ int
radius_y (const cuda_tile &a)
{
  return SAME_TAPS ? a.rx : a.ry;
}

/* acc += the taps k = 1..r, each added by add_tap (k, sums); taps past the
 * first GBLUR_SUM_CHUNK - 1 go through a partial sum per GBLUR_SUM_CHUNK,
 * so that long sums do not drift (see gblur-internal.h). */
template <int C, typename AddTap>
__device__ __forceinline__ void
sum_taps (int r, float (&acc)[C], AddTap add_tap)
{
  const int first_end = min (r, GBLUR_SUM_CHUNK - 1);
  for (int k = 1; k <= first_end; k++)
    add_tap (k, acc);
  for (int k0 = GBLUR_SUM_CHUNK; k0 <= r; k0 += GBLUR_SUM_CHUNK)
    {
      const int end = min (r, k0 + GBLUR_SUM_CHUNK - 1);
      float     part[C];
#pragma unroll
      for (int c = 0; c < C; c++)
        part[c] = 0.0f;
      for (int k = k0; k <= end; k++)
        add_tap (k, part);
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[c] += part[c];
    }
}

/* A pixel of the region for the vertical pass: stored samples converted, or
 * (DECODED) the floats of decode_region, read a pixel at a time. */
template <typename T, int C, bool DECODED>
__device__ __forceinline__ void
vertical_input (const cuda_tile &a, int image_y, int region_x, float (&px)[C])
{
  if constexpr (DECODED)
    load_decoded<C> (a, image_y, region_x, px);
  else
    load_pixel<T, C> (a, image_y, region_x, px);
}

template <typename T, int C, bool SAME_TAPS, bool DECODED>
__global__ void
vertical_direct (cuda_tile a)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;   /* output row within the tile */
  if (x >= a.rect.reg_w || y >= a.rect.out_h)
    return;
  int   iy = a.rect.out_y0 + y;
  float acc[C], up[C], down[C];

  vertical_input<T, C, DECODED> (a, iy, x, acc);
  float w0 = __ldg (&taps_y<SAME_TAPS> (a)[0]);
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] *= w0;
  sum_taps<C> (radius_y<SAME_TAPS> (a), acc, [&] (int k, float (&sums)[C]) {
    float wk = __ldg (&taps_y<SAME_TAPS> (a)[k]);
    vertical_input<T, C, DECODED> (a, region_row (a, iy - k), x, up);
    vertical_input<T, C, DECODED> (a, region_row (a, iy + k), x, down);
#pragma unroll
    for (int c = 0; c < C; c++)
      sums[c] += wk * (up[c] + down[c]);
  });
  store_mid<C> (a, y, x, acc);
}

/* Shared tile: (V_ROWS + 2 ry) rows x V_BLOCK_X pixels, one plane per
 * channel so neighbouring threads read neighbouring words. */
template <typename T, int C, bool SAME_TAPS, bool DECODED>
__device__ __forceinline__ void
vertical_load_strip (const cuda_tile &a, float *tile, int rows, int y0, int xs)
{
  for (int i = threadIdx.y; i < rows; i += V_BLOCK_Y)
    {
      float px[C];
      int   iy = region_row (a, a.rect.out_y0 + y0 - radius_y<SAME_TAPS> (a) + i);
      vertical_input<T, C, DECODED> (a, iy, xs, px);
#pragma unroll
      for (int c = 0; c < C; c++)
        tile[(c * rows + i) * V_BLOCK_X + threadIdx.x] = px[c];
    }
}

template <int C, bool SAME_TAPS>
__device__ __forceinline__ void
vertical_sum_strip (const cuda_tile &a, const float *tile, int rows, int y0, int x)
{
  for (int j = threadIdx.y; j < V_ROWS; j += V_BLOCK_Y)
    {
      int y = y0 + j;
      if (y >= a.rect.out_h)
        break;
      const int ry = radius_y<SAME_TAPS> (a);
      float w0 = __ldg (&taps_y<SAME_TAPS> (a)[0]);
      float acc[C];
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[c] = w0 * tile[(c * rows + j + ry) * V_BLOCK_X + threadIdx.x];
      sum_taps<C> (ry, acc, [&] (int k, float (&sums)[C]) {
        float wk = __ldg (&taps_y<SAME_TAPS> (a)[k]);
#pragma unroll
        for (int c = 0; c < C; c++)
          sums[c] += wk * (tile[(c * rows + j + ry - k) * V_BLOCK_X + threadIdx.x]
                           + tile[(c * rows + j + ry + k) * V_BLOCK_X + threadIdx.x]);
      });
      store_mid<C> (a, y, x, acc);
    }
}

template <typename T, int C, bool SAME_TAPS, bool DECODED>
__global__ void
vertical_tiled (cuda_tile a)
{
  extern __shared__ float tile[];
  const int rows = V_ROWS + 2 * radius_y<SAME_TAPS> (a);
  const int x = blockIdx.x * V_BLOCK_X + threadIdx.x;
  const int y0 = blockIdx.y * V_ROWS;              /* first output row of the block */
  const int xs = min (x, a.rect.reg_w - 1);        /* keep loads inside the region */

  vertical_load_strip<T, C, SAME_TAPS, DECODED> (a, tile, rows, y0, xs);
  __syncthreads ();
  if (x >= a.rect.reg_w)
    return;
  vertical_sum_strip<C, SAME_TAPS> (a, tile, rows, y0, x);
}

/* ---- horizontal pass ---- */

template <typename T, int C>
__global__ void
horizontal_direct (cuda_tile a)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x >= a.rect.out_w)
    return;
  int          ix = a.rect.out_x0 + x;
  float        acc[C];
  const float *p = mid_pixel (a, y, ix, C);
  float        w0 = __ldg (&a.wx[0]);
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] = w0 * p[c];
  sum_taps<C> (a.rx, acc, [&] (int k, float (&sums)[C]) {
    float        wk = __ldg (&a.wx[k]);
    const float *l = mid_pixel (a, y, ix - k, C);
    const float *r = mid_pixel (a, y, ix + k, C);
#pragma unroll
    for (int c = 0; c < C; c++)
      sums[c] += wk * (l[c] + r[c]);
  });
  store_output<T, C> (a, y, x, acc);
}

/* Shared row: H_BLOCK + 2 rx pixels, one plane per channel. */
template <int C>
__device__ __forceinline__ void
horizontal_load_row (const cuda_tile &a, float *tile, int width, int x0, int y)
{
  for (int i = threadIdx.x; i < width; i += H_BLOCK)
    {
      const float *p = mid_pixel (a, y, a.rect.out_x0 + x0 - a.rx + i, C);
#pragma unroll
      for (int c = 0; c < C; c++)
        tile[c * width + i] = p[c];
    }
}

template <int C>
__device__ __forceinline__ void
horizontal_sum_row (const cuda_tile &a, const float *tile, int width, float (&acc)[C])
{
  float w0 = __ldg (&a.wx[0]);
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] = w0 * tile[c * width + threadIdx.x + a.rx];
  sum_taps<C> (a.rx, acc, [&] (int k, float (&sums)[C]) {
    float wk = __ldg (&a.wx[k]);
#pragma unroll
    for (int c = 0; c < C; c++)
      sums[c] += wk * (tile[c * width + threadIdx.x + a.rx - k] + tile[c * width + threadIdx.x + a.rx + k]);
  });
}

template <typename T, int C>
__global__ void
horizontal_tiled (cuda_tile a)
{
  extern __shared__ float tile[];
  const int width = H_BLOCK + 2 * a.rx;
  const int x0 = blockIdx.x * H_BLOCK;      /* first output pixel of the block */
  const int y = blockIdx.y;

  horizontal_load_row<C> (a, tile, width, x0, y);
  __syncthreads ();
  int x = x0 + threadIdx.x;
  if (x >= a.rect.out_w)
    return;
  float acc[C];
  horizontal_sum_row<C> (a, tile, width, acc);
  store_output<T, C> (a, y, x, acc);
}

/* ---- fused pass: one kernel per tile for radii whose tile fits in shared memory ----
 *
 * A block makes TW x TH outputs.  Vertical: each work item walks one column
 * of the block's (TW + 2 rx)-wide strip down 8 output rows, loading each
 * input pixel (2 ry + 8 of them) once from global memory (converted on the
 * fly) and multiply-adding it into the 8 sums it belongs to, with the y
 * weights sliding through a register window; the sums go to shared memory,
 * so the float intermediate never reaches global memory.  Horizontal: each
 * item makes 8 consecutive outputs of one row the same way with the x
 * weights, reading shared memory (neighbouring lanes take neighbouring rows
 * of an odd stride: no bank conflicts).  The results are staged in shared
 * memory again and stored coalesced.  The sliding taps of each axis are in
 * shared memory (ws below): one array when the axes share their taps
 * (tile_same_taps), else the y taps, then the x taps.  The two cases are
 * compiled apart (SAME_TAPS), so that the isotropic kernel is the one-radius
 * code it always was: one radius, one ws, no more registers. */

#define F_THREADS 256
#define F_GROUP   8             /* outputs per work item */

/* Inputs per work item along an axis of radius r: the 2r + 8 an item reads,
 * padded to whole groups (8 for r = 0). */
__host__ __device__ __forceinline__ int fused_inputs (int r) { return (2 * r + F_GROUP + 7) & ~7; }
/* ws[m] = w[|m - F_GROUP + 1 - r|] for m - F_GROUP + 1 in [0, 2r], else 0. */
__host__ __device__ __forceinline__ int fused_ws_len (int r) { return fused_inputs (r) + 2 * F_GROUP; }

/* The block's shared memory: the y taps' ws (radius ry), the x taps' ws
 * (radius rx) unless the axes share their taps, then C planes of TH rows of
 * an odd stride S, which depends on rx only (the strip's width). */
template <int TW>
__host__ __device__ __forceinline__ int fused_stride (int rx) { return TW + 2 * rx + 9; }

template <int TW, int TH>
static size_t
fused_shared (int rx, int ry, bool same_taps, int C)
{
  return ((size_t) fused_ws_len (ry) + (same_taps ? 0 : (size_t) fused_ws_len (rx))
          + (size_t) C * TH * fused_stride<TW> (rx)) * sizeof (float);
}

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

/* ws for the half kernel w[0..r]. */
__device__ __forceinline__ void
fused_load_taps (const float *w, int r, float *ws)
{
  for (int m = threadIdx.x; m < fused_ws_len (r); m += F_THREADS)
    {
      int k = m - (F_GROUP - 1) - r;
      ws[m] = k >= -r && k <= r ? __ldg (&w[k < 0 ? -k : k]) : 0.0f;
    }
}

/* Whether a LONG sum closes a partial sum after the group of inputs at i0
 * (of nin): at each GBLUR_SUM_CHUNK, but never after the last group, which
 * the final addition takes, since a sum of nin <= GBLUR_SUM_CHUNK inputs
 * keeps everything in acc (both passes share this, or one loses its sum). */
template <bool LONG>
__host__ __device__ constexpr bool
fused_chunk_ends (int i0, int nin)
{
  return LONG && i0 + F_GROUP < nin && (i0 + F_GROUP) % GBLUR_SUM_CHUNK == 0;
}
static_assert (!fused_chunk_ends<true> (GBLUR_SUM_CHUNK - F_GROUP, GBLUR_SUM_CHUNK),
               "a sum of exactly one chunk has no partial sum");

/* Items are (column of the strip, group of 8 rows); ws holds the y taps.
 * LONG: sums of more than GBLUR_SUM_CHUNK inputs are made of partial sums
 * (see fused_long_sums). */
template <typename T, int C, int TW, int TH, bool LONG>
__device__ __forceinline__ void
fused_vertical (const cuda_tile &a, int rx, int ry, const float *ws, float *vs, int bx0, int by0)
{
  const int nin = fused_inputs (ry);
  const int S = fused_stride<TW> (rx);

  for (int item = threadIdx.x; item < S * (TH / F_GROUP); item += F_THREADS)
    {
      const int col = item % S, g = item / S;
      float     acc[F_GROUP][C];
      zero_sums (acc);
      if (col < TW + 2 * rx)
        {
          const int cx = region_col (a, bx0 - rx + col);
          const int iy0 = by0 + g * F_GROUP - ry;     /* image row of input 0 */
          for (int i0 = 0; i0 < nin; i0 += F_GROUP)
            {
              float vin[F_GROUP][C];
#pragma unroll
              for (int q = 0; q < F_GROUP; q++)
                load_pixel<T, C> (a, region_row (a, iy0 + i0 + q), cx, vin[q]);
              slide_accumulate<C> (ws, i0, vin, acc);
              /* a partial sum per GBLUR_SUM_CHUNK inputs, added into vs */
              if (fused_chunk_ends<LONG> (i0, nin))
                {
#pragma unroll
                  for (int j = 0; j < F_GROUP; j++)
#pragma unroll
                    for (int c = 0; c < C; c++)
                      {
                        float *v = &vs[(c * TH + g * F_GROUP + j) * S + col];
                        *v = (i0 < GBLUR_SUM_CHUNK ? 0.0f : *v) + acc[j][c];
                        acc[j][c] = 0.0f;
                      }
                }
            }
        }
#pragma unroll
      for (int j = 0; j < F_GROUP; j++)
#pragma unroll
        for (int c = 0; c < C; c++)
          {
            float *v = &vs[(c * TH + g * F_GROUP + j) * S + col];
            *v = LONG && nin > GBLUR_SUM_CHUNK && col < TW + 2 * rx ? *v + acc[j][c] : acc[j][c];
          }
    }
}

/* Horizontal work items: (row, group of 8 columns, channel); lanes take rows. */
template <int C, int TW, int TH>
struct fused_items {
  static constexpr int PER_THREAD = C * TH * (TW / F_GROUP) / F_THREADS;
  static_assert (C * TH * (TW / F_GROUP) % F_THREADS == 0, "whole items per thread");
  /* item -> offset of its first output in vs */
  static __device__ __forceinline__ int
  offset (int item, int S)
  {
    const int y = item % TH, g = (item / TH) % (TW / F_GROUP), c = item / (TH * (TW / F_GROUP));
    return (c * TH + y) * S + g * F_GROUP;
  }
};

/* ws holds the x taps; LONG as fused_vertical. */
template <int C, int TW, int TH, bool LONG>
__device__ __forceinline__ void
fused_horizontal (int rx, const float *ws, const float *vs,
                  float (&res)[fused_items<C, TW, TH>::PER_THREAD][F_GROUP])
{
  using Items = fused_items<C, TW, TH>;
  const int nin = fused_inputs (rx);
  const int S = fused_stride<TW> (rx);
#pragma unroll
  for (int n = 0; n < Items::PER_THREAD; n++)
    {
      const float *row = vs + Items::offset (threadIdx.x + n * F_THREADS, S);
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
          /* a partial sum per GBLUR_SUM_CHUNK inputs, added into res */
          if (fused_chunk_ends<LONG> (i0, nin))
#pragma unroll
            for (int j = 0; j < F_GROUP; j++)
              {
                res[n][j] = (i0 < GBLUR_SUM_CHUNK ? 0.0f : res[n][j]) + acc[j][0];
                acc[j][0] = 0.0f;
              }
        }
#pragma unroll
      for (int j = 0; j < F_GROUP; j++)
        res[n][j] = LONG && nin > GBLUR_SUM_CHUNK ? res[n][j] + acc[j][0] : acc[j][0];
    }
}

/* The horizontal results back into vs, in place of their inputs. */
template <int C, int TW, int TH>
__device__ __forceinline__ void
fused_stage (const float (&res)[fused_items<C, TW, TH>::PER_THREAD][F_GROUP], float *vs, int S)
{
  using Items = fused_items<C, TW, TH>;
#pragma unroll
  for (int n = 0; n < Items::PER_THREAD; n++)
    {
      const int item = threadIdx.x + n * F_THREADS;
      const int y = item % TH, g = (item / TH) % (TW / F_GROUP), c = item / (TH * (TW / F_GROUP));
#pragma unroll
      for (int j = 0; j < F_GROUP; j++)
        vs[(c * TH + y) * S + g * F_GROUP + j] = res[n][j];
    }
}

/* Consecutive threads take consecutive pixels. */
template <typename T, int C, int TW, int TH>
__device__ __forceinline__ void
fused_store (const cuda_tile &a, const float *vs, int S, int bx0, int by0)
{
  for (int p = threadIdx.x; p < TH * TW; p += F_THREADS)
    {
      const int y = p / TW, x = p % TW;
      const int ox = bx0 + x - a.rect.out_x0, oy = by0 + y - a.rect.out_y0;
      if (ox >= a.rect.out_w || oy >= a.rect.out_h)
        continue;
      float px[C];
#pragma unroll
      for (int c = 0; c < C; c++)
        px[c] = vs[(c * TH + y) * S + x];
      store_output<T, C> (a, oy, ox, px);
    }
}

/* SAME_TAPS: tile_same_taps (a) (then rx == ry): one radius, one ws. */
template <typename T, int C, int TW, int TH, bool SAME_TAPS, bool LONG>
__global__ void __launch_bounds__ (F_THREADS)
fused_tile (cuda_tile a)
{
  extern __shared__ float smem[];
  const int rx = a.rx;
  const int ry = SAME_TAPS ? rx : a.ry;
  float    *wsy = smem;                                      /* the y taps */
  float    *wsx = SAME_TAPS ? wsy : wsy + fused_ws_len (ry);   /* the x taps */
  float    *vs = wsx + fused_ws_len (rx);                    /* C planes of TH x S */
  const int S = fused_stride<TW> (rx);
  const int bx0 = a.rect.out_x0 + blockIdx.x * TW;    /* image column of the first output */
  const int by0 = a.rect.out_y0 + blockIdx.y * TH;
  float     res[fused_items<C, TW, TH>::PER_THREAD][F_GROUP];

  fused_load_taps (SAME_TAPS ? a.wx : tile_wy (a), ry, wsy);
  if (!SAME_TAPS)
    fused_load_taps (a.wx, rx, wsx);
  __syncthreads ();
  fused_vertical<T, C, TW, TH, LONG> (a, rx, ry, wsy, vs, bx0, by0);
  __syncthreads ();
  fused_horizontal<C, TW, TH, LONG> (rx, wsx, vs, res);
  __syncthreads ();
  fused_stage<C, TW, TH> (res, vs, S);
  __syncthreads ();
  fused_store<T, C, TW, TH> (a, vs, S, bx0, by0);
}

/* ---- launching ---- */

/* The fused kernel with partial sums (LONG) only where a sum is long enough
 * to drift: over 512 taps (radius 256).  Their bookkeeping costs registers,
 * which the short sums of small radii, the common case, do not pay. */
static bool
fused_long_sums (const cuda_tile &a)
{
  return max (a.rx, a.ry) >= 4 * GBLUR_SUM_CHUNK;
}

/* The fused kernel when its tile fits the shared-memory limit;
 * cudaErrorNotSupported (nothing launched) when it does not.  The byte count
 * is the layout fused_tile sets up: one ws when the axes share their taps
 * (the SAME_TAPS kernel), else two. */
template <typename T, int C, int TW, int TH>
static cudaError_t
launch_fused_shape (const cuda_tile &a, size_t shared_limit, cudaStream_t stream)
{
  const bool same_taps = tile_same_taps (a);
  size_t     bytes = fused_shared<TW, TH> (a.rx, a.ry, same_taps, C);

  if (bytes > shared_limit)
    return cudaErrorNotSupported;
  dim3 grid ((a.rect.out_w + TW - 1) / TW, (a.rect.out_h + TH - 1) / TH);
  if (fused_long_sums (a))
    return same_taps ? launch_with_smem<fused_tile<T, C, TW, TH, true, true>> (grid, F_THREADS, bytes, stream, a)
                     : launch_with_smem<fused_tile<T, C, TW, TH, false, true>> (grid, F_THREADS, bytes, stream, a);
  return same_taps ? launch_with_smem<fused_tile<T, C, TW, TH, true, false>> (grid, F_THREADS, bytes, stream, a)
                   : launch_with_smem<fused_tile<T, C, TW, TH, false, false>> (grid, F_THREADS, bytes, stream, a);
}

/* Small horizontal radii: square-ish tiles (few halo rows to re-read);
 * larger ones: wide flat tiles, so the 2 rx halo columns cost little
 * vertical work. */
template <typename T, int C>
static cudaError_t
launch_fused (const cuda_tile &a, size_t shared_limit, cudaStream_t stream)
{
  if (a.rx <= 16)
    return launch_fused_shape<T, C, 128, 32> (a, shared_limit, stream);
  return launch_fused_shape<T, C, 512, 8> (a, shared_limit, stream);
}

/* The vertical kernel for the tile: tiled when its strip fits in shared
 * memory, else direct. */
template <typename T, int C, bool DECODED>
static cudaError_t
launch_vertical (const cuda_tile &a, cudaStream_t stream)
{
  const dim3  v_block (V_BLOCK_X, V_BLOCK_Y);
  const bool  same = tile_same_taps (a);
  size_t      v_shared = (size_t) (V_ROWS + 2 * a.ry) * V_BLOCK_X * C * sizeof (float);

  if (v_shared <= SHARED_LIMIT)
    {
      dim3 grid ((a.rect.reg_w + V_BLOCK_X - 1) / V_BLOCK_X, (a.rect.out_h + V_ROWS - 1) / V_ROWS);
      return same ? launch_with_smem<vertical_tiled<T, C, true, DECODED>> (grid, v_block, v_shared, stream, a)
                  : launch_with_smem<vertical_tiled<T, C, false, DECODED>> (grid, v_block, v_shared, stream, a);
    }
  dim3 grid ((a.rect.reg_w + V_BLOCK_X - 1) / V_BLOCK_X, (a.rect.out_h + V_BLOCK_Y - 1) / V_BLOCK_Y);
  return same ? launch_with_smem<vertical_direct<T, C, true, DECODED>> (grid, v_block, 0, stream, a)
              : launch_with_smem<vertical_direct<T, C, false, DECODED>> (grid, v_block, 0, stream, a);
}

/* The horizontal kernel: from the float intermediate to the stored type. */
template <typename T, int C>
static cudaError_t
launch_horizontal (const cuda_tile &a, cudaStream_t stream)
{
  size_t h_shared = (size_t) (H_BLOCK + 2 * a.rx) * C * sizeof (float);
  dim3   grid ((a.rect.out_w + H_BLOCK - 1) / H_BLOCK, a.rect.out_h);

  if (h_shared <= SHARED_LIMIT)
    return launch_with_smem<horizontal_tiled<T, C>> (grid, H_BLOCK, h_shared, stream, a);
  return launch_with_smem<horizontal_direct<T, C>> (grid, H_BLOCK, 0, stream, a);
}

/* Two kernels through the float intermediate: the fallback for any tile. */
template <typename T, int C>
static cudaError_t
launch_two_pass (const cuda_tile &a, cudaStream_t stream)
{
  cudaError_t e = launch_vertical<T, C, false> (a, stream);
  return e != cudaSuccess ? e : launch_horizontal<T, C> (a, stream);
}

/* The region decoded into `decoded` first, then the two passes, the
 * vertical one reading the floats. */
template <typename T, int C>
static cudaError_t
launch_decoded (const cuda_tile &a, float *decoded, cudaStream_t stream)
{
  const dim3  block (V_BLOCK_X, V_BLOCK_Y);
  const dim3  grid ((a.rect.reg_w + V_BLOCK_X - 1) / V_BLOCK_X, (a.rect.reg_h + V_BLOCK_Y - 1) / V_BLOCK_Y);
  cuda_tile   d = a;
  cudaError_t e;

  decode_region<T, C><<<grid, block, 0, stream>>> (a, decoded);
  e = cudaGetLastError ();
  if (e != cudaSuccess)
    return e;
  d.src = (const unsigned char *) decoded;
  d.src_pitch = decoded_pitch (a, C);
  e = launch_vertical<float, C, true> (d, stream);   /* the floats, whatever T */
  return e != cudaSuccess ? e : launch_horizontal<T, C> (a, stream);
}

template <typename T, int C>
static cudaError_t
launch_typed (const cuda_tile &a, size_t fused_shared_limit, float *decoded, cudaStream_t stream)
{
  if constexpr (std::is_same_v<T, unsigned short>)
    if (decoded)
      return launch_decoded<T, C> (a, decoded, stream);
  cudaError_t e = launch_fused<T, C> (a, fused_shared_limit, stream);
  if (e != cudaErrorNotSupported)
    return e;
  return launch_two_pass<T, C> (a, stream);
}

template <typename T>
static cudaError_t
launch_channels (const cuda_tile &a, int channels, size_t fused_shared_limit, float *decoded,
                 cudaStream_t stream)
{
  switch (channels)
    {
    case 1: return launch_typed<T, 1> (a, fused_shared_limit, decoded, stream);
    case 2: return launch_typed<T, 2> (a, fused_shared_limit, decoded, stream);
    case 3: return launch_typed<T, 3> (a, fused_shared_limit, decoded, stream);
    default: return launch_typed<T, 4> (a, fused_shared_limit, decoded, stream);
    }
}

bool
general_decodes_first (gblur_sample sample, unsigned flags)
{
  return sample == GBLUR_U16 && (flags & GBLUR_LINEAR_LIGHT);
}

cudaError_t
launch_general (const cuda_tile &t, gblur_sample sample, int channels, size_t fused_shared_limit,
                float *decoded, cudaStream_t stream)
{
  switch (sample)
    {
    case GBLUR_U8: return launch_channels<unsigned char> (t, channels, fused_shared_limit, NULL, stream);
    case GBLUR_U16:
      /* the one place the rule is asked: a buffer kept from an earlier job is not this job's */
      return launch_channels<unsigned short> (t, channels, fused_shared_limit,
                                              general_decodes_first (sample, t.flags) ? decoded : NULL, stream);
    default: return launch_channels<float> (t, channels, fused_shared_limit, NULL, stream);
    }
}

cudaError_t
general_kernels_loadable (void)
{
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes (&attr, horizontal_tiled<unsigned char, 1>);
}
