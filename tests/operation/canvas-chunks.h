/* GIMP 3's GimpChunkIterator as the benchmark needs it: a region (the
 * whole layer) rendered in idle iterations of `interval` seconds, a
 * priority rectangle (the viewport) first, in chunks on the tile grid
 * sized from the median of the last three rate estimates. */
#ifndef CANVAS_CHUNKS_H
#define CANVAS_CHUNKS_H

#include <gegl.h>

#define CHUNKS_MAX_RECTS 64

typedef struct {
  GeglRectangle priority[CHUNKS_MAX_RECTS], rest[CHUNKS_MAX_RECTS];
  int           n_priority, n_rest;
  gboolean      in_priority;      /* the current rectangle is the viewport's */
  GeglRectangle current;          /* the rectangle being cut into rows */
  int           x, y, height;     /* where the next chunk starts, the row's height */
  int           tile_w, tile_h;
  double        interval, target, target_min, history[3];
  int           history_i, history_n;
  gint64        iteration_time, last_time;
  int           last_area;
} Chunks;

/* `all` minus `priority` (which may be empty) in cairo's banded order, the
 * priority part first; tiles of tile_w×tile_h from the origin. */
void     chunks_init     (Chunks *c, const GeglRectangle *all, const GeglRectangle *priority,
                          int tile_w, int tile_h, double interval);

/* Starts an idle iteration; FALSE when nothing is left. */
gboolean chunks_next     (Chunks *c);

/* The next chunk of this iteration; FALSE when the iteration is over (its
 * time spent, or nothing left).  *priority: the chunk is the viewport's. */
gboolean chunks_get_rect (Chunks *c, GeglRectangle *rect, gboolean *priority);

/* Whether the viewport's part is done. */
gboolean chunks_priority_done (const Chunks *c);

#endif
