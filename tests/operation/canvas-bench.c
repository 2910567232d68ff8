/* Renders a blur the way GIMP 3's canvas shows a filter while its slider
 * moves: a layer (buffer-source) through the operation, and after each
 * change of the std-devs only the viewport, chunk by chunk, at the zoom's
 * mipmap level (render_rect).  Each operation named
 * runs in this one process, alternating, so their times compare.
 *
 *   canvas-bench [--op NAME]... [--size WxH] [--depth 8|16] [--zoom Z]...
 *                [--sigma S]... [--steps N] [--viewport WxH] [--chunk N]
 *                [--check] [--corner] [--merge]
 *
 * Prints a Markdown table: per operation, zoom and sigma, the first step's
 * milliseconds and the mean of the following ones; with --check, the
 * largest difference (in levels) between the viewport and a whole-layer
 * render at the same level, a case passing within 1 level (the viewport at
 * the layer's centre, or with --corner a few pixels from its top-left
 * corner, where the blur meets the edges).  With --merge it times whole-layer renders
 * instead: as GIMP merges a filter (growing chunks) and in one request (the
 * gegl tool, an export).  The gegl_tile_dup warnings GEGL printed are
 * counted per operation.  --chunk 0 renders the viewport in GIMP's adaptive
 * chunks instead of fixed ones.  GEGL_PATH must name the module's folder (and
 * GEGL's own, which a set GEGL_PATH replaces). */
#include <gegl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 8

typedef struct {
  const char *ops[MAX_LIST];
  int         n_ops;
  double      zooms[MAX_LIST];
  int         n_zooms;
  double      sigmas[MAX_LIST];
  int         n_sigmas;
  int         width, height, depth;
  int         view_w, view_h, chunk, steps, check, corner, merge;
} Options;

/* Warnings counted by operation: the log handler adds to *current. */
static int *current_dup_count;

static void
count_warnings (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
  (void) data;
  if (message && strstr (message, "gegl_tile_dup") && current_dup_count)
    (*current_dup_count)++;
  else
    g_log_default_handler (domain, level, message, NULL);
}

static int
parse_size (const char *text, int *w, int *h)
{
  return sscanf (text, "%dx%d", w, h) == 2 && *w > 0 && *h > 0;
}

static int
parse_args (int argc, char **argv, Options *o)
{
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
      int         ok = v != NULL;

      if (strcmp (a, "--check") == 0 || strcmp (a, "--corner") == 0 || strcmp (a, "--merge") == 0)
        {
          *(a[3] == 'h' ? &o->check : a[3] == 'o' ? &o->corner : &o->merge) = 1;
          continue;
        }
      if (ok && strcmp (a, "--op") == 0 && o->n_ops < MAX_LIST)
        o->ops[o->n_ops++] = v;
      else if (ok && strcmp (a, "--zoom") == 0 && o->n_zooms < MAX_LIST)
        ok = (o->zooms[o->n_zooms++] = atof (v)) > 0 && o->zooms[o->n_zooms - 1] <= 1;
      else if (ok && strcmp (a, "--sigma") == 0 && o->n_sigmas < MAX_LIST)
        ok = (o->sigmas[o->n_sigmas++] = atof (v)) > 0;
      else if (ok && strcmp (a, "--size") == 0)
        ok = parse_size (v, &o->width, &o->height);
      else if (ok && strcmp (a, "--viewport") == 0)
        ok = parse_size (v, &o->view_w, &o->view_h);
      else if (ok && strcmp (a, "--depth") == 0)
        ok = (o->depth = atoi (v)) == 8 || o->depth == 16;
      else if (ok && strcmp (a, "--steps") == 0)
        ok = (o->steps = atoi (v)) >= 2;
      else if (ok && strcmp (a, "--chunk") == 0)
        ok = (o->chunk = atoi (v)) >= 16 || o->chunk == 0;
      else
        ok = 0;
      if (!ok)
        return 0;
      i++;
    }
  return 1;
}

static void
set_defaults (Options *o)
{
  static const double zooms[] = { 1, 0.5, 0.25 }, sigmas[] = { 3, 10, 30, 100 };

  if (o->n_ops == 0)
    {
      o->ops[o->n_ops++] = "gegl:gaussian-blur";
      o->ops[o->n_ops++] = "cuda:gaussian-blur";
    }
  if (o->n_zooms == 0)
    for (; o->n_zooms < 3; o->n_zooms++)
      o->zooms[o->n_zooms] = zooms[o->n_zooms];
  if (o->n_sigmas == 0)
    for (; o->n_sigmas < 4; o->n_sigmas++)
      o->sigmas[o->n_sigmas] = sigmas[o->n_sigmas];
}

/* A photo-like layer: smooth gradients, edges and noise. */
static GeglBuffer *
make_layer (const Options *o)
{
  const Babl   *format = babl_format (o->depth == 8 ? "R'G'B'A u8" : "R'G'B'A u16");
  GeglRectangle all = { 0, 0, o->width, o->height };
  GeglBuffer   *layer = gegl_buffer_new (&all, format);
  float        *row = g_new (float, (gsize) o->width * 4);
  guint32       seed = 12345;

  for (int y = 0; y < o->height; y++)
    {
      GeglRectangle line = { 0, y, o->width, 1 };
      for (int x = 0; x < o->width; x++)
        {
          seed = seed * 1664525u + 1013904223u;
          float noise = (float) (seed >> 24) / 255.0f * 0.1f;
          float edge = ((x / 97 + y / 61) % 2) ? 0.6f : 0.2f;
          row[4 * x + 0] = edge + noise;
          row[4 * x + 1] = (float) x / o->width * 0.8f + noise;
          row[4 * x + 2] = (float) y / o->height * 0.8f + noise;
          row[4 * x + 3] = (x / 301 + y / 199) % 3 ? 1.0f : 0.5f + noise;
        }
      gegl_buffer_set (layer, &line, 0, babl_format ("R'G'B'A float"), row, GEGL_AUTO_ROWSTRIDE);
    }
  g_free (row);
  return layer;
}

static int
level_of (double zoom)
{
  int level = 0;
  while (zoom <= 0.5 + 1e-9)
    zoom *= 2, level++;
  return level;
}

/* The viewport in the level's coordinates, centred on the layer (or a few
 * pixels from its top-left corner, where the blocks meet its edges: at the
 * corner itself the operation renders the whole layer) and clipped to it. */
static GeglRectangle
viewport_at (const Options *o, double zoom, int level)
{
  double        scale = zoom * (1 << level);   /* display pixels per level pixel */
  int           lw = o->width >> level, lh = o->height >> level;
  int           vw = (int) ceil (o->view_w / scale), vh = (int) ceil (o->view_h / scale);
  GeglRectangle v = { o->corner ? 7 : (lw - vw) / 2, o->corner ? 5 : (lh - vh) / 2, vw, vh };
  GeglRectangle layer = { 0, 0, lw, lh };

  gegl_rectangle_intersect (&v, &v, &layer);
  return v;
}

/* Renders rect, in the level's coordinates, into canvas.  Above level 0 with
 * gegl_node_blit at the level's scale (main enables mipmap rendering):
 * gegl_node_blit_buffer would copy the result's level-0 tiles, which a
 * render at the level never writes (a blank canvas, and a gegl_tile_dup
 * warning per tile shared with it). */
static void
render_rect (GeglNode *node, GeglBuffer *canvas, const GeglRectangle *rect, int level)
{
  const Babl *format = gegl_buffer_get_format (canvas);
  guchar     *data;

  if (level == 0)
    {
      gegl_node_blit_buffer (node, canvas, rect, 0, GEGL_ABYSS_NONE);
      return;
    }
  data = g_malloc ((gsize) rect->width * rect->height * babl_format_get_bytes_per_pixel (format));
  gegl_node_blit (node, 1.0 / (1 << level), rect, format, data, GEGL_AUTO_ROWSTRIDE, GEGL_BLIT_DEFAULT);
  gegl_buffer_set (canvas, rect, 0, format, data, GEGL_AUTO_ROWSTRIDE);
  g_free (data);
}

/* GimpChunkIterator's chunks, as GIMP renders its canvas (every 1/15 s)
 * and merges a filter: the first is one tile (GEGL's default, 128×64), and
 * each next one is sized to take `interval` at the rate of the last; rows
 * of chunks, left to right. */
#define TILE_W 128
#define TILE_H 64

typedef void (*RenderChunk) (const GeglRectangle *chunk, gpointer data);

static void
chunk_adaptively (const GeglRectangle *all, double interval, RenderChunk render, gpointer data)
{
  double target = TILE_W * TILE_H;

  for (int y = all->y; y < all->y + all->height; )
    {
      int h = (int) (sqrt (target * TILE_H / TILE_W) / TILE_H + 0.5) * TILE_H;

      h = CLAMP (h, TILE_H, 4096);
      h = MIN (h, all->y + all->height - y);
      for (int x = all->x; x < all->x + all->width; )
        {
          int           w = CLAMP ((int) (target / h / TILE_W + 0.5) * TILE_W, TILE_W, 4096);
          GeglRectangle c = { x, y, MIN (w, all->x + all->width - x), h };
          gint64        t0 = g_get_monotonic_time ();

          render (&c, data);
          target = (double) c.width * c.height * interval
                   / MAX (1e-4, (g_get_monotonic_time () - t0) / 1e6);
          target = CLAMP (target, 4096.0, 4096.0 * 4096.0);
          x += c.width;
        }
      y += h;
    }
}

typedef struct {
  GeglNode   *node;
  GeglBuffer *canvas;   /* NULL: the node is a sink */
  int         level;
} ChunkTarget;

static void
render_chunk (const GeglRectangle *c, gpointer data)
{
  ChunkTarget *t = data;

  if (t->canvas)
    render_rect (t->node, t->canvas, c, t->level);
  else
    gegl_node_blit (t->node, 1.0, c, NULL, NULL, 0, GEGL_BLIT_DEFAULT);
}

/* One slider step: the viewport rendered chunk by chunk (fixed chunks, or
 * GIMP's adaptive ones when chunk is 0); milliseconds. */
static double
render_view (GeglNode *blur, GeglBuffer *canvas, const GeglRectangle *view, int level, int chunk)
{
  gint64      start = g_get_monotonic_time ();
  ChunkTarget t = { blur, canvas, level };

  if (chunk == 0)
    chunk_adaptively (view, 1.0 / 15.0, render_chunk, &t);
  for (int y = view->y; chunk && y < view->y + view->height; y += chunk)
    for (int x = view->x; x < view->x + view->width; x += chunk)
      {
        GeglRectangle c = { x, y, MIN (chunk, view->x + view->width - x),
                            MIN (chunk, view->y + view->height - y) };
        render_rect (blur, canvas, &c, level);
      }
  return (g_get_monotonic_time () - start) / 1000.0;
}

/* Largest difference, in levels of the canvas format, between the view of
 * canvas and the same rectangle of a whole-layer render at `level`. */
static double
check_view (const char *op, GeglBuffer *layer, double sigma, GeglBuffer *canvas,
            const GeglRectangle *view, int level, int max_level)
{
  GeglNode     *graph = gegl_node_new ();
  GeglNode     *src = gegl_node_new_child (graph, "operation", "gegl:buffer-source", "buffer", layer, NULL);
  GeglNode     *blur = gegl_node_new_child (graph, "operation", op, "std-dev-x", sigma, "std-dev-y", sigma, NULL);
  GeglRectangle whole = *gegl_buffer_get_extent (layer);
  GeglBuffer   *full;
  guint16      *a, *b;
  double        worst = 0;
  gsize         n = (gsize) view->width * view->height * 4;
  /* Compared as stored integers: float would blur a 16-bit level. */
  const Babl   *u16 = babl_format ("R'G'B'A u16");

  whole.width >>= level;
  whole.height >>= level;
  full = gegl_buffer_new (&whole, gegl_buffer_get_format (canvas));
  gegl_node_link (src, blur);
  render_rect (blur, full, &whole, level);
  a = g_new (guint16, n);
  b = g_new (guint16, n);
  gegl_buffer_get (canvas, view, 1.0, u16, a, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  gegl_buffer_get (full, view, 1.0, u16, b, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  for (gsize i = 0; i < n; i++)
    worst = MAX (worst, abs ((int) a[i] - (int) b[i]) * (double) max_level / 65535);
  g_free (a);
  g_free (b);
  g_object_unref (full);
  g_object_unref (graph);
  return worst;
}

typedef struct {
  double first, rest, diff;
} StepTimes;

/* The steps of one operation at one zoom from one sigma, in a graph of
 * its own (as a filter freshly opened on the canvas). */
static StepTimes
run_steps (const Options *o, const char *op, GeglBuffer *layer, double zoom, double sigma)
{
  int           level = level_of (zoom);
  GeglRectangle view = viewport_at (o, zoom, level);
  GeglRectangle lv = { 0, 0, o->width >> level, o->height >> level };
  GeglNode     *graph = gegl_node_new ();
  GeglNode     *src = gegl_node_new_child (graph, "operation", "gegl:buffer-source", "buffer", layer, NULL);
  GeglNode     *blur = gegl_node_new_child (graph, "operation", op, NULL);
  GeglBuffer   *canvas = gegl_buffer_new (&lv, gegl_buffer_get_format (layer));
  StepTimes     t = { 0, 0, 0 };
  double        s = sigma;

  gegl_node_link (src, blur);
  for (int step = 0; step < o->steps; step++, s *= 1.02)
    {
      gegl_node_set (blur, "std-dev-x", s, "std-dev-y", s, NULL);
      double ms = render_view (blur, canvas, &view, level, o->chunk);
      if (step == 0)
        t.first = ms;
      else
        t.rest += ms / (o->steps - 1);
    }
  if (o->check)
    t.diff = check_view (op, layer, s / 1.02, canvas, &view, level, o->depth == 8 ? 255 : 65535);
  g_object_unref (canvas);
  g_object_unref (graph);
  return t;
}

/* A whole-layer render of a fresh graph into a fresh buffer: in chunks as a
 * merge, or in one request; milliseconds. */
static double
run_whole (const char *op, GeglBuffer *layer, double sigma, int chunked)
{
  const GeglRectangle *all = gegl_buffer_get_extent (layer);
  GeglBuffer          *out = gegl_buffer_new (all, gegl_buffer_get_format (layer));
  GeglNode            *graph = gegl_node_new ();
  GeglNode            *src = gegl_node_new_child (graph, "operation", "gegl:buffer-source", "buffer", layer, NULL);
  GeglNode            *blur = gegl_node_new_child (graph, "operation", op, "std-dev-x", sigma, "std-dev-y", sigma, NULL);
  GeglNode            *sink = gegl_node_new_child (graph, "operation", "gegl:write-buffer", "buffer", out, NULL);
  gint64               start = g_get_monotonic_time ();
  double               ms;

  gegl_node_link_many (src, blur, sink, NULL);
  if (chunked)
    {
      ChunkTarget t = { sink, NULL, 0 };

      chunk_adaptively (all, 1.0 / 8.0, render_chunk, &t);
      ms = (g_get_monotonic_time () - start) / 1000.0;
    }
  else
    {
      gegl_node_process (sink);
      ms = (g_get_monotonic_time () - start) / 1000.0;
    }
  g_object_unref (graph);
  g_object_unref (out);
  return ms;
}

/* --merge: per operation and sigma, the best of `steps` merges and of
 * `steps` one-request renders, alternating. */
static void
run_merges (const Options *o, GeglBuffer *layer, int *dups)
{
  printf ("| operation | sigma | merge in chunks ms (best of %d) | one request ms (best) |\n", o->steps);
  printf ("| --- | --- | --- | --- |\n");
  for (int s = 0; s < o->n_sigmas; s++)
    for (int i = 0; i < o->n_ops; i++)
      {
        double merge = G_MAXDOUBLE, whole = G_MAXDOUBLE;

        current_dup_count = &dups[i];
        for (int r = 0; r < o->steps; r++)
          {
            merge = MIN (merge, run_whole (o->ops[i], layer, o->sigmas[s] * (1 + 1e-3 * r), TRUE));
            whole = MIN (whole, run_whole (o->ops[i], layer, o->sigmas[s] * (1 + 1e-3 * r), FALSE));
          }
        current_dup_count = NULL;
        printf ("| %s | %g | %.1f | %.1f |\n", o->ops[i], o->sigmas[s], merge, whole);
        fflush (stdout);
      }
}

static void
print_header (const Options *o)
{
  printf ("layer %dx%d R'G'B'A u%d", o->width, o->height, o->depth);
  if (o->merge)
    {
      printf (", whole-layer renders at level 0\n\n");
      return;
    }
  printf (", viewport %dx%d display pixels in ", o->view_w, o->view_h);
  if (o->chunk)
    printf ("%d-pixel chunks", o->chunk);
  else
    printf ("GIMP's adaptive chunks (1/15 s)");
  printf (", %d steps of +2 %%\n\n", o->steps);
  printf ("| operation | zoom | sigma | first step ms | next steps ms (mean)%s |\n", o->check ? " | max diff" : "");
  printf ("| --- | --- | --- | --- | ---%s |\n", o->check ? " | ---" : "");
}

int
main (int argc, char **argv)
{
  Options     o = { .width = 6000, .height = 4000, .depth = 8, .view_w = 1920, .view_h = 1080,
                    .chunk = 256, .steps = 5 };
  int         dups[MAX_LIST] = { 0 }, failed = 0, passed = 0;
  GeglBuffer *layer;

  gegl_init (NULL, NULL);
  /* Else gegl_node_blit renders a scale at level 0 and shrinks it. */
  g_object_set (gegl_config (), "mipmap-rendering", TRUE, NULL);
  if (!parse_args (argc, argv, &o))
    {
      fprintf (stderr, "usage: %s [--op NAME]... [--size WxH] [--depth 8|16] [--zoom Z]... [--sigma S]...\n"
               "       [--steps N] [--viewport WxH] [--chunk N] [--check] [--corner] [--merge]\n", argv[0]);
      return 2;
    }
  set_defaults (&o);
  for (int i = 0; i < o.n_ops; i++)
    if (!gegl_has_operation (o.ops[i]))
      {
        fprintf (stderr, "canvas-bench: no operation %s (GEGL_PATH?)\n", o.ops[i]);
        return 1;
      }
  g_log_set_handler ("GEGL", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL, count_warnings, NULL);
  layer = make_layer (&o);
  print_header (&o);
  if (o.merge)
    run_merges (&o, layer, dups);
  for (int z = 0; z < o.n_zooms && !o.merge; z++)
    for (int s = 0; s < o.n_sigmas; s++)
      for (int i = 0; i < o.n_ops; i++)
        {
          current_dup_count = &dups[i];
          StepTimes t = run_steps (&o, o.ops[i], layer, o.zooms[z], o.sigmas[s]);
          current_dup_count = NULL;
          printf ("| %s | %g %% | %g | %.1f | %.1f", o.ops[i], o.zooms[z] * 100, o.sigmas[s], t.first, t.rest);
          if (o.check)
            {
              printf (" | %.2f", t.diff);
              t.diff <= 1.0 + 1e-9 ? passed++ : failed++;   /* 1 level */
            }
          printf (" |\n");
          fflush (stdout);
        }
  printf ("\n");
  for (int i = 0; i < o.n_ops; i++)
    printf ("%s: %d gegl_tile_dup warnings\n", o.ops[i], dups[i]);
  g_object_unref (layer);
  gegl_exit ();
  if (o.check)
    printf ("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
