/* Renders a blur the way GIMP 3's canvas shows a filter while its slider
 * moves (../shared/notes/gimp-canvas.md): each step invalidates the whole
 * layer, and GIMP renders all of it at level 0 whatever the zoom, in idle
 * iterations of 1/15 s (GimpChunkIterator, canvas-chunks.c), the viewport
 * first, then the rest of the layer; after each iteration the display reads
 * what changed in the viewport at the zoom's scale (GEGL's box mipmaps).
 * Each operation named runs in this one process, alternating.
 *
 *   canvas-bench [--op NAME]... [--ref NAME] [--size WxH] [--depth 8|16]
 *                [--zoom Z]... [--sigma S]... [--steps N] [--viewport WxH]
 *                [--check] [--corner] [--merge] [--log] [--profile]
 *                [--cpu-time]
 *
 * Prints a Markdown table: per operation, zoom and sigma, the milliseconds
 * until the viewport shows (the end of the iteration that finished it) and
 * until the whole layer is done, the first step and the mean of the next
 * ones, and those means over --ref's (default gegl:gaussian-blur).  The op
 * "none" is the layer with no filter (gegl:nop): GIMP's own traffic.  With
 * --check, the largest difference (in levels) between the canvas after the
 * last step and a one-request whole-layer render, a case passing within 1
 * level; --corner puts the viewport a few pixels from the layer's top-left
 * corner instead of its centre.  With --merge it times whole-layer renders:
 * as GIMP merges a filter (chunks of 1/8 s) and in one request (the gegl
 * tool, an export).  GEGL_PATH must name the module's folder (and GEGL's
 * own, which a set GEGL_PATH replaces).  --log prints each chunk and its
 * time on stderr; --profile adds each step's start and, from the module
 * (GBLUR_PROFILE), each engine run's parts: tests/operation/canvas_profile.py
 * makes the timeline of that; --cpu-time times in the process's CPU time
 * (all threads), which others' load on the machine changes less. */
#include <gegl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "canvas-check.h"
#include "canvas-chunks.h"

#define MAX_LIST 8
/* GIMP's tile grid (gegl_config's tile size in GIMP): the first chunk. */
#define TILE_SIDE 128

typedef struct {
  const char *ops[MAX_LIST], *ref;
  int         n_ops;
  double      zooms[MAX_LIST];
  int         n_zooms;
  double      sigmas[MAX_LIST];
  int         n_sigmas;
  int         width, height, depth;
  int         view_w, view_h, steps, check, corner, merge;
} Options;

/* --log: each chunk and its time on stderr. */
static int log_chunks;
/* --cpu-time: the process's CPU time (all threads) instead of wall time,
 * for a machine others load; GIMP's chunks still follow wall time. */
static int cpu_time;

static double
now_ms (void)
{
  struct timespec t;

  if (!cpu_time)
    return g_get_monotonic_time () / 1000.0;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
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

      if (strcmp (a, "--log") == 0 || strcmp (a, "--cpu-time") == 0)
        {
          *(a[2] == 'l' ? &log_chunks : &cpu_time) = 1;
          continue;
        }
      if (strcmp (a, "--profile") == 0)
        {
          log_chunks = 1;
          g_setenv ("GBLUR_PROFILE", "1", TRUE);
          continue;
        }
      if (strcmp (a, "--check") == 0 || strcmp (a, "--corner") == 0 || strcmp (a, "--merge") == 0)
        {
          *(a[3] == 'h' ? &o->check : a[3] == 'o' ? &o->corner : &o->merge) = 1;
          continue;
        }
      if (ok && strcmp (a, "--op") == 0 && o->n_ops < MAX_LIST)
        o->ops[o->n_ops++] = v;
      else if (ok && strcmp (a, "--ref") == 0)
        o->ref = v;
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
      o->ops[o->n_ops++] = "none";
      o->ops[o->n_ops++] = "gegl:gaussian-blur";
      o->ops[o->n_ops++] = "cuda:gaussian-blur";
    }
  if (!o->ref)
    o->ref = "gegl:gaussian-blur";
  if (o->n_zooms == 0)
    for (; o->n_zooms < 3; o->n_zooms++)
      o->zooms[o->n_zooms] = zooms[o->n_zooms];
  if (o->n_sigmas == 0)
    for (; o->n_sigmas < 4; o->n_sigmas++)
      o->sigmas[o->n_sigmas] = sigmas[o->n_sigmas];
}

/* The GEGL operation an op name stands for. */
static const char *
operation_of (const char *op)
{
  return strcmp (op, "none") == 0 ? "gegl:nop" : op;
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

/* The viewport in layer pixels (zoom < 1 shows more of them), centred on
 * the layer or a few pixels from its top-left corner, clipped to it. */
static GeglRectangle
viewport_at (const Options *o, double zoom)
{
  int           vw = (int) ceil (o->view_w / zoom), vh = (int) ceil (o->view_h / zoom);
  GeglRectangle v = { o->corner ? 7 : (o->width - vw) / 2, o->corner ? 5 : (o->height - vh) / 2, vw, vh };
  GeglRectangle layer = { 0, 0, o->width, o->height };

  gegl_rectangle_intersect (&v, &v, &layer);
  return v;
}

/* The display's read of `rect` (layer pixels) at `zoom`, as GIMP's
 * renderer asks the projection for cairo pixels. */
static void
paint (GeglBuffer *canvas, const GeglRectangle *rect, double zoom)
{
  GeglRectangle at = { (int) floor (rect->x * zoom), (int) floor (rect->y * zoom),
                       0, 0 };
  guchar       *data;

  at.width = (int) ceil ((rect->x + rect->width) * zoom) - at.x;
  at.height = (int) ceil ((rect->y + rect->height) * zoom) - at.y;
  if (gegl_rectangle_is_empty (&at))
    return;
  data = g_malloc ((gsize) at.width * at.height * 4);
  gegl_buffer_get (canvas, &at, zoom, babl_format ("cairo-ARGB32"), data, GEGL_AUTO_ROWSTRIDE,
                   GEGL_ABYSS_NONE);
  g_free (data);
}

typedef struct {
  double view, whole;   /* milliseconds */
} StepTimes;

/* One slider step: the whole layer rendered into the canvas (GIMP's
 * projection) in idle iterations, the viewport first. */
static StepTimes
render_step (GeglNode *node, GeglBuffer *canvas, const GeglRectangle *view, double zoom)
{
  GeglRectangle all = *gegl_buffer_get_extent (canvas), r;
  double        start = now_ms ();
  StepTimes     t = { -1, 0 };
  Chunks        chunks;
  gboolean      priority;

  chunks_init (&chunks, &all, view, TILE_SIDE, TILE_SIDE, 1.0 / 15.0);
  while (chunks_next (&chunks))
    {
      GeglRectangle dirty = { 0, 0, 0, 0 };

      while (chunks_get_rect (&chunks, &r, &priority))
        {
          gint64 t0 = g_get_monotonic_time ();

          gegl_node_blit_buffer (node, canvas, &r, 0, GEGL_ABYSS_NONE);
          if (log_chunks)
            fprintf (stderr, "%s %d,%d %dx%d %.1f ms\n", priority ? "view" : "rest", r.x, r.y, r.width,
                     r.height, (g_get_monotonic_time () - t0) / 1000.0);
          if (priority)
            gegl_rectangle_bounding_box (&dirty, &dirty, &r);
        }
      paint (canvas, &dirty, zoom);
      if (log_chunks)
        fprintf (stderr, "iteration ends %.1f ms\n", now_ms () - start);
      if (t.view < 0 && chunks_priority_done (&chunks))
        t.view = now_ms () - start;
    }
  t.whole = now_ms () - start;
  if (t.view < 0)
    t.view = t.whole;
  return t;
}

/* Largest difference, in levels, between canvas and a one-request render
 * of the layer through `op` at `sigma`. */
static double
check_canvas (const char *op, GeglBuffer *layer, double sigma, GeglBuffer *canvas, int max_level)
{
  GeglNode *graph = gegl_node_new ();
  GeglNode *src = gegl_node_new_child (graph, "operation", "gegl:buffer-source", "buffer", layer, NULL);
  GeglNode *blur = gegl_node_new_child (graph, "operation", operation_of (op), NULL);
  double    worst;

  if (strcmp (op, "none") != 0)
    gegl_node_set (blur, "std-dev-x", sigma, "std-dev-y", sigma, NULL);
  gegl_node_link (src, blur);
  worst = canvas_difference (blur, gegl_buffer_get_extent (layer), canvas, max_level);
  g_object_unref (graph);
  return worst;
}

typedef struct {
  StepTimes first, rest;
  double    diff;
} Steps;

/* The steps of one operation at one zoom from one sigma, in a graph of
 * its own (as a filter freshly opened on the canvas). */
static Steps
run_steps (const Options *o, const char *op, GeglBuffer *layer, double zoom, double sigma)
{
  GeglRectangle view = viewport_at (o, zoom);
  GeglNode     *graph = gegl_node_new ();
  GeglNode     *src = gegl_node_new_child (graph, "operation", "gegl:buffer-source", "buffer", layer, NULL);
  GeglNode     *blur = gegl_node_new_child (graph, "operation", operation_of (op), NULL);
  GeglBuffer   *canvas = gegl_buffer_new (gegl_buffer_get_extent (layer), gegl_buffer_get_format (layer));
  Steps         t = { { 0, 0 }, { 0, 0 }, 0 };
  double        s = sigma;

  gegl_node_link (src, blur);
  for (int step = 0; step < o->steps; step++, s *= 1.02)
    {
      StepTimes st;

      if (strcmp (op, "none") != 0)
        gegl_node_set (blur, "std-dev-x", s, "std-dev-y", s, NULL);
      else
        gegl_node_set (src, "buffer", layer, NULL);   /* GEGL invalidates, as a step would */
      if (log_chunks)
        fprintf (stderr, "step %d %s zoom %g sigma %g\n", step, op, zoom, s);
      st = render_step (blur, canvas, &view, zoom);
      if (step == 0)
        t.first = st;
      else
        {
          t.rest.view += st.view / (o->steps - 1);
          t.rest.whole += st.whole / (o->steps - 1);
        }
    }
  if (o->check)
    t.diff = check_canvas (op, layer, s / 1.02, canvas, o->depth == 8 ? 255 : 65535);
  g_object_unref (canvas);
  g_object_unref (graph);
  return t;
}

/* A whole-layer render of a fresh graph into a fresh buffer: in chunks as a
 * merge (1/8 s, no viewport), or in one request; milliseconds. */
static double
run_whole (const char *op, GeglBuffer *layer, double sigma, int chunked)
{
  const GeglRectangle *all = gegl_buffer_get_extent (layer);
  GeglBuffer          *out = gegl_buffer_new (all, gegl_buffer_get_format (layer));
  GeglNode            *graph = gegl_node_new ();
  GeglNode            *src = gegl_node_new_child (graph, "operation", "gegl:buffer-source", "buffer", layer, NULL);
  GeglNode            *blur = gegl_node_new_child (graph, "operation", op, "std-dev-x", sigma, "std-dev-y", sigma, NULL);
  GeglNode            *sink = gegl_node_new_child (graph, "operation", "gegl:write-buffer", "buffer", out, NULL);
  double               start = now_ms ();
  Chunks               chunks;
  GeglRectangle        r;
  gboolean             priority;
  double               ms;

  gegl_node_link_many (src, blur, sink, NULL);
  if (chunked)
    {
      chunks_init (&chunks, all, NULL, TILE_SIDE, TILE_SIDE, 1.0 / 8.0);
      while (chunks_next (&chunks))
        while (chunks_get_rect (&chunks, &r, &priority))
          gegl_node_blit (sink, 1.0, &r, NULL, NULL, 0, GEGL_BLIT_DEFAULT);
    }
  else
    gegl_node_process (sink);
  ms = now_ms () - start;
  g_object_unref (graph);
  g_object_unref (out);
  return ms;
}

/* --merge: per operation and sigma, the best of `steps` merges and of
 * `steps` one-request renders, alternating. */
static void
run_merges (const Options *o, GeglBuffer *layer)
{
  printf ("| operation | sigma | merge in chunks ms (best of %d) | one request ms (best) |\n", o->steps);
  printf ("| --- | --- | --- | --- |\n");
  for (int s = 0; s < o->n_sigmas; s++)
    for (int i = 0; i < o->n_ops; i++)
      {
        double merge = G_MAXDOUBLE, whole = G_MAXDOUBLE;

        if (strcmp (o->ops[i], "none") == 0)
          continue;
        for (int r = 0; r < o->steps; r++)
          {
            merge = MIN (merge, run_whole (o->ops[i], layer, o->sigmas[s] * (1 + 1e-3 * r), TRUE));
            whole = MIN (whole, run_whole (o->ops[i], layer, o->sigmas[s] * (1 + 1e-3 * r), FALSE));
          }
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
  printf (", viewport %dx%d display pixels, %s, level 0 in GIMP's chunks (1/15 s), %d steps of +2 %%\n\n",
          o->view_w, o->view_h, o->corner ? "at the top-left corner" : "centred", o->steps);
  printf ("| operation | zoom | sigma | view ms, first / next | whole ms, first / next | view / %s | whole / %s%s |\n",
          o->ref, o->ref, o->check ? " | max diff" : "");
  printf ("| --- | --- | --- | --- | --- | --- | ---%s |\n", o->check ? " | ---" : "");
}

/* One zoom and sigma: every operation, then its row; FALSE if a check failed. */
static int
run_case (const Options *o, GeglBuffer *layer, double zoom, double sigma)
{
  Steps t[MAX_LIST], *ref = NULL;
  int   ok = 1;

  for (int i = 0; i < o->n_ops; i++)
    {
      t[i] = run_steps (o, o->ops[i], layer, zoom, sigma);
      if (strcmp (o->ops[i], o->ref) == 0)
        ref = &t[i];
    }
  for (int i = 0; i < o->n_ops; i++)
    {
      printf ("| %s | %g %% | %g | %.1f / %.1f | %.1f / %.1f", o->ops[i], zoom * 100, sigma,
              t[i].first.view, t[i].rest.view, t[i].first.whole, t[i].rest.whole);
      if (ref)
        printf (" | %.2f | %.2f", t[i].rest.view / ref->rest.view, t[i].rest.whole / ref->rest.whole);
      else
        printf (" | – | –");
      if (o->check)
        printf (" | %.2f", t[i].diff);
      printf (" |\n");
      ok &= t[i].diff <= 1.0 + 1e-9;   /* 1 level */
    }
  fflush (stdout);
  return ok;
}

int
main (int argc, char **argv)
{
  Options     o = { .width = 6000, .height = 4000, .depth = 8, .view_w = 1920, .view_h = 1080, .steps = 5 };
  int         failed = 0, passed = 0;
  GeglBuffer *layer;

  gegl_init (NULL, NULL);
  if (!parse_args (argc, argv, &o))
    {
      fprintf (stderr, "usage: %s [--op NAME]... [--ref NAME] [--size WxH] [--depth 8|16] [--zoom Z]...\n"
               "       [--sigma S]... [--steps N] [--viewport WxH] [--check] [--corner] [--merge] [--log]\n"
               "       [--profile] [--cpu-time]\n", argv[0]);
      return 2;
    }
  set_defaults (&o);
  for (int i = 0; i < o.n_ops; i++)
    if (!gegl_has_operation (operation_of (o.ops[i])))
      {
        fprintf (stderr, "canvas-bench: no operation %s (GEGL_PATH?)\n", o.ops[i]);
        return 1;
      }
  /* GIMP's tiles (the canvas's chunks and GEGL's caches on one grid) and
   * its default tile cache, half the memory: GEGL's own would swap. */
  g_object_set (gegl_config (), "tile-width", TILE_SIDE, "tile-height", TILE_SIDE, "tile-cache-size",
                (guint64) sysconf (_SC_PHYS_PAGES) * sysconf (_SC_PAGESIZE) / 2, NULL);
  layer = make_layer (&o);
  print_header (&o);
  if (o.merge)
    run_merges (&o, layer);
  for (int z = 0; z < o.n_zooms && !o.merge; z++)
    for (int s = 0; s < o.n_sigmas; s++)
      run_case (&o, layer, o.zooms[z], o.sigmas[s]) ? passed++ : failed++;
  g_object_unref (layer);
  gegl_exit ();
  if (o.check)
    printf ("\n%d passed, %d failed\n", passed, failed);
  return o.check && failed ? 1 : 0;
}
