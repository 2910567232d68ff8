/* The host-side launchers each kernel unit exports to backend.cu.  Each
 * queues one tile's kernels on `stream` and returns the launch's error, or
 * cudaErrorNotSupported (nothing queued) when its path does not take the
 * tile; backend.cu picks the path (launch_tile). */
#ifndef GBLUR_CUDA_LAUNCHERS_CUH
#define GBLUR_CUDA_LAUNCHERS_CUH

#include "tile.cuh"

/* kernels-general.cu: any sample type and 1..4 channels, per-axis taps
 * (t.wx, t.rx horizontal; tile_wy (t), t.ry vertical; a radius may be 0).  The fused kernel
 * when its tile needs at most fused_shared_limit bytes of shared memory,
 * else the vertical and horizontal kernels through t.mid (float).  For
 * samples general_decodes_first names, `decoded` (device memory of
 * t.rect.reg_h x reg_w x channels floats) takes the region decoded first,
 * and the two kernels read it. */
cudaError_t launch_general (const cuda_tile &t, gblur_sample sample, int channels,
                            size_t fused_shared_limit, float *decoded, cudaStream_t stream);
/* Whether launch_general decodes such samples first when given `decoded`:
 * 16-bit codes in linear light, whose sRGB curve is a powf each, which the
 * passes would repeat at every read of a sample (the backend gives it where
 * the tiles stay large, gblur_plan_tiles_extra). */
bool general_decodes_first (gblur_sample sample, unsigned flags);
/* cudaSuccess when the device has an image of this build's kernels. */
cudaError_t general_kernels_loadable (void);

/* kernels-gray.cu: one channel of u8 (optionally in linear light) or float,
 * the same taps on both axes (tile_same_taps), radius 1..GRAY_MAX_RADIUS, the
 * taps in the kernel parameters (from host_weights[0..t.rx]).  Radii up to
 * GRAY_EXACT_RADIUS are compiled one by one. */
#define GRAY_MAX_RADIUS   64
#define GRAY_EXACT_RADIUS 8
cudaError_t launch_gray (const cuda_tile &t, gblur_sample sample, const float *host_weights,
                         cudaStream_t stream);

/* kernels-mma.cu: u8 gray or RGBA (channels 1 or 4) stored as is (no sRGB
 * curve, no premultiplied alpha), the same taps on both axes
 * (tile_same_taps), radius up to MMA_MAX_RADIUS, on the tensor cores (sm_80+:
 * older targets compile a stub that traps, so only call it on such devices)
 * through an fp16 intermediate in t.mid, which must hold out_w rows of reg_h
 * pixels. */
#define MMA_MAX_RADIUS 512
cudaError_t launch_mma (const cuda_tile &t, int channels, cudaStream_t stream);

/* kernels-mma-small.cu: u8 gray stored as is, the same taps on both axes
 * (tile_same_taps), radius 1..MMA_SMALL_MAX_RADIUS, in one pass on the
 * tensor cores (sm_80+, as launch_mma), the taps also from
 * host_weights[0..t.rx]; src + (out_x0 - reg_x0), dst and both pitches
 * 16-byte aligned. */
#define MMA_SMALL_MAX_RADIUS 8
cudaError_t launch_mma_small (const cuda_tile &t, const float *host_weights, cudaStream_t stream);

/* kernels-rgba.cu: u8 RGBA stored as is, the same taps on both axes
 * (tile_same_taps), radius 1..RGBA_SMALL_MAX_RADIUS, in one fused pass, the
 * taps in the kernel parameters (from host_weights[0..t.rx]); src, dst and
 * their pitches 4-byte aligned, and at most shared_limit bytes of shared
 * memory (radii past 4 need 66 KB: not on sm_75). */
#define RGBA_SMALL_MAX_RADIUS 12
cudaError_t launch_rgba_small (const cuda_tile &t, const float *host_weights, size_t shared_limit,
                               cudaStream_t stream);

#endif
