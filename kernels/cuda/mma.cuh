/* Tensor-core helpers the tensor-core units share: ldmatrix, one
 * mma.m16n8k16 (fp16 in, fp32 sums), and bytes and floats to fp16.  The
 * fragment layouts are PTX's for m16n8k16 (lane = 4 g + t):
 *   A (16 x 16, row-major):  {A[g][2t..2t+1], A[g+8][2t..], A[g][2t+8..], A[g+8][2t+8..]}
 *   B (16 x 8, column-major): {B[2t..2t+1][g], B[2t+8..2t+9][g]}
 *   C, D (16 x 8, fp32):      {D[g][2t], D[g][2t+1], D[g+8][2t], D[g+8][2t+1]} */
#ifndef GBLUR_CUDA_MMA_CUH
#define GBLUR_CUDA_MMA_CUH

#include <cuda_fp16.h>

/* The backend takes the tensor-core paths on sm_80+ only (gblur_cuda.mma_off):
 * older targets (ldmatrix needs sm_75, m16n8k16 sm_80) compile stubs. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define MMA_STUBS 1
#endif

__device__ __forceinline__ void
mma_ldmatrix_x4 (unsigned (&r)[4], const void *row)
{
#ifdef MMA_STUBS
  (void) r; (void) row;
  __trap ();
#else
  unsigned addr = (unsigned) __cvta_generic_to_shared (row);
  asm volatile ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
#endif
}

/* The transposed form: lane 4 g + t gets rows 2t, 2t + 1 of column g of
 * each 8 x 8 matrix, which is a B fragment of a row-major K x N tile. */
__device__ __forceinline__ void
mma_ldmatrix_x4_trans (unsigned (&r)[4], const void *row)
{
#ifdef MMA_STUBS
  (void) r; (void) row;
  __trap ();
#else
  unsigned addr = (unsigned) __cvta_generic_to_shared (row);
  asm volatile ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
#endif
}

/* D += A B on the tensor cores. */
__device__ __forceinline__ void
mma_16816 (float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
#ifdef MMA_STUBS
  (void) d; (void) a; (void) b0; (void) b1;
  __trap ();
#else
  asm volatile ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

/* Two floats as one fp16 pair, lo in the low half. */
__device__ __forceinline__ unsigned
mma_pack (float lo, float hi)
{
  __half2 h = __floats2half2_rn (lo, hi);
  return *(unsigned *) &h;
}

/* Tap i (-r..r) of the kernel whose half w[0..r] is in device memory, zero
 * past it: the entries of the band matrices. */
__device__ __forceinline__ float
mma_band_tap (const float *w, int r, int i)
{
  return i >= -r && i <= r ? __ldg (&w[i < 0 ? -i : i]) : 0.0f;
}

/* 4 bytes as fp16 1024 + b (bits 0x64bb), exact: one byte permute a pair,
 * bytes 0 and 1 in .x, 2 and 3 in .y. */
__device__ __forceinline__ uint2
mma_bytes_plus_1024 (unsigned q)
{
  return make_uint2 (__byte_perm (q, 0x64u, 0x4140), __byte_perm (q, 0x64u, 0x4342));
}

/* 4 bytes as fp16: 1024 + b, minus 1024: exact. */
__device__ __forceinline__ void
mma_bytes_to_half (unsigned q, __half2 &h01, __half2 &h23)
{
  const __half2 k1024 = __floats2half2_rn (1024.0f, 1024.0f);
  const uint2   p = mma_bytes_plus_1024 (q);

  h01 = __hsub2 (*(const __half2 *) &p.x, k1024);
  h23 = __hsub2 (*(const __half2 *) &p.y, k1024);
}

#endif
