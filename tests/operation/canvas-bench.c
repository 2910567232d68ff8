/* Renders a blur the way GIMP 3's canvas shows a filter while its slider
 * moves: a layer (buffer-source) through the operation, and after each
 * change of the std-devs only the viewport, chunk by chunk, with
 * gegl_node_blit_buffer at the zoom's mipmap level.  Each operation named
 * runs in this one process, alternating, so their times compare.
 *
 *   canvas-bench [--op NAME]... [--size WxH] [--depth 8|16] [--zoom Z]...
 *                [--sigma S]... [--steps N] [--viewport WxH] [--chunk N]
 *                [--check]
 *
 * Prints a Markdown table: per operation, zoom and sigma, the first step's
 * milliseconds and the mean of the following ones; with --check, the
 * largest difference (in levels) between the viewport and a whole-layer
 * render at the same level.  The gegl_tile_dup warnings GEGL printed are
 * counted per operation.  GEGL_PATH must name the module's folder (and
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
  int         view_w, view_h, chunk, steps, check;
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

      if (strcmp (a, "--check") == 0)
        {
          o->check = 1;
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
        ok = (o->chunk = atoi (v)) >= 16;
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

/* The viewport in the level's coordinates, centred on the layer and
 * clipped to it. */
static GeglRectangle
viewport_at (const Options *o, double zoom, int level)
{
  double        scale = zoom * (1 << level);   /* display pixels per level pixel */
  int           lw = o->width >> level, lh = o->height >> level;
  int           vw = (int) ceil (o->view_w / scale), vh = (int) ceil (o->view_h / scale);
  GeglRectangle v = { (lw - vw) / 2, (lh - vh) / 2, vw, vh };
  GeglRectangle layer = { 0, 0, lw, lh };

  gegl_rectangle_intersect (&v, &v, &layer);
  return v;
}

/* One slider step: the viewport rendered chunk by chunk; milliseconds. */
static double
render_view (GeglNode *blur, GeglBuffer *canvas, const GeglRectangle *view, int level, int chunk)
{
  gint64 start = g_get_monotonic_time ();

  for (int y = view->y; y < view->y + view->height; y += chunk)
    for (int x = view->x; x < view->x + view->width; x += chunk)
      {
        GeglRectangle c = { x, y, MIN (chunk, view->x + view->width - x),
                            MIN (chunk, view->y + view->height - y) };
        gegl_node_blit_buffer (blur, canvas, &c, level, GEGL_ABYSS_NONE);
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
  float        *a, *b;
  double        worst = 0;
  gsize         n = (gsize) view->width * view->height * 4;

  whole.width >>= level;
  whole.height >>= level;
  full = gegl_buffer_new (&whole, gegl_buffer_get_format (canvas));
  gegl_node_link (src, blur);
  gegl_node_blit_buffer (blur, full, &whole, level, GEGL_ABYSS_NONE);
  a = g_new (float, n);
  b = g_new (float, n);
  gegl_buffer_get (canvas, view, 1.0, babl_format ("R'G'B'A float"), a, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  gegl_buffer_get (full, view, 1.0, babl_format ("R'G'B'A float"), b, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  for (gsize i = 0; i < n; i++)
    worst = MAX (worst, fabs ((double) a[i] - b[i]) * max_level);
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

static void
print_header (const Options *o)
{
  printf ("layer %dx%d R'G'B'A u%d, viewport %dx%d display pixels in %d-pixel chunks, %d steps of +2 %%\n\n",
          o->width, o->height, o->depth, o->view_w, o->view_h, o->chunk, o->steps);
  printf ("| operation | zoom | sigma | first step ms | next steps ms (mean)%s |\n", o->check ? " | max diff" : "");
  printf ("| --- | --- | --- | --- | ---%s |\n", o->check ? " | ---" : "");
}

int
main (int argc, char **argv)
{
  Options     o = { .width = 6000, .height = 4000, .depth = 8, .view_w = 1920, .view_h = 1080,
                    .chunk = 256, .steps = 5 };
  int         dups[MAX_LIST] = { 0 };
  GeglBuffer *layer;

  gegl_init (NULL, NULL);
  if (!parse_args (argc, argv, &o))
    {
      fprintf (stderr, "usage: %s [--op NAME]... [--size WxH] [--depth 8|16] [--zoom Z]... [--sigma S]...\n"
               "       [--steps N] [--viewport WxH] [--chunk N] [--check]\n", argv[0]);
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
  for (int z = 0; z < o.n_zooms; z++)
    for (int s = 0; s < o.n_sigmas; s++)
      for (int i = 0; i < o.n_ops; i++)
        {
          current_dup_count = &dups[i];
          StepTimes t = run_steps (&o, o.ops[i], layer, o.zooms[z], o.sigmas[s]);
          current_dup_count = NULL;
          printf ("| %s | %g %% | %g | %.1f | %.1f", o.ops[i], o.zooms[z] * 100, o.sigmas[s], t.first, t.rest);
          if (o.check)
            printf (" | %.2f", t.diff);
          printf (" |\n");
          fflush (stdout);
        }
  printf ("\n");
  for (int i = 0; i < o.n_ops; i++)
    printf ("%s: %d gegl_tile_dup warnings\n", o.ops[i], dups[i]);
  g_object_unref (layer);
  gegl_exit ();
  return 0;
}
