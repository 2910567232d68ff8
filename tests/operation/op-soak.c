/* Soak test of the GEGL operation (issue 54): one process renders many
 * slider steps as GIMP 3's canvas does, with random sigmas per axis, zoom,
 * chunk order, depth (8/16-bit), linear light and abyss policy; a filter is
 * closed and another opened every few steps (its engines' kept buffers go).
 * Every step's canvas is compared with a one-request render of the layer,
 * and every EXACT_EVERY-th on the small layer with the double-precision
 * definition (exact-canvas.c): within 1 level; any message of the operation (a CPU retry, a layer left
 * unblurred) fails the step, as both renders would agree on it.  Resident memory (VmRSS) after the warm-up steps and at
 * the end; the largest after the warm-up must stay within the bound over
 * the warm-up's largest.  Device memory too where nvidia-smi shows this
 * process (the operation itself stays CUDA-free).
 *
 *   op-soak [--steps N] [--seconds S] [--warmup W] [--bound-mib B]
 *           [--seed S] [--op NAME] [--device required]
 *
 * --device required: device memory must be measured (a GPU run), not
 * skipped. *
 * GEGL_PATH must name the module's folder (and GEGL's own).  Ends with a
 * figures line and "N passed, N failed". */
#include <gegl.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "canvas-check.h"
#include "canvas-chunks.h"
#include "exact-canvas.h"

/* GIMP's tile grid: chunks and GEGL's caches on one grid. */
#define TILE_SIDE   128
/* The layer sizes a filter is opened on: one the CPU blurs whole within
 * an iteration, one it mostly blurs in regions (cache-region.c). */
static const int sizes[][2] = { { 640, 480 }, { 1536, 1024 } };
static const double zooms[] = { 1, 0.5, 0.25 };
#define SIGMA_MAX   60.0
/* Steps a filter stays open: at most this many. */
#define SESSION_MAX 24
/* Every this many steps on the small layer, the exact check too. */
#define EXACT_EVERY 16

typedef struct {
  int         steps, warmup, seconds;
  double      bound_mib;
  guint32     seed;
  const char *op;
  gboolean    device_required;
} Options;

typedef struct {
  double rss_warm, rss_warm_max, rss_max, rss_end;   /* KiB */
  double dev_warm, dev_max, dev_end;                 /* MiB; < 0: none */
  double worst, worst_exact;                         /* levels */
  int    exact_checks;
  int    steps, bad_steps, reported, after_samples;
  int    messages;                                   /* of the operation */
  char   dev_note[160];
} Figures;

/* VmRSS of this process in KiB (0 when unreadable). */
static double
rss_kib (void)
{
  gchar  *text = NULL;
  double  kib = 0;
  char   *at;

  if (g_file_get_contents ("/proc/self/status", &text, NULL, NULL) && (at = strstr (text, "VmRSS:")))
    kib = g_ascii_strtod (at + 6, NULL);
  g_free (text);
  return kib;
}

/* This process's device memory in MiB from nvidia-smi, or -1 with why. */
static double
device_mib (char *why, gsize why_size)
{
  gchar  *out = NULL, **lines;
  gint    status = 1;
  double  mib = -1;
  char    pid[32];

  if (!g_spawn_command_line_sync ("nvidia-smi --query-compute-apps=pid,used_memory "
                                  "--format=csv,noheader,nounits", &out, NULL, &status, NULL) || status)
    {
      g_strlcpy (why, "no nvidia-smi or no GPU", why_size);
      g_free (out);
      return -1;
    }
  g_snprintf (pid, sizeof pid, "%d,", (int) getpid ());
  lines = g_strsplit (out, "\n", -1);
  for (int i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], pid))
      mib = g_ascii_strtod (lines[i] + strlen (pid), NULL);
  if (mib < 0)
    g_strlcpy (why, "no CUDA context in this process (the CPU backend)", why_size);
  g_strfreev (lines);
  g_free (out);
  return mib;
}

static int
parse_args (int argc, char **argv, Options *o)
{
  for (int i = 1; i + 1 < argc; i += 2)
    {
      const char *a = argv[i], *v = argv[i + 1];

      if (strcmp (a, "--steps") == 0)
        o->steps = atoi (v);
      else if (strcmp (a, "--seconds") == 0)
        o->seconds = atoi (v);
      else if (strcmp (a, "--warmup") == 0)
        o->warmup = atoi (v);
      else if (strcmp (a, "--bound-mib") == 0)
        o->bound_mib = g_ascii_strtod (v, NULL);
      else if (strcmp (a, "--seed") == 0)
        o->seed = (guint32) strtoul (v, NULL, 10);
      else if (strcmp (a, "--op") == 0)
        o->op = v;
      else if (strcmp (a, "--device") == 0 && strcmp (v, "required") == 0)
        o->device_required = TRUE;
      else
        return 0;
    }
  if (o->warmup <= 0)
    o->warmup = MAX (1, o->steps / 4);
  return argc % 2 == 1 && o->steps > o->warmup && o->seconds > 0 && o->bound_mib > 0;
}

/* A photo-like layer from GEGL's own generators: hard-edged blocks (one
 * colour half transparent) with noise on every channel. */
static GeglBuffer *
make_layer (int width, int height, int depth)
{
  GeglRectangle all = { 0, 0, width, height };
  GeglBuffer   *layer = gegl_buffer_new (&all, babl_format (depth == 8 ? "R'G'B'A u8" : "R'G'B'A u16"));
  GeglNode     *graph = gegl_node_new ();
  GeglColor    *c1 = gegl_color_new ("rgba(0.8, 0.3, 0.1, 1.0)"), *c2 = gegl_color_new ("rgba(0.1, 0.5, 0.9, 0.5)");
  GeglNode     *board = gegl_node_new_child (graph, "operation", "gegl:checkerboard", "x", 97, "y", 61,
                                             "color1", c1, "color2", c2, NULL);
  GeglNode     *noise = gegl_node_new_child (graph, "operation", "gegl:noise-rgb", "red", 0.1, "green", 0.1,
                                             "blue", 0.1, "alpha", 0.05, "seed", 54, NULL);
  GeglNode     *sink = gegl_node_new_child (graph, "operation", "gegl:write-buffer", "buffer", layer, NULL);

  gegl_node_link_many (board, noise, sink, NULL);
  gegl_node_blit (sink, 1.0, &all, NULL, NULL, 0, GEGL_BLIT_DEFAULT);
  g_object_unref (graph);
  g_object_unref (c1);
  g_object_unref (c2);
  return layer;
}

/* A sigma for one axis: mostly log-uniform up to SIGMA_MAX, at times 0
 * (that axis left alone). */
static double
random_sigma (GRand *rand)
{
  if (g_rand_int_range (rand, 0, 10) == 0)
    return 0;
  return exp (g_rand_double_range (rand, log (0.3), log (SIGMA_MAX)));
}

/* The viewport at a random place, in layer pixels at `zoom` (a 960x540
 * view), clipped to the layer. */
static GeglRectangle
random_view (GRand *rand, const GeglRectangle *all, double zoom)
{
  int           w = (int) ceil (960 / zoom), h = (int) ceil (540 / zoom);
  GeglRectangle v = { g_rand_int_range (rand, -w / 2, all->width), g_rand_int_range (rand, -h / 2, all->height),
                      w, h };

  gegl_rectangle_intersect (&v, &v, all);
  return v;
}

/* GIMP's order: its chunk iterator, the viewport first. */
static void
render_gimp_order (GeglNode *node, GeglBuffer *canvas, const GeglRectangle *view)
{
  GeglRectangle all = *gegl_buffer_get_extent (canvas), r;
  Chunks        chunks;
  gboolean      priority;

  chunks_init (&chunks, &all, view, TILE_SIDE, TILE_SIDE, 1.0 / 15.0);
  while (chunks_next (&chunks))
    while (chunks_get_rect (&chunks, &r, &priority))
      gegl_node_blit_buffer (node, canvas, &r, 0, GEGL_ABYSS_NONE);
}

/* A random order: chunks of a random tile multiple, the viewport's first
 * and then the rest, each part shuffled. */
static void
render_shuffled (GeglNode *node, GeglBuffer *canvas, const GeglRectangle *view, GRand *rand)
{
  const GeglRectangle *all = gegl_buffer_get_extent (canvas);
  int                  cw = TILE_SIDE * g_rand_int_range (rand, 1, 5), ch = TILE_SIDE * g_rand_int_range (rand, 1, 5);
  GArray              *parts[2] = { g_array_new (FALSE, FALSE, sizeof (GeglRectangle)),
                                    g_array_new (FALSE, FALSE, sizeof (GeglRectangle)) };

  for (int y = 0; y < all->height; y += ch)
    for (int x = 0; x < all->width; x += cw)
      {
        GeglRectangle r = { x, y, MIN (cw, all->width - x), MIN (ch, all->height - y) };
        g_array_append_val (parts[gegl_rectangle_intersect (NULL, &r, view) ? 0 : 1], r);
      }
  for (int p = 0; p < 2; p++)
    {
      GeglRectangle *r = (GeglRectangle *) parts[p]->data;

      for (int i = (int) parts[p]->len - 1; i > 0; i--)
        {
          int           j = g_rand_int_range (rand, 0, i + 1);
          GeglRectangle t = r[i];
          r[i] = r[j];
          r[j] = t;
        }
      for (guint i = 0; i < parts[p]->len; i++)
        gegl_node_blit_buffer (node, canvas, &r[i], 0, GEGL_ABYSS_NONE);
      g_array_free (parts[p], TRUE);
    }
}

/* Largest difference in levels between canvas and a one-request render of
 * the layer through a fresh graph with blur's properties. */
static double
check_canvas (GeglNode *blur, GeglBuffer *layer, GeglBuffer *canvas, int max_level)
{
  GeglNode *graph = gegl_node_new ();
  GeglNode *src = gegl_node_new_child (graph, "operation", "gegl:buffer-source", "buffer", layer, NULL);
  GeglNode *ref = gegl_node_new_child (graph, "operation", gegl_node_get_operation (blur), NULL);
  double    worst, sx, sy;
  int       abyss;
  gboolean  linear;

  gegl_node_get (blur, "std-dev-x", &sx, "std-dev-y", &sy, "abyss-policy", &abyss, "linear", &linear, NULL);
  gegl_node_set (ref, "std-dev-x", sx, "std-dev-y", sy, "abyss-policy", abyss, "linear", linear, NULL);
  gegl_node_link (src, ref);
  worst = canvas_difference (ref, gegl_buffer_get_extent (layer), canvas, max_level);
  g_object_unref (graph);
  return worst;
}

typedef struct {
  const Options *o;
  GRand         *rand;
  GeglBuffer    *layers[2][G_N_ELEMENTS (sizes)];   /* [8/16-bit][size] */
  Figures       *f;
  gint64         start;
  int            sessions;
  GeglBuffer    *probe;
} Soak;

/* A filter on a small layer, whose later steps GEGL renders whole (the
 * engine's rate known): when it closes the engines give back the host
 * buffers they kept, as when GIMP closes a filter, so the memory measured
 * next is what the process holds for good. */
static void
probe_and_close (Soak *s)
{
  GeglNode   *graph = gegl_node_new ();
  GeglNode   *src = gegl_node_new_child (graph, "operation", "gegl:buffer-source", "buffer", s->probe, NULL);
  GeglNode   *blur = gegl_node_new_child (graph, "operation", s->o->op, "std-dev-x", 1.0, "std-dev-y", 1.0, NULL);
  GeglBuffer *canvas = gegl_buffer_new (gegl_buffer_get_extent (s->probe), gegl_buffer_get_format (s->probe));
  GeglRectangle view = { 0, 0, 256, 256 };

  gegl_node_link (src, blur);
  for (int i = 0; i < 3; i++)
    {
      gegl_node_set (blur, "std-dev-x", 1.0 + i * 0.01, NULL);
      render_gimp_order (blur, canvas, &view);
    }
  g_object_unref (canvas);
  g_object_unref (graph);
}

/* Memory after a filter closed (what a session holds is gone then): the
 * warm-up's largest, then the largest after it. */
static void
note_memory (Soak *s)
{
  Figures *f = s->f;
  int      after = f->steps > s->o->warmup;
  double   rss;

  probe_and_close (s);
  malloc_trim (0);   /* the allocator's free pages back: RSS is what is held */
  rss = rss_kib ();
  if (after && f->rss_warm == 0)
    {
      f->rss_warm = rss;
      f->dev_warm = device_mib (f->dev_note, sizeof f->dev_note);
    }
  else if (after)
    {
      f->after_samples++;
      f->rss_max = MAX (f->rss_max, rss);
      if (f->dev_warm >= 0)
        f->dev_max = MAX (f->dev_max, f->dev_end = device_mib (f->dev_note, sizeof f->dev_note));
    }
  else
    f->rss_warm_max = MAX (f->rss_warm_max, rss);
  f->rss_end = rss;
  if (f->steps / 100 > f->reported / 100)   /* the curve, for a person watching a long run */
    fprintf (stderr, "op-soak: %d steps, RSS %.1f MiB, %.0f s\n", f->steps, rss / 1024,
             (g_get_monotonic_time () - s->start) / 1e6);
  f->reported = f->steps;
}

/* The canvas against the exact blur (exact-canvas.c). */
static double
exact_check (Soak *s, GeglNode *blur, GeglBuffer *layer, GeglBuffer *canvas, int depth)
{
  double   sx, sy, diff;
  int      abyss;
  gboolean linear;

  gegl_node_get (blur, "std-dev-x", &sx, "std-dev-y", &sy, "abyss-policy", &abyss, "linear", &linear, NULL);
  diff = exact_canvas_difference (layer, canvas, sx, sy, linear, abyss, depth);
  s->f->worst_exact = MAX (s->f->worst_exact, diff);
  s->f->exact_checks++;
  return diff;
}

/* One slider step on an open filter; FALSE once the time is spent. */
static gboolean
soak_step (Soak *s, GeglNode *blur, GeglBuffer *layer, GeglBuffer *canvas, int depth, gboolean extreme)
{
  const GeglRectangle *all = gegl_buffer_get_extent (layer);
  double               zoom = zooms[g_rand_int_range (s->rand, 0, G_N_ELEMENTS (zooms))];
  GeglRectangle        view = random_view (s->rand, all, zoom);
  double               diff;
  int                  messages = s->f->messages;

  gegl_node_set (blur, "std-dev-x", extreme ? SIGMA_MAX : random_sigma (s->rand),
                 "std-dev-y", extreme ? SIGMA_MAX : random_sigma (s->rand), NULL);
  if (g_rand_boolean (s->rand))
    render_gimp_order (blur, canvas, &view);
  else
    render_shuffled (blur, canvas, &view, s->rand);
  diff = check_canvas (blur, layer, canvas, depth == 8 ? 255 : 65535);
  s->f->worst = MAX (s->f->worst, diff);
  if (all->width == sizes[0][0] && s->f->steps % EXACT_EVERY == 0)
    diff = MAX (diff, exact_check (s, blur, layer, canvas, depth));
  if (diff > 1.0 + 1e-9 || s->f->messages > messages)
    {
      double sx, sy;

      gegl_node_get (blur, "std-dev-x", &sx, "std-dev-y", &sy, NULL);
      printf ("FAIL: step %d, %d-bit %dx%d, sigma %g x %g, zoom %g: off by %.2f levels, %d messages\n",
              s->f->steps, depth, all->width, all->height, sx, sy, zoom, diff, s->f->messages - messages);
      s->f->bad_steps++;
    }
  s->f->steps++;
  return (g_get_monotonic_time () - s->start) / 1e6 < s->o->seconds;
}

/* A filter opened on a random layer, some steps, then closed; FALSE when
 * the soak is over.  The first filters: every depth and size at the
 * largest sigma in linear light (float: the most bytes), so that the
 * warm-up meets the largest buffers. */
static gboolean
soak_session (Soak *s)
{
  gboolean    extreme = s->sessions < (int) (2 * G_N_ELEMENTS (sizes));
  int         d = extreme ? s->sessions % 2 : g_rand_int_range (s->rand, 0, 2);
  int         z = extreme ? s->sessions / 2 : g_rand_int_range (s->rand, 0, G_N_ELEMENTS (sizes));
  GeglBuffer *layer = s->layers[d][z];
  GeglNode   *graph = gegl_node_new ();
  GeglNode   *src = gegl_node_new_child (graph, "operation", "gegl:buffer-source", "buffer", layer, NULL);
  GeglNode   *blur = gegl_node_new_child (graph, "operation", s->o->op, "abyss-policy",
                                          g_rand_int_range (s->rand, 0, 4), "linear",
                                          extreme || g_rand_boolean (s->rand), NULL);
  GeglBuffer *canvas = gegl_buffer_new (gegl_buffer_get_extent (layer), gegl_buffer_get_format (layer));
  int         n = extreme ? 2 : g_rand_int_range (s->rand, 1, SESSION_MAX + 1);
  gboolean    more = TRUE;

  gegl_node_link (src, blur);
  for (int i = 0; i < n && more && s->f->steps < s->o->steps; i++)
    more = soak_step (s, blur, layer, canvas, d ? 16 : 8, extreme && i == 0);
  s->sessions++;
  g_object_unref (canvas);
  g_object_unref (graph);
  note_memory (s);
  return more && s->f->steps < s->o->steps;
}

/* The operation's messages (GEGL's log domain): counted, and shown. */
static void
count_message (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
  Figures *f = data;

  if (g_str_has_prefix (message, "cuda:gaussian-blur:"))
    g_atomic_int_inc (&f->messages);   /* GEGL's worker threads log too */
  g_log_default_handler (domain, level, message, NULL);
}

static void
print_figures (const Options *o, const Figures *f, double seconds)
{
  printf ("op-soak: %d steps (8/16-bit, sigma 0-%g per axis, zoom 100/50/25 %%, GIMP's and shuffled chunk "
          "orders) in %.0f s; RSS %.1f MiB after %d warm-up steps (their largest %.1f), %.1f MiB at the end, "
          "largest after warm-up %.1f (bound +%g MiB); worst difference %.2f level, %.2f against the exact "
          "blur in %d steps",
          f->steps, SIGMA_MAX, seconds, f->rss_warm / 1024, o->warmup, f->rss_warm_max / 1024,
          f->rss_end / 1024, f->rss_max / 1024, o->bound_mib, f->worst, f->worst_exact, f->exact_checks);
  if (f->dev_warm >= 0)
    printf ("; device memory %.0f MiB after warm-up, %.0f at the end, largest %.0f", f->dev_warm, f->dev_end,
            f->dev_max);
  else
    printf ("; device memory: skipped (%s)", f->dev_note);
  printf ("\n");
}

/* The checks: every step within 1 level, memory flat after the warm-up. */
static int
report (const Options *o, const Figures *f, double seconds)
{
  double bound = o->bound_mib * 1024;
  int    passed = f->steps - f->bad_steps, failed = f->bad_steps;
  int    warmed = f->after_samples > 0 && f->rss_warm > 0;
  int    flat = warmed && f->rss_max <= f->rss_warm_max + bound;
  int    dev_flat = f->dev_warm < 0 || (f->dev_max >= 0 && f->dev_max <= f->dev_warm + o->bound_mib);

  print_figures (o, f, seconds);
  printf ("%s: resident memory flat after the warm-up%s\n", flat ? "PASS" : "FAIL",
          warmed ? "" : " (not measured twice after the warm-up: the time ran out)");
  flat ? passed++ : failed++;
  printf ("%s: %d of %d steps done, %d checked against the exact blur\n",
          f->steps == o->steps && f->exact_checks > 0 ? "PASS" : "FAIL", f->steps, o->steps, f->exact_checks);
  f->steps == o->steps && f->exact_checks > 0 ? passed++ : failed++;
  if (f->dev_warm < 0 && o->device_required)
    {
      printf ("FAIL: device memory not measured (%s)\n", f->dev_note);
      failed++;
    }
  else if (f->dev_warm < 0)
    printf ("SKIP: device memory (%s)\n", f->dev_note);
  else
    {
      printf ("%s: device memory flat after the warm-up\n", dev_flat ? "PASS" : "FAIL");
      dev_flat ? passed++ : failed++;
    }
  printf ("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

int
main (int argc, char **argv)
{
  Options o = { .steps = 2000, .seconds = 3600, .bound_mib = 8, .seed = 54, .op = "cuda:gaussian-blur" };
  Figures f = { .dev_warm = -1, .dev_max = -1, .dev_end = -1 };
  Soak    s = { .o = &o, .f = &f };
  int     rc;

  /* glibc's adaptive mmap threshold grows the heap in steps; fixed, only a leak does. */
  mallopt (M_MMAP_THRESHOLD, 128 * 1024);
  gegl_init (NULL, NULL);
  g_log_set_handler ("GEGL", G_LOG_LEVEL_MASK, count_message, &f);
  if (!parse_args (argc, argv, &o))
    {
      fprintf (stderr, "usage: %s [--steps N] [--seconds S] [--warmup W] [--bound-mib B] [--seed S] "
               "[--op NAME] [--device required]\n", argv[0]);
      return 2;
    }
  if (!gegl_has_operation (o.op))
    {
      fprintf (stderr, "op-soak: no operation %s (GEGL_PATH?)\n", o.op);
      return 1;
    }
  g_object_set (gegl_config (), "tile-width", TILE_SIDE, "tile-height", TILE_SIDE, NULL);
  s.rand = g_rand_new_with_seed (o.seed);
  for (int d = 0; d < 2; d++)
    for (guint z = 0; z < G_N_ELEMENTS (sizes); z++)
      s.layers[d][z] = make_layer (sizes[z][0], sizes[z][1], d ? 16 : 8);
  s.probe = make_layer (512, 512, 8);
  s.start = g_get_monotonic_time ();
  while (soak_session (&s))
    ;
  rc = report (&o, &f, (g_get_monotonic_time () - s.start) / 1e6);
  for (int d = 0; d < 2; d++)
    for (guint z = 0; z < G_N_ELEMENTS (sizes); z++)
      g_object_unref (s.layers[d][z]);
  g_object_unref (s.probe);
  g_rand_free (s.rand);
  gegl_exit ();
  return rc;
}
