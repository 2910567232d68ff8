/* What the GEGL operation renders for a request (cache-region.h). */
#include "config.h"

#include "cache-region.h"
#include "int-math.h"

/* A merge's first chunk: one of GEGL's 128×64 tiles (two, to be safe),
 * which gets the whole layer: one engine run, no halos. */
#define FIRST_TILES    (128 * 128)
/* GIMP's canvas renders the viewport first, in chunks sized to take 1/15 s
 * each.  A chunk whose larger side is at most BLOCK_MAX / BLOCK_SIDES gets
 * the aligned block of BLOCK_SIDES times its side, as a power of two, which
 * the next chunks reuse; a larger one itself, or its row (ROW_NARROW).
 * Either way each chunk costs about what GIMP expects of it, so GIMP's
 * first chunk of the rest of the layer stays small and does not hold the
 * view back. */
#define BLOCK_SIDES    2
#define BLOCK_MAX      1024
/* When a view's worth of blocks with their halos costs VIEW_GAIN times
 * as much as VIEW_W × VIEW_H of the layer from the chunk right and down
 * (edges on GIMP's GRID) with its halo, a small chunk gets that instead (a
 * large blur), or the whole layer when that is half of it or more (a small
 * layer).  Not sooner: after a view's worth the view's next chunks cost
 * nothing, so GIMP makes its first chunk of the rest of the layer large,
 * and the view shows only once that is done. */
#define VIEW_GAIN      2
#define VIEW_W         2048
#define VIEW_H         1280
#define GRID           128
/* Then GIMP renders the rest of the layer row by row from its top-left
 * corner; its first chunk there gets just itself (it comes right after
 * the view's last chunk, before GIMP shows the view), every later chunk at
 * the layer's left, right or top edge (or BAND_WIDE of its width) the band
 * from its first row down and from its left edge right, at least
 * BAND_ROWS and BAND_REACH radii tall: no halo at the layer's sides, a
 * halo above and below paid once per band, GIMP's next chunks found in
 * it.  So does a request for the whole layer (an export, the gegl tool):
 * one run. */
#define BAND_ROWS      512
#define BAND_REACH     4
#define BAND_WIDE      0.66
/* A band reaches BAND_COLS right of the chunk at most (or the chunk's own
 * width): the rest of the layer left of the view must not blur the view's
 * rows again, which GIMP has just rendered. */
#define BAND_COLS      2048
/* A larger chunk inside the layer at most ROW_NARROW wide (one of GIMP's
 * later chunks of a row of the rest) gets its rows from its left edge
 * right, BAND_COLS wide: GIMP's next chunks of the row are in it, instead
 * of each paying its own halo.  Not a wider one (the view's, at 50 %: its
 * next chunk reaches the view's edge, past BAND_COLS, and would blur the
 * overlap again).  A band or row that would leave less than TAIL_COLS at
 * the layer's right reaches the edge instead. */
#define ROW_NARROW     512
#define TAIL_COLS      1024
/* A wider one gets at least THICK_REACH radii of rows from its first row
 * down: a thin row of the view would pay its halo's rows several times
 * over (a large blur), and GIMP's next rows are in the thicker one. */
#define THICK_REACH    2
/* A band chunk of a layer of at most REST_MAX pixels (a 32 MP photo)
 * gets the whole layer instead when a band's halo would make it cost
 * REST_GAIN times its own pixels or more (a large blur), and so much over
 * the rows from it down (GIMP renders the rest top down: those above are
 * done) that bands would cost at least one run over all of it, the view's
 * part included.  Not a larger layer: one chunk must not cost many times
 * what GIMP expects of it. */
#define REST_GAIN      1.6
#define REST_MAX       ((gint64) 32 << 20)

static gint64
area (const GeglRectangle *r)
{
  return (gint64) r->width * r->height;
}

/* Whether `roi` is a chunk of the rest of the layer: at its left, right
 * or top edge, where GIMP's canvas renders it row by row, or nearly as
 * wide. */
static gboolean
is_band_chunk (const GeglRectangle *roi, const GeglRectangle *box)
{
  return roi->x <= box->x || roi->x + roi->width >= box->x + box->width || roi->y <= box->y
         || roi->width >= BAND_WIDE * box->width;
}

/* Columns from `roi`'s left edge right: BAND_COLS or its width, or to the
 * layer's right edge when less than TAIL_COLS would be left. */
static gint
cols_of (const GeglRectangle *roi, const GeglRectangle *box)
{
  gint cols = MAX (roi->width, BAND_COLS);

  if (box->x + box->width - (roi->x + cols) < TAIL_COLS)
    cols = box->x + box->width - roi->x;
  return cols;
}

/* The band from `roi`'s first row down and from its left edge right. */
static GeglRectangle
band_of (const GeglRectangle *roi, const GeglRectangle *box, gint radius)
{
  gint          rows = MAX (roi->height, MAX (BAND_ROWS, BAND_REACH * radius));
  GeglRectangle region = { roi->x, roi->y, cols_of (roi, box), rows };

  gegl_rectangle_intersect (&region, &region, box);
  return region;
}

/* `roi` with at least THICK_REACH radii of rows. */
static GeglRectangle
thick_of (const GeglRectangle *roi, const GeglRectangle *box, gint radius)
{
  GeglRectangle region = { roi->x, roi->y, roi->width, MAX (roi->height, THICK_REACH * radius) };

  gegl_rectangle_intersect (&region, &region, box);
  return region;
}

/* Whether `band`'s halo makes it cost REST_GAIN times its own pixels in a
 * layer small enough for one run, and bands over the layer's rows from it
 * down at least one run over all of it: a thin last band must not blur
 * the whole layer again.  A band narrower than BAND_COLS (or the layer)
 * counts as that wide: a sliver at the right edge, what runs before left,
 * is no sample of the bands to come. */
static gboolean
bands_cost_more (const GeglRectangle *band, const GeglRectangle *box, gint radius)
{
  gdouble rows = band->height, cols = MAX (band->width, MIN (BAND_COLS, box->width));
  gdouble left = (gdouble) (box->y + box->height - band->y) / box->height;
  /* No halo is read beyond the layer's edges. */
  gint    sides_x = (band->x > box->x) + (band->x + band->width < box->x + box->width);
  gint    sides_y = (band->y > box->y) + (band->y + band->height < box->y + box->height);
  gdouble cost = (rows + sides_y * radius) / rows * ((cols + sides_x * radius) / cols);

  return !gegl_rectangle_is_empty (band) && area (box) <= REST_MAX && cost >= REST_GAIN && cost * left >= 1;
}

/* `roi`'s rows from its left edge right. */
static GeglRectangle
row_of (const GeglRectangle *roi, const GeglRectangle *box)
{
  GeglRectangle region = { roi->x, roi->y, cols_of (roi, box), roi->height };

  gegl_rectangle_intersect (&region, &region, box);
  return region;
}

static gint
ceil_to (gint v, gint grid)
{
  return (v >= 0 ? (v + grid - 1) / grid : -(-v / grid)) * grid;
}

/* A view's worth of the layer from `roi` right and down, on the grid. */
static GeglRectangle
view_of (const GeglRectangle *roi, const GeglRectangle *box)
{
  GeglRectangle region = { roi->x, roi->y, 0, 0 };

  region.width = ceil_to (roi->x + MAX (roi->width, VIEW_W), GRID) - roi->x;
  region.height = ceil_to (roi->y + MAX (roi->height, VIEW_H), GRID) - roi->y;
  gegl_rectangle_intersect (&region, &region, box);
  return region;
}

/* Whether a view's worth of blocks costs VIEW_GAIN times as much as `view`. */
static gboolean
blocks_cost_more (const GeglRectangle *view, gint block, gint radius)
{
  gdouble halo = (gdouble) (block + 2 * radius) / block;
  gdouble view_cost = (gdouble) (view->width + 2 * radius) * (view->height + 2 * radius);

  return (gdouble) VIEW_W * VIEW_H * halo * halo > VIEW_GAIN * view_cost;
}

/* The aligned block holding the request's last pixel, and the request's
 * overhang: GIMP renders chunks left to right, top to bottom, so a chunk
 * across a block edge redoes only its own part of the earlier block. */
static GeglRectangle
block_of (const GeglRectangle *roi, const GeglRectangle *box, gint block)
{
  GeglRectangle region = { floor_to (roi->x + roi->width - 1, block),
                           floor_to (roi->y + roi->height - 1, block), block, block };

  gegl_rectangle_bounding_box (&region, &region, roi);
  gegl_rectangle_intersect (&region, &region, box);
  return region;
}

GeglRectangle
operation_cached_region (const GeglRectangle *roi, const GeglRectangle *box, gint radius)
{
  gboolean      corner = roi->x == box->x && roi->y == box->y;
  gint          block = 1;
  GeglRectangle view;

  if (gegl_rectangle_is_empty (roi))
    return *roi;
  if (corner && area (roi) <= FIRST_TILES)
    return *box;
  if (corner && !gegl_rectangle_equal (roi, box))
    return *roi;
  if (is_band_chunk (roi, box))
    {
      GeglRectangle band = band_of (roi, box, radius);

      return bands_cost_more (&band, box, radius) ? *box : band;
    }
  /* Rounded down to 16: at a mipmap level GEGL asks for 2 pixels more on
   * each side, which must not double the block. */
  while (block < BLOCK_SIDES * (MAX (roi->width, roi->height) & ~15))
    block *= 2;
  if (block > BLOCK_MAX)
    return roi->width <= ROW_NARROW ? row_of (roi, box) : thick_of (roi, box, radius);
  view = view_of (roi, box);
  if (!blocks_cost_more (&view, block, radius))
    return block_of (roi, box, block);
  return area (&view) * 2 >= area (box) ? *box : view;
}
