/* Tensor-core path for 8-bit gray (at larger radii) and RGBA (at every
 * radius).
 *
 * One idea: a 1-D blur of 16 rows is a matrix product.  For 16 image rows
 * (A: 16 x 16 input samples) and 8 output columns, D[16 x 8] += A * B with
 * B[k][n] = tap(k - n + D0), a band of the kernel; a warp sweeps its 16 rows
 * through the input 16 columns at a time, one mma.sync per (input block,
 * output block) pair the band touches.  The kernel writes its result
 * transposed, so the same kernel run twice does the rows, then the columns:
 *   pass 1: u8 region -> fp16 intermediate (transposed),
 *   pass 2: fp16 intermediate -> u8 output (transposed back).
 * RGBA is four such signals per row: the tile's rows are (row, channel)
 * pairs, the load de-interleaving each pixel into its channel's row, so a
 * block's 32 rows are 8 image rows of 4 channels.  Written transposed, a
 * column's samples come out interleaved by channel again (row y, channel c
 * at 4 y + c): the intermediate is an image of the same shape, which the
 * second pass reads and de-interleaves the same way.
 * Exactness: u8 samples are exact in fp16; taps rounded to fp16 are off by at
 * most 2^-11 of each, so each pass is off by at most 255 * 2^-11 = 0.125 levels
 * from its float sum, and the fp16 intermediate adds at most 0.0625: 0.32
 * levels in all, inside the engine's +-1 level contract (sums are in fp32).
 * The same holds for each channel of RGBA.  Only for u8 data without the
 * sRGB curve or premultiplied alpha (both need more bits). */
#include "device-common.cuh"
#include "launchers.cuh"
#include "mma.cuh"

#include <stdint.h>
#include <string.h>

#define MMA_WARPS      4
#define MMA_THREADS    (32 * MMA_WARPS)
#define MMA_WARP_ROWS  2                  /* warps down the rows; the others go across */
#define MMA_ROWS       (16 * MMA_WARP_ROWS)                     /* input rows per block */
#define MMA_COLS       (64 * (MMA_WARPS / MMA_WARP_ROWS))       /* output columns per block */
#define MMA_SP         (MMA_ROWS + 8)     /* stage stride, in samples */

/* One pass: rows of `in` blurred along the row, written transposed.  With
 * CH channels (a kernel template parameter), a row holds in_cols pixels of
 * CH interleaved samples, and an output row in_rows pixels. */
struct MmaArgs {
  const unsigned char *in;        /* in_rows rows of in_cols pixels */
  size_t               in_pitch;
  int                  in_rows, in_cols;
  int                  col_offset;  /* output column o reads input columns o + col_offset +- r */
  int                  out_cols;
  unsigned char       *out;       /* out_cols rows of in_rows pixels (transposed) */
  size_t               out_pitch;
  const float         *w;         /* w[0..r], device */
  int                  r, ra;     /* radius, and rounded up to 8 */
  int                  ktiles;    /* 16-column input blocks per block row */
  int                  nfrag;     /* distinct B fragments */
  int                  in_quads;  /* loads of 4 pixels of input rows are aligned (RGBA: 16 bytes) */
  int                  out_quads; /* 4-sample stores of output rows are aligned */
};

__device__ __forceinline__ float
mma_tap (const MmaArgs &a, int i)     /* tap i of 0..2r, zero outside */
{
  return mma_band_tap (a.w, a.r, i - a.r);
}

/* The band: fragment m holds B for offset d = d_first + 8m. */
__device__ __forceinline__ void
mma_build_band (const MmaArgs &a, uint2 *frag)
{
  const int d_first = a.r - a.ra - 8;                 /* band offset of fragment 0 */
  for (int i = threadIdx.x; i < a.nfrag * 32; i += MMA_THREADS)
    {
      const int m = i / 32, lane = i % 32, g = lane / 4, t = lane % 4;
      const int d = d_first + 8 * m;
      frag[i] = make_uint2 (mma_pack (mma_tap (a, d + 2 * t - g), mma_tap (a, d + 2 * t + 1 - g)),
                            mma_pack (mma_tap (a, d + 2 * t + 8 - g), mma_tap (a, d + 2 * t + 9 - g)));
    }
}

/* 4 RGBA8 pixels from column c0 + col of `src` on, split into channels
 * with byte permutes (mma_load4). */
__device__ __forceinline__ void
mma_load4_rgba8 (const MmaArgs &a, const unsigned char *src, int c0, int col, bool inside, __half2 (&h)[8])
{
  uint4 q;                                        /* pixel j in q.x, .y, .z, .w */
  if (inside)
    q = *(const uint4 *) (src + 4 * (c0 + col));
  else
    {
      unsigned p[4];
#pragma unroll
      for (int j = 0; j < 4; j++)
        {
          const unsigned char *px = src + 4 * clampi (c0 + col + j, 0, a.in_cols - 1);
          p[j] = px[0] | (unsigned) px[1] << 8 | (unsigned) px[2] << 16 | (unsigned) px[3] << 24;
        }
      q = make_uint4 (p[0], p[1], p[2], p[3]);
    }
  const unsigned lo01 = __byte_perm (q.x, q.y, 0x5140), lo23 = __byte_perm (q.z, q.w, 0x5140);
  const unsigned hi01 = __byte_perm (q.x, q.y, 0x7362), hi23 = __byte_perm (q.z, q.w, 0x7362);
  mma_bytes_to_half (__byte_perm (lo01, lo23, 0x5410), h[0], h[1]);
  mma_bytes_to_half (__byte_perm (lo01, lo23, 0x7632), h[2], h[3]);
  mma_bytes_to_half (__byte_perm (hi01, hi23, 0x5410), h[4], h[5]);
  mma_bytes_to_half (__byte_perm (hi01, hi23, 0x7632), h[6], h[7]);
}

/* 4 fp16 RGBA pixels from column c0 + col of `src` on, split into
 * channels (mma_load4). */
template <typename IN>
__device__ __forceinline__ void
mma_load4_rgba16 (const MmaArgs &a, const IN *src, int c0, int col, bool inside, __half2 (&h)[8])
{
  unsigned w[8];                                  /* pixel j: channels 0, 1 in w[2 j], 2, 3 in w[2 j + 1] */
  if (inside)
    {
      const uint4 *p = (const uint4 *) (src + 4 * (c0 + col));
      const uint4  q0 = p[0], q1 = p[1];
      w[0] = q0.x; w[1] = q0.y; w[2] = q0.z; w[3] = q0.w;
      w[4] = q1.x; w[5] = q1.y; w[6] = q1.z; w[7] = q1.w;
    }
  else
#pragma unroll
    for (int j = 0; j < 4; j++)
      {
        const uint2 q = *(const uint2 *) (src + 4 * clampi (c0 + col + j, 0, a.in_cols - 1));
        w[2 * j] = q.x;
        w[2 * j + 1] = q.y;
      }
#pragma unroll
  for (int pair = 0; pair < 2; pair++)            /* pixels 0, 1, then 2, 3 */
    {
      const unsigned *v = w + 4 * pair;
      unsigned        c0p = __byte_perm (v[0], v[2], 0x5410), c1p = __byte_perm (v[0], v[2], 0x7632);
      unsigned        c2p = __byte_perm (v[1], v[3], 0x5410), c3p = __byte_perm (v[1], v[3], 0x7632);
      h[0 + pair] = *(__half2 *) &c0p;
      h[2 + pair] = *(__half2 *) &c1p;
      h[4 + pair] = *(__half2 *) &c2p;
      h[6 + pair] = *(__half2 *) &c3p;
    }
}

/* One channel of 4 pixels from column c0 + col of `src` on, as fp16 (h01
 * and h23 of channel c in h[2 c], h[2 c + 1]): one load per 4 pixels' bytes
 * when `inside`, else each pixel clamped to the row.  The 4-channel forms
 * split the pixels into channels with byte permutes. */
template <typename IN, int CH>
__device__ __forceinline__ void
mma_load4 (const MmaArgs &a, const IN *src, int c0, int col, bool inside, __half2 (&h)[2 * CH])
{
  if constexpr (sizeof (IN) == 1 && CH == 1)
    {
      unsigned q;
      if (inside)
        q = *(const unsigned *) (src + c0 + col);
      else
        {
          q = 0;
#pragma unroll
          for (int j = 0; j < 4; j++)
            q |= (unsigned) src[clampi (c0 + col + j, 0, a.in_cols - 1)] << (8 * j);
        }
      mma_bytes_to_half (q, h[0], h[1]);
    }
  else if constexpr (sizeof (IN) == 1)
    mma_load4_rgba8 (a, src, c0, col, inside, h);
  else if constexpr (CH == 1)
    {
      if (inside)
        {
          uint2 q = *(const uint2 *) (src + c0 + col);
          h[0] = *(__half2 *) &q.x;
          h[1] = *(__half2 *) &q.y;
        }
      else
        {
          h[0] = __halves2half2 (src[clampi (c0 + col, 0, a.in_cols - 1)],
                                 src[clampi (c0 + col + 1, 0, a.in_cols - 1)]);
          h[1] = __halves2half2 (src[clampi (c0 + col + 2, 0, a.in_cols - 1)],
                                 src[clampi (c0 + col + 3, 0, a.in_cols - 1)]);
        }
    }
  else
    mma_load4_rgba16<IN> (a, src, c0, col, inside, h);
}
/* The input tile as fp16, edge columns and rows clamped: tile row
 * CH row + c is channel c of image row y0 / CH + row (y0 counts tile rows).
 * 4 pixels per thread, one load each when the block lies inside the row. */
template <typename IN, int CH>
__device__ __forceinline__ void
mma_load_tile (const MmaArgs &a, int y0, int c0, int tile_cols, int stride, __half *tile)
{
  const bool inside = a.in_quads && c0 >= 0 && c0 + tile_cols <= a.in_cols;   /* block-uniform */
  for (int i = threadIdx.x; i < MMA_ROWS / CH * tile_cols / 4; i += MMA_THREADS)
    {
      const int row = i / (tile_cols / 4), col = 4 * (i % (tile_cols / 4));
      const IN *src = (const IN *) (a.in + (size_t) min (y0 / CH + row, a.in_rows - 1) * a.in_pitch);
      __half2   h[2 * CH];
      mma_load4<IN, CH> (a, src, c0, col, inside, h);
#pragma unroll
      for (int c = 0; c < CH; c++)
        {
          __half2 *t = (__half2 *) (tile + (CH * row + c) * stride + col);
          t[0] = h[2 * c];
          t[1] = h[2 * c + 1];
        }
    }
}

/* The warp's 16 rows x 64 outputs: acc[nb] is output block nb (8 columns). */
__device__ __forceinline__ void
mma_sweep (const MmaArgs &a, const __half *tile, int stride, const uint2 *frag, int wrow, int wcol, int lane,
           float (&acc)[8][4])
{
#pragma unroll
  for (int nb = 0; nb < 8; nb++)
#pragma unroll
    for (int i = 0; i < 4; i++)
      acc[nb][i] = 0.0f;
  /* ldmatrix: lane l gives row l % 8 (+8 for matrices 1, 3), column +8 for 2, 3 */
  const __half *arow = tile + (16 * wrow + (lane & 7) + ((lane >> 3) & 1) * 8) * stride + (lane >> 4) * 8
                       + 64 * wcol;
  for (int kt = 0; kt < a.ktiles; kt++)
    {
      unsigned afr[4];
      mma_ldmatrix_x4 (afr, arow + 16 * kt);
#pragma unroll
      for (int nb = 0; nb < 8; nb++)
        {
          const int m = 2 * kt - nb + 1;              /* d = 16 kt - 8 nb + r - ra */
          if (m >= 0 && m < a.nfrag)
            {
              const uint2 b = frag[m * 32 + lane];
              mma_16816 (acc[nb], afr, b.x, b.y);
            }
        }
    }
}

/* Stage transposed: output column o, input row y -> stage[o][y]. */
template <typename OUT>
__device__ __forceinline__ void
mma_stage_transposed (const float (&acc)[8][4], int wrow, int wcol, int lane, OUT *stage)
{
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int nb = 0; nb < 8; nb++)
#pragma unroll
    for (int i = 0; i < 4; i++)
      {
        const int o = 64 * wcol + 8 * nb + 2 * t + (i & 1), y = 16 * wrow + g + 8 * (i >> 1);
        if constexpr (sizeof (OUT) == 1)
          stage[o * MMA_SP + y] = (OUT) __float2uint_rn (fminf (fmaxf (acc[nb][i], 0.0f), 255.0f));
        else
          stage[o * MMA_SP + y] = __float2half_rn (acc[nb][i]);
      }
}

/* Store: 4 samples of an output row per thread (an output row holds
 * in_rows * CH samples, tile row y at y0 + y). */
template <typename OUT, int CH>
__device__ __forceinline__ void
mma_store (const MmaArgs &a, int o0, int y0, const OUT *stage)
{
  const int samples = a.in_rows * CH;

  for (int i = threadIdx.x; i < MMA_COLS * MMA_ROWS / 4; i += MMA_THREADS)
    {
      const int o = i / (MMA_ROWS / 4), y = 4 * (i % (MMA_ROWS / 4));
      if (o0 + o >= a.out_cols || y0 + y >= samples)
        continue;
      OUT       *out = (OUT *) (a.out + (size_t) (o0 + o) * a.out_pitch) + y0 + y;
      const OUT *st = stage + o * MMA_SP + y;
      if (a.out_quads && y0 + y + 4 <= samples)
        {
          if constexpr (sizeof (OUT) == 1)
            *(unsigned *) out = *(const unsigned *) st;
          else
            *(uint2 *) out = *(const uint2 *) st;
        }
      else
        for (int j = 0; j < 4 && y0 + y + j < samples; j++)
          out[j] = st[j];
    }
}

template <typename IN, typename OUT, int CH>
__global__ void __launch_bounds__ (MMA_THREADS)
mma_rows_transposed (const GRID_CONSTANT MmaArgs a)
{
  extern __shared__ uint4 mma_smem[];
  const int tile_cols = a.ktiles * 16;
  const int stride = tile_cols + 8;                   /* halves; 16 x odd bytes: ldmatrix conflict-free */
  __half   *tile = (__half *) mma_smem;               /* MMA_ROWS x stride */
  uint2    *frag = (uint2 *) (tile + MMA_ROWS * stride);            /* nfrag x 32 */
  OUT      *stage = (OUT *) (frag + a.nfrag * 32);    /* MMA_COLS x MMA_SP */
  const int o0 = blockIdx.x * MMA_COLS;               /* first output column */
  const int y0 = blockIdx.y * MMA_ROWS;               /* first tile row: (row, channel) CH y + c */
  const int c0 = o0 + a.col_offset - a.ra;            /* input column of tile column 0 */

  mma_build_band (a, frag);
  mma_load_tile<IN, CH> (a, y0, c0, tile_cols, stride, tile);
  __syncthreads ();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wrow = warp % MMA_WARP_ROWS, wcol = warp / MMA_WARP_ROWS;
  float     acc[8][4];
  mma_sweep (a, tile, stride, frag, wrow, wcol, lane, acc);
  mma_stage_transposed<OUT> (acc, wrow, wcol, lane, stage);
  __syncthreads ();
  mma_store<OUT, CH> (a, o0, y0, stage);
}

/* ---- launching ---- */

template <typename IN, typename OUT, int CH>
static cudaError_t
launch_mma_pass (MmaArgs &a, cudaStream_t stream)
{
  /* 4 pixels per load: 16-byte loads for RGBA (two of them for fp16) */
  const size_t load_align = CH == 1 ? 4 * sizeof (IN) : 16;

  a.ra = (a.r + 7) & ~7;
  a.ktiles = (MMA_COLS + 2 * a.ra + 15) / 16;
  a.nfrag = (2 * a.r + 7 - (a.r - a.ra - 8)) / 8 + 1;
  a.in_quads = ((uintptr_t) a.in + (size_t) a.col_offset * CH * sizeof (IN) | a.in_pitch) % load_align == 0;
  a.out_quads = ((uintptr_t) a.out | a.out_pitch) % (4 * sizeof (OUT)) == 0;
  size_t bytes = (size_t) MMA_ROWS * (a.ktiles * 16 + 8) * 2 + (size_t) a.nfrag * 32 * 8
                 + (size_t) MMA_COLS * MMA_SP * sizeof (OUT);
  bytes = (bytes + 15) & ~(size_t) 15;
  dim3 grid ((a.out_cols + MMA_COLS - 1) / MMA_COLS, (a.in_rows * CH + MMA_ROWS - 1) / MMA_ROWS);
  return launch_with_smem<mma_rows_transposed<IN, OUT, CH>> (grid, MMA_THREADS, bytes, stream, a);
}

/* Both passes for one tile: rows of the region into the intermediate (t.mid,
 * as fp16), then its rows (the image's columns) into t.dst. */
template <int CH>
static cudaError_t
launch_mma_passes (const cuda_tile &t, cudaStream_t stream)
{
  const size_t mid_pitch = ((size_t) t.rect.reg_h * CH * 2 + 15) & ~(size_t) 15;
  /* The same taps on both axes only (so rx == ry): both passes
   * use wx and rx. */
  if (!tile_same_taps (t) || t.rx > MMA_MAX_RADIUS || (size_t) t.rect.out_w * mid_pitch > t.mid_bytes)
    return cudaErrorNotSupported;
  MmaArgs a;
  memset (&a, 0, sizeof a);
  a.in = t.src;
  a.in_pitch = t.src_pitch;
  a.in_rows = t.rect.reg_h;
  a.in_cols = t.rect.reg_w;
  a.col_offset = t.rect.out_x0 - t.rect.reg_x0;
  a.out_cols = t.rect.out_w;
  a.out = (unsigned char *) t.mid;
  a.out_pitch = mid_pitch;
  a.w = t.wx;
  a.r = t.rx;
  cudaError_t e = launch_mma_pass<unsigned char, __half, CH> (a, stream);
  if (e != cudaSuccess)
    return e;
  a.in = (const unsigned char *) t.mid;
  a.in_pitch = mid_pitch;
  a.in_rows = t.rect.out_w;
  a.in_cols = t.rect.reg_h;
  a.col_offset = t.rect.out_y0 - t.rect.reg_y0;
  a.out_cols = t.rect.out_h;
  a.out = t.dst;
  a.out_pitch = t.dst_pitch;
  return launch_mma_pass<__half, unsigned char, CH> (a, stream);
}

cudaError_t
launch_mma (const cuda_tile &t, int channels, cudaStream_t stream)
{
  switch (channels)
    {
    case 1:  return launch_mma_passes<1> (t, stream);
    case 4:  return launch_mma_passes<4> (t, stream);
    default: return cudaErrorNotSupported;
    }
}
