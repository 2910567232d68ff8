/* cuda:gaussian-blur over an input whose tiles are rendered as they are
 * read, by a graph that blurs with cuda:gaussian-blur too: what a filter on
 * a GIMP 3 layer group meets when a layer in the group has one (GIMP's
 * projections validate their tiles on read).  The inner renders run while
 * the outer one reads, in the reading thread and in another that the
 * reader waits for; they must neither wait for the outer one's engine nor
 * disturb it.  Fails, rather than hangs, on a deadlock.
 *   test-nested-render MODULE_DIR     (prints PASS/FAIL, "N passed, N failed") */
#include <gegl.h>
#include <gegl-buffer-backend.h>
#include <gegl-tile-handler.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define SIDE  1024   /* read in several bands, on GEGL's threads too */
#define LIMIT 30    /* seconds before a render counts as hung */

static const char *FORMAT = "R'G'B'A float";
static gint        failed, passed;

/* Renders a blur of its own graph each time a tile is fetched: every other
 * time in a thread of its own while the reader waits (GIMP's projections
 * may be validated elsewhere), one at a time. */
typedef struct { GeglTileHandler parent; GeglNode *sink; GMutex lock; gint renders; } Lazy;
typedef struct { GeglTileHandlerClass parent; } LazyClass;
G_DEFINE_TYPE (Lazy, lazy, GEGL_TYPE_TILE_HANDLER)

static gpointer
nested_render (gpointer sink)
{
  GeglRectangle part = { 0, 0, 64, 64 };
  gfloat        pixels[64 * 64 * 4];

  gegl_node_blit (sink, 1.0, &part, babl_format (FORMAT), pixels, GEGL_AUTO_ROWSTRIDE, GEGL_BLIT_DEFAULT);
  return NULL;
}

static gpointer
lazy_command (GeglTileSource *source, GeglTileCommand command, gint x, gint y, gint z, gpointer data)
{
  Lazy *self = (Lazy *) source;

  if (command == GEGL_TILE_GET && self->sink)
    {
      g_mutex_lock (&self->lock);
      /* a new sigma each time, so that GEGL's cache cannot answer */
      gegl_node_set (self->sink, "std-dev-x", 2.0 + 0.001 * self->renders, NULL);
      if (self->renders++ % 2 == 0)
        nested_render (self->sink);
      else
        g_thread_join (g_thread_new ("validate", nested_render, self->sink));
      g_mutex_unlock (&self->lock);
    }
  return gegl_tile_handler_source_command (source, command, x, y, z, data);
}

static void lazy_class_init (LazyClass *klass) { (void) klass; }
static void lazy_init (Lazy *self) { ((GeglTileSource *) self)->command = lazy_command; g_mutex_init (&self->lock); }

static void
check (const char *what, gboolean ok)
{
  printf ("%s: %s\n", ok ? "PASS" : "FAIL", what);
  ok ? passed++ : failed++;
}

/* A buffer of a smooth pattern with a few sharp edges. */
static GeglBuffer *
pattern (gint side)
{
  GeglRectangle all = { 0, 0, side, side };
  GeglBuffer   *buffer = gegl_buffer_new (&all, babl_format (FORMAT));
  gfloat       *p = g_new (gfloat, side * side * 4);

  for (gint i = 0; i < side * side * 4; i++)
    p[i] = (i % 4 == 3) ? 1.0f : (gfloat) (((i / 4) % side / 16 + (i / 4) / side / 16 + i % 4) % 3) / 2.0f;
  gegl_buffer_set (buffer, &all, 0, babl_format (FORMAT), p, GEGL_AUTO_ROWSTRIDE);
  g_free (p);
  return buffer;
}

/* input -> cuda:gaussian-blur (sigma) in a new graph; the blur node. */
static GeglNode *
blur_graph (GeglNode **graph, GeglBuffer *input, gdouble sigma)
{
  GeglNode *source, *blur;

  *graph = gegl_node_new ();
  source = gegl_node_new_child (*graph, "operation", "gegl:buffer-source", "buffer", input, NULL);
  blur = gegl_node_new_child (*graph, "operation", "cuda:gaussian-blur",
                              "std-dev-x", sigma, "std-dev-y", sigma, NULL);
  gegl_node_link (source, blur);
  return blur;
}

static gfloat *
render (GeglNode *node)
{
  GeglRectangle all = { 0, 0, SIDE, SIDE };
  gfloat       *out = g_new0 (gfloat, SIDE * SIDE * 4);

  gegl_node_blit (node, 1.0, &all, babl_format (FORMAT), out, GEGL_AUTO_ROWSTRIDE, GEGL_BLIT_DEFAULT);
  return out;
}

static GMutex  done_lock;
static GCond   done_cond;
static gfloat *done;

static gpointer
render_thread (gpointer node)
{
  gfloat *out = render (node);

  g_mutex_lock (&done_lock);
  done = out;
  g_cond_signal (&done_cond);
  g_mutex_unlock (&done_lock);
  return NULL;
}

/* The outer render's pixels, or NULL after LIMIT seconds. */
static gfloat *
wait_for_render (void)
{
  gint64 end = g_get_monotonic_time () + LIMIT * G_TIME_SPAN_SECOND;

  g_mutex_lock (&done_lock);
  while (!done && g_cond_wait_until (&done_cond, &done_lock, end))
    ;
  g_mutex_unlock (&done_lock);
  return done;
}

int
main (int argc, char **argv)
{
  GeglNode   *plain_graph, *outer_graph, *inner_graph, *plain, *outer;
  GeglBuffer *input, *inner_input;
  Lazy       *lazy;
  gfloat     *want, *got;
  GThread    *thread;
  gdouble     worst = 0;

  if (argc != 2)
    {
      fprintf (stderr, "usage: %s MODULE_DIR\n", argv[0]);
      return 2;
    }
  gegl_init (NULL, NULL);
  gegl_load_module_directory (argv[1]);
  if (!gegl_has_operation ("cuda:gaussian-blur"))
    {
      printf ("FAIL: no cuda:gaussian-blur in %s\n0 passed, 1 failed\n", argv[1]);
      return 1;
    }
  input = pattern (SIDE);
  plain = blur_graph (&plain_graph, input, 3.0);
  want = render (plain);

  inner_input = pattern (64);
  lazy = g_object_new (lazy_get_type (), NULL);
  lazy->sink = blur_graph (&inner_graph, inner_input, 2.0);
  gegl_buffer_add_handler (input, lazy);
  outer = blur_graph (&outer_graph, input, 3.0);
  thread = g_thread_new ("outer render", render_thread, outer);
  if (!(got = wait_for_render ()))
    {
      /* The render's thread cannot be stopped: a hang ends the test. */
      printf ("FAIL: the render with nested renders did not end in %d s (deadlock)\n0 passed, 1 failed\n",
              LIMIT);
      fflush (stdout);
      _exit (1);
    }
  g_thread_join (thread);
  check ("nested renders ran inside the outer one, in its thread and in another", lazy->renders > 1);
  for (gint i = 0; i < SIDE * SIDE * 4; i++)
    worst = MAX (worst, ABS (got[i] - want[i]));
  printf ("largest difference %.3g (%d nested renders)\n", worst, lazy->renders);
  check ("the outer render is the plain one's", worst <= 1e-5);
  printf ("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
