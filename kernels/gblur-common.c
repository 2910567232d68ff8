/* Pieces every backend shares: the kernel weights, the sRGB curve, tiling. */
#include "gblur-internal.h"

#include "region.h"
#include "tuning.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

int
gblur_radius (double sigma)
{
  return (int) ceil (3.0 * sigma);
}

size_t
gblur_sample_size (gblur_sample sample)
{
  switch (sample)
    {
    case GBLUR_U8:  return 1;
    case GBLUR_U16: return 2;
    case GBLUR_F32: return 4;
    }
  return 0;
}

const char *
gblur_status_name (gblur_status status)
{
  switch (status)
    {
    case GBLUR_OK:          return "ok";
    case GBLUR_E_INVALID:   return "invalid argument";
    case GBLUR_E_SIGMA:     return "sigma out of range";
    case GBLUR_E_FORMAT:    return "unsupported format";
    case GBLUR_E_NOMEM:     return "out of memory";
    case GBLUR_E_BACKEND:   return "backend unavailable";
    case GBLUR_E_CUDA:      return "CUDA error";
    case GBLUR_E_CANCELLED: return "cancelled";
    }
  return "unknown status";
}

void
gblur_make_weights (double sigma, int radius, float *weights)
{
  double w[GBLUR_MAX_RADIUS + 1];
  double sum = 0.0;

  for (int k = 0; k <= radius; k++)
    {
      /* The centre tap is exp(-0) = 1, written out: sigma 0 (or a sigma so
       * small that its square is 0) would make it exp(-0/0). */
      w[k] = k == 0 ? 1.0 : exp (-(double) k * k / (2.0 * sigma * sigma));
      sum += k == 0 ? w[k] : 2.0 * w[k];
    }
  for (int k = 0; k <= radius; k++)
    weights[k] = (float) (w[k] / sum);
}

size_t
gblur_large_capacity (size_t bytes)
{
  if (bytes < GBLUR_LARGE_BYTES || bytes > SIZE_MAX - GBLUR_HUGE_PAGE)
    return bytes;
  return (bytes + GBLUR_HUGE_PAGE - 1) / GBLUR_HUGE_PAGE * GBLUR_HUGE_PAGE;
}

void *
gblur_alloc_large (size_t bytes)
{
  void *p = NULL;

  if (bytes < GBLUR_LARGE_BYTES)
    return posix_memalign (&p, 64, bytes ? bytes : 1) == 0 ? p : NULL;
  if (bytes > SIZE_MAX - GBLUR_HUGE_PAGE)
    return NULL;
  bytes = gblur_large_capacity (bytes);
  if (posix_memalign (&p, GBLUR_HUGE_PAGE, bytes) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  madvise (p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

void
gblur_kept_init (gblur_kept *kept)
{
  pthread_mutex_init (&kept->lock, NULL);
  kept->data = NULL;
  kept->bytes = 0;
}

void *
gblur_kept_take (gblur_kept *kept, size_t bytes, size_t *capacity)
{
  void *data = NULL;

  pthread_mutex_lock (&kept->lock);
  if (kept->data && kept->bytes >= bytes && kept->bytes / 2 <= bytes)
    {
      data = kept->data;
      *capacity = kept->bytes;
      kept->data = NULL;
      kept->bytes = 0;
    }
  pthread_mutex_unlock (&kept->lock);
  return data;
}

void
gblur_kept_give (gblur_kept *kept, void *data, size_t capacity)
{
  void *old = data;

  if (data && capacity >= GBLUR_LARGE_BYTES)
    {
#ifdef MADV_FREE
      madvise (data, capacity, MADV_FREE);
#endif
      pthread_mutex_lock (&kept->lock);
      old = kept->data;
      kept->data = data;
      kept->bytes = capacity;
      pthread_mutex_unlock (&kept->lock);
    }
  free (old);
}

void *
gblur_kept_alloc (gblur_kept *kept, size_t bytes, size_t *capacity)
{
  void *data = gblur_kept_take (kept, bytes, capacity);

  if (!data)
    {
      *capacity = gblur_large_capacity (bytes);
      data = gblur_alloc_large (bytes);
    }
  return data;
}

int
gblur_kept_empty (gblur_kept *kept)
{
  int empty;

  pthread_mutex_lock (&kept->lock);
  empty = kept->data == NULL;
  pthread_mutex_unlock (&kept->lock);
  return empty;
}

void
gblur_kept_clear (gblur_kept *kept)
{
  pthread_mutex_lock (&kept->lock);
  free (kept->data);
  kept->data = NULL;
  kept->bytes = 0;
  pthread_mutex_unlock (&kept->lock);
}

double
gblur_srgb_to_linear (double v)
{
  return v <= GBLUR_SRGB_DECODE_KNEE ? v / GBLUR_SRGB_SLOPE
                                     : pow ((v + GBLUR_SRGB_OFFSET) / GBLUR_SRGB_SCALE, GBLUR_SRGB_GAMMA);
}

double
gblur_linear_to_srgb (double l)
{
  return l <= GBLUR_SRGB_ENCODE_KNEE ? GBLUR_SRGB_SLOPE * l
                                     : GBLUR_SRGB_SCALE * pow (l, 1.0 / GBLUR_SRGB_GAMMA) - GBLUR_SRGB_OFFSET;
}

/* The curve's derivative d sRGB / d linear (at 0: the linear part's). */
double
gblur_linear_to_srgb_slope (double l)
{
  return l <= GBLUR_SRGB_ENCODE_KNEE ? GBLUR_SRGB_SLOPE
                                     : GBLUR_SRGB_SCALE / GBLUR_SRGB_GAMMA * pow (l, 1.0 / GBLUR_SRGB_GAMMA - 1.0);
}

static gblur_srgb_tables srgb_tables;
static pthread_once_t    srgb_tables_once = PTHREAD_ONCE_INIT;

static void
srgb_tables_build (void)
{
  for (int i = 0; i < 256; i++)
    srgb_tables.decode_u8[i] = (float) gblur_srgb_to_linear (i / 255.0);
  /* Code k+1 wins over k when the encoded value reaches k + 0.5. */
  for (int k = 0; k < 255; k++)
    srgb_tables.encode_u8_next[k] = srgb_tables.encode_u8_threshold[k]
      = (float) gblur_srgb_to_linear ((k + 0.5) / 255.0);
  srgb_tables.encode_u8_next[255] = INFINITY;
  for (int i = 0, code = 0; i <= 4096; i++)
    {
      while (srgb_tables.encode_u8_next[code] <= i / 4096.0f)
        code++;
      srgb_tables.encode_u8_bin[i] = (unsigned char) code;
    }
  for (int i = 0; i < 65536; i++)
    srgb_tables.decode_u16[i] = (float) gblur_srgb_to_linear (i / 65535.0);
  for (int k = 0; k < 65535; k++)
    srgb_tables.encode_u16_next[k] = (float) gblur_srgb_to_linear ((k + 0.5) / 65535.0);
  srgb_tables.encode_u16_next[65535] = INFINITY;
  for (int i = 0, code = 0; i <= GBLUR_U16_BINS; i++)
    {
      while (srgb_tables.encode_u16_next[code] <= i / (float) GBLUR_U16_BINS)
        code++;
      srgb_tables.encode_u16_bin[i] = (unsigned short) code;
    }
  for (int i = 0; i <= GBLUR_SLOPE_BINS; i++)
    srgb_tables.slope_u16[i] = (float) (65535.0 * gblur_linear_to_srgb_slope ((double) i / GBLUR_SLOPE_BINS));
}

const gblur_srgb_tables *
gblur_srgb_tables_get (void)
{
  pthread_once (&srgb_tables_once, srgb_tables_build);
  return &srgb_tables;
}

static int
min_int (int a, int b)
{
  return a < b ? a : b;
}

void
gblur_tile_at (const gblur_geometry *geo, const gblur_tiling *tiling,
               int tx, int ty, gblur_tile *tile)
{
  gblur_region reg;

  tile->out_x0 = geo->win_x + tx * tiling->tile_w;
  tile->out_y0 = geo->win_y + ty * tiling->tile_h;
  tile->out_w = min_int (tiling->tile_w, geo->win_x + geo->win_w - tile->out_x0);
  tile->out_h = min_int (tiling->tile_h, geo->win_y + geo->win_h - tile->out_y0);
  reg = gblur_read_region (geo, tile->out_x0, tile->out_y0, tile->out_w, tile->out_h);
  tile->reg_x0 = reg.x0;
  tile->reg_y0 = reg.y0;
  tile->reg_w = reg.w;
  tile->reg_h = reg.h;
}

static size_t
tile_bytes (const gblur_geometry *geo, int tile_w, int tile_h,
            size_t reg_elem, size_t mid_elem, size_t out_elem)
{
  size_t reg_cols = (size_t) gblur_read_span (tile_w, geo->radius_x, geo->img_w);
  size_t reg_rows = (size_t) gblur_read_span (tile_h, geo->radius_y, geo->img_h);

  return reg_rows * reg_cols * reg_elem + (size_t) tile_h * reg_cols * mid_elem
         + (size_t) tile_h * tile_w * out_elem;
}

int
gblur_fit_tile_height (const gblur_geometry *geo, int tile_w, int max_h,
                       size_t budget, size_t reg_elem, size_t mid_elem, size_t out_elem)
{
  int lo = 0, hi = min_int (max_h, geo->win_h);

  while (lo < hi) /* largest h in [0, hi] that fits */
    {
      int mid = lo + (hi - lo + 1) / 2;
      if (tile_bytes (geo, tile_w, mid, reg_elem, mid_elem, out_elem) <= budget)
        lo = mid;
      else
        hi = mid - 1;
    }
  return lo;
}

int
gblur_plan_tiles (const gblur_geometry *geo, size_t budget, size_t reg_elem, size_t mid_elem,
                  size_t out_elem, int max_h, gblur_tiling *tiling)
{
  int tile_w = geo->win_w;

  for (;;)
    {
      int h = gblur_fit_tile_height (geo, tile_w, max_h, budget, reg_elem, mid_elem, out_elem);
      if (h > 0)
        {
          tiling->tile_w = tile_w;
          tiling->tile_h = h;
          return 1;
        }
      if (tile_w == 1)
        return 0;
      tile_w = (tile_w + 1) / 2;
    }
}

/* Pixels the tiles along one axis read together: each its span of the image. */
static double
axis_reads (int win_len, int tile_len, int radius, int img_len)
{
  double sum = 0;

  for (int at = 0; at < win_len; at += tile_len)
    sum += gblur_read_span (min_int (tile_len, win_len - at), radius, img_len);
  return sum;
}

double
gblur_tiling_reads (const gblur_geometry *geo, const gblur_tiling *tiling)
{
  return axis_reads (geo->win_w, tiling->tile_w, geo->radius_x, geo->img_w)
         * axis_reads (geo->win_h, tiling->tile_h, geo->radius_y, geo->img_h);
}

int
gblur_plan_tiles_extra (const gblur_geometry *geo, size_t budget, size_t reg_elem, size_t extra,
                        size_t mid_elem, size_t out_elem, int max_h, gblur_tiling *tiling,
                        int *with_extra)
{
  gblur_tiling more;

  *with_extra = 0;
  if (!gblur_plan_tiles (geo, budget, reg_elem, mid_elem, out_elem, max_h, tiling))
    return 0;
  if (extra && gblur_plan_tiles (geo, budget, reg_elem + extra, mid_elem, out_elem, max_h, &more)
      && gblur_tiling_reads (geo, &more) <= CUDA_DECODE_READ_GAIN * gblur_tiling_reads (geo, tiling))
    {
      *tiling = more;
      *with_extra = 1;
    }
  return 1;
}
