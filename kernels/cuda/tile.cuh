/* What every CUDA kernel of the engine is given: one tile of the job, with
 * the device memory it reads and writes.  And the one way kernels are
 * launched.  Host and device code; included by every unit in kernels/cuda/. */
#ifndef GBLUR_CUDA_TILE_CUH
#define GBLUR_CUDA_TILE_CUH

#include "gblur-internal.h"

#include <cuda_runtime.h>
#include <stddef.h>

#include <mutex>

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
  /* The half kernels of the horizontal (x) and vertical (y) passes:
   * wx[0..rx] and wy[0..ry], where wy = wx + wy_offset (tile_wy).  A radius
   * may be 0 (the pass copies), not both.  wy_offset is 0 exactly when the
   * two axes have the same taps (tile_same_taps; then rx == ry): the gray
   * and tensor-core kernels, which serve only that case, read wx and rx.
   * ry and wy_offset come last, as 8 bytes: this layout keeps the isotropic
   * kernels' register allocation at its fastest (docs/performance.md). */
  const float         *wx;
  int                  rx;
  unsigned             flags;       /* GBLUR_LINEAR_LIGHT, GBLUR_PREMULTIPLY_ALPHA */
  const float         *decode_u8;           /* gblur_srgb_tables.decode_u8 */
  const float         *encode_u8_threshold; /* gblur_srgb_tables.encode_u8_threshold */
  int                  wy_offset;   /* floats from wx to wy; 0: the same taps */
  int                  ry;
};

__host__ __device__ __forceinline__ const float *
tile_wy (const cuda_tile &t)
{
  return t.wx + t.wy_offset;
}

__host__ __device__ __forceinline__ bool
tile_same_taps (const cuda_tile &t)
{
  return t.wy_offset == 0;
}

/* Dynamic shared memory a kernel may use without opting in. */
#define CUDA_DEFAULT_SHARED (48 * 1024)

/* Devices whose kernel opt-ins launch_with_smem remembers; a device past
 * them opts in at every launch that needs it. */
#define CUDA_OPTIN_DEVICES 16

/* Launches KERNEL (args) with `shared` bytes of dynamic shared memory,
 * opting the kernel in first when it needs more than the default, and
 * returns the launch's error.  The opt-in is a per-device attribute of the
 * kernel, so it is remembered per device (under a lock: engines on several
 * devices may launch from several threads), not redone for every tile. */
template <auto KERNEL, typename Args>
static cudaError_t
launch_with_smem (dim3 grid, dim3 block, size_t shared, cudaStream_t stream, const Args &args)
{
  static std::mutex lock;
  static size_t     allowed[CUDA_OPTIN_DEVICES];   /* 0: the default */

  if (shared > CUDA_DEFAULT_SHARED)
    {
      std::lock_guard<std::mutex> hold (lock);
      int                         device;
      cudaError_t                 e = cudaGetDevice (&device);

      if (e != cudaSuccess)
        return e;
      if (device < 0 || device >= CUDA_OPTIN_DEVICES || shared > allowed[device])
        {
          e = cudaFuncSetAttribute (KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) shared);
          if (e != cudaSuccess)
            return e;
          if (device >= 0 && device < CUDA_OPTIN_DEVICES)
            allowed[device] = shared;
        }
    }
  KERNEL<<<grid, block, shared, stream>>> (args);
  return cudaGetLastError ();
}

#endif
