/* One engine run over a window of a GEGL buffer and its halo
 * (pixel-path.h). */
#include "config.h"

#include "int-math.h"
#include "pixel-engine.h"
#include "pixel-rows.h"
#include "pixel-stall.h"

/* Counts the engine's progress reports, for the verbose log; a test's
 * stall holds the run here. */
static int
count_steps (int rows_done, int rows_total, void *user_data)
{
  (void) rows_done;
  (void) rows_total;
  pixel_stall_step (pixel_env ()->stall_at);
  (*(gint *) user_data)++;
  return 0;
}

/* ---- Moving a region of a buffer of this process in parallel ----
 *
 * The operation's buffers live in GIMP's (or the gegl tool's) own process,
 * where reading or writing a 4096² RGBA layer in one thread takes 40-120 ms:
 * there, bands of whole tile rows move on GEGL's threads at once.  Never
 * the plug-in's buffers: their tiles come over libgimp's wire, one thread
 * only. */

typedef struct {
  GeglBuffer          *buffer;
  const GeglRectangle *rect;     /* at the mipmap level */
  const BlurShape     *shape;
  const PixelLayout   *layout;
  guchar              *data;     /* rect's rows */
  gsize                stride;
  gint                 tile_h;
} RegionMove;

/* Band i of n: the rows of rect between two tile-row boundaries. */
static GeglRectangle
band_of (const RegionMove *m, gint i, gint n)
{
  const GeglRectangle *r = m->rect;
  gint top = floor_to (r->y + (gint) ((gint64) r->height * i / n), m->tile_h);
  gint bottom = floor_to (r->y + (gint) ((gint64) r->height * (i + 1) / n), m->tile_h);

  top = i == 0 ? r->y : CLAMP (top, r->y, r->y + r->height);
  bottom = i == n - 1 ? r->y + r->height : CLAMP (bottom, top, r->y + r->height);
  return (GeglRectangle) { r->x, top, r->width, bottom - top };
}

static guchar *
band_rows (const RegionMove *m, const GeglRectangle *band)
{
  return m->data + (gsize) (band->y - m->rect->y) * m->stride;
}

static void
read_band (gint i, gint n, gpointer data)
{
  const RegionMove *m = data;
  GeglRectangle     band = band_of (m, i, n);

  if (band.height > 0)
    pixel_rows_read (m->buffer, &band, m->shape, m->layout, band_rows (m, &band), m->stride);
}

static void
write_band (gint i, gint n, gpointer data)
{
  const RegionMove *m = data;
  GeglRectangle     band = band_of (m, i, n);

  if (band.height <= 0)
    return;
  pixel_rows_encode (m->layout, band_rows (m, &band), m->stride, band.width, band.height);
  gegl_buffer_set (m->buffer, &band, m->shape->level, m->layout->format, band_rows (m, &band),
                   m->stride);
}

/* Reads (or writes) rect of buffer in bands of at least four tile rows. */
static void
move_region (GeglBuffer *buffer, const GeglRectangle *rect, const BlurShape *shape,
             const PixelLayout *layout, guchar *data, gsize stride, gboolean write)
{
  RegionMove m = { .buffer = buffer, .rect = rect, .shape = shape, .layout = layout,
                   .data = data, .stride = stride, .tile_h = 1 };

  g_object_get (buffer, "tile-height", &m.tile_h, NULL);
  m.tile_h = MAX (m.tile_h, 1);
  /* No flush after writing: this process's readers see the tiles at once,
   * and a flush of GEGL's cache buffer writes every tile to its swap. */
  gegl_parallel_distribute (MAX (1, rect->height / (4 * m.tile_h)), write ? write_band : read_band, &m);
}

BlurShape
blur_shape_uniform (gdouble sigma, gboolean linear)
{
  return (BlurShape) { .sigma_x = sigma, .sigma_y = sigma, .linear = linear,
                       .abyss = GEGL_ABYSS_CLAMP, .level = 0 };
}

/* Where one region's time went, in milliseconds (GBLUR_PROFILE). */
typedef struct {
  gint64       t0;
  gdouble      alloc, read, engine, write, free;
  GeglRectangle halo;
  gblur_result result;
} RegionTimes;

static gdouble
lap (RegionTimes *t)
{
  gint64  now = g_get_monotonic_time ();
  gdouble ms = (now - t->t0) / 1000.0;

  t->t0 = now;
  return ms;
}

/* One line a region: its halo's share, then each part of its time. */
static void
print_times (const GeglRectangle *roi, const RegionTimes *t)
{
  gdouble halo = 1.0 - (gdouble) roi->width * roi->height / ((gdouble) t->halo.width * t->halo.height);

  g_printerr ("cuda-gaussian-blur: profile %d,%d %dx%d halo %.0f%% alloc %.1f read %.1f engine %.1f "
              "(upload %.1f kernel %.1f download %.1f) write %.1f free %.1f ms\n",
              roi->x, roi->y, roi->width, roi->height, 100 * halo, t->alloc, t->read, t->engine,
              t->result.upload_ms, t->result.kernel_ms, t->result.download_ms, t->write, t->free);
}

/* Reads `roi` of `buffer` with its halo and blurs it into *out, a packed
 * image in layout->format allocated with the engine's allocator.  Nothing is
 * written anywhere else.  in_process: the buffer is this process's own (the
 * operation's), so it may be read from several threads; `lock` (may be
 * NULL), held by the caller for the engine, is let go while it is read. */
static gboolean
blur_window (gblur_engine *engine, GeglBuffer *buffer, const PixelLayout *layout,
             const GeglRectangle *roi, const BlurShape *shape, gboolean in_process,
             GMutex *lock, gblur_image *out, RegionTimes *t, GError **error)
{
  gblur_image          src;
  gblur_params         params;
  gint                 steps = 0;
  gblur_status         status;

  t->t0 = g_get_monotonic_time ();
  if (!pixel_window_alloc (engine, buffer, layout, roi, shape, &t->halo, &src, out, error))
    goto fail;
  t->alloc = lap (t);
  /* Reading may render a blur of its own (a GIMP 3 layer group's projection
   * is rendered as it is read), in this thread or GEGL's, which needs the
   * lock; the buffers are ours, so the engine may serve it meanwhile. */
  if (lock)
    g_mutex_unlock (lock);
  if (in_process)
    move_region (buffer, &t->halo, shape, layout, src.data, src.stride, FALSE);
  else
    pixel_rows_read (buffer, &t->halo, shape, layout, src.data, src.stride);
  t->read = lap (t);
  if (lock)
    g_mutex_lock (lock);
  t->alloc += lap (t);   /* waiting for another run is not this one's cost */

  params = pixel_shape_params (shape, layout, count_steps, &steps);
  status = gblur_engine_run_window (engine, &src, roi->x - t->halo.x, roi->y - t->halo.y, out,
                                    &params, &t->result);
  t->engine = lap (t);
  if (status != GBLUR_OK)
    {
      pixel_engine_set_error (error, status, engine);
      goto fail;
    }
  pixel_engine_note_result (&t->result);
  if (pixel_env ()->verbose)
    g_printerr ("cuda-gaussian-blur: %d progress steps\n", steps);
  gblur_engine_free_host (engine, src.data);
  t->free = lap (t);
  return TRUE;

fail:
  gblur_engine_free_host (engine, src.data);
  gblur_engine_free_host (engine, out->data);
  out->data = NULL;
  return FALSE;
}

gboolean
blur_to_memory (gblur_engine *engine, GeglBuffer *buffer, const Babl *drawable_format,
                const GeglRectangle *roi, const BlurShape *shape, const Babl *out_format,
                guchar *out, gint out_rowstride, GError **error)
{
  PixelLayout  layout;
  gblur_image  blurred;
  const Babl  *fish;
  RegionTimes  times = { 0 };

  if (!pixel_layout_choose (drawable_format, shape->linear, &layout, error)
      || !blur_window (engine, buffer, &layout, roi, shape, FALSE, NULL, &blurred, &times, error))
    return FALSE;
  pixel_rows_encode (&layout, blurred.data, blurred.stride, roi->width, roi->height);
  fish = babl_fish (layout.format, out_format);
  for (gint row = 0; row < roi->height; row++)
    babl_process (fish, (const guchar *) blurred.data + row * blurred.stride,
                  out + row * out_rowstride, roi->width);
  gblur_engine_free_host (engine, blurred.data);
  return TRUE;
}

const Babl *
blur_region_format (const Babl *source_format, gboolean linear)
{
  PixelLayout layout;

  if (!source_format || !pixel_layout_choose (source_format, linear, &layout, NULL))
    return NULL;
  return layout.format;
}

gboolean
blur_region (gblur_engine *engine, GMutex *lock, GeglBuffer *input, const Babl *source_format,
             const GeglRectangle *roi, const BlurShape *shape, GeglBuffer *output,
             gdouble *busy_ms, GError **error)
{
  PixelLayout layout;
  gblur_image blurred;
  RegionTimes times = { 0 };

  if (!pixel_layout_choose (source_format, shape->linear, &layout, error)
      || !blur_window (engine, input, &layout, roi, shape, TRUE, lock, &blurred, &times, error))
    return FALSE;
  move_region (output, roi, shape, &layout, blurred.data, blurred.stride, TRUE);
  times.write = lap (&times);
  gblur_engine_free_host (engine, blurred.data);
  times.free += lap (&times);
  if (pixel_env ()->profile)
    print_times (roi, &times);
  if (busy_ms)
    *busy_ms = times.read + times.engine + times.write;
  return TRUE;
}
