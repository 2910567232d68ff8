/* 8-bit gray at small radii (1..MMA_SMALL_MAX_RADIUS) in one pass on the
 * tensor cores.
 *
 * One idea: both 1-D blurs are mma.m16n8k16 products, and the vertical
 * pass's results are already the horizontal pass's operands, so the
 * intermediate never leaves the registers.  A warp makes 16 output rows by
 * 64 columns:
 *   vertical:   V[16 rows x 8 cols] = Av[16 x 32] * X[32 input rows x 8 cols],
 *               Av[y][k] = tap(k - 8 - y), X from the block's fp16 tile
 *               (ldmatrix .trans); ten such column blocks, from 8 columns
 *               left of the warp's outputs to 8 right of them;
 *   horizontal: O[16 x 8] = [V blocks n, n+1, n+2 as fp16] * Bh[32 x 8],
 *               Bh[j][x] = tap(j - 8 - x): the accumulators of two
 *               neighbouring V blocks, packed to fp16 pairs, are exactly an
 *               A fragment (mma.cuh).
 * The block stages its input rows once as fp16 (16-byte loads, 80 rows of
 * 160 columns for a 64 x 128 tile) and its 8-bit results in shared memory,
 * then stores them 16 bytes at a time.  Every word of both band matrices'
 * fragments is a pair of neighbouring taps: each block puts the pairs in
 * shared memory (kernel parameters indexed by lane would be read one lane
 * at a time).  Samples go in as 1024 + b, exact in fp16 with one byte
 * permute, and the vertical sums start at -1024 times the sum of the taps.
 * That is about half the instructions of the FP32 kernel (kernels-gray.cu)
 * at radius 3, and the same work at every radius up to 8.
 * Exactness as in kernels-mma.cu: u8 is exact in fp16, the fp16 taps are off
 * by at most 2^-12 of each (0.063 levels a pass; the offset is the exact sum
 * of the same fp16 taps), the fp16 intermediate by at most 0.125 (past 256):
 * under 0.26 levels, sums in fp32 (near 1280: steps of 2^-13). */
#include "device-common.cuh"
#include "launchers.cuh"
#include "mma.cuh"

#include <stdint.h>
#include <string.h>

#define SM_WARP_ROWS 4                        /* warps down the tile */
#define SM_WARP_COLS 2                        /* warps across it */
#define SM_THREADS   (32 * SM_WARP_ROWS * SM_WARP_COLS)
#define SM_TH        (16 * SM_WARP_ROWS)      /* 64 output rows */
#define SM_TW        (64 * SM_WARP_COLS)      /* 128 output columns */
#define SM_VBLOCKS   10                       /* V column blocks of a warp: its 8 output blocks + 2 */
#define SM_IN_ROWS   (SM_TH + 16)             /* input rows from 8 above the tile */
#define SM_IN_COLS   (SM_TW + 32)             /* input columns from 16 left of it: 16-byte loads */
#define SM_CHUNKS    (SM_IN_COLS / 16)        /* 16-byte loads a row */
#define SM_TILE_S    (2 * SM_IN_COLS + 16)    /* bytes a tile row (fp16): 16 x odd, ldmatrix conflict-free */
#define SM_STAGE_S   (SM_TW + 16)             /* staged bytes a row: 16-byte aligned, 16-bit stores conflict-free */

/* Byte offset in a tile row of its 8-column block cb: the low halves of
 * the 16-column loads first, then the high halves, so that neighbouring
 * lanes store neighbouring 16 bytes. */
__device__ constexpr int
mma_small_block_offset (int cb)
{
  return (cb % 2) * SM_CHUNKS * 16 + (cb / 2) * 16;
}

/* Tile row i (image row by0 - 8 + i, clamped to the region) as fp16 1024 +
 * sample, from region column col0 on: one 16-byte load per chunk inside the region,
 * bytes clamped to it at its edges.  Loads first, so they are in flight
 * together. */
__device__ __forceinline__ void
mma_small_load (const cuda_tile &t, int by0, int col0, unsigned char *tile)
{
  constexpr int N = (SM_IN_ROWS * SM_CHUNKS + SM_THREADS - 1) / SM_THREADS;
  uint4 q[N];
#pragma unroll
  for (int n = 0; n < N; n++)
    {
      const int c = threadIdx.x + n * SM_THREADS, i = min (c / SM_CHUNKS, SM_IN_ROWS - 1);
      const int col = col0 + 16 * (c % SM_CHUNKS);
      const unsigned char *row = t.src + tile_row_offset (t, by0 - 8 + i);
      if (col >= 0 && col + 16 <= t.rect.reg_w)
        q[n] = __ldg ((const uint4 *) (row + col));
      else
        {
          unsigned w[4] = { 0, 0, 0, 0 };
#pragma unroll
          for (int b = 0; b < 16; b++)
            w[b / 4] |= (unsigned) row[clampi (col + b, 0, t.rect.reg_w - 1)] << (8 * (b % 4));
          q[n] = make_uint4 (w[0], w[1], w[2], w[3]);
        }
    }
#pragma unroll
  for (int n = 0; n < N; n++)
    {
      const int c = threadIdx.x + n * SM_THREADS;
      if (c >= SM_IN_ROWS * SM_CHUNKS)
        break;
      const uint2    x = mma_bytes_plus_1024 (q[n].x), y = mma_bytes_plus_1024 (q[n].y);
      const uint2    z = mma_bytes_plus_1024 (q[n].z), w = mma_bytes_plus_1024 (q[n].w);
      unsigned char *row = tile + (c / SM_CHUNKS) * SM_TILE_S;
      *(uint4 *) (row + mma_small_block_offset (2 * (c % SM_CHUNKS))) = make_uint4 (x.x, x.y, y.x, y.y);
      *(uint4 *) (row + mma_small_block_offset (2 * (c % SM_CHUNKS) + 1)) = make_uint4 (z.x, z.y, w.x, w.y);
    }
}

/* pairs[j] = the fp16 taps (tap(j - 24), tap(j - 23)), j 0..SM_PAIRS - 1:
 * every word of both band matrices' fragments is one of them. */
#define SM_PAIRS 48
__device__ __forceinline__ void
mma_small_tap_pairs (const cuda_tile &t, unsigned *pairs)
{
  if (threadIdx.x < SM_PAIRS)
    pairs[threadIdx.x] = mma_pack (mma_band_tap (t.wx, t.rx, threadIdx.x - 24),
                                   mma_band_tap (t.wx, t.rx, threadIdx.x - 23));
}

/* The warp's 16 x 64 outputs, rounded to bytes, into the stage.  The
 * samples in the tile are 1024 higher: the vertical sums start at
 * -offset = -1024 times the sum of the fp16 taps. */
__device__ __forceinline__ void
mma_small_warp (const unsigned char *tile, const unsigned *pairs, float offset, int wr, int wc, int lane,
                unsigned char *stage)
{
  const int g = lane / 4, t = lane % 4;
  /* Av[y][k] = tap(k - 8 - y), k 0..15 (a0) and 16..31 (a1); Bh[j][x] =
   * tap(j - 8 - x), j 0..15 and 16..31 (the layouts in mma.cuh) */
  const unsigned *p = pairs + 24 + 2 * t - 8 - g;
  const unsigned  a0[4] = { p[0], p[-8], p[8], p[0] }, a1[4] = { p[16], p[8], p[24], p[16] };
  const unsigned  bh[4] = { p[0], p[8], p[16], p[24] };
  /* lane l gives row l of the 32 input rows (matrix l / 8, its row l % 8);
   * the warp's V block m is the tile's column block 1 + 8 wc + m */
  const unsigned char *xrow = tile + (16 * wr + lane) * SM_TILE_S + 4 * wc * 16;
  unsigned char       *row = stage + (16 * wr + g) * SM_STAGE_S + 64 * wc + 2 * t;
  unsigned             v[SM_VBLOCKS][2];          /* V block m: rows g, g + 8 as fp16 pairs */

  /* Output block n takes V blocks n..n+2: made as soon as they are, so
   * only three are live at a time. */
#pragma unroll
  for (int m = 0; m < SM_VBLOCKS; m++)
    {
      unsigned b[4];
      float    d[4] = { -offset, -offset, -offset, -offset };
      mma_ldmatrix_x4_trans (b, xrow + mma_small_block_offset (1 + m));
      mma_16816 (d, a0, b[0], b[1]);
      mma_16816 (d, a1, b[2], b[3]);
      v[m][0] = mma_pack (d[0], d[1]);
      v[m][1] = mma_pack (d[2], d[3]);
      if (m < 2)
        continue;
      const int n = m - 2;
      /* j 24..31 have zero taps: V block n + 2 again stands in for n + 3 */
      const unsigned lo[4] = { v[n][0], v[n][1], v[n + 1][0], v[n + 1][1] };
      const unsigned hi[4] = { v[n + 2][0], v[n + 2][1], v[n + 2][0], v[n + 2][1] };
      float          o[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
      mma_16816 (o, lo, bh[0], bh[1]);
      mma_16816 (o, hi, bh[2], bh[3]);
      *(unsigned short *) (row + 8 * n) = (unsigned short) __byte_perm (u8_round_bits (o[0]), u8_round_bits (o[1]), 0x0040);
      *(unsigned short *) (row + 8 * SM_STAGE_S + 8 * n)
        = (unsigned short) __byte_perm (u8_round_bits (o[2]), u8_round_bits (o[3]), 0x0040);
    }
}

/* The staged tile to dst, 16 bytes at a time (dst and its pitch are
 * 16-byte aligned). */
__device__ __forceinline__ void
mma_small_store (const cuda_tile &t, int bx0, int by0, const unsigned char *stage)
{
  for (int c = threadIdx.x; c < SM_TH * SM_TW / 16; c += SM_THREADS)
    {
      const int y = c / (SM_TW / 16), x = 16 * (c % (SM_TW / 16));
      const int oy = by0 + y - t.rect.out_y0, ox = bx0 + x - t.rect.out_x0;
      if (oy >= t.rect.out_h || ox >= t.rect.out_w)
        continue;
      const uint4    q = *(const uint4 *) (stage + y * SM_STAGE_S + x);
      unsigned char *out = t.dst + (size_t) oy * t.dst_pitch + ox;
      if (ox + 16 <= t.rect.out_w)
        *(uint4 *) out = q;
      else
        for (int j = 0; ox + j < t.rect.out_w; j++)
          out[j] = stage[y * SM_STAGE_S + x + j];
    }
}

/* 5 blocks an SM: 48 registers, no spills, faster than 4 blocks with more
 * registers (docs/performance.md).  An sm_75 SM holds only 4 (1024
 * threads); it runs the stub. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define SM_MIN_BLOCKS 4
#else
#define SM_MIN_BLOCKS 5
#endif
__global__ void __launch_bounds__ (SM_THREADS, SM_MIN_BLOCKS)
mma_small_tile (const GRID_CONSTANT cuda_tile t, float offset)
{
  __shared__ __align__ (16) unsigned char tile[SM_IN_ROWS * SM_TILE_S];   /* fp16 */
  __shared__ __align__ (16) unsigned char stage[SM_TH * SM_STAGE_S];
  __shared__ unsigned                     pairs[SM_PAIRS];
  const int bx0 = t.rect.out_x0 + blockIdx.x * SM_TW;   /* image column of output 0 */
  const int by0 = t.rect.out_y0 + blockIdx.y * SM_TH;
  const int warp = threadIdx.x / 32;

  mma_small_tap_pairs (t, pairs);
  mma_small_load (t, by0, bx0 - 16 - t.rect.reg_x0, tile);
  __syncthreads ();
  mma_small_warp (tile, pairs, offset, warp % SM_WARP_ROWS, warp / SM_WARP_ROWS, threadIdx.x % 32, stage);
  __syncthreads ();
  mma_small_store (t, bx0, by0, stage);
}

/* ---- launching ---- */

cudaError_t
launch_mma_small (const cuda_tile &t, const float *host_weights, cudaStream_t stream)
{
  /* the 16-byte loads start 16 columns left of each block's outputs */
  const uintptr_t first_load = (uintptr_t) t.src + (uintptr_t) (t.rect.out_x0 - t.rect.reg_x0);
  double          taps = 0;

  if (!tile_same_taps (t) || t.rx < 1 || t.rx > MMA_SMALL_MAX_RADIUS
      || (first_load | t.src_pitch | (uintptr_t) t.dst | t.dst_pitch) % 16 != 0)
    return cudaErrorNotSupported;
  for (int i = -t.rx; i <= t.rx; i++)     /* the taps as the tensor cores see them */
    taps += __half2float (__float2half_rn (host_weights[i < 0 ? -i : i]));
  dim3 grid ((t.rect.out_w + SM_TW - 1) / SM_TW, (t.rect.out_h + SM_TH - 1) / SM_TH);
  mma_small_tile<<<grid, SM_THREADS, 0, stream>>> (t, (float) (1024.0 * taps));
  return cudaGetLastError ();
}
