/* The CUDA backend: the gblur_cuda object (device, streams, buffers, the
 * taps and sRGB tables in device memory), tile planning and queueing, and
 * the extern "C" API of gblur-internal.h.  The kernels live in the
 * kernels-*.cu units (launchers.cuh).
 *
 * Host images are processed in tiles (stripes, or column blocks of them when
 * the memory limit asks) with halos, double-buffered over two streams, so
 * device memory stays under the engine's limit.  A tile gets the first path
 * of launch_tile that takes it (docs/blur.md's table).  So that tests reach
 * each kernel (gblur_config.cuda_skip): GBLUR_CUDA_SKIP_MMA skips the tensor
 * cores; GBLUR_CUDA_SKIP_GRAY puts one channel on the general kernels and
 * skips the small-radius RGBA kernel (the tensor cores, sm_80+, then take
 * RGBA); GBLUR_CUDA_SKIP_FUSED skips the fused general kernel. */
#include "device-buffers.cuh"
#include "driver.cuh"
#include "launchers.cuh"
#include "region.h"
#include "tuning.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SETS 2      /* buffer sets (and streams) that tiles alternate over */
#define WEIGHTS_Y (GBLUR_MAX_RADIUS + 1)   /* offset of the y taps in gblur_cuda.weights */

/* A set's device buffers: the tile's region, the float intermediate, the
 * outputs, and the region decoded to floats (general_decodes_first). */
enum { BUF_REGION, BUF_MID, BUF_OUT, BUF_DECODED, BUF_KINDS };

struct gblur_cuda {
  int           device;
  char          name[320];
  size_t        fused_shared_limit; /* dynamic shared memory a fused tile may use */
  size_t        shared_optin;       /* the most dynamic shared memory a block may have */
  bool          gray_off;           /* one channel on the general kernels, no small-radius RGBA kernel (GBLUR_CUDA_SKIP_GRAY) */
  bool          mma_off;            /* u8 without the tensor cores (GBLUR_CUDA_SKIP_MMA, or < sm_80) */
  cudaStream_t  stream[SETS];
  cudaEvent_t   done[SETS];
  cudaEvent_t   phase[SETS][3];     /* a tile's start, upload and kernels done, for its timing */
  cudaEvent_t   caller;             /* the caller's default stream, for device runs to wait on */
  device_buffer buf[SETS][BUF_KINDS];
  /* Device copies of the half kernels: weights[0..] the x taps (both axes'
   * when they share them), weights[WEIGHTS_Y..] the y taps otherwise. */
  float        *weights;            /* 2 * WEIGHTS_Y floats */
  int           weights_radius[2];  /* what each half holds: -1 unknown */
  float         weights_held[2][GBLUR_MAX_RADIUS + 1];
  float        *decode_u8;          /* 256 */
  float        *encode_u8_threshold; /* 255 */
};

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess)                                                     \
      {                                                                        \
        snprintf (err, err_size, "%s: %s", #call, cudaGetErrorString (e_));    \
        goto fail;                                                             \
      }                                                                        \
  } while (0)

/* `call`, unless an injected fault (gblur_config.faults, see gblur.h) fails it
 * first: then the run takes the same path as on a real CUDA error. */
#define CHECK_FAULT(hit, call, ...)                                            \
  do {                                                                         \
    if (hit)                                                                   \
      {                                                                        \
        snprintf (err, err_size, "injected fault: " __VA_ARGS__);              \
        goto fail;                                                             \
      }                                                                        \
    CHECK (call);                                                              \
  } while (0)

/* Counts an occurrence of a fault site; true for the one that must fail. */
static bool
fault_hit (int nth, int *count)
{
  return nth > 0 && ++*count == nth;
}

/* ---- open, close ---- */

extern "C" int
gblur_cuda_possible (char *reason, size_t reason_size)
{
  return cuda_driver_found (reason, reason_size);
}

extern "C" gblur_cuda *
gblur_cuda_open (const gblur_settings *settings, char *err, size_t err_size)
{
  int                      count = 0, device = settings->cuda_device;
  cudaDeviceProp           prop;
  gblur_cuda              *cuda = NULL;
  const gblur_srgb_tables *srgb = gblur_srgb_tables_get ();
  char                     runtime[80];
  cudaError_t              e;

  if (!cuda_driver_usable (err, err_size))
    return NULL;
  e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess)
    {
      snprintf (err, err_size, "no CUDA device: %s", cudaGetErrorString (e));
      cudaGetLastError (); /* clear */
      return NULL;
    }
  if (count == 0)
    {
      snprintf (err, err_size, "no CUDA device");
      return NULL;
    }
  if (device < 0 || device >= count)
    {
      snprintf (err, err_size, "CUDA device %d asked for but %d device(s) present",
                device, count);
      return NULL;
    }
  cuda = (gblur_cuda *) calloc (1, sizeof *cuda);
  if (!cuda)
    {
      snprintf (err, err_size, "out of memory");
      return NULL;
    }
  cuda->device = device;
  CHECK (cudaSetDevice (device));
  CHECK (cudaGetDeviceProperties (&prop, device));
  /* A GPU older than the build's targets has no image for our kernels. */
  e = general_kernels_loadable ();
  if (e != cudaSuccess)
    {
      snprintf (err, err_size, "%s (compute capability %d.%d) is not supported by this build: %s",
                prop.name, prop.major, prop.minor, cudaGetErrorString (e));
      goto fail;
    }
  cuda_runtime_label (runtime, sizeof runtime);
  snprintf (cuda->name, sizeof cuda->name, "%.200s (sm_%d%d), %s", prop.name, prop.major, prop.minor, runtime);
  /* Up to the opt-in maximum, but at most 160 KiB so that big tiles (whose
   * halo would dominate anyway) take the two-kernel path. */
  cuda->fused_shared_limit = prop.sharedMemPerBlockOptin < ((size_t) 160 << 10)
                               ? prop.sharedMemPerBlockOptin : ((size_t) 160 << 10);
  cuda->shared_optin = prop.sharedMemPerBlockOptin;
  if (settings->cuda_no_fused)   /* to time or test the fallback alone */
    cuda->fused_shared_limit = 0;
  cuda->gray_off = settings->cuda_no_gray;
  cuda->mma_off = settings->cuda_no_mma || prop.major < 8;   /* mma.m16n8k16: sm_80 */
  for (int s = 0; s < SETS; s++)
    {
      CHECK (cudaStreamCreateWithFlags (&cuda->stream[s], cudaStreamNonBlocking));
      CHECK (cudaEventCreate (&cuda->done[s]));   /* timed: a tile's download ends at it */
      for (int p = 0; p < 3; p++)
        CHECK (cudaEventCreate (&cuda->phase[s][p]));
    }
  CHECK (cudaEventCreateWithFlags (&cuda->caller, cudaEventDisableTiming));
  CHECK (cudaMalloc (&cuda->weights, 2 * WEIGHTS_Y * sizeof (float)));
  cuda->weights_radius[0] = cuda->weights_radius[1] = -1;
  CHECK (cudaMalloc (&cuda->decode_u8, sizeof srgb->decode_u8));
  CHECK (cudaMalloc (&cuda->encode_u8_threshold, sizeof srgb->encode_u8_threshold));
  CHECK (cudaMemcpy (cuda->decode_u8, srgb->decode_u8, sizeof srgb->decode_u8,
                     cudaMemcpyHostToDevice));
  CHECK (cudaMemcpy (cuda->encode_u8_threshold, srgb->encode_u8_threshold,
                     sizeof srgb->encode_u8_threshold, cudaMemcpyHostToDevice));
  return cuda;

fail:
  cudaGetLastError ();
  gblur_cuda_close (cuda);
  return NULL;
}

extern "C" void
gblur_cuda_close (gblur_cuda *cuda)
{
  if (!cuda)
    return;
  gblur_cuda_release_kept (cuda);   /* it waits for the device */
  for (int s = 0; s < SETS; s++)
    {
      if (cuda->done[s])
        cudaEventDestroy (cuda->done[s]);
      for (int p = 0; p < 3; p++)
        if (cuda->phase[s][p])
          cudaEventDestroy (cuda->phase[s][p]);
      if (cuda->stream[s])
        cudaStreamDestroy (cuda->stream[s]);
    }
  if (cuda->caller)
    cudaEventDestroy (cuda->caller);
  cudaFree (cuda->weights);
  cudaFree (cuda->decode_u8);
  cudaFree (cuda->encode_u8_threshold);
  free (cuda);
}

extern "C" const char *
gblur_cuda_device_name (const gblur_cuda *cuda)
{
  return cuda->name;
}

extern "C" void *
gblur_cuda_host_alloc (size_t size)
{
  void *p = NULL;
  if (cudaMallocHost (&p, size) != cudaSuccess)
    {
      cudaGetLastError ();
      return NULL;
    }
  return p;
}

extern "C" void
gblur_cuda_host_free (void *ptr)
{
  cudaFreeHost (ptr);
}

/* ---- device memory ---- */

/* Every set's decoded buffer freed, for a run that does not decode. */
static void
release_decoded (gblur_cuda *cuda)
{
  for (int s = 0; s < SETS; s++)
    device_buffer_release (&cuda->buf[s][BUF_DECODED]);
}

extern "C" size_t
gblur_cuda_kept_bytes (const gblur_cuda *cuda)
{
  return device_buffers_held (&cuda->buf[0][0], SETS * BUF_KINDS);
}

extern "C" void
gblur_cuda_release_kept (gblur_cuda *cuda)
{
  device_buffers_release_all (&cuda->buf[0][0], SETS * BUF_KINDS, cuda->device);
}

/* An injected allocation failure leaves the buffer as a failed cudaMalloc
 * would: freed. */
static bool
alloc_fault (device_buffer *b, const gblur_faults *faults, int *count)
{
  if (!fault_hit (faults->cuda_alloc, count))
    return false;
  device_buffer_release (b);
  return true;
}

/* Every buffer a run needs (need: per set and kind, 0 for none), kept ones
 * freed first where together they would pass the memory limit. */
static bool
reserve_buffers (gblur_cuda *cuda, const size_t *need, const gblur_job *job, int *n_alloc,
                 char *err, size_t err_size)
{
  device_buffer *b = &cuda->buf[0][0];
  const int      n = SETS * BUF_KINDS;
  int            n_short = 0;

  device_buffers_fit (b, need, n, job->memory_limit);
  for (int i = 0; i < n; i++)
    if (need[i] > 0)
      CHECK_FAULT (alloc_fault (&b[i], job->faults, n_alloc),
                   device_buffers_reserve (b, need, n, i, fault_hit (job->faults->cuda_short, &n_short)),
                   "device allocation %d", *n_alloc);
  if (need[BUF_DECODED] == 0)
    release_decoded (cuda);
  return true;

fail:
  return false;
}

/* Queues the copy of w[0..radius] into half h of the device taps on the
 * first stream, unless the half holds it already (a live preview or a
 * benchmark repeats the same sigma).  The half counts as unknown until
 * upload_weights has seen the copy complete. */
static cudaError_t
upload_half (gblur_cuda *cuda, int h, const float *w, int radius, bool *queued)
{
  size_t      n = (size_t) (radius + 1) * sizeof (float);
  cudaError_t e;

  if (cuda->weights_radius[h] == radius && memcmp (cuda->weights_held[h], w, n) == 0)
    return cudaSuccess;
  cuda->weights_radius[h] = -1;
  e = cudaMemcpyAsync (cuda->weights + h * WEIGHTS_Y, w, n, cudaMemcpyHostToDevice, cuda->stream[0]);
  if (e == cudaSuccess)
    {
      memcpy (cuda->weights_held[h], w, n);
      *queued = true;
    }
  return e;
}

/* Puts the job's taps in device memory: the x taps in the first half, and
 * the y taps in the second when they differ (tile_at points the kernels at
 * them); complete on return. */
static cudaError_t
upload_weights (gblur_cuda *cuda, const gblur_job *job)
{
  const bool  same = gblur_job_isotropic (job);
  bool        queued = false;
  cudaError_t e = upload_half (cuda, 0, job->weights_x, job->radius_x, &queued);

  if (e == cudaSuccess && !same)
    e = upload_half (cuda, 1, job->weights_y, job->radius_y, &queued);
  if (e == cudaSuccess && queued)
    e = cudaStreamSynchronize (cuda->stream[0]);
  if (e == cudaSuccess)
    {
      cuda->weights_radius[0] = job->radius_x;
      if (!same)
        cuda->weights_radius[1] = job->radius_y;
    }
  return e;
}

/* ---- tiles ---- */

/* Tile (tx, ty) of the job with the backend's taps and tables; the caller
 * fills in where its samples are.  wy_offset is 0 exactly when the job has
 * the same taps on both axes (cuda_tile). */
static cuda_tile
tile_at (const gblur_cuda *cuda, const gblur_job *job, const gblur_tiling *tiling, int tx, int ty)
{
  cuda_tile t;
  memset (&t, 0, sizeof t);
  gblur_tile_at (&job->geo, tiling, tx, ty, &t.rect);
  t.wx = cuda->weights;
  t.wy_offset = gblur_job_isotropic (job) ? 0 : WEIGHTS_Y;
  t.rx = job->radius_x;
  t.ry = job->radius_y;
  t.flags = job->flags;
  t.decode_u8 = cuda->decode_u8;
  t.encode_u8_threshold = cuda->encode_u8_threshold;
  return t;
}

/* 8-bit samples stored as is (no sRGB curve, no premultiplied alpha), the
 * same taps on both axes: what the tensor cores and the small-radius RGBA
 * kernel serve. */
static bool
u8_as_is_isotropic (const gblur_job *job)
{
  return job->src->sample == GBLUR_U8 && job->flags == 0 && gblur_job_isotropic (job);
}

/* Whether the tensor cores take the job (the header's list): gray (in one
 * pass up to MMA_SMALL_MAX_RADIUS), RGBA from MMA_RGBA_MIN_RADIUS. */
static bool
mma_takes (const gblur_cuda *cuda, const gblur_job *job)
{
  const int channels = job->src->channels;

  if (cuda->mma_off || !u8_as_is_isotropic (job))
    return false;
  return channels == 1 ? !cuda->gray_off : channels == 4 && job->radius_x >= MMA_RGBA_MIN_RADIUS;
}

/* Whether the small-radius RGBA kernel takes the job: RGBA up to
 * RGBA_SMALL_MAX_RADIUS (the kernel also needs word-aligned images, or it
 * declines the tile). */
static bool
rgba_small_takes (const gblur_cuda *cuda, const gblur_job *job)
{
  return !cuda->gray_off && u8_as_is_isotropic (job) && job->src->channels == 4
         && job->radius_x <= RGBA_SMALL_MAX_RADIUS;
}

/* Queues the tile's kernels: the first path that takes it.  The small
 * RGBA, gray and tensor-core kernels use one set of taps (wx, rx) for both
 * passes: only for a job with the same taps on both axes. */
static cudaError_t
launch_tile (const gblur_cuda *cuda, const cuda_tile &t, const gblur_job *job, void *decoded,
             cudaStream_t stream)
{
  const gblur_sample sample = job->src->sample;
  const int          channels = job->src->channels;
  cudaError_t        e;

  if (rgba_small_takes (cuda, job))
    {
      e = launch_rgba_small (t, job->weights_x, cuda->shared_optin, stream);
      if (e != cudaErrorNotSupported)
        return e;
    }
  if (mma_takes (cuda, job))
    {
      /* gray the one-pass kernel declines (alignment) goes to the FP32
       * kernels, which are faster than two passes at these radii */
      e = channels == 1 && job->radius_x <= MMA_SMALL_MAX_RADIUS ? launch_mma_small (t, job->weights_x, stream)
                                                                 : launch_mma (t, channels, stream);
      if (e != cudaErrorNotSupported)
        return e;
    }
  if (channels == 1 && sample != GBLUR_U16 && !cuda->gray_off && gblur_job_isotropic (job))
    {
      e = launch_gray (t, sample, job->weights_x, stream);
      if (e != cudaErrorNotSupported)
        return e;
    }
  return launch_general (t, sample, channels, cuda->fused_shared_limit, (float *) decoded, stream);
}

/* The message when the memory limit does not fit one tile. */
static void
too_small (const gblur_job *job, char *err, size_t err_size)
{
  if (job->radius_x == job->radius_y)
    snprintf (err, err_size, "device memory limit of %zu bytes is too small for radius %d",
              job->memory_limit, job->radius_x);
  else
    snprintf (err, err_size, "device memory limit of %zu bytes is too small for radii %d (x) and %d (y)",
              job->memory_limit, job->radius_x, job->radius_y);
}

/* Device bytes a region pixel's decoded floats take where a run decodes
 * first (gblur_plan_tiles_extra decides); 0 for jobs that never do. */
static size_t
decoded_bytes (const gblur_job *job)
{
  return general_decodes_first (job->src->sample, job->flags) ? job->src->channels * sizeof (float) : 0;
}

/* ---- host images: tiles double-buffered over the streams ---- */

/* One run of gblur_cuda_run. */
struct host_run {
  gblur_cuda   *cuda;
  gblur_job    *job;
  gblur_tiling  tiling;
  int           tiles_x, ntiles;
  size_t        pixel_bytes;      /* of a stored pixel */
  int           decode;           /* regions decoded first (decoded_bytes) */
  int           completed;        /* tiles reported to progress */
  int           n_alloc, n_copy;  /* for injected faults */
};

/* Every set's buffers, for tiles of the run's tiling. */
static bool
reserve_sets (host_run *run, char *err, size_t err_size)
{
  const gblur_job    *job = run->job;
  const int           rx = job->radius_x, ry = job->radius_y, C = job->src->channels;
  const int           reg_cols = gblur_read_span (run->tiling.tile_w, rx, job->geo.img_w);
  const int           reg_rows = gblur_read_span (run->tiling.tile_h, ry, job->geo.img_h);
  size_t              need[SETS][BUF_KINDS] = { { 0 } };

  for (int s = 0; s < SETS && s < run->ntiles; s++)
    {
      need[s][BUF_REGION] = (size_t) reg_rows * reg_cols * run->pixel_bytes;
      need[s][BUF_MID] = (size_t) run->tiling.tile_h * reg_cols * C * sizeof (float);
      need[s][BUF_OUT] = (size_t) run->tiling.tile_h * run->tiling.tile_w * run->pixel_bytes;
      need[s][BUF_DECODED] = run->decode ? (size_t) reg_rows * reg_cols * decoded_bytes (job) : 0;
    }
  return reserve_buffers (run->cuda, &need[0][0], job, &run->n_alloc, err, err_size);
}

/* Queues tile i on its set's stream: upload of its region, kernels, download
 * of its outputs, then the set's `done` event. */
static bool
queue_tile (host_run *run, int i, char *err, size_t err_size)
{
  gblur_cuda         *cuda = run->cuda;
  const gblur_job    *job = run->job;
  const gblur_faults *faults = job->faults;
  const gblur_image  *src = job->src;
  gblur_image        *dst = job->dst;
  const int           s = i % SETS;
  const cudaStream_t  st = cuda->stream[s];
  cuda_tile           t = tile_at (cuda, job, &run->tiling, i % run->tiles_x, i / run->tiles_x);

  t.src = (const unsigned char *) cuda->buf[s][BUF_REGION].ptr;
  t.src_pitch = (size_t) t.rect.reg_w * run->pixel_bytes;
  t.mid = (float *) cuda->buf[s][BUF_MID].ptr;
  t.mid_pitch = (size_t) t.rect.reg_w * src->channels * sizeof (float);
  t.mid_bytes = cuda->buf[s][BUF_MID].cap;
  t.dst = (unsigned char *) cuda->buf[s][BUF_OUT].ptr;
  t.dst_pitch = (size_t) t.rect.out_w * run->pixel_bytes;
  CHECK (cudaEventRecord (cuda->phase[s][0], st));
  CHECK_FAULT (fault_hit (faults->cuda_copy, &run->n_copy),
               cudaMemcpy2DAsync (cuda->buf[s][BUF_REGION].ptr, t.src_pitch,
                                  (const unsigned char *) src->data + (size_t) t.rect.reg_y0 * src->stride
                                    + (size_t) t.rect.reg_x0 * run->pixel_bytes,
                                  src->stride, t.src_pitch, t.rect.reg_h, cudaMemcpyHostToDevice, st),
               "copy %d (upload of tile %d)", run->n_copy, i + 1);
  CHECK (cudaEventRecord (cuda->phase[s][1], st));
  CHECK_FAULT (i + 1 == faults->cuda_launch,
               launch_tile (cuda, t, job, run->decode ? cuda->buf[s][BUF_DECODED].ptr : NULL, st),
               "kernel launch of tile %d", i + 1);
  CHECK (cudaEventRecord (cuda->phase[s][2], st));
  CHECK_FAULT (fault_hit (faults->cuda_copy, &run->n_copy),
               cudaMemcpy2DAsync ((unsigned char *) dst->data + (size_t) (t.rect.out_y0 - job->geo.win_y) * dst->stride
                                    + (size_t) (t.rect.out_x0 - job->geo.win_x) * run->pixel_bytes,
                                  dst->stride, cuda->buf[s][BUF_OUT].ptr, t.dst_pitch, t.dst_pitch, t.rect.out_h,
                                  cudaMemcpyDeviceToHost, st),
               "copy %d (download of tile %d)", run->n_copy, i + 1);
  CHECK (cudaEventRecord (cuda->done[s], st));
  return true;

fail:
  return false;
}

/* Progress: tiles [completed, upto) are finished; each finished stripe is
 * reported (rows_valid grows).  GBLUR_E_CANCELLED when the callback asked to
 * stop before the last row (the remaining reports of this call still go
 * out), else GBLUR_OK. */
static gblur_status
report_finished (host_run *run, int upto)
{
  gblur_job   *job = run->job;
  const int    H = job->geo.win_h;
  gblur_status status = GBLUR_OK;

  while (run->completed < upto)
    {
      run->completed++;
      if (run->completed % run->tiles_x == 0 || run->completed == run->ntiles)
        {
          int rows = run->completed / run->tiles_x * run->tiling.tile_h;
          job->rows_valid = rows < H ? rows : H;
          if (job->progress && job->progress (job->rows_valid, H, job->user_data)
              && job->rows_valid < H && status == GBLUR_OK)
            status = GBLUR_E_CANCELLED;
        }
    }
  return status;
}

/* Adds a finished tile's upload, kernel and download times (set s) to the
 * job's. */
static void
add_tile_times (gblur_cuda *cuda, gblur_job *job, int s)
{
  cudaEvent_t marks[4] = { cuda->phase[s][0], cuda->phase[s][1], cuda->phase[s][2], cuda->done[s] };
  float       ms;

  for (int p = 0; p < 3; p++)
    if (cudaEventElapsedTime (&ms, marks[p], marks[p + 1]) == cudaSuccess)
      job->device_ms[p] += ms;
    else
      cudaGetLastError ();   /* a timing's failure must not fail the next launch */
}

/* Waits for what is queued, so nothing writes dst after we return. */
static void
drain (gblur_cuda *cuda)
{
  for (int s = 0; s < SETS; s++)
    cudaStreamSynchronize (cuda->stream[s]);
}

static gblur_status
cancelled (host_run *run, char *err, size_t err_size)
{
  drain (run->cuda);
  snprintf (err, err_size, "cancelled after %d of %d rows", run->job->rows_valid, run->job->geo.win_h);
  return GBLUR_E_CANCELLED;
}

extern "C" gblur_status
gblur_cuda_run (gblur_cuda *cuda, gblur_job *job, char *err, size_t err_size)
{
  const int    H = job->geo.win_h, C = job->src->channels;
  const size_t bytes = gblur_sample_size (job->src->sample);
  /* enough stripes to overlap upload, compute and download */
  int          max_h = H / 8 > 256 ? (H + 7) / 8 : 256;
  host_run     run;

  memset (&run, 0, sizeof run);
  run.cuda = cuda;
  run.job = job;
  run.pixel_bytes = C * bytes;
  job->rows_valid = 0;
  if (max_h > 65535)
    max_h = 65535;
  if (!gblur_plan_tiles_extra (&job->geo, job->memory_limit / SETS, C * bytes, decoded_bytes (job),
                               C * sizeof (float), C * bytes, max_h, &run.tiling, &run.decode))
    {
      too_small (job, err, err_size);
      return GBLUR_E_NOMEM;
    }
  run.tiles_x = (job->geo.win_w + run.tiling.tile_w - 1) / run.tiling.tile_w;
  run.ntiles = run.tiles_x * ((H + run.tiling.tile_h - 1) / run.tiling.tile_h);

  CHECK (cudaSetDevice (cuda->device));
  CHECK_FAULT (fault_hit (job->faults->cuda_copy, &run.n_copy),
               upload_weights (cuda, job),
               "copy %d (the weights)", run.n_copy);
  if (!reserve_sets (&run, err, err_size))
    goto fail;
  for (int i = 0; i < run.ntiles; i++)
    {
      /* Before reusing set s, wait for tile i - SETS; report finished stripes. */
      if (i >= SETS)
        {
          CHECK (cudaEventSynchronize (cuda->done[i % SETS]));
          add_tile_times (cuda, job, i % SETS);
          if (report_finished (&run, i - SETS + 1) == GBLUR_E_CANCELLED)
            return cancelled (&run, err, err_size);
        }
      if (!queue_tile (&run, i, err, err_size))
        goto fail;
    }
  for (int s = 0; s < SETS; s++)
    CHECK (cudaStreamSynchronize (cuda->stream[s]));
  for (int i = run.ntiles > SETS ? run.ntiles - SETS : 0; i < run.ntiles; i++)
    add_tile_times (cuda, job, i % SETS);
  if (report_finished (&run, run.ntiles) == GBLUR_E_CANCELLED)
    return cancelled (&run, err, err_size);
  return GBLUR_OK;

fail:
  drain (cuda);
  cudaGetLastError ();
  return GBLUR_E_CUDA;
}

/* ---- device images: tiles one after the other on the first stream ---- */

extern "C" gblur_status
gblur_cuda_run_device (gblur_cuda *cuda, gblur_job *job, char *err, size_t err_size)
{
  const gblur_image *src = job->src;
  gblur_image       *dst = job->dst;
  const int          W = job->geo.win_w, H = job->geo.win_h, C = src->channels;
  const size_t       bytes = gblur_sample_size (src->sample);
  gblur_tiling       tiling;
  cudaStream_t       st = cuda->stream[0];
  int                n_alloc = 0, n_copy = 0, tile = 0;   /* for injected faults */
  int                decode;
  const gblur_faults *faults = job->faults;

  /* Only the float intermediate (and a decoded region) needs memory of ours. */
  if (!gblur_plan_tiles_extra (&job->geo, job->memory_limit, 0, decoded_bytes (job), C * sizeof (float), 0, 65535,
                               &tiling, &decode))
    {
      too_small (job, err, err_size);
      return GBLUR_E_NOMEM;
    }
  {
    int reg_cols = gblur_read_span (tiling.tile_w, job->radius_x, job->geo.img_w);
    CHECK (cudaSetDevice (cuda->device));
    /* Our streams do not wait for the default stream: a cudaMemcpy from
     * pageable memory returns before its copy lands, so the kernels wait
     * for what the caller queued there (gblur.h), on the GPU, which spares
     * a small image the host's round trip (docs/performance.md). */
    CHECK (cudaEventRecord (cuda->caller, cudaStreamLegacy));
    CHECK (cudaStreamWaitEvent (st, cuda->caller, 0));
    size_t need[SETS][BUF_KINDS] = { { 0 } };
    need[0][BUF_MID] = (size_t) tiling.tile_h * reg_cols * C * sizeof (float);
    if (decode)
      need[0][BUF_DECODED] = (size_t) gblur_read_span (tiling.tile_h, job->radius_y, job->geo.img_h) * reg_cols
                             * decoded_bytes (job);
    if (!reserve_buffers (cuda, &need[0][0], job, &n_alloc, err, err_size))
      goto fail;
    CHECK_FAULT (fault_hit (faults->cuda_copy, &n_copy),
                 upload_weights (cuda, job),
                 "copy %d (the weights)", n_copy);
  }
  for (int ty = 0; ty * tiling.tile_h < H; ty++)
    for (int tx = 0; tx * tiling.tile_w < W; tx++)
      {
        cuda_tile t = tile_at (cuda, job, &tiling, tx, ty);
        t.src = (const unsigned char *) src->data + (size_t) t.rect.reg_y0 * src->stride
                + (size_t) t.rect.reg_x0 * C * bytes;
        t.src_pitch = src->stride;
        t.mid = (float *) cuda->buf[0][BUF_MID].ptr;
        t.mid_pitch = (size_t) t.rect.reg_w * C * sizeof (float);
        t.mid_bytes = cuda->buf[0][BUF_MID].cap;
        t.dst = (unsigned char *) dst->data + (size_t) (t.rect.out_y0 - job->geo.win_y) * dst->stride
                + (size_t) (t.rect.out_x0 - job->geo.win_x) * C * bytes;
        t.dst_pitch = dst->stride;
        tile++;
        CHECK_FAULT (tile == faults->cuda_launch,
                     launch_tile (cuda, t, job, decode ? cuda->buf[0][BUF_DECODED].ptr : NULL, st),
                     "kernel launch of tile %d", tile);
      }
  CHECK (cudaStreamSynchronize (st));
  job->rows_valid = H;
  return GBLUR_OK;

fail:
  cudaStreamSynchronize (st);
  cudaGetLastError ();
  return GBLUR_E_CUDA;
}
