/* The pixel path shared by both GIMP versions. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <libgimp/gimp.h>

#include "blur-drawable.h"
#include "tone-curve.h"

G_DEFINE_QUARK (cuda-gaussian-blur-error-quark, blur_error)

gboolean
blur_check_arguments (gdouble sigma, gboolean drawable_valid, gboolean is_group,
                      gboolean is_indexed, GError **error)
{
  if (!(sigma >= GBLUR_SIGMA_MIN && sigma <= GBLUR_SIGMA_MAX)) /* NaN fails too */
    {
      g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                   _("Sigma must be between %g and %g pixels (got %g)."),
                   GBLUR_SIGMA_MIN, GBLUR_SIGMA_MAX, sigma);
      return FALSE;
    }
  if (!drawable_valid)
    {
      g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                   _("No valid drawable was given."));
      return FALSE;
    }
  if (is_group)
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("Cannot blur a layer group: select one of its layers."));
      return FALSE;
    }
  if (is_indexed)
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("Cannot blur an indexed image: convert it to RGB or grayscale first."));
      return FALSE;
    }
  return TRUE;
}

#ifdef BLUR_COPY_ONLY
const char *
blur_copy_only_proc (void)
{
  static gchar *name;

  if (!name)
    {
      gchar *base = g_path_get_basename (gimp_get_progname ());
      name = g_strconcat ("plug-in-", base, NULL);
      g_free (base);
    }
  return name;
}
#define SERIAL_PATH() g_str_has_suffix (blur_copy_only_proc (), "-serial")
#else
#define SERIAL_PATH() FALSE
#endif

void
blur_gegl_init (gboolean interactive)
{
  /* GEGL's operations live in modules that gegl_init loads (dozens of
   * libraries: a tenth of a second or more per run on a small machine, more
   * than moving a 4096² layer).  Outside the dialog the plug-in uses no
   * operation, only buffers: point GEGL at the plug-in's own folder, which
   * holds none.  CUDA_GBLUR_GEGL_MODULES=1 loads them anyway. */
  if (!interactive && g_strcmp0 (g_getenv ("CUDA_GBLUR_GEGL_MODULES"), "1") != 0 && !SERIAL_PATH ())
    {
      gchar *folder = g_path_get_dirname (gimp_get_progname ());
      g_setenv ("GEGL_PATH", folder, TRUE);
      g_free (folder);
    }
  gegl_init (NULL, NULL);
}

gblur_engine *
blur_engine_new (GError **error)
{
  gblur_status  status;
  char          msg[300];
  gblur_engine *engine = gblur_engine_new (NULL, &status, msg, sizeof msg);

  if (!engine)
    g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                 _("The blur engine could not start: %s"), msg);
  else if (g_getenv ("CUDA_GBLUR_VERBOSE"))
    g_printerr ("cuda-gaussian-blur: backend %s%s%s\n", gblur_engine_describe (engine),
                *gblur_engine_cuda_unavailable_reason (engine) ? " — " : "",
                gblur_engine_cuda_unavailable_reason (engine));
  return engine;
}

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
  static const gint sample_bytes[] = { [GBLUR_U8] = 1, [GBLUR_U16] = 2, [GBLUR_F32] = 4 };

  return layout->channels * sample_bytes[layout->sample];
}

/* Reads `rect` of `buffer` into rows at `data`, as the engine takes them. */
static void
read_rows (GeglBuffer *buffer, const GeglRectangle *rect, const PixelLayout *layout,
           guchar *data, gsize stride)
{
  gegl_buffer_get (buffer, rect, 1.0, layout->format, data, stride, GEGL_ABYSS_CLAMP);
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

/* Writes the engine's rows at `data` (converted in place) into `rect` of `shadow`. */
static void
write_rows (GeglBuffer *shadow, const GeglRectangle *rect, const PixelLayout *layout,
            guchar *data, gsize stride)
{
  encode_rows (layout, data, stride, rect->width, rect->height);
  gegl_buffer_set (shadow, rect, 0, layout->format, data, stride);
  gegl_buffer_flush (shadow);
}

/* The rectangle to read for `roi`: grown by the blur radius r, clamped to
 * the buffer (beyond it the engine clamps as a whole-image blur would); and
 * packed images in layout->format, from the engine's allocator, for it
 * (*src) and for the result (*out).  On failure the caller still frees both
 * (either may be NULL). */
static gboolean
alloc_window (gblur_engine *engine, GeglBuffer *buffer, const PixelLayout *layout,
              const GeglRectangle *roi, gint r, GeglRectangle *halo, gblur_image *src,
              gblur_image *out, GError **error)
{
  const GeglRectangle *extent = gegl_buffer_get_extent (buffer);
  gint                 bpp = layout_bytes_per_pixel (layout);

  halo->x = MAX (extent->x, roi->x - r);
  halo->y = MAX (extent->y, roi->y - r);
  halo->width = MIN (extent->x + extent->width, roi->x + roi->width + r) - halo->x;
  halo->height = MIN (extent->y + extent->height, roi->y + roi->height + r) - halo->y;

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
 * written anywhere else. */
static gboolean
blur_window (gblur_engine *engine, GeglBuffer *buffer, const PixelLayout *layout,
             const GeglRectangle *roi, gdouble sigma, BlurProgressFunc progress,
             gpointer progress_data, gblur_image *out, GError **error)
{
  GeglRectangle        halo;
  gblur_image          src;
  gblur_params         params;
  gblur_result         result;
  ProgressRelay        relay = { progress, progress_data, 0 };
  gblur_status         status;

  if (!alloc_window (engine, buffer, layout, roi, gblur_radius (sigma), &halo, &src, out, error))
    goto fail;

  if (progress)
    progress (0.0, progress_data);
  read_rows (buffer, &halo, layout, src.data, src.stride);
  if (progress)
    progress (0.1, progress_data);

  params = (gblur_params) { sigma, layout->flags, relay_progress, &relay };
  status = gblur_engine_run_window (engine, &src, roi->x - halo.x, roi->y - halo.y, out,
                                    &params, &result);
  if (status != GBLUR_OK)
    {
      g_set_error (error, BLUR_ERROR,
                   status == GBLUR_E_SIGMA ? BLUR_CALLING_ERROR : BLUR_EXECUTION_ERROR,
                   _("The blur failed: %s"), gblur_engine_last_error (engine));
      goto fail;
    }
  if (result.fell_back_to_cpu)
    g_printerr ("cuda-gaussian-blur: the GPU failed; the CPU finished the blur\n");
  if (g_getenv ("CUDA_GBLUR_VERBOSE"))
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
  /* Shared with the worker, under lock. */
  GMutex        lock;
  GCond         cond;
  gint          rows_done;   /* of dst, final */
  gint          steps;       /* progress reports */
  gboolean      finished;
  gblur_status  status;
  gblur_result  result;
} BlurPart;

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

#ifdef BLUR_COPY_ONLY
  {
    gint bpp = part->dst.width ? (gint) (part->dst.stride / part->dst.width) : 0;
    for (gint row = 0; row < part->dst.height; row++)
      memcpy ((guchar *) part->dst.data + row * part->dst.stride,
              (guchar *) part->src.data + (row + part->src_y) * part->src.stride
              + (gsize) part->src_x * bpp, (gsize) part->dst.width * bpp);
    status = GBLUR_OK;
  }
#else
  status = gblur_engine_run_window (part->engine, &part->src, part->src_x, part->src_y,
                                    &part->dst, &part->params, &result);
#endif
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

gboolean
blur_buffer (gblur_engine *engine, GeglBuffer *buffer, GeglBuffer *shadow,
             const Babl *drawable_format, gint x, gint y, gint width, gint height,
             gdouble sigma, gboolean linear, BlurProgressFunc progress,
             gpointer progress_data, GError **error)
{
  PixelLayout   layout;
  GeglRectangle roi = { x, y, width, height }, halo, rect;
  gblur_image   src = { NULL }, out = { NULL };
  gint          r = gblur_radius (sigma), tile_h = 0, nparts, steps = 0;
  gint          bounds[MAX_PARTS + 1];
  gint          read_to, written_to;   /* absolute rows: read from the buffer, written to the shadow */
  gboolean      overlap = g_strcmp0 (g_getenv ("CUDA_GBLUR_OVERLAP"), "0") != 0 && !SERIAL_PATH ();
  gboolean      ok = TRUE;
  gint64        start = g_get_monotonic_time ();

  if (!choose_layout (drawable_format, linear, &layout, error))
    return FALSE;
  g_object_get (shadow, "tile-height", &tile_h, NULL);
  tile_h = MAX (tile_h, 1);
  if (!alloc_window (engine, buffer, &layout, &roi, r, &halo, &src, &out, error))
    {
      ok = FALSE;
      goto done;
    }

  nparts = overlap ? plan_parts (roi.y, roi.height, r, tile_h, bounds, MAX_PARTS)
                   : plan_parts (roi.y, roi.height, r, tile_h, bounds, 1);
  read_to = halo.y;
  written_to = roi.y;
  if (progress)
    progress (0.0, progress_data);

/* Reads the buffer's rows [read_to, to) (to rounded up to a tile row). */
#define READ_TO(to)                                                                  \
  G_STMT_START {                                                                     \
    gint _to = MIN ((to) + tile_h - 1 - ((to) + tile_h - 1) % tile_h, halo.y + halo.height); \
    if (_to > read_to)                                                               \
      {                                                                              \
        rect = (GeglRectangle) { halo.x, read_to, halo.width, _to - read_to };       \
        read_rows (buffer, &rect, &layout,                                           \
                   (guchar *) src.data + (gsize) (read_to - halo.y) * src.stride,    \
                   src.stride);                                                      \
        read_to = _to;                                                               \
      }                                                                              \
  } G_STMT_END
/* Writes the result's rows [written_to, to) into the shadow and sends them. */
#define WRITE_TO(to)                                                                 \
  G_STMT_START {                                                                     \
    if ((to) > written_to)                                                           \
      {                                                                              \
        rect = (GeglRectangle) { roi.x, written_to, roi.width, (to) - written_to };  \
        write_rows (shadow, &rect, &layout,                                          \
                    (guchar *) out.data + (gsize) (written_to - roi.y) * out.stride, \
                    out.stride);                                                     \
        written_to = (to);                                                           \
      }                                                                              \
  } G_STMT_END

  READ_TO (MIN (bounds[1] + r, halo.y + halo.height));
  for (gint i = 0; i < nparts && ok; i++)
    {
      gint      top = MAX (halo.y, bounds[i] - r);
      gint      bottom = MIN (halo.y + halo.height, bounds[i + 1] + r);
      gint      seen = -1;
      BlurPart  part;
      GThread  *worker;

      part.engine = engine;
      part.src = src;
      part.src.data = (guchar *) src.data + (gsize) (top - halo.y) * src.stride;
      part.src.height = bottom - top;
      part.src_x = roi.x - halo.x;
      part.src_y = bounds[i] - top;
      part.dst = out;
      part.dst.data = (guchar *) out.data + (gsize) (bounds[i] - roi.y) * out.stride;
      part.dst.height = bounds[i + 1] - bounds[i];
      part.params = (gblur_params) { sigma, layout.flags, part_progress, &part };
      part.rows_done = 0;
      part.steps = 0;
      part.finished = FALSE;
      part.status = GBLUR_OK;
      g_mutex_init (&part.lock);
      g_cond_init (&part.cond);

      if (overlap)
        {
          worker = g_thread_new ("cuda-gaussian-blur", part_run, &part);
          /* While it blurs: the rows the next part needs. */
          if (i + 1 < nparts)
            READ_TO (MIN (bounds[i + 2] + r, halo.y + halo.height));
        }
      else
        {
          part_run (&part);
          worker = NULL;
        }

      /* Progress, and the finished rows (whole tile rows) into the shadow. */
      for (;;)
        {
          gint     done, to;
          gboolean finished;

          g_mutex_lock (&part.lock);
          while (!part.finished && part.rows_done == seen)
            g_cond_wait (&part.cond, &part.lock);
          done = seen = part.rows_done;
          finished = part.finished;
          g_mutex_unlock (&part.lock);

          if (finished && part.status != GBLUR_OK)
            break;
          if (progress)
            progress (0.05 + 0.9 * (bounds[i] - roi.y + done) / roi.height, progress_data);
          to = bounds[i] + done;
          if (!finished)
            to = to / tile_h * tile_h;
          if (overlap || finished)
            WRITE_TO (to);
          if (finished)
            break;
        }
      if (worker)
        g_thread_join (worker);
      steps += part.steps;
      g_mutex_clear (&part.lock);
      g_cond_clear (&part.cond);

      if (part.status != GBLUR_OK)
        {
          g_set_error (error, BLUR_ERROR,
                       part.status == GBLUR_E_SIGMA ? BLUR_CALLING_ERROR : BLUR_EXECUTION_ERROR,
                       _("The blur failed: %s"), gblur_engine_last_error (engine));
          ok = FALSE;
        }
      else if (part.result.fell_back_to_cpu)
        g_printerr ("cuda-gaussian-blur: the GPU failed; the CPU finished the blur\n");
    }
#undef READ_TO
#undef WRITE_TO

  if (ok)
    {
      if (progress)
        progress (1.0, progress_data);
      if (g_getenv ("CUDA_GBLUR_VERBOSE"))
        {
          g_printerr ("cuda-gaussian-blur: %d progress steps\n", steps);
          g_printerr ("cuda-gaussian-blur: %d×%d %s, sigma %g: %.1f ms (read, blur, write) on %s, "
                      "%d part%s%s\n",
                      width, height, babl_get_name (layout.format), sigma,
                      (g_get_monotonic_time () - start) / 1000.0, gblur_engine_describe (engine),
                      nparts, nparts > 1 ? "s" : "", overlap ? ", overlapped" : "");
        }
    }

done:
  gblur_engine_free_host (engine, src.data);
  gblur_engine_free_host (engine, out.data);
  return ok;
}

gboolean
blur_to_memory (gblur_engine *engine, GeglBuffer *buffer, const Babl *drawable_format,
                const GeglRectangle *roi, gdouble sigma, gboolean linear,
                const Babl *out_format, guchar *out, gint out_rowstride, GError **error)
{
  PixelLayout  layout;
  gblur_image  blurred;
  const Babl  *fish;

  if (!choose_layout (drawable_format, linear, &layout, error)
      || !blur_window (engine, buffer, &layout, roi, sigma, NULL, NULL, &blurred, error))
    return FALSE;
  encode_rows (&layout, blurred.data, blurred.stride, roi->width, roi->height);
  fish = babl_fish (layout.format, out_format);
  for (gint row = 0; row < roi->height; row++)
    babl_process (fish, (const guchar *) blurred.data + row * blurred.stride,
                  out + row * out_rowstride, roi->width);
  gblur_engine_free_host (engine, blurred.data);
  return TRUE;
}

gchar *
blur_engine_summary (gblur_engine *engine)
{
  if (gblur_engine_backend (engine) == GBLUR_BACKEND_CUDA)
    return g_strdup_printf (_("GPU: %s"), gblur_engine_describe (engine));
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "CPU: %d thread — %s",
                                       "CPU: %d threads — %s",
                                       gblur_engine_cpu_threads (engine)),
                          gblur_engine_cpu_threads (engine),
                          gblur_engine_cuda_unavailable_reason (engine));
}

const Babl *
blur_format_in_srgb (const Babl *drawable_format)
{
  if (babl_format_is_palette (drawable_format))
    return drawable_format;
  return babl_format_with_space (babl_format_get_encoding (drawable_format), NULL);
}
