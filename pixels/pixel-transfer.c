/* The plug-in's blur of a drawable's buffer into its shadow, reading,
 * blurring and writing overlapped (pixel-transfer.h). */
#include "config.h"

#include <string.h>

#include "pixel-engine.h"
#include "pixel-rows.h"
#include "pixel-stall.h"
#include "pixel-transfer.h"

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
 * The halo and output images are whole: the parts only decide when which
 * rows move. */

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

/* The worker's progress: the rows finished so far; a test's stall holds
 * the run here. */
static int
part_progress (int rows_done, int rows_total, void *user_data)
{
  BlurPart *part = user_data;

  (void) rows_total;
  pixel_stall_step (pixel_env ()->stall_at);
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
  gblur_result  result = { 0 };
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
  pixel_rows_read (t->buffer, &rect, &t->shape, &t->layout,
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
  pixel_rows_write (t->shadow, &rect, 0, &t->layout,
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
  part->params = pixel_shape_params (&t->shape, &t->layout, part_progress, part);
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
      pixel_engine_set_error (error, part.status, t->engine);
      return FALSE;
    }
  pixel_engine_note_result (&part.result);
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
             const Babl *drawable_format, const GeglRectangle *roi, const BlurShape *shape,
             BlurProgressFunc progress, gpointer progress_data, GError **error)
{
  Transfer t = { .engine = engine, .buffer = buffer, .shadow = shadow };
  gint     bounds[MAX_PARTS + 1], nparts;
  gboolean ok;
  gint64   start = g_get_monotonic_time ();

  if (!pixel_layout_choose (drawable_format, shape->linear, &t.layout, error))
    return FALSE;
  t.roi = *roi;
  t.shape = *shape;
  t.radius = gblur_radius (shape->sigma_y);
  t.overlap = pixel_env ()->overlap;
  t.progress = progress;
  t.progress_data = progress_data;
  g_object_get (shadow, "tile-height", &t.tile_h, NULL);
  t.tile_h = MAX (t.tile_h, 1);
  ok = pixel_window_alloc (engine, buffer, &t.layout, &t.roi, &t.shape, &t.halo, &t.src, &t.out, error);
  if (ok)
    {
      nparts = plan_parts (roi->y, roi->height, t.radius, t.tile_h, bounds, t.overlap ? MAX_PARTS : 1);
      t.read_to = t.halo.y;
      t.written_to = roi->y;
      if (progress)
        progress (0.0, progress_data);
      transfer_read_to (&t, bounds[1] + t.radius);
      for (gint i = 0; i < nparts && ok; i++)
        ok = run_part (&t, bounds, i, nparts, error);
      if (ok && progress)
        progress (1.0, progress_data);
      if (ok && pixel_env ()->verbose)
        log_transfer (&t, nparts, start);
    }
  gblur_engine_free_host (engine, t.src.data);
  gblur_engine_free_host (engine, t.out.data);
  return ok;
}
