/* Around the GEGL operation's pixel path (operation-support.h). */
#define _GNU_SOURCE 1   /* dladdr */
#include "config.h"

#include <dlfcn.h>
#include <glib/gi18n-lib.h>

#include "pixel-engine.h"
#include "operation-support.h"

void
operation_bind_catalogs (void)
{
  Dl_info where;

  if (dladdr ((void *) operation_bind_catalogs, &where) && where.dli_fname)
    {
      gchar *folder = g_path_get_dirname (where.dli_fname);
      gchar *locale = g_build_filename (folder, "locale", NULL);

      bindtextdomain (GETTEXT_PACKAGE, locale);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      g_free (locale);
      g_free (folder);
    }
}

/* Two engines for the process, each with its CUDA context made once: one
 * for parts, one for whole layers; a CPU engine for retries, made when
 * first needed.  GEGL may render from several threads: the lock keeps to
 * one run at a time.  It is let go while a run reads its input (blur_region),
 * which may render another blur, in this thread or GEGL's. */
static GMutex        engine_lock;
static gblur_engine *engine, *part_engine, *cpu_engine;

/* In GEGL's log domain, which GIMP shows in its error console. */
#define operation_message(...) g_log ("GEGL", G_LOG_LEVEL_MESSAGE, "cuda:gaussian-blur: " __VA_ARGS__)

/* The best output pixels a millisecond of the part engine's runs, per bit
 * length of the radius (the CPU's cost grows with it) and of the bytes a
 * pixel; 0: none yet.  Runs of less than RATE_MIN_BYTES do not count: their
 * fixed costs rule.  A run RATE_DROP times slower than the best replaces it
 * (the GPU failed and the CPU blurs, say).  Its own lock: the rates are
 * read where a render may hold the engines' lock. */
#define RATE_BUCKETS   14
#define RATE_SIZES     5
#define RATE_MIN_BYTES (1 << 20)
#define RATE_DROP      4
G_LOCK_DEFINE_STATIC (rates);
static gdouble part_rate[RATE_BUCKETS][RATE_SIZES];
/* The part engine's backend once made, -1 before. */
static gint part_backend = -1;
/* Before any run, a GPU is expected to fit a layer of up to this many
 * bytes, whose input and output the engine then keeps (PINNED_KEEP_BYTES):
 * a 6000x4000 16-bit one is 192 MB.  A larger one waits for a rate. */
#define GUESS_MAX_BYTES ((gint64) 192 << 20)

/* Shortest stripe a retry splits down to before it gives up. */
#define RETRY_MIN_ROWS 16
/* The most bytes of input (with its halo) and output one run holds: a
 * larger region (a huge layer's merge or export) goes in stripes, so that
 * GIMP's process is never asked for all of it at once. */
#define RUN_MAX_BYTES ((gint64) 1 << 30)

/* Blurs `roi` stripe by stripe on the CPU engine, halving a stripe that
 * fails (smaller runs need less memory); FALSE when a shortest one fails. */
static gboolean
blur_in_stripes (GeglBuffer *input, const Babl *source_format, const GeglRectangle *roi,
                 const BlurShape *shape, GeglBuffer *output, GError **error)
{
  for (gint y = roi->y; y < roi->y + roi->height; )
    {
      GeglRectangle stripe = { roi->x, y, roi->width, MIN (roi->height, roi->y + roi->height - y) };

      while (!blur_region (cpu_engine, &engine_lock, input, source_format, &stripe, shape, output, NULL,
                           error))
        {
          if (stripe.height <= RETRY_MIN_ROWS)
            return FALSE;
          g_clear_error (error);
          stripe.height = (stripe.height + 1) / 2;
        }
      y += stripe.height;
    }
  return TRUE;
}

/* The CPU's retry after the first engine failed; FALSE with *error set.
 * *note: what to say once the engines' lock is let go (a message handler
 * must not run under it). */
static gboolean
retry_on_cpu (GeglBuffer *input, const Babl *source_format, const GeglRectangle *roi,
              const BlurShape *shape, GeglBuffer *output, gchar **note, GError **error)
{
  GError *first = *error;

  *error = NULL;
  if ((cpu_engine || (cpu_engine = pixel_engine_new (PIXEL_ENGINE_CPU_ONLY, error)))
      && blur_in_stripes (input, source_format, roi, shape, output, error))
    {
      *note = g_strdup_printf ("%s; blurred on the CPU instead", first->message);
      g_error_free (first);
      return TRUE;
    }
  g_prefix_error (error, "%s; on the CPU: ", first->message);
  g_error_free (first);
  return FALSE;
}

/* The engine for a part or a whole layer, made on first use; NULL with
 * *error set. */
static gblur_engine *
engine_for (gboolean part, GError **error)
{
  gblur_engine **slot = part ? &part_engine : &engine;

  if (!*slot)
    *slot = pixel_engine_new (part ? PIXEL_ENGINE_START_CUDA : PIXEL_ENGINE_DEFER_CUDA, error);
  if (part && *slot)
    g_atomic_int_set (&part_backend, gblur_engine_backend (*slot));
  return *slot;
}

/* The rate table's slot for a radius and a pixel's bytes. */
static gdouble *
rate_of (gint radius, gint bytes_per_pixel)
{
  gint r = MIN (g_bit_storage (MAX (radius, 0)), RATE_BUCKETS - 1);
  gint b = MIN (g_bit_storage (MAX (bytes_per_pixel, 1)) - 1, RATE_SIZES - 1);

  return &part_rate[r][b];
}

/* Notes a part run's rate: `roi` in `ms`. */
static void
note_rate (const GeglRectangle *roi, const Babl *format, const BlurShape *shape, gdouble ms)
{
  gint64   pixels = (gint64) roi->width * roi->height;
  gint     bpp = babl_format_get_bytes_per_pixel (format);
  gdouble *best = rate_of (gblur_radius (MAX (shape->sigma_x, shape->sigma_y)), bpp);

  if (pixels * bpp < RATE_MIN_BYTES || ms <= 0)
    return;
  G_LOCK (rates);
  *best = pixels / ms * RATE_DROP < *best ? pixels / ms : MAX (*best, pixels / ms);
  G_UNLOCK (rates);
}

/* Runs under way, and a release asked for while one ran or the lock was
 * held: whoever lets the lock go last does it, once the buffers a run held
 * are back in the pools. */
static gint runs_in_flight, release_pending;

/* The engines' kept host buffers freed, if asked for and nothing runs. */
static void
release_if_pending (void)
{
  if (!g_atomic_int_get (&release_pending) || g_atomic_int_get (&runs_in_flight)
      || !g_mutex_trylock (&engine_lock))
    return;
  if (!g_atomic_int_get (&runs_in_flight) && g_atomic_int_compare_and_exchange (&release_pending, 1, 0))
    {
      gblur_engine_release_kept (engine);
      gblur_engine_release_kept (part_engine);
      gblur_engine_release_kept (cpu_engine);
    }
  g_mutex_unlock (&engine_lock);
}

gboolean
operation_run_fits (gint64 pixels, gint bytes_per_pixel, gint radius, gdouble budget_ms)
{
  GError  *error = NULL;
  gdouble  rate;
  gint     backend = g_atomic_int_get (&part_backend);

  /* Made here only when no render holds the lock, not to wait for one;
   * until then, regions. */
  if (backend < 0 && g_mutex_trylock (&engine_lock))
    {
      engine_for (TRUE, &error);
      g_mutex_unlock (&engine_lock);
      release_if_pending ();
      g_clear_error (&error);
      backend = g_atomic_int_get (&part_backend);
    }
  G_LOCK (rates);
  rate = *rate_of (radius, bytes_per_pixel);
  G_UNLOCK (rates);
  if (rate > 0)
    return pixels / rate <= budget_ms;
  return backend == GBLUR_BACKEND_CUDA && pixels * bytes_per_pixel <= GUESS_MAX_BYTES;
}

void
operation_release_kept (void)
{
  g_atomic_int_set (&release_pending, 1);
  release_if_pending ();
}

/* Rows of `roi` one run takes: all, or as many as RUN_MAX_BYTES holds. */
static gint
run_rows (const GeglRectangle *roi, const BlurShape *shape, gint bytes_per_pixel)
{
  gint64 row = (gint64) (roi->width + 2 * gblur_radius (shape->sigma_x)) * bytes_per_pixel * 2;
  gint64 rows = RUN_MAX_BYTES / MAX (row, 1) - 2 * gblur_radius (shape->sigma_y);

  return (gint) CLAMP (rows, RETRY_MIN_ROWS, (gint64) roi->height);
}

/* One run over `roi`, retried on the CPU; FALSE with *error set.  *note:
 * what to say once the lock is let go. */
static gboolean
blur_run (GeglBuffer *input, const Babl *source_format, const GeglRectangle *roi, const BlurShape *shape,
          GeglBuffer *output, gboolean part, gchar **note, GError **error)
{
  gblur_engine *chosen;
  gboolean      ok;
  gdouble       ms = 0;

  g_atomic_int_inc (&runs_in_flight);
  g_mutex_lock (&engine_lock);
  chosen = engine_for (part, error);
  ok = chosen && blur_region (chosen, &engine_lock, input, source_format, roi, shape, output, &ms, error);
  if (ok && part)
    note_rate (roi, gegl_buffer_get_format (output), shape, ms);
  ok = ok || retry_on_cpu (input, source_format, roi, shape, output, note, error);
  g_atomic_int_add (&runs_in_flight, -1);
  g_mutex_unlock (&engine_lock);
  release_if_pending ();
  return ok;
}

gboolean
operation_blur (GeglBuffer *input, const Babl *source_format, const GeglRectangle *roi,
                const BlurShape *shape, GeglBuffer *output, const GeglRectangle *result,
                gboolean part)
{
  GError  *error = NULL;
  gchar   *note = NULL;
  gboolean ok = TRUE;
  gint     said = 0;
  gint     rows = run_rows (roi, shape, babl_format_get_bytes_per_pixel (gegl_buffer_get_format (output)));

  for (gint y = roi->y; ok && y < roi->y + roi->height; y += rows)
    {
      GeglRectangle stripe = { roi->x, y, roi->width, MIN (rows, roi->y + roi->height - y) };

      ok = blur_run (input, source_format, &stripe, shape, output, part, &note, &error);
      if (note && !said++)   /* once, however many stripes */
        operation_message ("%s", note);
      g_clear_pointer (&note, g_free);
    }
  if (!ok)
    {
      operation_message ("nothing could blur (%s); the layer is left unblurred", error->message);
      g_error_free (error);
      gegl_buffer_copy (input, result, GEGL_ABYSS_NONE, output, result);
    }
  return TRUE;
}
