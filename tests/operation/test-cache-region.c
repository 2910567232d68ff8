/* What the operation renders for a request (operation/cache-region.c): the
 * canvas's viewport chunks a view's worth that later chunks reuse, the rest
 * of the layer full-width bands, a merge the whole layer.  Ends with "N
 * passed, N failed". */
#include "cache-region.h"

#include <stdio.h>

static int passed, failed;

static void
check (gboolean ok, const char *what, const GeglRectangle *r)
{
  ok ? passed++ : failed++;
  printf ("%s: %s (%d,%d %dx%d)\n", ok ? "PASS" : "FAIL", what, r->x, r->y, r->width, r->height);
}

static gboolean
contains (const GeglRectangle *outer, const GeglRectangle *inner)
{
  return gegl_rectangle_contains (outer, inner);
}

static gint64
area (const GeglRectangle *r)
{
  return (gint64) r->width * r->height;
}

/* The viewport's chunks at 100 % zoom on a 24 MP layer: the first gets a
 * view's worth right of and below it, on the tile grid, which holds the
 * view's later chunks; not the layer. */
static void
view_chunks (void)
{
  GeglRectangle box = { 0, 0, 6000, 4000 };
  GeglRectangle first = { 2040, 1460, 128, 128 }, later = { 2304, 1792, 1656, 512 };
  GeglRectangle rf = operation_cached_region (&first, &box, 9);
  GeglRectangle big = { 1000, 1000, 2500, 1500 };
  GeglRectangle rb = operation_cached_region (&big, &box, 300);

  check (contains (&rf, &first), "a view chunk's region holds the chunk", &rf);
  check (rf.x == first.x && rf.y == first.y && (rf.x + rf.width) % 128 == 0
         && (rf.y + rf.height) % 128 == 0, "it reaches right and down to the tile grid", &rf);
  check (rf.width >= 1920 && rf.height >= 1080, "it holds a 1920x1080 view from there", &rf);
  check (contains (&rf, &later), "so the view's later chunks are in it", &rf);
  check (area (&rf) * 4 < area (&box), "it is not the layer", &rf);
  check (contains (&rb, &big) && rb.x == big.x && rb.y == big.y,
         "a chunk larger than a view gets itself, grown right and down", &rb);
}

/* The rest of the layer: chunks at its sides, or nearly as wide, get the
 * full-width band from their first row down, at least 512 rows and four
 * radii tall; the whole layer (an export, the gegl tool) gets itself. */
static void
rest_bands (void)
{
  GeglRectangle box = { 0, 0, 6000, 4000 };
  GeglRectangle left = { 0, 1460, 640, 588 }, right = { 3960, 1460, 2040, 300 };
  GeglRectangle wide = { 256, 2944, 4096, 256 }, low = { 0, 3900, 512, 100 };
  GeglRectangle rl = operation_cached_region (&left, &box, 9);
  GeglRectangle rr = operation_cached_region (&right, &box, 300);
  GeglRectangle rw = operation_cached_region (&wide, &box, 9);
  GeglRectangle ro = operation_cached_region (&low, &box, 9);
  GeglRectangle rx = operation_cached_region (&box, &box, 9);

  check (rl.x == 0 && rl.width == 6000 && rl.y == left.y && rl.height == 588,
         "a chunk at the left edge gets the full width of its rows", &rl);
  check (rr.x == 0 && rr.width == 6000 && rr.y == right.y && rr.height == 1200,
         "at the right edge, at least four radii tall", &rr);
  check (rw.x == 0 && rw.width == 6000 && rw.y == wide.y && rw.height == 512,
         "a chunk two thirds as wide as the layer gets a band of 512 rows", &rw);
  check (gegl_rectangle_contains (&box, &ro) && contains (&ro, &low) && ro.y + ro.height == 4000,
         "a band stops at the layer's bottom", &ro);
  check (gegl_rectangle_equal (&rx, &box), "the whole layer gets the whole layer", &rx);
}

/* A tile at the layer's top-left corner (where GIMP's merge starts, and
 * its canvas when the view shows the whole layer) gets the whole layer; a
 * view of a small layer too; chunks near the corner, with negative
 * coordinates too, their view clipped; nothing, nothing. */
static void
edges (void)
{
  GeglRectangle box = { -3000, -2000, 6000, 4000 };
  GeglRectangle corner = { -3000, -2000, 128, 64 }, beside = { -2993, -1995, 121, 123 };
  GeglRectangle neg = { -700, -300, 200, 200 };
  GeglRectangle rc = operation_cached_region (&corner, &box, 9);
  GeglRectangle rb = operation_cached_region (&beside, &box, 9);
  GeglRectangle rn = operation_cached_region (&neg, &box, 9);
  GeglRectangle small_layer = { 0, 0, 2000, 1500 }, chunk = { 300, 200, 256, 256 };
  GeglRectangle rs = operation_cached_region (&chunk, &small_layer, 9);
  GeglRectangle empty = { 10, 10, 0, 0 };
  GeglRectangle re = operation_cached_region (&empty, &box, 9);

  check (gegl_rectangle_equal (&rc, &box), "a tile at the top-left corner (a merge's first) gets the whole layer", &rc);
  check (contains (&box, &rb) && contains (&rb, &beside) && rb.x == beside.x && rb.y == beside.y
         && (rb.x + rb.width) % 128 == 0, "a chunk beside the corner gets its view, on the grid", &rb);
  check (gegl_rectangle_equal (&rs, &small_layer), "a view of half a small layer or more gets it whole", &rs);
  check (gegl_rectangle_is_empty (&re), "an empty request stays empty", &re);
  check (contains (&rn, &neg) && rn.x == -700 && rn.x + rn.width == 1408 && rn.y == -300
         && rn.y + rn.height == 1024, "negative coordinates reach the grid too", &rn);
}

int
main (void)
{
  view_chunks ();
  rest_bands ();
  edges ();
  printf ("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
