/* Internal interfaces shared by the engine's backends.  Not installed. */
#ifndef GBLUR_INTERNAL_H
#define GBLUR_INTERNAL_H

#include "gblur.h"

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GBLUR_MAX_RADIUS 4500          /* ceil(3 * GBLUR_SIGMA_MAX) */
#define GBLUR_DEFAULT_MEMORY_LIMIT ((size_t) 512 << 20)
/* Taps per partial sum in the long sums of large radii.  One float sum of
 * 3001 taps drifts by up to ~1e-5, which un-premultiplying can turn into
 * more than a 16-bit level; sums of partial sums of 64 drift ~10x less. */
#define GBLUR_SUM_CHUNK 64

/* Where the output lies: the window [win_x, win_x + win_w) x [win_y, win_y +
 * win_h) of an img_w x img_h source, blurred with the given radii: a halo of
 * radius_x columns each side and radius_y rows above and below (either may
 * be 0: that axis is not blurred). */
typedef struct {
  int img_w, img_h;
  int win_x, win_y, win_w, win_h;
  int radius_x, radius_y;
} gblur_geometry;

/* The engine's configuration, checked, with its defaults filled in. */
typedef struct {
  gblur_backend backend;
  size_t        memory_limit;     /* bytes, never 0 */
  int           no_fallback;
  int           defer_cuda;       /* gblur_config.defer_cuda, AUTO only */
  int           threads;          /* 0 = one per core */
  int           cpu_isa_cap;      /* 0 baseline, 1 avx2, 2 avx512; -1 = the best there is */
  gblur_fft_mode cpu_fft;
  int           cuda_device;
  int           cuda_no_fused, cuda_no_gray, cuda_no_mma;
  gblur_faults  faults;           /* all 0 unless a test set some */
} gblur_settings;

/* Fills *settings from config; 0 when a field is out of range, with the
 * reason in msg. */
int gblur_settings_read (const gblur_config *config, gblur_settings *settings,
                         char *msg, size_t msg_size);

/* One blur, validated, as the backends receive it.  dst is win_w x win_h.
 * The vertical pass uses radius_y and weights_y, the horizontal pass
 * radius_x and weights_x.  A radius may be 0 (its half kernel is { 1 }: the
 * pass is a copy), not both.  When both axes have the same sigma,
 * weights_x == weights_y (the same pointer): the backends may take that as
 * "isotropic" (the same taps on both axes). */
typedef struct {
  const gblur_image *src;
  gblur_image       *dst;
  gblur_geometry     geo;
  int                radius_x, radius_y;
  const float       *weights_x;   /* weights_x[0..radius_x], symmetric half-kernel */
  const float       *weights_y;   /* weights_y[0..radius_y] */
  unsigned           flags;
  size_t             memory_limit;
  gblur_progress_fn  progress;
  void              *user_data;
  const gblur_faults *faults;     /* never NULL */
  int                rows_valid;  /* out: rows [0, rows_valid) of dst are final */
  double             device_ms[3]; /* out: upload, kernel, download (CUDA) */
} gblur_job;

/* A rectangle of the output and the input region it reads (output grown by
 * radius_x columns and radius_y rows, clamped to the image); all in source
 * image coordinates. */
typedef struct {
  int out_x0, out_y0, out_w, out_h;
  int reg_x0, reg_y0, reg_w, reg_h;
} gblur_tile;

/* Tile sizes for a window: tiles are tile_w x tile_h outputs, laid in
 * stripes from the top of the window. */
typedef struct {
  int tile_w, tile_h;
} gblur_tiling;

void gblur_tile_at (const gblur_geometry *geo, const gblur_tiling *tiling,
                    int tx, int ty, gblur_tile *tile);

/* Largest tile height (<= max_h) whose bytes fit `budget`, for tiles of width
 * tile_w; bytes(tile) = reg_rows*reg_cols*reg_elem + out_rows*reg_cols*mid_elem
 * + out_rows*tile_w*out_elem.  Returns 0 when even one row does not fit. */
int  gblur_fit_tile_height (const gblur_geometry *geo, int tile_w, int max_h,
                            size_t budget, size_t reg_elem, size_t mid_elem,
                            size_t out_elem);

/* A tiling of the window for a byte budget a tile (bytes as above): full-width
 * stripes when they fit, else ever narrower columns.  0 when not even one
 * pixel's column fits. */
int    gblur_plan_tiles (const gblur_geometry *geo, size_t budget, size_t reg_elem, size_t mid_elem,
                         size_t out_elem, int max_h, gblur_tiling *tiling);
/* Region pixels that the tiles of `tiling` read together, halos included
 * (at most: a region at the image's edge reads less). */
double gblur_tiling_reads (const gblur_geometry *geo, const gblur_tiling *tiling);
/* As gblur_plan_tiles, with `extra` bytes more a region pixel when that
 * plan reads at most CUDA_DECODE_READ_GAIN times the region pixels of the
 * plan without them; *with_extra says which was taken. */
int    gblur_plan_tiles_extra (const gblur_geometry *geo, size_t budget, size_t reg_elem, size_t extra,
                               size_t mid_elem, size_t out_elem, int max_h, gblur_tiling *tiling,
                               int *with_extra);

/* The normalised half kernel: weights[0..radius].  Sigma 0 (radius 0) gives
 * { 1 }. */
void gblur_make_weights (double sigma, int radius, float *weights);

/* Buffers of GBLUR_LARGE_BYTES and more, on transparent huge pages where
 * the system gives them on request (madvise), rounded up to whole ones:
 * a large run's buffers are fresh memory, which faults in several times
 * faster in huge pages (docs/performance.md).  Smaller ones are aligned to
 * 64 bytes.
 * NULL when out of memory; free with free (). */
#define GBLUR_HUGE_PAGE   ((size_t) 2 << 20)
#define GBLUR_LARGE_BYTES (4 * GBLUR_HUGE_PAGE)
void  *gblur_alloc_large (size_t bytes);
/* The bytes gblur_alloc_large gives for `bytes`: as many, or whole huge
 * pages from GBLUR_LARGE_BYTES. */
size_t gblur_large_capacity (size_t bytes);

/* A freed large buffer kept for the next run that needs as much: madvised
 * MADV_FREE, so the system may take its pages back whenever it is short of
 * memory (they then come back as fresh zero pages), and until then a run
 * reuses them without faulting any in.  Its content is undefined.  The lock
 * makes take and give safe from any thread. */
typedef struct {
  pthread_mutex_t lock;
  void           *data;
  size_t          bytes;
} gblur_kept;

void  gblur_kept_init (gblur_kept *kept);
/* The kept buffer when it holds `bytes` and at most twice as many
 * (*capacity set to its size; it leaves the slot), else NULL (it stays). */
void *gblur_kept_take (gblur_kept *kept, size_t bytes, size_t *capacity);
/* Keeps data (capacity bytes from gblur_alloc_large) in the slot when it
 * is large, freeing the buffer kept before; frees a small one. */
void  gblur_kept_give (gblur_kept *kept, void *data, size_t capacity);
/* A buffer of at least `bytes` from the slot or else gblur_alloc_large,
 * *capacity its size; NULL when out of memory. */
void *gblur_kept_alloc (gblur_kept *kept, size_t bytes, size_t *capacity);
/* Whether the slot holds no buffer. */
int   gblur_kept_empty (gblur_kept *kept);
/* Frees the kept buffer (the slot can be used again). */
void  gblur_kept_clear (gblur_kept *kept);

/* Whether the job has the same taps on both axes (the same sigma). */
static inline int
gblur_job_isotropic (const gblur_job *job)
{
  return job->weights_x == job->weights_y;
}

/* sRGB transfer curve (IEC 61966-2-1): its constants, for every backend (the
 * CUDA kernels use them as floats), and the curve in double precision.
 *   decode: v <= DECODE_KNEE ? v / SLOPE : ((v + OFFSET) / SCALE)^GAMMA
 *   encode: l <= ENCODE_KNEE ? SLOPE * l : SCALE * l^(1/GAMMA) - OFFSET */
#define GBLUR_SRGB_DECODE_KNEE 0.04045
#define GBLUR_SRGB_ENCODE_KNEE 0.0031308
#define GBLUR_SRGB_SLOPE       12.92
#define GBLUR_SRGB_OFFSET      0.055
#define GBLUR_SRGB_SCALE       1.055
#define GBLUR_SRGB_GAMMA       2.4
double gblur_srgb_to_linear (double v);
double gblur_linear_to_srgb (double l);
double gblur_linear_to_srgb_slope (double l);

/* Bins of the u16 encoding table: narrower than the closest two u16
 * thresholds (1/(65535 * 12.92) on the curve's linear part). */
#define GBLUR_U16_BINS (1 << 20)

/* Bins of the u16 slope table: linear light [0, 1] in equal steps. */
#define GBLUR_SLOPE_BINS 1024

/* Lookup tables, built once (thread-safe). */
typedef struct {
  float decode_u8[256];           /* u8 code -> linear [0,1] */
  float encode_u8_threshold[255]; /* linear value where code k rounds up to k+1 */
  float encode_u8_next[256];      /* where code k + 1 starts: the thresholds, then +inf */
  float decode_u16[65536];        /* u16 code -> linear [0,1] */
  unsigned char encode_u8_bin[4097]; /* the code of linear k/4096 */
  float encode_u16_next[65536];   /* where u16 code k + 1 starts, then +inf */
  unsigned short encode_u16_bin[GBLUR_U16_BINS + 1]; /* the u16 code of linear k/GBLUR_U16_BINS */
  float slope_u16[GBLUR_SLOPE_BINS + 1]; /* u16 levels per unit of linear light at k/GBLUR_SLOPE_BINS:
                                            the curve's steepest over bin k (it flattens) */
} gblur_srgb_tables;

/* Linear [0,1] -> sRGB u8 code, rounded to nearest in the encoded space.
 * Exact: the thresholds are at least 3e-4 apart, so a bin [k, k + 1) / 4096
 * holds at most one, and a value's code is its bin's or the next.  Out of
 * range and NaN clamp; no branches, so that a row's samples pipeline. */
static inline int
gblur_encode_u8_linear (const gblur_srgb_tables *srgb, float v)
{
  int code;

  v = v > 0.0f ? v : 0.0f;  /* NaN too */
  v = v < 1.0f ? v : 1.0f;
  code = srgb->encode_u8_bin[(int) (v * 4096.0f)];
  return code + (v >= srgb->encode_u8_next[code]);
}

/* Linear [0,1] -> sRGB u16 code, rounded to nearest in the encoded space;
 * exact as the u8 one: a bin holds at most one threshold.  No powf per
 * sample, which made 16-bit pictures slower than GEGL's own blur. */
static inline int
gblur_encode_u16_linear (const gblur_srgb_tables *srgb, float v)
{
  int code;

  v = v > 0.0f ? v : 0.0f;  /* NaN too */
  v = v < 1.0f ? v : 1.0f;
  code = srgb->encode_u16_bin[(int) (v * (float) GBLUR_U16_BINS)];
  return code + (v >= srgb->encode_u16_next[code]);
}
const gblur_srgb_tables *gblur_srgb_tables_get (void);

/* CPU backend. */
typedef struct gblur_cpu gblur_cpu;
gblur_cpu   *gblur_cpu_new (int threads, int isa_cap, gblur_fft_mode fft);
void         gblur_cpu_free (gblur_cpu *cpu);
int          gblur_cpu_threads (const gblur_cpu *cpu);
gblur_status gblur_cpu_run (gblur_cpu *cpu, gblur_job *job, char *err, size_t err_size);

/* CUDA backend (kernels/cuda/backend.cu, or gblur-nocuda.c in a CPU-only build). */
typedef struct gblur_cuda gblur_cuda;
/* 0, with the reason, where CUDA can never start (no driver library, or a
 * build without CUDA); known without starting it. */
int          gblur_cuda_possible (char *reason, size_t reason_size);
gblur_cuda  *gblur_cuda_open (const gblur_settings *settings, char *reason, size_t reason_size);
void         gblur_cuda_close (gblur_cuda *cuda);
const char  *gblur_cuda_device_name (const gblur_cuda *cuda);
gblur_status gblur_cuda_run (gblur_cuda *cuda, gblur_job *job, char *err, size_t err_size);
gblur_status gblur_cuda_run_device (gblur_cuda *cuda, gblur_job *job, char *err, size_t err_size);
size_t       gblur_cuda_kept_bytes (const gblur_cuda *cuda);
void         gblur_cuda_release_kept (gblur_cuda *cuda);
void        *gblur_cuda_host_alloc (size_t size);
void         gblur_cuda_host_free (void *ptr);

#ifdef __cplusplus
}
#endif

#endif
