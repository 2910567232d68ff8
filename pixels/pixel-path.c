/* The pixel path shared by every front end (pixel-path.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "blur-engine.h"
#include "pixel-path.h"
#include "tone-curve.h"

/* How the engine sees the drawable's pixels. */
typedef struct {
  const Babl      *format;   /* what GEGL converts to and from */
  const ToneCurve *curve;    /* when set: format is u16, decoded to float for the engine */
  gblur_sample     sample;
  int              channels;
  gboolean         alpha;
  unsigned         flags;
} PixelLayout;

/* Whether the image's space encodes with the sRGB curve (gray, or each RGB
 * channel), so that the engine's own decoding is exact: babl decodes every
 * 8-bit value in that space and in its built-in sRGB, and they must agree.
 * Numeric rather than by name: an sRGB profile read from a file is a space
 * of its own. */
static gboolean
space_has_srgb_curve (const Babl *drawable_format, gboolean gray)
{
  const char *encoded_name = gray ? "Y' u8" : "R'G'B' u8";
  const char *linear_name = gray ? "Y float" : "RGB float";
  gint        n = gray ? 1 : 3;
  guint8      encoded[256 * 3];
  gfloat      in_space[256 * 3], in_srgb[256 * 3];

  for (gint i = 0; i < 256 * n; i++)
    encoded[i] = (guint8) (i / n);
  babl_process (babl_fish (babl_format_with_space (encoded_name, drawable_format),
                           babl_format_with_space (linear_name, drawable_format)),
                encoded, in_space, 256);
  babl_process (babl_fish (babl_format (encoded_name), babl_format (linear_name)),
                encoded, in_srgb, 256);
  for (gint i = 0; i < 256 * n; i++)
    if (fabs (in_space[i] - in_srgb[i]) > 1e-5)
      return FALSE;
  return TRUE;
}

/* 8- and 16-bit data travel in their own precision (so 8-bit gray moves one
 * byte per pixel), encoded with the sRGB curve when that is the image's
 * curve: the engine decodes it when blurring in linear light.  In linear
 * light with another curve (a ProPhoto, Rec.2020 or linear profile), and for
 * float data, babl delivers linear float in the image's own space; except
 * 16-bit data, which the profile's own curve decodes (babl's is too coarse
 * for 16 bits: tone-curve.h).  Alpha is straight in GEGL's formats: the
 * engine premultiplies. */
static gboolean
choose_layout (const Babl *drawable_format, gboolean linear, PixelLayout *layout, GError **error)
{
  const Babl *type;
  gboolean    alpha, babl_linear;
  int         colors;
  const char *model, *type_name;
  gchar      *name;

  if (babl_format_is_palette (drawable_format))
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("Cannot blur an indexed image: convert it to RGB or grayscale first."));
      return FALSE;
    }
  type = babl_format_get_type (drawable_format, 0);
  alpha = babl_format_has_alpha (drawable_format);
  colors = babl_format_get_n_components (drawable_format) - (alpha ? 1 : 0);

  if (type == babl_type ("u8"))
    layout->sample = GBLUR_U8, type_name = "u8";
  else if (type == babl_type ("u16"))
    layout->sample = GBLUR_U16, type_name = "u16";
  else
    layout->sample = GBLUR_F32, type_name = "float";
  babl_linear = linear && (layout->sample == GBLUR_F32
                           || !space_has_srgb_curve (drawable_format, colors == 1));
  layout->curve = NULL;
  if (babl_linear && layout->sample == GBLUR_U16)
    layout->curve = tone_curve_for_format (drawable_format, colors);
  if (babl_linear)
    layout->sample = GBLUR_F32;
  if (babl_linear && !layout->curve)
    type_name = "float";

  if (babl_linear && !layout->curve)
    model = colors == 1 ? (alpha ? "YA" : "Y") : (alpha ? "RGBA" : "RGB");
  else
    model = colors == 1 ? (alpha ? "Y'A" : "Y'") : (alpha ? "R'G'B'A" : "R'G'B'");

  name = g_strdup_printf ("%s %s", model, type_name);
  layout->format = babl_format_with_space (name, drawable_format);
  g_free (name);
  layout->channels = (colors == 1 ? 1 : 3) + (alpha ? 1 : 0);
  layout->alpha = alpha;
  layout->flags = (linear && !babl_linear ? GBLUR_LINEAR_LIGHT : 0)
                  | (alpha ? GBLUR_PREMULTIPLY_ALPHA : 0);
  return TRUE;
}

typedef struct {
  BlurProgressFunc func;
  gpointer         data;
  gint             steps;   /* stripes reported, for the verbose log */
} ProgressRelay;

/* The engine reports rows; the blur is the middle 80% of the bar (reading
 * and writing the pixels are the rest). */
static int
relay_progress (int rows_done, int rows_total, void *user_data)
{
  ProgressRelay *relay = user_data;
  relay->steps++;
  if (relay->func)
    relay->func (0.1 + 0.8 * rows_done / (double) rows_total, relay->data);
  return 0;
}

/* Bytes per pixel of the engine's images (the GEGL format's may be fewer). */
static gint
layout_bytes_per_pixel (const PixelLayout *layout)
{
  return layout->channels * (gint) gblur_sample_size (layout->sample);
}

/* Reads `rect` (at the shape's mipmap level) of `buffer` into rows at
 * `data`, as the engine takes them. */
static void
read_rows (GeglBuffer *buffer, const GeglRectangle *rect, const BlurShape *shape,
           const PixelLayout *layout, guchar *data, gsize stride)
{
  gegl_buffer_get (buffer, rect, 1.0 / (1 << shape->level), layout->format, data, stride,
                   shape->abyss);
  if (layout->curve)
    for (gint row = 0; row < rect->height; row++)
      tone_curve_decode (layout->curve, data + row * stride, rect->width, layout->alpha);
}

/* Converts the engine's rows at `data` to layout->format, in place. */
static void
encode_rows (const PixelLayout *layout, guchar *data, gsize stride, gint width, gint height)
{
  if (layout->curve)
    for (gint row = 0; row < height; row++)
      tone_curve_encode (layout->curve, data + row * stride, width, layout->alpha);
}

/* Writes the engine's rows at `data` (converted in place) into `rect` of
 * `output`, at mipmap `level`. */
static void
write_rows (GeglBuffer *output, const GeglRectangle *rect, gint level, const PixelLayout *layout,
            guchar *data, gsize stride)
{
  encode_rows (layout, data, stride, rect->width, rect->height);
  gegl_buffer_set (output, rect, level, layout->format, data, stride);
  gegl_buffer_flush (output);
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

static gint
floor_to_multiple (gint v, gint m)
{
  return (v >= 0 ? v / m : -((-v + m - 1) / m)) * m;
}

/* Band i of n: the rows of rect between two tile-row boundaries. */
static GeglRectangle
band_of (const RegionMove *m, gint i, gint n)
{
  const GeglRectangle *r = m->rect;
  gint top = floor_to_multiple (r->y + (gint) ((gint64) r->height * i / n), m->tile_h);
  gint bottom = floor_to_multiple (r->y + (gint) ((gint64) r->height * (i + 1) / n), m->tile_h);

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
    read_rows (m->buffer, &band, m->shape, m->layout, band_rows (m, &band), m->stride);
}

static void
write_band (gint i, gint n, gpointer data)
{
  const RegionMove *m = data;
  GeglRectangle     band = band_of (m, i, n);

  if (band.height <= 0)
    return;
  encode_rows (m->layout, band_rows (m, &band), m->stride, band.width, band.height);
  gegl_buffer_set (m->buffer, &band, m->shape->level, m->layout->format, band_rows (m, &band),
                   m->stride);
}

/* Reads (or writes) rect of buffer in bands of at least four tile rows. */
static void
move_region (GeglBuffer *buffer, const GeglRectangle *rect, const BlurShape *shape,
             const PixelLayout *layout, guchar *data, gsize stride, gboolean write)
{
  RegionMove m = { buffer, rect, shape, layout, data, stride, 1 };

  g_object_get (buffer, "tile-height", &m.tile_h, NULL);
  m.tile_h = MAX (m.tile_h, 1);
  gegl_parallel_distribute (MAX (1, rect->height / (4 * m.tile_h)), write ? write_band : read_band, &m);
  if (write)
    gegl_buffer_flush (buffer);
}

/* The engine's parameters for the shape: always a sigma per axis (the
 * engine shares the taps when both are equal). */
static gblur_params
shape_params (const BlurShape *shape, const PixelLayout *layout, gblur_progress_fn progress,
              gpointer data)
{
  return (gblur_params) { .flags = layout->flags, .progress = progress, .user_data = data,
                          .sigma_x = shape->sigma_x, .sigma_y = shape->sigma_y };
}

GeglRectangle
blur_rectangle_at_level (const GeglRectangle *rect, gint level)
{
  GeglRectangle scaled = { rect->x >> level, rect->y >> level, 0, 0 };

  scaled.width = ((rect->x + rect->width) >> level) - scaled.x;
  scaled.height = ((rect->y + rect->height) >> level) - scaled.y;
  return scaled;
}

/* The rectangle to read for `roi`: grown by the blur's reach on each axis.
 * Cut to the buffer where the abyss is clamped anyway and `roi` lies inside
 * it (the engine clamps as a whole-image blur would), else read whole: GEGL
 * fills what lies outside.  All at the shape's mipmap level. */
static GeglRectangle
halo_of (GeglBuffer *buffer, const GeglRectangle *roi, const BlurShape *shape)
{
  const GeglRectangle *extent = gegl_buffer_get_extent (buffer);
  gint                 rx = gblur_radius (shape->sigma_x), ry = gblur_radius (shape->sigma_y);
  GeglRectangle        halo = { roi->x - rx, roi->y - ry, roi->width + 2 * rx,
                                roi->height + 2 * ry };
  GeglRectangle        bounds = blur_rectangle_at_level (extent, shape->level);

  /* A result that grows past the buffer needs the abyss around it too. */
  if (shape->abyss == GEGL_ABYSS_CLAMP && gegl_rectangle_contains (&bounds, roi))
    gegl_rectangle_intersect (&halo, &halo, &bounds);
  return halo;
}

/* Packed images in layout->format, from the engine's allocator: the halo
 * for `roi` (*src) and the result (*out).  On failure the caller still frees
 * both (either may be NULL). */
static gboolean
alloc_window (gblur_engine *engine, GeglBuffer *buffer, const PixelLayout *layout,
              const GeglRectangle *roi, const BlurShape *shape, GeglRectangle *halo,
              gblur_image *src, gblur_image *out, GError **error)
{
  gint bpp = layout_bytes_per_pixel (layout);

  *halo = halo_of (buffer, roi, shape);
  *src = (gblur_image) { NULL, (size_t) halo->width * bpp, halo->width, halo->height,
                         layout->channels, layout->sample };
  *out = (gblur_image) { NULL, (size_t) roi->width * bpp, roi->width, roi->height,
                         layout->channels, layout->sample };
  src->data = gblur_engine_alloc_host (engine, src->stride * halo->height);
  out->data = gblur_engine_alloc_host (engine, out->stride * roi->height);
  if (!src->data || !out->data)
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("Not enough memory for a %d×%d image."), halo->width, halo->height);
      return FALSE;
    }
  return TRUE;
}

/* Reads `roi` of `buffer` with its halo and blurs it into *out, a packed
 * image in layout->format allocated with the engine's allocator.  Nothing is
 * written anywhere else.  in_process: the buffer is this process's own (the
 * operation's), so it may be read from several threads. */
static gboolean
blur_window (gblur_engine *engine, GeglBuffer *buffer, const PixelLayout *layout,
             const GeglRectangle *roi, const BlurShape *shape, gboolean in_process,
             BlurProgressFunc progress, gpointer progress_data, gblur_image *out,
             GError **error)
{
  GeglRectangle        halo;
  gblur_image          src;
  gblur_params         params;
  gblur_result         result;
  ProgressRelay        relay = { progress, progress_data, 0 };
  gblur_status         status;

  if (!alloc_window (engine, buffer, layout, roi, shape, &halo, &src, out, error))
    goto fail;

  if (progress)
    progress (0.0, progress_data);
  if (in_process)
    move_region (buffer, &halo, shape, layout, src.data, src.stride, FALSE);
  else
    read_rows (buffer, &halo, shape, layout, src.data, src.stride);
  if (progress)
    progress (0.1, progress_data);

  params = shape_params (shape, layout, relay_progress, &relay);
  status = gblur_engine_run_window (engine, &src, roi->x - halo.x, roi->y - halo.y, out,
                                    &params, &result);
  if (status != GBLUR_OK)
    {
      blur_set_engine_error (error, status, engine);
      goto fail;
    }
  if (result.fell_back_to_cpu)
    g_printerr ("cuda-gaussian-blur: the GPU failed; the CPU finished the blur\n");
  if (blur_environment ()->verbose)
    g_printerr ("cuda-gaussian-blur: %d progress steps\n", relay.steps);
  gblur_engine_free_host (engine, src.data);
  return TRUE;

fail:
  gblur_engine_free_host (engine, src.data);
  gblur_engine_free_host (engine, out->data);
  out->data = NULL;
  return FALSE;
}

/* ---- The plug-in's pixel path: reading, blurring and writing overlap ----
 *
 * The selection's rows are cut into a few parts (boundaries on tile rows).
 * The engine blurs one part at a time in a worker thread while this thread
 * talks to GIMP: it writes the rows the engine has finished (the engine
 * reports finished rows from the top) and reads the rows the next part
 * needs.  Everything that talks to GIMP (GEGL buffers backed by GIMP's
 * tiles, progress) stays in this thread: libgimp's wire is not shared.
 * Requests end on tile rows, so (when the selection's sides lie on tiles, as
 * a whole layer's do) no tile is written in two pieces or fetched first.
 * The halo and output images are whole, as before: the parts only decide
 * when which rows move. */

typedef struct {
  /* Set before the worker starts. */
  gblur_engine *engine;
  gblur_image   src;         /* the input rows this part reads */
  gint          src_x, src_y;
  gblur_image   dst;         /* this part's output rows */
  gblur_params  params;
  gint          first_row;   /* absolute row of dst's first */
  /* Shared with the worker, under lock. */
  GMutex        lock;
  GCond         cond;
  gint          rows_done;   /* of dst, final */
  gint          steps;       /* progress reports */
  gboolean      finished;
  gblur_status  status;
  gblur_result  result;
} BlurPart;

/* One blur_buffer call: the whole halo and output images, and how far rows
 * have moved between them and GIMP. */
typedef struct {
  gblur_engine     *engine;
  GeglBuffer       *buffer;
  GeglBuffer       *shadow;
  PixelLayout       layout;
  BlurShape         shape;
  GeglRectangle     roi;
  GeglRectangle     halo;
  gblur_image       src;
  gblur_image       out;
  gint              radius;
  gint              tile_h;
  gint              read_to;      /* absolute rows read from the buffer */
  gint              written_to;   /* absolute rows written to the shadow */
  gboolean          overlap;
  gint              steps;        /* the engine's progress reports, all parts */
  BlurProgressFunc  progress;
  gpointer          progress_data;
} Transfer;

static int
part_progress (int rows_done, int rows_total, void *user_data)
{
  BlurPart *part = user_data;

  (void) rows_total;
  g_mutex_lock (&part->lock);
  part->rows_done = rows_done;
  part->steps++;
  g_cond_signal (&part->cond);
  g_mutex_unlock (&part->lock);
  return 0;
}

static gpointer
part_run (gpointer data)
{
  BlurPart     *part = data;
  gblur_result  result = { 0, 0 };
  gblur_status  status;

  status = gblur_engine_run_window (part->engine, &part->src, part->src_x, part->src_y,
                                    &part->dst, &part->params, &result);
  g_mutex_lock (&part->lock);
  part->status = status;
  part->result = result;
  if (status == GBLUR_OK)
    part->rows_done = part->dst.height;
  part->finished = TRUE;
  g_cond_signal (&part->cond);
  g_mutex_unlock (&part->lock);
  return NULL;
}

/* Parts: enough to overlap, few enough that each engine run is long for
 * its radius (every run re-reads its halo rows and starts its threads). */
static gint
plan_parts (gint roi_y, gint roi_h, gint radius, gint tile_h, gint *bounds, gint max_parts)
{
  gint min_rows = MAX (8 * tile_h, 64 * radius);
  gint n = CLAMP (roi_h / MAX (min_rows, 1), 1, max_parts);
  gint count = 0;

  bounds[count++] = roi_y;
  for (gint i = 1; i < n; i++)
    {
      gint b = (roi_y + (gint64) roi_h * i / n) / tile_h * tile_h;
      if (b > bounds[count - 1] && b < roi_y + roi_h)
        bounds[count++] = b;
    }
  bounds[count] = roi_y + roi_h;
  return count;
}

#define MAX_PARTS 4

/* Reads the buffer's rows up to `to` (rounded up to a tile row). */
static void
transfer_read_to (Transfer *t, gint to)
{
  GeglRectangle rect;

  to = MIN (to + t->tile_h - 1 - (to + t->tile_h - 1) % t->tile_h, t->halo.y + t->halo.height);
  if (to <= t->read_to)
    return;
  rect = (GeglRectangle) { t->halo.x, t->read_to, t->halo.width, to - t->read_to };
  read_rows (t->buffer, &rect, &t->shape, &t->layout,
             (guchar *) t->src.data + (gsize) (t->read_to - t->halo.y) * t->src.stride,
             t->src.stride);
  t->read_to = to;
}

/* Writes the result's rows up to `to` into the shadow and sends them. */
static void
transfer_write_to (Transfer *t, gint to)
{
  GeglRectangle rect;

  if (to <= t->written_to)
    return;
  rect = (GeglRectangle) { t->roi.x, t->written_to, t->roi.width, to - t->written_to };
  write_rows (t->shadow, &rect, 0, &t->layout,
              (guchar *) t->out.data + (gsize) (t->written_to - t->roi.y) * t->out.stride,
              t->out.stride);
  t->written_to = to;
}

/* The part for output rows [first, end): its input rows with their halo. */
static void
part_init (BlurPart *part, const Transfer *t, gint first, gint end)
{
  gint top = MAX (t->halo.y, first - t->radius);
  gint bottom = MIN (t->halo.y + t->halo.height, end + t->radius);

  memset (part, 0, sizeof *part);
  part->engine = t->engine;
  part->src = t->src;
  part->src.data = (guchar *) t->src.data + (gsize) (top - t->halo.y) * t->src.stride;
  part->src.height = bottom - top;
  part->src_x = t->roi.x - t->halo.x;
  part->src_y = first - top;
  part->dst = t->out;
  part->dst.data = (guchar *) t->out.data + (gsize) (first - t->roi.y) * t->out.stride;
  part->dst.height = end - first;
  part->params = shape_params (&t->shape, &t->layout, part_progress, part);
  part->first_row = first;
  part->status = GBLUR_OK;
  g_mutex_init (&part->lock);
  g_cond_init (&part->cond);
}

/* Until the part has finished: reports progress and sends the finished
 * rows, whole tile rows while it runs (all when overlapping). */
static void
part_follow (Transfer *t, BlurPart *part)
{
  gint seen = -1;

  for (;;)
    {
      gint     done, to;
      gboolean finished;

      g_mutex_lock (&part->lock);
      while (!part->finished && part->rows_done == seen)
        g_cond_wait (&part->cond, &part->lock);
      done = seen = part->rows_done;
      finished = part->finished;
      g_mutex_unlock (&part->lock);

      if (finished && part->status != GBLUR_OK)
        return;
      if (t->progress)
        t->progress (0.05 + 0.9 * (part->first_row - t->roi.y + done) / t->roi.height,
                     t->progress_data);
      to = part->first_row + done;
      if (!finished)
        to = to / t->tile_h * t->tile_h;
      if (t->overlap || finished)
        transfer_write_to (t, to);
      if (finished)
        return;
    }
}

/* Blurs output rows [bounds[i], bounds[i + 1]); while the worker blurs,
 * this thread reads the next part's rows and writes the finished ones. */
static gboolean
run_part (Transfer *t, const gint *bounds, gint i, gint nparts, GError **error)
{
  BlurPart  part;
  GThread  *worker = NULL;

  part_init (&part, t, bounds[i], bounds[i + 1]);
  if (t->overlap)
    {
      worker = g_thread_new ("cuda-gaussian-blur", part_run, &part);
      if (i + 1 < nparts)
        transfer_read_to (t, bounds[i + 2] + t->radius);
    }
  else
    part_run (&part);
  part_follow (t, &part);
  if (worker)
    g_thread_join (worker);
  t->steps += part.steps;
  g_mutex_clear (&part.lock);
  g_cond_clear (&part.cond);

  if (part.status != GBLUR_OK)
    {
      blur_set_engine_error (error, part.status, t->engine);
      return FALSE;
    }
  if (part.result.fell_back_to_cpu)
    g_printerr ("cuda-gaussian-blur: the GPU failed; the CPU finished the blur\n");
  return TRUE;
}

static void
log_transfer (const Transfer *t, gint nparts, gint64 start)
{
  g_printerr ("cuda-gaussian-blur: %d progress steps\n", t->steps);
  g_printerr ("cuda-gaussian-blur: %d×%d %s, sigma %g: %.1f ms (read, blur, write) on %s, "
              "%d part%s%s\n",
              t->roi.width, t->roi.height, babl_get_name (t->layout.format), t->shape.sigma_x,
              (g_get_monotonic_time () - start) / 1000.0, gblur_engine_describe (t->engine),
              nparts, nparts > 1 ? "s" : "", t->overlap ? ", overlapped" : "");
}

gboolean
blur_buffer (gblur_engine *engine, GeglBuffer *buffer, GeglBuffer *shadow,
             const Babl *drawable_format, gint x, gint y, gint width, gint height,
             gdouble sigma, gboolean linear, BlurProgressFunc progress,
             gpointer progress_data, GError **error)
{
  Transfer t = { .engine = engine, .buffer = buffer, .shadow = shadow };
  gint     bounds[MAX_PARTS + 1], nparts;
  gboolean ok;
  gint64   start = g_get_monotonic_time ();

  if (!choose_layout (drawable_format, linear, &t.layout, error))
    return FALSE;
  t.roi = (GeglRectangle) { x, y, width, height };
  t.shape = (BlurShape) { sigma, sigma, linear, GEGL_ABYSS_CLAMP, 0 };
  t.radius = gblur_radius (sigma);
  t.overlap = blur_environment ()->overlap;
  t.progress = progress;
  t.progress_data = progress_data;
  g_object_get (shadow, "tile-height", &t.tile_h, NULL);
  t.tile_h = MAX (t.tile_h, 1);
  ok = alloc_window (engine, buffer, &t.layout, &t.roi, &t.shape, &t.halo, &t.src, &t.out, error);
  if (ok)
    {
      nparts = plan_parts (y, height, t.radius, t.tile_h, bounds, t.overlap ? MAX_PARTS : 1);
      t.read_to = t.halo.y;
      t.written_to = y;
      if (progress)
        progress (0.0, progress_data);
      transfer_read_to (&t, bounds[1] + t.radius);
      for (gint i = 0; i < nparts && ok; i++)
        ok = run_part (&t, bounds, i, nparts, error);
      if (ok && progress)
        progress (1.0, progress_data);
      if (ok && blur_environment ()->verbose)
        log_transfer (&t, nparts, start);
    }
  gblur_engine_free_host (engine, t.src.data);
  gblur_engine_free_host (engine, t.out.data);
  return ok;
}

gboolean
blur_to_memory (gblur_engine *engine, GeglBuffer *buffer, const Babl *drawable_format,
                const GeglRectangle *roi, gdouble sigma, gboolean linear,
                const Babl *out_format, guchar *out, gint out_rowstride, GError **error)
{
  BlurShape    shape = { sigma, sigma, linear, GEGL_ABYSS_CLAMP, 0 };
  PixelLayout  layout;
  gblur_image  blurred;
  const Babl  *fish;

  if (!choose_layout (drawable_format, linear, &layout, error)
      || !blur_window (engine, buffer, &layout, roi, &shape, FALSE, NULL, NULL, &blurred, error))
    return FALSE;
  encode_rows (&layout, blurred.data, blurred.stride, roi->width, roi->height);
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

  if (!source_format || !choose_layout (source_format, linear, &layout, NULL))
    return NULL;
  return layout.format;
}

gboolean
blur_region (gblur_engine *engine, GeglBuffer *input, const Babl *source_format,
             const GeglRectangle *roi, const BlurShape *shape, GeglBuffer *output,
             GError **error)
{
  PixelLayout layout;
  gblur_image blurred;

  if (!choose_layout (source_format, shape->linear, &layout, error)
      || !blur_window (engine, input, &layout, roi, shape, TRUE, NULL, NULL, &blurred, error))
    return FALSE;
  move_region (output, roi, shape, &layout, blurred.data, blurred.stride, TRUE);
  gblur_engine_free_host (engine, blurred.data);
  return TRUE;
}
