/* GIMP 3's chunk iterator (app/core/gimpchunkiterator.c), its rules
 * restated for the benchmark; regions are lists of rectangles taken in
 * cairo's banded order (top to bottom, left to right). */
#include "canvas-chunks.h"

#include <math.h>
#include <string.h>

#define MAX_SIDE      4096      /* MAX_CHUNK_WIDTH, MAX_CHUNK_HEIGHT */
#define MIN_AREA      4096      /* MIN_AREA_PER_ITERATION */
#define MAX_RATIO     2.0       /* MAX_AREA_RATIO */

/* Appends `r` minus `cut` (up to four pieces) to list. */
static void
add_minus (GeglRectangle *list, int *n, const GeglRectangle *r, const GeglRectangle *cut)
{
  GeglRectangle in, piece[4];

  if (gegl_rectangle_is_empty (r))
    return;
  if (!gegl_rectangle_intersect (&in, r, cut))
    {
      if (*n < CHUNKS_MAX_RECTS)
        list[(*n)++] = *r;
      return;
    }
  piece[0] = (GeglRectangle) { r->x, r->y, r->width, in.y - r->y };
  piece[1] = (GeglRectangle) { r->x, in.y, in.x - r->x, in.height };
  piece[2] = (GeglRectangle) { in.x + in.width, in.y, r->x + r->width - in.x - in.width, in.height };
  piece[3] = (GeglRectangle) { r->x, in.y + in.height, r->width, r->y + r->height - in.y - in.height };
  for (int i = 0; i < 4; i++)
    if (!gegl_rectangle_is_empty (&piece[i]) && *n < CHUNKS_MAX_RECTS)
      list[(*n)++] = piece[i];
}

/* Removes `cut` from every rectangle of the list. */
static void
subtract (GeglRectangle *list, int *n, const GeglRectangle *cut)
{
  GeglRectangle old[CHUNKS_MAX_RECTS];
  int           n_old = *n;

  memcpy (old, list, sizeof old);
  *n = 0;
  for (int i = 0; i < n_old; i++)
    add_minus (list, n, &old[i], cut);
}

/* Takes the list's first rectangle in banded order. */
static GeglRectangle
take_first (GeglRectangle *list, int *n)
{
  int           best = 0;
  GeglRectangle r;

  for (int i = 1; i < *n; i++)
    if (list[i].y < list[best].y || (list[i].y == list[best].y && list[i].x < list[best].x))
      best = i;
  r = list[best];
  list[best] = list[--*n];
  return r;
}

void
chunks_init (Chunks *c, const GeglRectangle *all, const GeglRectangle *priority,
             int tile_w, int tile_h, double interval)
{
  GeglRectangle view = { 0, 0, 0, 0 };

  memset (c, 0, sizeof *c);
  c->tile_w = tile_w;
  c->tile_h = tile_h;
  c->interval = interval;
  c->target_min = (double) MAX_SIDE * MAX_SIDE;
  if (priority)
    gegl_rectangle_intersect (&view, all, priority);
  if (!gegl_rectangle_is_empty (&view))
    c->priority[c->n_priority++] = view;
  add_minus (c->rest, &c->n_rest, all, &view);
}

/* Moves on to the next row or rectangle; FALSE when nothing is left. */
static gboolean
prepare (Chunks *c)
{
  if (c->x < c->current.x + c->current.width)
    return TRUE;
  c->x = c->current.x;
  c->y += c->height;
  if (c->y < c->current.y + c->current.height)
    return TRUE;
  c->in_priority = c->n_priority > 0;
  if (!c->in_priority && c->n_rest == 0)
    {
      c->current = (GeglRectangle) { 0, 0, 0, 0 };
      c->x = c->y = 0;
      return FALSE;
    }
  c->current = c->in_priority ? take_first (c->priority, &c->n_priority) : take_first (c->rest, &c->n_rest);
  c->x = c->current.x;
  c->y = c->current.y;
  return TRUE;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The target area: the median of the last three estimates. */
static void
set_target (Chunks *c, double area)
{
  double sorted[3];

  c->target_min = MIN (c->target_min, area);
  c->history[c->history_i++] = area;
  c->history_n = MAX (c->history_n, c->history_i);
  c->history_i %= 3;
  memcpy (sorted, c->history, sizeof sorted);
  qsort (sorted, c->history_n, sizeof (double), compare_double);
  c->target = sorted[c->history_n / 2];
}

static void
calc_rect (Chunks *c, GeglRectangle *r, gboolean readjust)
{
  double target;

  if (readjust && c->history_n)
    {
      c->target = c->target_min;
      c->target_min = (double) MAX_SIDE * MAX_SIDE;
      c->history_i = c->history_n = 0;
    }
  target = c->target ? c->target : (double) c->tile_w * c->tile_h;
  r->x = c->x;
  r->y = c->y;
  r->height = c->height;
  if (readjust)
    {
      r->height = (int) rint ((c->y + sqrt (target * c->tile_h / c->tile_w)) / c->tile_h) * c->tile_h - c->y;
      if (r->height <= 0)
        r->height += c->tile_h;
      r->height = MIN (MIN (r->height, c->current.y + c->current.height - r->y), MAX_SIDE);
    }
  r->width = (int) rint ((c->x + target / r->height) / c->tile_w) * c->tile_w - c->x;
  if (r->width <= 0)
    r->width += c->tile_w;
  r->width = MIN (MIN (r->width, c->current.x + c->current.width - r->x), MAX_SIDE);
}

gboolean
chunks_next (Chunks *c)
{
  if (!prepare (c))
    return FALSE;
  c->iteration_time = c->last_time = g_get_monotonic_time ();
  c->last_area = 0;
  return TRUE;
}

/* A chunk of another height in mid-row: the rest of the row and of the
 * rectangle go back to the region, the row's rest becomes the rectangle. */
static void
change_height (Chunks *c, const GeglRectangle *r)
{
  GeglRectangle *list = c->in_priority ? c->priority : c->rest;
  int           *n = c->in_priority ? &c->n_priority : &c->n_rest;
  GeglRectangle  row = { c->x, c->y, c->current.x + c->current.width - c->x, c->height };
  GeglRectangle  below = { c->current.x, c->y + c->height, c->current.width,
                           c->current.y + c->current.height - c->y - c->height };
  GeglRectangle  rem = { r->x, r->y, c->current.x + c->current.width - r->x, r->height };
  GeglRectangle  none = { 0, 0, 0, 0 };

  add_minus (list, n, &row, &none);
  add_minus (list, n, &below, &none);
  subtract (list, n, &rem);
  c->current = rem;
}

gboolean
chunks_get_rect (Chunks *c, GeglRectangle *r, gboolean *priority)
{
  gint64 now;

  if (!prepare (c))
    return FALSE;
  now = g_get_monotonic_time ();
  if (c->last_area >= MIN_AREA)
    {
      set_target (c, c->last_area * c->interval / MAX (1e-6, (now - c->last_time) / 1e6));
      if ((now - c->iteration_time) / 1e6 > c->interval)
        return FALSE;
    }
  calc_rect (c, r, c->x == c->current.x);
  if (c->x != c->current.x && (double) r->width * r->height >= MAX_RATIO * c->target)
    {
      GeglRectangle old = *r;

      calc_rect (c, r, TRUE);
      if (r->height >= old.height)
        *r = old;
    }
  if (r->height != c->height)
    {
      if (r->x != c->current.x)
        change_height (c, r);
      c->height = r->height;
    }
  c->x += r->width;
  c->last_time = now;
  c->last_area = r->width * r->height;
  *priority = c->in_priority;
  return TRUE;
}

gboolean
chunks_priority_done (const Chunks *c)
{
  return c->n_priority == 0
         && (!c->in_priority || (c->x >= c->current.x + c->current.width
                                 && c->y + c->height >= c->current.y + c->current.height));
}
