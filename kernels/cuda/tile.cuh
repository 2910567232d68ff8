/* What every CUDA kernel of the engine is given: one tile of the job, with
 * the device memory it reads and writes.  And the one way kernels are
 * launched.  Host and device code; included by every unit in kernels/cuda/. */
#ifndef GBLUR_CUDA_TILE_CUH
#define GBLUR_CUDA_TILE_CUH

#include "gblur-internal.h"

#include <cuda_runtime.h>
#include <stddef.h>

/* A tile: the engine's rectangle (outputs and the region they read, in image
 * coordinates) and where its samples lie on the device.  Passed to kernels by
 * value; all pointers are device pointers. */
struct cuda_tile {
  const unsigned char *src;         /* region origin: image (rect.reg_y0, rect.reg_x0) */
  size_t               src_pitch;
  gblur_tile           rect;
  float               *mid;         /* scratch for an intermediate: out_h rows x reg_w pixels */
  size_t               mid_pitch;
  size_t               mid_bytes;   /* what `mid` holds */
  unsigned char       *dst;         /* output tile origin */
  size_t               dst_pitch;
  /* The half kernels of the vertical (y) and horizontal (x) passes:
   * wy[0..ry], wx[0..rx].  A radius may be 0 (the pass copies), not both.
   * wx == wy (the same device pointer) when the two axes have the same
   * taps (then rx == ry): the gray and tensor-core kernels, which serve only
   * that case, read wx and rx. */
  const float         *wx;
  const float         *wy;
  int                  rx;
  int                  ry;
  unsigned             flags;       /* GBLUR_LINEAR_LIGHT, GBLUR_PREMULTIPLY_ALPHA */
  const float         *decode_u8;           /* gblur_srgb_tables.decode_u8 */
  const float         *encode_u8_threshold; /* gblur_srgb_tables.encode_u8_threshold */
};

/* Dynamic shared memory a kernel may use without opting in. */
#define CUDA_DEFAULT_SHARED (48 * 1024)

/* Launches KERNEL (args) with `shared` bytes of dynamic shared memory,
 * opting the kernel in first when it needs more than the default, and
 * returns the launch's error.  The opt-in is remembered per kernel for the
 * process (it is not redone for every tile). */
template <auto KERNEL, typename Args>
static cudaError_t
launch_with_smem (dim3 grid, dim3 block, size_t shared, cudaStream_t stream, const Args &args)
{
  static size_t allowed = CUDA_DEFAULT_SHARED;

  if (shared > allowed)
    {
      cudaError_t e = cudaFuncSetAttribute (KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) shared);
      if (e != cudaSuccess)
        return e;
      allowed = shared;
    }
  KERNEL<<<grid, block, shared, stream>>> (args);
  return cudaGetLastError ();
}

#endif
