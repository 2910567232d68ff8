/* What the GEGL operation renders for a request (cache-region.h). */
#include "config.h"

#include "cache-region.h"

/* A merge's first chunk: one of GEGL's 128×64 tiles (two, to be safe),
 * which gets the whole layer: one engine run, no halos. */
#define FIRST_TILES    (128 * 128)
/* GIMP's canvas renders the viewport first, from its top-left corner, in
 * chunks on its 128-pixel tile grid: a chunk there gets a view's worth of
 * the layer right of and below it (VIEW_W × VIEW_H, edges on the grid),
 * which the view's next chunks find in GEGL's cache; one engine run and one
 * halo for most of a view instead of one per chunk. */
#define VIEW_W         2048
#define VIEW_H         1280
#define GRID           128
/* A view's region of half the layer or more (a small layer) gets it whole. */
#define VIEW_WHOLE     2
/* Then GIMP renders the rest of the layer row by row from its sides: a
 * chunk at the left or right edge (or BAND_WIDE of the layer's width) gets
 * the full-width band from its first row down, at least BAND_ROWS and
 * BAND_REACH radii tall: no halo at the sides, a halo above and below paid
 * once per band, GIMP's next rows of chunks found in it.  So does a request
 * for the whole layer (an export, the gegl tool): one engine run. */
#define BAND_ROWS      512
#define BAND_REACH     4
#define BAND_WIDE      0.66

static gint
ceil_to (gint v, gint grid)
{
  return (v >= 0 ? (v + grid - 1) / grid : -(-v / grid)) * grid;
}

static gint64
area (const GeglRectangle *r)
{
  return (gint64) r->width * r->height;
}

/* Whether `roi` is a chunk of the rest of the layer: at its left or right
 * edge, where GIMP's canvas renders it row by row, or nearly as wide. */
static gboolean
is_band_chunk (const GeglRectangle *roi, const GeglRectangle *box)
{
  return roi->x <= box->x || roi->x + roi->width >= box->x + box->width
         || roi->width >= BAND_WIDE * box->width;
}

/* The full-width band from `roi`'s first row down. */
static GeglRectangle
band_of (const GeglRectangle *roi, const GeglRectangle *box, gint radius)
{
  gint          rows = MAX (roi->height, MAX (BAND_ROWS, BAND_REACH * radius));
  GeglRectangle region = { box->x, roi->y, box->width, rows };

  gegl_rectangle_intersect (&region, &region, box);
  return region;
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

GeglRectangle
operation_cached_region (const GeglRectangle *roi, const GeglRectangle *box, gint radius)
{
  GeglRectangle region;

  if (gegl_rectangle_is_empty (roi))
    return *roi;
  /* GIMP's merges start at the layer's top-left corner with one tile (so
   * does its canvas when the view shows the whole layer). */
  if (roi->x == box->x && roi->y == box->y && area (roi) <= FIRST_TILES)
    return *box;
  if (is_band_chunk (roi, box))
    return band_of (roi, box, radius);
  region = view_of (roi, box);
  if (area (&region) * VIEW_WHOLE >= area (box))
    return *box;
  return region;
}
