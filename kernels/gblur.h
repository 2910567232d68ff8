/* gblur — an exact separable Gaussian blur engine, CUDA or CPU.
 *
 * This header is the whole public API.  It knows nothing of GIMP, GTK or CUDA:
 * the plug-in, the dialog's preview, the tests and the benchmark all call it.
 *
 * Definition of the blur (every backend computes this, see docs/blur.md), for
 * each axis with its sigma (gblur_params: one for both, or sigma_x across
 * the rows and sigma_y down the columns):
 *   radius r = ceil(3 * sigma); weights w[k] = exp(-k^2 / (2 sigma^2)) for
 *   k = -r..r, divided by their sum (the sampled, normalised Gaussian,
 *   truncated at 3 sigma; sigma 0: r = 0 and the one weight 1, no blur along
 *   that axis); coordinates outside the image are clamped to the nearest edge
 *   pixel.  Applied vertically (sigma_y), then horizontally (sigma_x), in
 *   float.
 *   Integer outputs are rounded to nearest; u8/u16 results are within 1 LSB
 *   of a double-precision evaluation of the same definition, float results
 *   (for data in [0,1]) within 1e-4.
 */
#ifndef GBLUR_H
#define GBLUR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GBLUR_SIGMA_MIN 0.1
#define GBLUR_SIGMA_MAX 1500.0
#define GBLUR_MAX_CHANNELS 4

typedef enum {
  GBLUR_U8 = 0,  /* 8-bit unsigned, 0..255 */
  GBLUR_U16,     /* 16-bit unsigned, host byte order, 0..65535 */
  GBLUR_F32      /* 32-bit float, nominal range 0..1 */
} gblur_sample;

typedef enum {
  GBLUR_BACKEND_AUTO = 0, /* CUDA when a device and driver are usable, else CPU */
  GBLUR_BACKEND_CPU,
  GBLUR_BACKEND_CUDA
} gblur_backend;

typedef enum {
  GBLUR_OK = 0,
  GBLUR_E_INVALID,      /* a bad argument: NULL pointer, size, stride, overlap ... */
  GBLUR_E_SIGMA,        /* a sigma out of range or NaN (see gblur_params) */
  GBLUR_E_FORMAT,       /* unsupported channels/sample/options combination */
  GBLUR_E_NOMEM,        /* host or device allocation failed, or memory limit too small */
  GBLUR_E_BACKEND,      /* the requested backend is not usable */
  GBLUR_E_CUDA,         /* a CUDA call failed and fallback was not allowed */
  GBLUR_E_CANCELLED     /* the progress callback asked to stop */
} gblur_status;

/* Options (bit flags). */
enum {
  /* The u8/u16 data carries the sRGB transfer curve: decode to linear light
   * before blurring and encode after.  Not valid for float data (pass float
   * data already in linear light). */
  GBLUR_LINEAR_LIGHT = 1u << 0,
  /* The last channel is straight (non-premultiplied) alpha: colours are
   * multiplied by alpha before the blur and divided after, so transparent
   * pixels do not bleed their hidden colour.  Needs 2 or more channels. */
  GBLUR_PREMULTIPLY_ALPHA = 1u << 1
};

/* An image in memory: interleaved channels, rows `stride` bytes apart.
 * `stride` may be any value >= width * channels * sample size. */
typedef struct {
  void        *data;
  size_t       stride;
  int          width;
  int          height;
  int          channels;  /* 1..4 */
  gblur_sample sample;
} gblur_image;

/* Called after each horizontal stripe is complete, from the calling thread.
 * rows_done counts the finished rows from the top.  Return non-zero to
 * cancel the run. */
typedef int (*gblur_progress_fn) (int rows_done, int rows_total, void *user_data);

typedef struct {
  double            sigma;     /* both axes: [0.1, 1500]; 0: sigma_x and sigma_y below */
  unsigned          flags;     /* GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA */
  gblur_progress_fn progress;  /* may be NULL */
  void             *user_data;
  /* With sigma 0, one standard deviation per axis, each in [0, 1500] and not
   * both 0; 0 leaves that axis unblurred (its radius is 0). */
  double            sigma_x;
  double            sigma_y;
} gblur_params;

/* What a run did.  On GBLUR_OK, rows_valid == dst->height.  On cancel or failure,
 * destination rows [0, rows_valid) hold the final result; the content of the
 * other rows is unspecified (the engine may have written some of them). */
typedef struct {
  int    rows_valid;
  int    fell_back_to_cpu;  /* a CUDA failure was recovered by the CPU backend */
  /* Device time of the run's uploads, kernels and downloads, summed over
   * its tiles (CUDA on host images only, else 0); the two streams overlap
   * them, so their sum may exceed the run's wall time. */
  double upload_ms, kernel_ms, download_ms;
} gblur_result;

/* The widest instruction set the CPU loops may use (benchmarks and tests
 * pin one); never wider than the CPU has. */
typedef enum {
  GBLUR_CPU_ISA_BEST = 0,   /* the widest this CPU has */
  GBLUR_CPU_ISA_BASELINE,   /* the portable loops */
  GBLUR_CPU_ISA_AVX2,
  GBLUR_CPU_ISA_AVX512
} gblur_cpu_isa;

/* When the CPU backend takes its FFT path for large radii (a build with
 * FFTW; without it the direct loops run whatever this says). */
typedef enum {
  GBLUR_FFT_AUTO = 0,   /* where it is expected to be faster */
  GBLUR_FFT_OFF,        /* never */
  GBLUR_FFT_ALWAYS      /* whenever the format allows it */
} gblur_fft_mode;

/* CUDA kernel families to leave out (bit flags), so that tests and
 * benchmarks reach or time each path; every path gives the same pixels. */
enum {
  GBLUR_CUDA_SKIP_FUSED = 1u << 0,  /* the fused general kernel: the two-kernel path */
  GBLUR_CUDA_SKIP_GRAY = 1u << 1,   /* one channel's own kernels and the small-radius RGBA kernel */
  GBLUR_CUDA_SKIP_MMA = 1u << 2     /* the tensor cores for 8-bit gray and RGBA */
};

/* For tests only: failures to inject, each 0 (off) or N >= 1, the
 * occurrence that fails.  A CUDA fault is handled as a real CUDA failure:
 * the CPU backend redoes the image (result.fell_back_to_cpu), or with
 * no_fallback the run fails with GBLUR_E_CUDA.  CPU faults also hit a
 * fallback's CPU run.  An N past the run's last tile, copy or step does
 * nothing.  Messages of injected failures contain "injected fault". */
typedef struct {
  int cuda_init;    /* CUDA counts as unusable: the engine uses the CPU, and
                       gblur_engine_cuda_unavailable_reason says "no CUDA device:
                       injected fault ..." (a forced CUDA backend fails instead) */
  int cuda_alloc;   /* the Nth device-buffer reservation of each run fails */
  int cuda_copy;    /* the Nth host<->device copy of each run fails (1 is the
                       weights, then each tile's upload and download in turn) */
  int cuda_launch;  /* the kernel launch of the Nth tile of each run fails (tiles
                       are the stripes, counted from the top, unless the memory
                       limit splits stripes into column blocks) */
  int cpu_alloc;    /* the CPU backend's scratch allocation fails (GBLUR_E_NOMEM) */
  int cpu_stripe;   /* the CPU backend fails (GBLUR_E_NOMEM) before its Nth progress
                       step: rows_valid covers the N - 1 steps done, so N >= 2 is a
                       failure in mid-run on any machine */
  int host_alloc;   /* gblur_engine_alloc_host returns NULL */
  int cuda_short;   /* the Nth device-buffer reservation of each run finds the
                       device short once, as cudaMalloc would: not a failure */
} gblur_faults;

/* The engine's whole configuration: it reads nothing else (no environment).
 * Zero is the default of every field. */
typedef struct {
  gblur_backend backend;      /* GBLUR_BACKEND_AUTO unless forced */
  size_t        memory_limit; /* bytes of working memory (device memory for CUDA,
                                 scratch for CPU); 0 = default 512 MiB */
  int           threads;      /* CPU worker threads; 0 = one per core */
  int           no_fallback;  /* non-zero: a CUDA failure is an error instead of
                                 a silent CPU re-run */
  /* With GBLUR_BACKEND_AUTO, non-zero: do not start CUDA (0.2-0.3 s) in
   * gblur_engine_new; runs go to the CPU until one would take the CPU more
   * than twice that for its rows left (judged at each progress step from
   * the second on, at the rate since the first), which then starts CUDA and
   * hands it those rows.  For callers that live for one run (a batch call),
   * so that a GPU never makes a run slower than the CPU alone. */
  int           defer_cuda;
  int           cuda_device;  /* the CUDA device's index; 0 = the first */
  gblur_cpu_isa cpu_isa;      /* caps the CPU loops' instruction set */
  gblur_fft_mode cpu_fft;     /* the CPU backend's FFT path for large radii */
  unsigned      cuda_skip;    /* GBLUR_CUDA_SKIP_* */
  /* For tests only; NULL: none.  Copied when the engine is made. */
  const gblur_faults *faults;
} gblur_config;

typedef struct gblur_engine gblur_engine;

/* Creates an engine from config (NULL: all defaults).  Returns NULL only
 * when memory runs out, a forced backend is unusable or a field is out of
 * range; then *status and (if msg is not NULL) a message of msg_size bytes
 * say why. */
gblur_engine *gblur_engine_new (const gblur_config *config,
                                gblur_status       *status,
                                char               *msg,
                                size_t              msg_size);
void          gblur_engine_free (gblur_engine *engine);

/* The backend in use and a human-readable description of it, e.g.
 * "NVIDIA H200" or "CPU, 2 threads". */
gblur_backend gblur_engine_backend (const gblur_engine *engine);
const char   *gblur_engine_describe (const gblur_engine *engine);
/* CPU worker threads (used by the CPU backend and for CUDA fallbacks). */
int           gblur_engine_cpu_threads (const gblur_engine *engine);
/* A deferring engine (gblur_config.defer_cuda) starts CUDA now, blocking
 * for its start (0.2-0.3 s), and uses it from then on: for a caller that
 * lives for many runs (a warm process), once it is ready for them.  On
 * failure the engine stays on the CPU, with the reason.  Other engines are
 * left as they are.  Returns the backend in use. */
gblur_backend gblur_engine_start_cuda (gblur_engine *engine);
/* Why CUDA is not in use ("no CUDA device: ..."), or "" when it is. */
const char   *gblur_engine_cuda_unavailable_reason (const gblur_engine *engine);

/* Blurs src into dst (same size, channels and sample type; dst may have a
 * different stride; the two must not overlap).  Blocks until done. */
gblur_status  gblur_engine_run (gblur_engine       *engine,
                                const gblur_image  *src,
                                gblur_image        *dst,
                                const gblur_params *params,
                                gblur_result       *result /* may be NULL */);

/* Blurs the window of src whose top-left corner is (src_x, src_y) and whose
 * size is dst's into dst; pixels around the window are read as the halo, so
 * the result equals the same window of a whole-image blur.  This is what a
 * selection or a preview needs.  The window must lie inside src. */
gblur_status  gblur_engine_run_window (gblur_engine       *engine,
                                       const gblur_image  *src,
                                       int                 src_x,
                                       int                 src_y,
                                       gblur_image        *dst,
                                       const gblur_params *params,
                                       gblur_result       *result /* may be NULL */);

/* Both images in device memory (CUDA backend only): for the benchmark and
 * for callers that keep their pixels on the GPU.  The engine first waits
 * for the work queued on the (legacy) default stream, a cudaMemcpy that
 * filled src included; work on the caller's own non-blocking streams, or on
 * per-thread default streams, must be finished.  dst is complete on return.
 * Each image's address and stride must be whole samples (the kernels read
 * and write them as such); others are refused with GBLUR_E_INVALID. */
gblur_status  gblur_engine_run_device (gblur_engine       *engine,
                                       const gblur_image  *src,
                                       gblur_image        *dst,
                                       const gblur_params *params);

/* The message of the last failed call on this engine ("" after success). */
const char   *gblur_engine_last_error (const gblur_engine *engine);

/* Host buffers for images: page-locked (pinned) when CUDA is in use, so
 * uploads and downloads run at full bus speed; ordinary memory otherwise.
 * Free with gblur_engine_free_host on the same engine.  An engine's host
 * buffers, like its runs, are for one thread at a time. */
void         *gblur_engine_alloc_host (gblur_engine *engine, size_t size);
void          gblur_engine_free_host (gblur_engine *engine, void *ptr);
/* Freed host buffers are kept for the next runs (page-locked ones up to a
 * bound, docs/performance.md), and CUDA's device buffers (under the memory
 * limit): this frees them, for a caller that will not blur for a while (a
 * filter closed). */
void          gblur_engine_release_kept (gblur_engine *engine);
/* Device memory kept between runs; 0 on the CPU. */
size_t        gblur_engine_kept_device_bytes (const gblur_engine *engine);

/* Utilities. */
int           gblur_radius (double sigma);            /* ceil(3 sigma) */
size_t        gblur_sample_size (gblur_sample sample);
const char   *gblur_status_name (gblur_status status);

#ifdef __cplusplus
}
#endif

#endif /* GBLUR_H */
