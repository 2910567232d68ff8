/* 8-bit RGBA stored as is (no sRGB curve, no premultiplied alpha) at small
 * radii, the same taps on both axes: one fused pass in FP32.
 *
 * One idea: at radii up to RGBA_SMALL_MAX_RADIUS the blur is cheap and the
 * cost is in moving samples, so the image is read once and written once, and
 * the intermediate stays in shared memory (the tensor-core path's two passes
 * move three times the bytes).  A block makes a TW x RGBA_TH tile from a
 * strip of SW pixel columns (TW plus a halo each side):
 *   1. vertical: each thread walks one pixel column of the strip (one 4-byte
 *      load a row, each input row read once) down SEG output rows; the sums
 *      go to shared memory as float4;
 *   2. horizontal: each thread makes 8 neighbouring pixels of one row from
 *      8 + 2r float4 loads (neighbouring lanes take neighbouring rows, whose
 *      stride is 4 mod 32 words: no bank conflicts), rounds them and stores
 *      them as two 16-byte words.
 * Every tap is a constant operand: each radius is compiled on its own, the
 * taps in the kernel's parameters.  Bytes become floats and sums become
 * bytes with the gray kernels' tricks (device-common.cuh). */
#include "device-common.cuh"
#include "launchers.cuh"

#include <stdint.h>
#include <string.h>

#define RGBA_THREADS 256
#define RGBA_TH      32                 /* output rows per block */

struct RgbaArgs {
  cuda_tile t;
  int       vector_stores;              /* dst and dst_pitch allow 16-byte stores */
  float     w[RGBA_SMALL_MAX_RADIUS + 1];
};

template <int R>
struct RgbaShape {
  static constexpr int HALO = (R + 3) & ~3;                   /* strip pixels left of the tile */
  static constexpr int SW = R <= 4 ? 64 : 128;                /* strip pixels */
  static constexpr int TW = SW - 2 * HALO;                    /* output pixels, a multiple of 8 */
  static constexpr int SEG = RGBA_TH * SW / RGBA_THREADS;     /* output rows per vertical item */
  static constexpr int S = 4 * SW + 4;                        /* float stride of a row, 4 mod 32 */
  static constexpr size_t SHARED = (size_t) RGBA_TH * S * sizeof (float);
};

/* tap d of 0..2R */
template <int R>
__device__ __forceinline__ float
rgba_tap (const RgbaArgs &a, int d)
{
  return a.w[d < R ? R - d : d - R];
}

/* 1. Vertical: thread (g, seg) sums strip column g for rows seg * SEG ... */
template <int R>
__device__ __forceinline__ void
rgba_vertical (const RgbaArgs &a, int bx0, int by0, float *mid)
{
  using Shape = RgbaShape<R>;
  constexpr int SEG = Shape::SEG;
  const cuda_tile &t = a.t;
  const int  g = threadIdx.x % Shape::SW, seg = threadIdx.x / Shape::SW;
  const int  x = clampi (bx0 - Shape::HALO + g, t.rect.reg_x0, t.rect.reg_x0 + t.rect.reg_w - 1) - t.rect.reg_x0;
  const unsigned char *col = t.src + (size_t) x * 4;
  const int  row0 = by0 + seg * SEG - R;                     /* image row of input 0 */
  float      acc[SEG][4];
  zero_sums (acc);
#pragma unroll
  for (int i = 0; i < SEG + 2 * R; i++)
    {
      const unsigned word = __ldg ((const unsigned *) (col + tile_row_offset (t, row0 + i)));
      float          v[4];
#pragma unroll
      for (int c = 0; c < 4; c++)
        v[c] = u8_byte_to_float (word, c);
#pragma unroll
      for (int j = 0; j < SEG; j++)
        if (i - j >= 0 && i - j <= 2 * R)
#pragma unroll
          for (int c = 0; c < 4; c++)
            acc[j][c] = fmaf (rgba_tap<R> (a, i - j), v[c], acc[j][c]);
    }
#pragma unroll
  for (int j = 0; j < SEG; j++)
    *(float4 *) (mid + (seg * SEG + j) * Shape::S + 4 * g) = make_float4 (acc[j][0], acc[j][1], acc[j][2], acc[j][3]);
}

/* Eight output pixels (words) to row oy, column ox of the tile's output. */
__device__ __forceinline__ void
rgba_store8 (const RgbaArgs &a, int oy, int ox, const unsigned (&word)[8])
{
  const cuda_tile &t = a.t;
  if (oy >= t.rect.out_h || ox >= t.rect.out_w)
    return;
  unsigned *out = (unsigned *) (t.dst + (size_t) oy * t.dst_pitch) + ox;
  if (a.vector_stores && ox + 8 <= t.rect.out_w)
    {
      ((uint4 *) out)[0] = make_uint4 (word[0], word[1], word[2], word[3]);
      ((uint4 *) out)[1] = make_uint4 (word[4], word[5], word[6], word[7]);
    }
  else
#pragma unroll
    for (int j = 0; j < 8; j++)
      if (ox + j < t.rect.out_w)
        out[j] = word[j];
}

/* 2. Horizontal: item (row y, pixels 8q..8q+7); output pixel x reads strip
 * columns x + HALO - R .. x + HALO + R. */
template <int R>
__device__ __forceinline__ void
rgba_horizontal (const RgbaArgs &a, int bx0, int by0, const float *mid)
{
  using Shape = RgbaShape<R>;
  for (int item = threadIdx.x; item < RGBA_TH * (Shape::TW / 8); item += RGBA_THREADS)
    {
      const int     y = item % RGBA_TH, q = item / RGBA_TH;
      const float4 *in = (const float4 *) (mid + y * Shape::S) + 8 * q + Shape::HALO - R;
      float         acc[8][4];
      zero_sums (acc);
#pragma unroll
      for (int k = 0; k < 8 + 2 * R; k++)
        {
          const float4 p = in[k];
#pragma unroll
          for (int j = 0; j < 8; j++)
            if (k - j >= 0 && k - j <= 2 * R)
              {
                const float w = rgba_tap<R> (a, k - j);
                acc[j][0] = fmaf (w, p.x, acc[j][0]);
                acc[j][1] = fmaf (w, p.y, acc[j][1]);
                acc[j][2] = fmaf (w, p.z, acc[j][2]);
                acc[j][3] = fmaf (w, p.w, acc[j][3]);
              }
        }
      unsigned word[8];
#pragma unroll
      for (int j = 0; j < 8; j++)
        word[j] = pack_low_bytes (u8_round_bits (acc[j][0]), u8_round_bits (acc[j][1]), u8_round_bits (acc[j][2]),
                                  u8_round_bits (acc[j][3]));
      rgba_store8 (a, by0 + y - a.t.rect.out_y0, bx0 + 8 * q - a.t.rect.out_x0, word);
    }
}

template <int R>
__global__ void __launch_bounds__ (RGBA_THREADS)
rgba_tile_small (const GRID_CONSTANT RgbaArgs a)
{
  extern __shared__ float4 smem4[];
  float    *mid = (float *) smem4;                             /* RGBA_TH x S */
  const int bx0 = a.t.rect.out_x0 + blockIdx.x * RgbaShape<R>::TW;   /* image column of output 0 */
  const int by0 = a.t.rect.out_y0 + blockIdx.y * RGBA_TH;

  rgba_vertical<R> (a, bx0, by0, mid);
  __syncthreads ();
  rgba_horizontal<R> (a, bx0, by0, mid);
}

template <int R>
static cudaError_t
launch_rgba_radius (const RgbaArgs &a, size_t shared_limit, cudaStream_t stream)
{
  using Shape = RgbaShape<R>;
  dim3 grid ((a.t.rect.out_w + Shape::TW - 1) / Shape::TW, (a.t.rect.out_h + RGBA_TH - 1) / RGBA_TH);

  if (Shape::SHARED > shared_limit)
    return cudaErrorNotSupported;
  return launch_with_smem<rgba_tile_small<R>> (grid, RGBA_THREADS, Shape::SHARED, stream, a);
}

/* The kernel compiled for radius r (1..RGBA_SMALL_MAX_RADIUS). */
static cudaError_t
launch_rgba_radii (const RgbaArgs &a, int r, size_t shared_limit, cudaStream_t stream)
{
  switch (r)
    {
    case 1: return launch_rgba_radius<1> (a, shared_limit, stream);
    case 2: return launch_rgba_radius<2> (a, shared_limit, stream);
    case 3: return launch_rgba_radius<3> (a, shared_limit, stream);
    case 4: return launch_rgba_radius<4> (a, shared_limit, stream);
    case 5: return launch_rgba_radius<5> (a, shared_limit, stream);
    case 6: return launch_rgba_radius<6> (a, shared_limit, stream);
    case 7: return launch_rgba_radius<7> (a, shared_limit, stream);
    case 8: return launch_rgba_radius<8> (a, shared_limit, stream);
    case 9: return launch_rgba_radius<9> (a, shared_limit, stream);
    case 10: return launch_rgba_radius<10> (a, shared_limit, stream);
    case 11: return launch_rgba_radius<11> (a, shared_limit, stream);
    default: return launch_rgba_radius<12> (a, shared_limit, stream);
    }
}

cudaError_t
launch_rgba_small (const cuda_tile &t, const float *host_weights, size_t shared_limit, cudaStream_t stream)
{
  RgbaArgs a;

  /* one 4-byte word a pixel: rows and both images must be word-aligned */
  if (!tile_same_taps (t) || t.rx < 1 || t.rx > RGBA_SMALL_MAX_RADIUS
      || ((uintptr_t) t.src | t.src_pitch | (uintptr_t) t.dst | t.dst_pitch) % 4 != 0)
    return cudaErrorNotSupported;
  memset (&a, 0, sizeof a);
  a.t = t;
  a.vector_stores = ((uintptr_t) t.dst | t.dst_pitch) % 16 == 0;
  for (int k = 0; k <= t.rx; k++)
    a.w[k] = host_weights[k];
  return launch_rgba_radii (a, t.rx, shared_limit, stream);
}
