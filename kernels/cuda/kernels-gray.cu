/* One-channel kernels: u8 (optionally in linear light) and float.
 *
 * One idea: both passes are straight runs of FMAs on registers whose taps come
 * from the kernel's parameters (the constant bank), and the float
 * intermediate stays in shared memory.  A block makes a TW x TH tile:
 *   1. vertical: each thread walks 4 columns of the (TW + 2r)-wide strip down
 *      SEG output rows, reading each input sample once and adding it into
 *      the SEG sums it belongs to; the sums go to shared memory;
 *   2. horizontal: each thread makes 8 consecutive outputs of one row
 *      (neighbouring lanes take neighbouring rows of an odd stride: no bank
 *      conflicts), converts them and stages them in shared memory;
 *   3. the staged tile is stored coalesced.
 * Radii up to GRAY_EXACT_RADIUS are compiled one by one and unroll fully, so
 * every tap is a constant operand.  Larger ones (up to GRAY_MAX_RADIUS) run
 * in blocks of 8 inputs x 8 outputs with a window of 15 taps in registers;
 * their radius is padded to a multiple of 4 with zero taps.  u8 at radii up
 * to GRAY_EXACT_RADIUS has its own kernel, gray_tile_small (below). */
#include "device-common.cuh"
#include "launchers.cuh"

#include <stdint.h>
#include <string.h>

#define GRAY_THREADS      256
#define GRAY_SEG          8     /* output rows per vertical work item */
#define GRAY_PAD          7     /* zero taps before tap 0 (and after the last) */

struct GrayArgs {
  cuda_tile t;
  int       rp;                      /* padded radius: taps run 0..2rp */
  int       word_stores;             /* dst and dst_pitch allow 4-byte stores */
  /* tap k (0..2rp, centre rp) is wt[GRAY_PAD + k]; zero around them */
  float     wt[2 * GRAY_MAX_RADIUS + 1 + 2 * GRAY_PAD + 8];
};

/* RB: the radius compiled in, or 0 for a radius known at run time. */
template <int RB>
struct GrayShape {
  static constexpr int G = RB > 0 ? 32 : 128;                        /* threads per row group */
  static constexpr int STRIP = 4 * G;                                 /* strip columns */
  static constexpr int TH = GRAY_THREADS / G * GRAY_SEG;              /* output rows */
  static constexpr int S = STRIP + 1;                                 /* odd float stride */
  /* outputs per row, a multiple of 8 */
  static __host__ __device__ int tw (int rp) { return STRIP - 2 * ((rp + 3) & ~3); }
  static constexpr int TW_MAX = STRIP - 8;
};

/* The staged results of a row: u8 as words of 4 outputs, float as words of
 * 1; an odd word stride. */
template <typename T, int RB>
constexpr int gray_stage_w = sizeof (T) == 1 ? ((GrayShape<RB>::TW_MAX / 4) | 1) : (GrayShape<RB>::TW_MAX | 1);

/* Samples as floats: u8 as 0..255, or linear light 0..1 (LINEAR). */
template <typename T, bool LINEAR>
__device__ __forceinline__ float
gray_load (const unsigned char *row, int col, const float *lut)
{
  if constexpr (sizeof (T) == 4)
    return __ldg ((const float *) row + col);
  else if constexpr (LINEAR)
    return lut[row[col]];
  else
    return u8_to_float (row[col]);
}

template <bool LINEAR>
__device__ __forceinline__ unsigned
gray_encode_u8 (const float *threshold, float v)
{
  if constexpr (LINEAR)
    return srgb_encode_u8 (threshold, v);
  else
    return (unsigned) (fminf (fmaxf (v, 0.0f), 255.0f) + 0.5f);
}

/* The sRGB decoding table into shared memory (u8 in linear light). */
__device__ __forceinline__ void
gray_load_lut (const cuda_tile &t, float *lut)
{
  for (int i = threadIdx.x; i < 256; i += GRAY_THREADS)
    lut[i] = __ldg (&t.decode_u8[i]);
  __syncthreads ();
}

/* acc[j] += tap(k0 + u - j) * v[u] for u, j in 0..7: one block of 8 inputs
 * starting at input k0 into 8 outputs; 15 taps cover it. */
template <int NC>
__device__ __forceinline__ void
gray_block8 (const GrayArgs &a, int k0, const float (&v)[8][NC], float (&acc)[8][NC])
{
  float tap[15];
#pragma unroll
  for (int q = 0; q < 15; q++)
    tap[q] = a.wt[k0 + q];            /* tap(k0 - 7 + q) */
#pragma unroll
  for (int u = 0; u < 8; u++)
#pragma unroll
    for (int j = 0; j < 8; j++)
#pragma unroll
      for (int c = 0; c < NC; c++)
        acc[j][c] = fmaf (tap[u - j + 7], v[u][c], acc[j][c]);
}

/* 1. Vertical.  Thread (g, seg) takes strip columns g, g+G, g+2G, g+3G
 * (lanes read neighbouring samples, and store neighbouring words). */
template <typename T, bool LINEAR, int RB>
__device__ __forceinline__ void
gray_vertical (const GrayArgs &a, int rp, int bx0, int by0, const float *lut, float *mid)
{
  using Shape = GrayShape<RB>;
  constexpr int G = Shape::G, S = Shape::S, SEG = GRAY_SEG;
  const cuda_tile &t = a.t;
  const int g = threadIdx.x % G, seg = threadIdx.x / G;
  const unsigned char *col[4];
#pragma unroll
  for (int c = 0; c < 4; c++)
    col[c] = t.src + (size_t) (clampi (bx0 - rp + g + c * G, t.rect.reg_x0, t.rect.reg_x0 + t.rect.reg_w - 1)
                               - t.rect.reg_x0) * sizeof (T);
  const int row0 = by0 + seg * SEG - rp;                /* image row of input 0 */
  float     acc[SEG][4];
  zero_sums (acc);
  if constexpr (RB > 0)
    {
#pragma unroll
      for (int i = 0; i < SEG + 2 * RB; i++)
        {
          const size_t off = tile_row_offset (t, row0 + i);
          float v[4];
#pragma unroll
          for (int c = 0; c < 4; c++)
            v[c] = gray_load<T, LINEAR> (col[c] + off, 0, lut);
#pragma unroll
          for (int j = 0; j < SEG; j++)
            if (i - j >= 0 && i - j <= 2 * RB)
#pragma unroll
              for (int c = 0; c < 4; c++)
                acc[j][c] = fmaf (a.wt[GRAY_PAD + i - j], v[c], acc[j][c]);
        }
    }
  else
    {
      static_assert (SEG == 8, "blocks of 8 rows");
      for (int i0 = 0; i0 < SEG + 2 * rp; i0 += 8)
        {
          float v[8][4];
#pragma unroll
          for (int u = 0; u < 8; u++)
            {
              const size_t off = tile_row_offset (t, row0 + i0 + u);
#pragma unroll
              for (int c = 0; c < 4; c++)
                v[u][c] = gray_load<T, LINEAR> (col[c] + off, 0, lut);
            }
          gray_block8<4> (a, i0, v, acc);
        }
    }
#pragma unroll
  for (int j = 0; j < SEG; j++)
#pragma unroll
    for (int c = 0; c < 4; c++)
      mid[(seg * SEG + j) * S + g + c * G] = acc[j][c];
}

/* The 8 sums of one horizontal item: outputs 8q..8q+7 of a row, from `in`. */
template <int RB>
__device__ __forceinline__ void
gray_row_sums (const GrayArgs &a, int rp, const float *in, float (&acc)[8][1])
{
#pragma unroll
  for (int j = 0; j < 8; j++)
    acc[j][0] = 0.0f;
  if constexpr (RB > 0)
    {
#pragma unroll
      for (int k = 0; k < 8 + 2 * RB; k++)
        {
          const float v = in[k];
#pragma unroll
          for (int j = 0; j < 8; j++)
            if (k - j >= 0 && k - j <= 2 * RB)
              acc[j][0] = fmaf (a.wt[GRAY_PAD + k - j], v, acc[j][0]);
        }
    }
  else
    for (int k0 = 0; k0 < 8 + 2 * rp; k0 += 8)
      {
        float v[8][1];
#pragma unroll
        for (int u = 0; u < 8; u++)
          v[u][0] = in[k0 + u];
        gray_block8<1> (a, k0, v, acc);
      }
}

/* 2. Horizontal: item (row y, outputs 8q..8q+7); lanes take rows.  The
 * results, converted, go to the stage. */
template <typename T, bool LINEAR, int RB>
__device__ __forceinline__ void
gray_horizontal (const GrayArgs &a, int rp, int tw, const float *mid, unsigned *stage)
{
  using Shape = GrayShape<RB>;
  constexpr int TH = Shape::TH, S = Shape::S, STAGE_W = gray_stage_w<T, RB>;
  for (int item = threadIdx.x; item < TH * (tw / 8); item += GRAY_THREADS)
    {
      const int    y = item % TH, q = item / TH;
      float        acc[8][1];
      gray_row_sums<RB> (a, rp, mid + y * S + 8 * q, acc);
      if constexpr (sizeof (T) == 1)
        {
          unsigned lo = 0, hi = 0;
#pragma unroll
          for (int j = 0; j < 4; j++)
            {
              lo |= gray_encode_u8<LINEAR> (a.t.encode_u8_threshold, acc[j][0]) << (8 * j);
              hi |= gray_encode_u8<LINEAR> (a.t.encode_u8_threshold, acc[j + 4][0]) << (8 * j);
            }
          stage[y * STAGE_W + 2 * q] = lo;
          stage[y * STAGE_W + 2 * q + 1] = hi;
        }
      else
        {
#pragma unroll
          for (int j = 0; j < 8; j++)
            stage[y * STAGE_W + 8 * q + j] = __float_as_uint (acc[j][0]);
        }
    }
}

/* 3. Store: consecutive threads take consecutive words of a row. */
template <typename T, int RB>
__device__ __forceinline__ void
gray_store (const GrayArgs &a, int tw, int bx0, int by0, const unsigned *stage)
{
  constexpr int TH = GrayShape<RB>::TH, STAGE_W = gray_stage_w<T, RB>;
  constexpr int PER_WORD = sizeof (T) == 1 ? 4 : 1;
  const cuda_tile &t = a.t;
  const int     words = tw / PER_WORD;
  for (int w = threadIdx.x; w < TH * words; w += GRAY_THREADS)
    {
      const int y = w / words, x = (w % words) * PER_WORD;
      const int oy = by0 + y - t.rect.out_y0, ox = bx0 + x - t.rect.out_x0;
      if (oy >= t.rect.out_h || ox >= t.rect.out_w)
        continue;
      unsigned       word = stage[y * STAGE_W + w % words];
      unsigned char *out = t.dst + (size_t) oy * t.dst_pitch + (size_t) ox * sizeof (T);
      if (sizeof (T) == 4 || (a.word_stores && ox + 4 <= t.rect.out_w))
        *(unsigned *) out = word;
      else
        for (int j = 0; j < 4 && ox + j < t.rect.out_w; j++)
          out[j] = (unsigned char) (word >> (8 * j));
    }
}

template <typename T, bool LINEAR, int RB>
__global__ void __launch_bounds__ (GRAY_THREADS)
gray_tile (const GRID_CONSTANT GrayArgs a)
{
  using Shape = GrayShape<RB>;
  constexpr int TH = Shape::TH, S = Shape::S, STAGE_W = gray_stage_w<T, RB>;
  extern __shared__ float smem[];
  float      *mid = smem;                                   /* TH x S */
  unsigned   *stage = (unsigned *) (mid + TH * S);          /* TH x STAGE_W */
  float      *lut = (float *) (stage + TH * STAGE_W);       /* 256, u8 linear only */
  const int   rp = RB > 0 ? RB : a.rp;
  const int   tw = Shape::tw (rp);
  const int   bx0 = a.t.rect.out_x0 + blockIdx.x * tw;      /* image column of output 0 */
  const int   by0 = a.t.rect.out_y0 + blockIdx.y * TH;

  if constexpr (sizeof (T) == 1 && LINEAR)
    gray_load_lut (a.t, lut);
  gray_vertical<T, LINEAR, RB> (a, rp, bx0, by0, lut, mid);
  __syncthreads ();
  gray_horizontal<T, LINEAR, RB> (a, rp, tw, mid, stage);
  __syncthreads ();
  gray_store<T, RB> (a, tw, bx0, by0, stage);
}

/* ---- radii 1..GRAY_EXACT_RADIUS: 8 columns per thread, every tap a constant ----
 *
 * Small radii are bound by instruction issue, not by the FMAs: each thread
 * takes 8 neighbouring columns (one 8-byte load per row for u8), the strip
 * starts 8 columns left of the tile so those loads stay aligned, the
 * horizontal pass reads shared memory 16 bytes at a time (a row stride of 4
 * mod 32 words keeps lanes on different rows free of bank conflicts), and
 * results are staged in shared memory and stored row by row.  u8 results round with
 * the 1.5 * 2^23 trick: the sums of non-negative taps over 0..255 need no
 * clamping. */

#define SMALL_G    32                       /* threads per row group */
#define SMALL_SEG  4                        /* output rows per vertical item */
#define SMALL_TH   (GRAY_THREADS / SMALL_G * SMALL_SEG)   /* 32 */
#define SMALL_TW   (8 * SMALL_G - 16)       /* 240 outputs per row */
#define SMALL_S    (8 * SMALL_G + 4)        /* float stride, 4 mod 32 */
#define SMALL_OUT_S (SMALL_TW + 8)          /* staged bytes per u8 row: 248, 2y mod 32 words apart */

/* staged bytes per row: u8 8 bytes at stride 248 (16 lanes of a wavefront on
 * distinct banks); float 32 bytes at stride 968 */
template <typename T>
constexpr int small_stage_row = sizeof (T) == 1 ? SMALL_OUT_S : 4 * SMALL_OUT_S - 24;

struct SmallArgs {
  cuda_tile t;
  int       vector_loads;            /* strips start on 8-sample boundaries in memory */
  int       vector_stores;           /* 8-output groups land on aligned addresses */
  float     w[GRAY_EXACT_RADIUS + 1];
};

template <typename T, bool LINEAR>
__device__ __forceinline__ void
small_load8 (const SmallArgs &a, const unsigned char *row, int col, bool fast, const float *lut, float (&v)[8])
{
  if (fast)
    {
      if constexpr (sizeof (T) == 4)
        {
          const float4 p = __ldg ((const float4 *) row + col / 4), q = __ldg ((const float4 *) row + col / 4 + 1);
          v[0] = p.x; v[1] = p.y; v[2] = p.z; v[3] = p.w;
          v[4] = q.x; v[5] = q.y; v[6] = q.z; v[7] = q.w;
        }
      else
        {
          const uint2 p = __ldg ((const uint2 *) (row + col));
#pragma unroll
          for (int i = 0; i < 8; i++)
            {
              unsigned word = i < 4 ? p.x : p.y;
              if constexpr (LINEAR)
                v[i] = lut[(word >> (8 * (i & 3))) & 255];
              else
                v[i] = u8_byte_to_float (word, i & 3);
            }
        }
    }
  else
#pragma unroll
    for (int i = 0; i < 8; i++)
      v[i] = gray_load<T, LINEAR> (row, clampi (col + i, 0, a.t.rect.reg_w - 1), lut);
}

/* acc[j] += the taps of input row i (0..SEG + 2R - 1) for output row j. */
template <int R>
__device__ __forceinline__ void
small_add_row (const SmallArgs &a, int i, const float (&v)[8], float (&acc)[SMALL_SEG][8])
{
#pragma unroll
  for (int j = 0; j < SMALL_SEG; j++)
    if (i - j >= 0 && i - j <= 2 * R)
#pragma unroll
      for (int c = 0; c < 8; c++)
        acc[j][c] = fmaf (a.w[i - j < R ? R - (i - j) : i - j - R], v[c], acc[j][c]);
}

/* The vertical sums of strip columns col..col+7 from image row row0 on.
 * INTERIOR: the block's rows and strip lie inside the region, aligned, so
 * the loop has no branch and its loads can all be in flight at once. */
template <typename T, bool LINEAR, int R, bool INTERIOR>
__device__ __forceinline__ void
small_vertical_sums (const SmallArgs &a, int row0, int col, bool fast, const float *lut,
                     float (&acc)[SMALL_SEG][8])
{
  const unsigned char *first = INTERIOR ? a.t.src + (size_t) (row0 - a.t.rect.reg_y0) * a.t.src_pitch : a.t.src;
#pragma unroll
  for (int i = 0; i < SMALL_SEG + 2 * R; i++)
    {
      const unsigned char *row = INTERIOR ? first + (size_t) i * a.t.src_pitch
                                          : a.t.src + tile_row_offset (a.t, row0 + i);
      float v[8];
      small_load8<T, LINEAR> (a, row, col, INTERIOR || fast, lut, v);
      small_add_row<R> (a, i, v, acc);
    }
}

/* 1. Vertical: thread (g, seg) makes strip columns 8g..8g+7, rows seg*SEG.. */
template <typename T, bool LINEAR, int R>
__device__ __forceinline__ void
small_vertical (const SmallArgs &a, int by0, int strip0, const float *lut, float *mid)
{
  constexpr int SEG = SMALL_SEG, S = SMALL_S;
  const int  g = threadIdx.x % SMALL_G, seg = threadIdx.x / SMALL_G;
  const bool fast = a.vector_loads && strip0 >= 0 && strip0 + 8 * SMALL_G <= a.t.rect.reg_w;   /* block-uniform */
  const bool interior = fast && by0 - R >= a.t.rect.reg_y0
                        && by0 + SMALL_TH + R <= a.t.rect.reg_y0 + a.t.rect.reg_h;
  const int  row0 = by0 + seg * SEG - R;
  float      acc[SEG][8];
#pragma unroll
  for (int j = 0; j < SEG; j++)
#pragma unroll
    for (int c = 0; c < 8; c++)
      acc[j][c] = 0.0f;
  if (interior)
    small_vertical_sums<T, LINEAR, R, true> (a, row0, strip0 + 8 * g, fast, lut, acc);
  else
    small_vertical_sums<T, LINEAR, R, false> (a, row0, strip0 + 8 * g, fast, lut, acc);
#pragma unroll
  for (int j = 0; j < SEG; j++)
    {
      float4 *m = (float4 *) (mid + (seg * SEG + j) * S + 8 * g);
      m[0] = make_float4 (acc[j][0], acc[j][1], acc[j][2], acc[j][3]);
      m[1] = make_float4 (acc[j][4], acc[j][5], acc[j][6], acc[j][7]);
    }
}

/* 8 results, converted, to the stage at `st`. */
template <typename T, bool LINEAR>
__device__ __forceinline__ void
small_stage8 (const SmallArgs &a, const float (&acc)[8], unsigned char *st)
{
  if constexpr (sizeof (T) == 4)
    {
      ((float2 *) st)[0] = make_float2 (acc[0], acc[1]);
      ((float2 *) st)[1] = make_float2 (acc[2], acc[3]);
      ((float2 *) st)[2] = make_float2 (acc[4], acc[5]);
      ((float2 *) st)[3] = make_float2 (acc[6], acc[7]);
    }
  else
    {
      unsigned b[8];
#pragma unroll
      for (int j = 0; j < 8; j++)
        if constexpr (LINEAR)
          b[j] = gray_encode_u8<true> (a.t.encode_u8_threshold, acc[j]);
        else
          b[j] = u8_round_bits (acc[j]);
      *(uint2 *) st = make_uint2 (pack_low_bytes (b[0], b[1], b[2], b[3]), pack_low_bytes (b[4], b[5], b[6], b[7]));
    }
}

/* 2. Horizontal: item (row y, outputs 8q..8q+7); lanes take rows.  Output
 * x reads strip columns x + 8 - R .. x + 8 + R. */
template <typename T, bool LINEAR, int R>
__device__ __forceinline__ void
small_horizontal (const SmallArgs &a, const float *mid, unsigned char *stage)
{
  constexpr int TH = SMALL_TH, TW = SMALL_TW, S = SMALL_S;
  constexpr int OFF = 8 - R, LEAD = OFF & 3, NV = (LEAD + 8 + 2 * R + 3) / 4;
  for (int item = threadIdx.x; item < TH * (TW / 8); item += GRAY_THREADS)
    {
      const int     y = item % TH, q = item / TH;
      const float4 *in = (const float4 *) (mid + y * S + 8 * q + (OFF & ~3));
      float         v[4 * NV];
#pragma unroll
      for (int n = 0; n < NV; n++)
        {
          float4 p = in[n];
          v[4 * n] = p.x; v[4 * n + 1] = p.y; v[4 * n + 2] = p.z; v[4 * n + 3] = p.w;
        }
      float acc[8];
#pragma unroll
      for (int j = 0; j < 8; j++)
        {
          acc[j] = 0.0f;
#pragma unroll
          for (int k = 0; k <= 2 * R; k++)
            acc[j] = fmaf (a.w[k < R ? R - k : k - R], v[LEAD + j + k], acc[j]);
        }
      small_stage8<T, LINEAR> (a, acc, stage + y * small_stage_row<T> + 8 * q * sizeof (T));
    }
}

/* 3. Store: consecutive threads take consecutive 8-byte pieces of a row. */
template <typename T>
__device__ __forceinline__ void
small_store (const SmallArgs &a, int bx0, int by0, const unsigned char *stage)
{
  constexpr int ROW_S = small_stage_row<T>;
  constexpr int PIECES = SMALL_TW * sizeof (T) / 8;
  const cuda_tile &t = a.t;
  for (int p = threadIdx.x; p < SMALL_TH * PIECES; p += GRAY_THREADS)
    {
      const int y = p / PIECES, x = (p % PIECES) * 8 / (int) sizeof (T);
      const int oy = by0 + y - t.rect.out_y0, ox = bx0 + x - t.rect.out_x0;
      if (oy >= t.rect.out_h || ox >= t.rect.out_w)
        continue;
      const uint2    piece = *(const uint2 *) (stage + y * ROW_S + (p % PIECES) * 8);
      unsigned char *out = t.dst + (size_t) oy * t.dst_pitch + (size_t) ox * sizeof (T);
      if (a.vector_stores && ox + 8 / (int) sizeof (T) <= t.rect.out_w)
        *(uint2 *) out = piece;
      else
        for (int j = 0; j < 8 && ox + j / (int) sizeof (T) < t.rect.out_w; j++)
          out[j] = (unsigned char) ((j < 4 ? piece.x : piece.y) >> (8 * (j & 3)));
    }
}

template <typename T, bool LINEAR, int R>
__global__ void __launch_bounds__ (GRAY_THREADS)
gray_tile_small (const GRID_CONSTANT SmallArgs a)
{
  extern __shared__ float smem[];
  float         *mid = smem;                                       /* SMALL_TH x SMALL_S */
  unsigned char *stage = (unsigned char *) (mid + SMALL_TH * SMALL_S); /* SMALL_TH rows of SMALL_OUT_S bytes */
  float         *lut = (float *) (stage + SMALL_TH * SMALL_OUT_S);     /* 256, u8 linear only */
  const int      bx0 = a.t.rect.out_x0 + blockIdx.x * SMALL_TW;
  const int      by0 = a.t.rect.out_y0 + blockIdx.y * SMALL_TH;
  const int      strip0 = bx0 - 8 - a.t.rect.reg_x0;               /* region column of strip column 0 */

  if constexpr (sizeof (T) == 1 && LINEAR)
    gray_load_lut (a.t, lut);
  small_vertical<T, LINEAR, R> (a, by0, strip0, lut, mid);
  __syncthreads ();
  small_horizontal<T, LINEAR, R> (a, mid, stage);
  __syncthreads ();
  small_store<T> (a, bx0, by0, stage);
}

/* ---- launching ---- */

/* mid, stage, and the decoding table for u8 in linear light */
template <typename T, bool LINEAR, int RB>
static size_t
gray_shared ()
{
  using Shape = GrayShape<RB>;
  return ((size_t) Shape::TH * Shape::S + (size_t) Shape::TH * gray_stage_w<T, RB>
          + (sizeof (T) == 1 && LINEAR ? 256 : 0)) * 4;
}

template <typename T, bool LINEAR, int RB>
static cudaError_t
launch_gray_shape (const GrayArgs &a, cudaStream_t stream)
{
  using Shape = GrayShape<RB>;
  int  tw = Shape::tw (a.rp);
  dim3 grid ((a.t.rect.out_w + tw - 1) / tw, (a.t.rect.out_h + Shape::TH - 1) / Shape::TH);

  return launch_with_smem<gray_tile<T, LINEAR, RB>> (grid, GRAY_THREADS, gray_shared<T, LINEAR, RB> (),
                                                     stream, a);
}

template <typename T, bool LINEAR, int R>
static cudaError_t
launch_small (const SmallArgs &a, cudaStream_t stream)
{
  size_t bytes = (size_t) SMALL_TH * SMALL_S * sizeof (float) + (size_t) SMALL_TH * small_stage_row<T>
                 + (sizeof (T) == 1 && LINEAR ? 256 * sizeof (float) : 0);
  dim3   grid ((a.t.rect.out_w + SMALL_TW - 1) / SMALL_TW, (a.t.rect.out_h + SMALL_TH - 1) / SMALL_TH);

  return launch_with_smem<gray_tile_small<T, LINEAR, R>> (grid, GRAY_THREADS, bytes, stream, a);
}

template <typename T, bool LINEAR>
static cudaError_t
launch_small_radius (const SmallArgs &a, int r, cudaStream_t stream)
{
  switch (r)
    {
    case 1: return launch_small<T, LINEAR, 1> (a, stream);
    case 2: return launch_small<T, LINEAR, 2> (a, stream);
    case 3: return launch_small<T, LINEAR, 3> (a, stream);
    case 4: return launch_small<T, LINEAR, 4> (a, stream);
    case 5: return launch_small<T, LINEAR, 5> (a, stream);
    case 6: return launch_small<T, LINEAR, 6> (a, stream);
    case 7: return launch_small<T, LINEAR, 7> (a, stream);
    default: return launch_small<T, LINEAR, 8> (a, stream);
    }
}

/* Float, radius 1..GRAY_EXACT_RADIUS: 4 bytes a sample, the 4-column kernel
 * keeps more blocks in flight and measured faster than the 8-column one. */
template <typename T>
static cudaError_t
launch_gray_exact (GrayArgs &a, int r, const float *w, cudaStream_t stream)
{
  a.rp = r;
  memset (a.wt, 0, sizeof a.wt);
  for (int k = -r; k <= r; k++)
    a.wt[GRAY_PAD + r + k] = w[k < 0 ? -k : k];
  switch (r)
    {
    case 1: return launch_gray_shape<T, false, 1> (a, stream);
    case 2: return launch_gray_shape<T, false, 2> (a, stream);
    case 3: return launch_gray_shape<T, false, 3> (a, stream);
    case 4: return launch_gray_shape<T, false, 4> (a, stream);
    case 5: return launch_gray_shape<T, false, 5> (a, stream);
    case 6: return launch_gray_shape<T, false, 6> (a, stream);
    case 7: return launch_gray_shape<T, false, 7> (a, stream);
    default: return launch_gray_shape<T, false, 8> (a, stream);
    }
}

/* u8, radius 1..GRAY_EXACT_RADIUS: the 8-column kernel. */
template <typename T>
static cudaError_t
launch_gray_small (const cuda_tile &t, const float *w, bool linear, cudaStream_t stream)
{
  SmallArgs    s;
  const size_t align = sizeof (T) == 1 ? 8 : 16;
  memset (&s, 0, sizeof s);
  s.t = t;
  /* every block's strip starts 8 samples left of its tile, tiles are 240 wide */
  s.vector_loads = ((uintptr_t) (t.src + (ptrdiff_t) (t.rect.out_x0 - t.rect.reg_x0 - 8) * (ptrdiff_t) sizeof (T))
                    | t.src_pitch) % align == 0;
  s.vector_stores = ((uintptr_t) t.dst | t.dst_pitch) % 8 == 0;
  for (int k = 0; k <= t.rx; k++)
    s.w[k] = w[k];
  if (sizeof (T) == 1 && linear)
    return launch_small_radius<unsigned char, true> (s, t.rx, stream);
  return launch_small_radius<T, false> (s, t.rx, stream);
}

/* Radius GRAY_EXACT_RADIUS + 1 .. GRAY_MAX_RADIUS, padded to a multiple of 4. */
template <typename T>
static cudaError_t
launch_gray_blocked (GrayArgs &a, int r, const float *w, bool linear, cudaStream_t stream)
{
  a.rp = (r + 3) & ~3;
  memset (a.wt, 0, sizeof a.wt);
  for (int k = -r; k <= r; k++)
    a.wt[GRAY_PAD + a.rp + k] = w[k < 0 ? -k : k];
  if (sizeof (T) == 1 && linear)
    return launch_gray_shape<unsigned char, true, 0> (a, stream);
  return launch_gray_shape<T, false, 0> (a, stream);
}

/* Fills the taps and launches; cudaErrorNotSupported when the radius is
 * beyond this path, or the two axes have different taps: these
 * kernels use one set of taps, wx and rx, for both passes. */
template <typename T>
static cudaError_t
launch_gray_typed (const cuda_tile &t, const float *w, cudaStream_t stream)
{
  const int  r = t.rx;
  const bool linear = (t.flags & GBLUR_LINEAR_LIGHT) != 0;

  if (!tile_same_taps (t) || r < 1 || r > GRAY_MAX_RADIUS)
    return cudaErrorNotSupported;
  if (r <= GRAY_EXACT_RADIUS && sizeof (T) == 1)
    return launch_gray_small<T> (t, w, linear, stream);
  GrayArgs a;
  memset (&a, 0, sizeof a);
  a.t = t;
  a.word_stores = ((uintptr_t) t.dst | t.dst_pitch) % 4 == 0;
  if (r <= GRAY_EXACT_RADIUS)
    return launch_gray_exact<T> (a, r, w, stream);
  return launch_gray_blocked<T> (a, r, w, linear, stream);
}

cudaError_t
launch_gray (const cuda_tile &t, gblur_sample sample, const float *host_weights, cudaStream_t stream)
{
  switch (sample)
    {
    case GBLUR_U8: return launch_gray_typed<unsigned char> (t, host_weights, stream);
    case GBLUR_F32: return launch_gray_typed<float> (t, host_weights, stream);
    default: return cudaErrorNotSupported;
    }
}
