/* What the operation renders for a request (operation/cache-region.c): the
 * canvas's viewport chunks blocks (or a view's worth) that later chunks
 * reuse, the rest of the layer bands, a merge the whole layer.  Ends with
 * "N passed, N failed". */
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

/* The viewport's chunks at 100 % zoom on a 24 MP layer: a small one gets
 * the aligned block of twice its side (which the next chunks reuse), one
 * across a block edge only its overhang; a larger one itself, or its rows
 * 2048 columns right where at most 512 wide (GIMP's next chunks of the
 * row), to the layer's right edge when less than 1024 would be left; with a
 * large blur, whose blocks would cost more in halos than a view's worth of
 * the layer, that view's worth from the chunk right and down. */
static void
view_chunks (void)
{
  GeglRectangle box = { 0, 0, 6000, 4000 };
  GeglRectangle a = { 2112, 1600, 256, 256 }, b = { 2432, 1600, 256, 256 };
  GeglRectangle mid = { 2040, 1664, 1920, 876 }, first = { 2040, 1460, 128, 128 };
  GeglRectangle ra = operation_cached_region (&a, &box, 9);
  GeglRectangle rb = operation_cached_region (&b, &box, 9);
  GeglRectangle rm = operation_cached_region (&mid, &box, 9);
  GeglRectangle late = { 4096, 2540, 256, 1460 }, near = { 3000, 2540, 384, 1460 };
  GeglRectangle rl = operation_cached_region (&late, &box, 300);
  GeglRectangle rn = operation_cached_region (&near, &box, 300);
  GeglRectangle rf = operation_cached_region (&first, &box, 300);

  check (contains (&ra, &a) && ra.x % 512 == 0 && ra.y % 512 == 0 && ra.width == 512 && ra.height == 512,
         "a small chunk gets its aligned block", &ra);
  check (contains (&rb, &b) && rb.x == b.x && rb.x + rb.width == 3072 && rb.height == 512,
         "a chunk across a block edge adds only its overhang", &rb);
  check (gegl_rectangle_equal (&rm, &mid), "a larger, wide chunk gets itself", &rm);
  check (rl.x == late.x && rl.x + rl.width == 6000 && rl.y == late.y && rl.height == late.height,
         "a later chunk of a row of the rest gets the row to the layer's edge", &rl);
  check (rn.x == near.x && rn.x + rn.width == 6000 && rn.height == near.height,
         "a row leaving less than 1024 columns reaches the edge", &rn);
  check (contains (&rf, &first) && rf.x == first.x && rf.y == first.y && rf.width >= 1920
         && rf.height >= 1080 && (rf.x + rf.width) % 128 == 0 && (rf.y + rf.height) % 128 == 0,
         "with a large blur, a view's worth right and down, on the tile grid", &rf);
  check (area (&rf) * 4 < area (&box), "which is not the layer", &rf);
}

/* The rest of the layer: GIMP's first chunk of it, at the top-left corner,
 * itself; later chunks at the left, right or top edge, or nearly as wide,
 * the band from their first row down and their left edge right (at most
 * 2048 columns or their own width), at least 512 rows and four radii
 * tall, or the whole layer (up to 32 MP) when a band's halo would cost 1.6
 * times its pixels and bands over the rows left would cost one whole run
 * (not for a thin last band or a sliver); the whole layer (an export) itself. */
static void
rest_bands (void)
{
  GeglRectangle box = { 0, 0, 6000, 4000 };
  GeglRectangle corner = { 0, 0, 4096, 1460 }, top = { 4096, 0, 384, 1460 };
  GeglRectangle left = { 0, 1460, 640, 588 }, right = { 3960, 1460, 2040, 300 };
  GeglRectangle wide = { 256, 2944, 4096, 256 }, low = { 0, 3900, 512, 100 };
  GeglRectangle rc = operation_cached_region (&corner, &box, 9);
  GeglRectangle rt = operation_cached_region (&top, &box, 9);
  GeglRectangle rl = operation_cached_region (&left, &box, 9);
  GeglRectangle rr = operation_cached_region (&right, &box, 9);
  GeglRectangle last = { 0, 3840, 4096, 160 }, sliver = { 5760, 1460, 240, 1080 };
  GeglRectangle low_left = { 0, 3000, 640, 200 };
  GeglRectangle rsliver = operation_cached_region (&sliver, &box, 120);
  GeglRectangle rlow = operation_cached_region (&low_left, &box, 500);
  GeglRectangle rh = operation_cached_region (&right, &box, 150);
  GeglRectangle rlast = operation_cached_region (&last, &box, 150);
  GeglRectangle big = { 0, 0, 20000, 15000 }, big_right = { 17960, 1460, 2040, 300 };
  GeglRectangle rb = operation_cached_region (&big_right, &big, 300);
  GeglRectangle outside = { -5000, 100, 256, 128 };
  GeglRectangle rn = operation_cached_region (&outside, &box, 9);
  GeglRectangle rw = operation_cached_region (&wide, &box, 9);
  GeglRectangle ro = operation_cached_region (&low, &box, 9);
  GeglRectangle rx = operation_cached_region (&box, &box, 9);

  check (gegl_rectangle_equal (&rc, &corner), "the rest's first chunk, at the corner, gets itself", &rc);
  check (rt.x == top.x && rt.x + rt.width == 6000 && rt.y == 0 && rt.height == 1460,
         "a chunk at the top edge gets the band right of it", &rt);
  check (rl.x == 0 && rl.width == 2048 && rl.y == left.y && rl.height == 588,
         "a chunk at the left edge gets 2048 columns of its rows, not the view's", &rl);
  check (rr.x == right.x && rr.x + rr.width == 6000 && rr.y == right.y && rr.height == 512,
         "at the right edge, the band to the edge, 512 rows tall", &rr);
  check (gegl_rectangle_equal (&rh, &box), "with a large blur (radius 150), the whole layer", &rh);
  check (gegl_rectangle_equal (&rsliver, &sliver),
         "a sliver at the right edge (240 columns, radius 120): itself, not the whole layer", &rsliver);
  check (gegl_rectangle_equal (&rlast, &last),
         "a thin last band (160 rows, radius 150): itself, not the whole layer again", &rlast);
  check (rlow.x == 0 && rlow.y == 3000 && rlow.y + rlow.height == 4000 && rlow.width == 2048,
         "a band with a large halo (radius 500) in the last quarter of the rows: the band", &rlow);
  check (rb.x == big_right.x && rb.x + rb.width == 20000 && rb.height == 1200,
         "not in a layer of over 32 MP: the band, four radii tall", &rb);
  check (gegl_rectangle_is_empty (&rn), "a request outside the layer gets nothing", &rn);
  check (rw.x == wide.x && rw.width == wide.width && rw.y == wide.y && rw.height == 512,
         "a chunk two thirds as wide as the layer gets a band of 512 rows", &rw);
  check (gegl_rectangle_contains (&box, &ro) && contains (&ro, &low) && ro.y + ro.height == 4000,
         "a band stops at the layer's bottom", &ro);
  check (gegl_rectangle_equal (&rx, &box), "the whole layer gets the whole layer", &rx);
}

/* A tile at the layer's top-left corner (where GIMP's merge starts, and
 * its canvas when the view shows the whole layer) gets the whole layer; a
 * large blur's view of a small layer too; chunks near the corner, with
 * negative coordinates too, their block clipped; nothing, nothing. */
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
  GeglRectangle rs = operation_cached_region (&chunk, &small_layer, 300);
  GeglRectangle empty = { 10, 10, 0, 0 };
  GeglRectangle re = operation_cached_region (&empty, &box, 9);

  check (gegl_rectangle_equal (&rc, &box), "a tile at the top-left corner (a merge's first) gets the whole layer", &rc);
  check (contains (&box, &rb) && contains (&rb, &beside) && rb.x == box.x && rb.y == box.y
         && rb.width <= 256 && rb.height <= 256, "a chunk beside the corner gets its block, clipped", &rb);
  check (gegl_rectangle_equal (&rs, &small_layer), "a large blur's view of half a small layer gets it whole", &rs);
  check (gegl_rectangle_is_empty (&re), "an empty request stays empty", &re);
  check (contains (&rn, &neg) && rn.x == -700 && rn.x + rn.width == 0 && rn.y == -512 && rn.height == 512,
         "negative coordinates align down", &rn);
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
