/* Device buffers the CUDA backend keeps between runs, held under the
 * engine's memory limit. */
#ifndef GBLUR_CUDA_DEVICE_BUFFERS_CUH
#define GBLUR_CUDA_DEVICE_BUFFERS_CUH

#include <cuda_runtime.h>
#include <stddef.h>

typedef struct {
  void   *ptr;
  size_t  cap;
} device_buffer;

void        device_buffer_release (device_buffer *b);

/* Frees each of the n buffers larger than its need[i] (0: not used by the
 * run) when what would be held after the run's reserves passes limit. */
void        device_buffers_fit (device_buffer *b, const size_t *need, int n, size_t limit);

/* Grows b[i] to need[i] bytes, the buffers reserved in index order; where
 * the device is short (or `short_once`, an injected fault, says so), frees
 * those the run does not use and those not yet reserved, and tries once
 * more. */
cudaError_t device_buffers_reserve (device_buffer *b, const size_t *need, int n, int i, bool short_once);

size_t      device_buffers_held (const device_buffer *b, int n);

/* Frees all n on `device`, after its work, from any thread (whose current
 * device it keeps). */
void        device_buffers_release_all (device_buffer *b, int n, int device);

#endif
