/* Device buffers kept between runs (a live preview repeats one shape),
 * bounded by the memory limit across runs of other shapes. */
#include "device-buffers.cuh"

void
device_buffer_release (device_buffer *b)
{
  if (b->ptr)
    cudaFree (b->ptr);
  b->ptr = NULL;
  b->cap = 0;
}

size_t
device_buffers_held (const device_buffer *b, int n)
{
  size_t held = 0;
  for (int i = 0; i < n; i++)
    held += b[i].cap;
  return held;
}

void
device_buffers_release_all (device_buffer *b, int n, int device)
{
  int prev = device;

  cudaGetDevice (&prev);
  cudaSetDevice (device);
  cudaDeviceSynchronize ();
  for (int i = 0; i < n; i++)
    device_buffer_release (&b[i]);
  cudaSetDevice (prev);
}

void
device_buffers_fit (device_buffer *b, const size_t *need, int n, size_t limit)
{
  size_t after = 0;
  for (int i = 0; i < n; i++)
    after += b[i].cap > need[i] ? b[i].cap : need[i];
  if (after <= limit)
    return;
  for (int i = 0; i < n; i++)
    if (b[i].cap > need[i])
      device_buffer_release (&b[i]);
}

static cudaError_t
grow (device_buffer *b, size_t size)
{
  if (b->cap >= size)
    return cudaSuccess;
  device_buffer_release (b);
  cudaError_t e = cudaMalloc (&b->ptr, size);
  if (e == cudaSuccess)
    b->cap = size;
  return e;
}

cudaError_t
device_buffers_reserve (device_buffer *b, const size_t *need, int n, int i, bool short_once)
{
  cudaError_t e = short_once ? cudaErrorMemoryAllocation : grow (&b[i], need[i]);
  if (e != cudaErrorMemoryAllocation)
    return e;
  cudaGetLastError ();
  /* Those before i hold this run's reserves; those after are grown next. */
  for (int j = 0; j < n; j++)
    if (need[j] == 0 || (j > i && b[j].cap != need[j]))
      device_buffer_release (&b[j]);
  return grow (&b[i], need[i]);
}
