/* What the operation renders for a request (operation/cache-region.c): the
 * canvas's chunks get a block around them that later chunks reuse, large
 * requests the whole layer, those in between themselves.  Ends with "N passed, N failed". */
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

/* A 256-pixel chunk of a 24 MP layer (100 % zoom): its block, not the layer. */
static void
canvas_chunks (void)
{
  GeglRectangle box = { 0, 0, 6000, 4000 };
  GeglRectangle a = { 2112, 1600, 256, 256 }, b = { 2432, 1600, 256, 256 };
  GeglRectangle ra = operation_cached_region (&a, &box, 9);
  GeglRectangle rb = operation_cached_region (&b, &box, 9);

  check (contains (&ra, &a), "a chunk's region holds the chunk", &ra);
  check ((gint64) ra.width * ra.height <= 768 * 768, "a chunk's region is its block, not the layer", &ra);
  check (ra.x % 512 == 0 && ra.y % 512 == 0 && ra.width == 512 && ra.height == 512,
         "a chunk inside a block gets that aligned block", &ra);
  /* b ends in the next block; it also covers a strip of a's. */
  check (contains (&rb, &b) && rb.x == b.x && rb.x + rb.width == 3072 && rb.height == 512,
         "a chunk across a block edge adds only its overhang", &rb);
}

/* Requests of 1/8 of the layer or more (a merge's or an export's later
 * chunks) get the whole layer; mid-sized ones (GIMP's adaptive chunks)
 * just themselves, never the whole layer. */
static void
large_requests (void)
{
  GeglRectangle box = { 0, 0, 6000, 4000 };
  GeglRectangle merge = { 0, 0, 3000, 1000 }, whole = box, mid = { 1000, 1000, 1500, 1200 };
  GeglRectangle below = { 100, 100, 2999, 1000 };
  GeglRectangle r1 = operation_cached_region (&merge, &box, 9);
  GeglRectangle r2 = operation_cached_region (&whole, &box, 9);
  GeglRectangle r3 = operation_cached_region (&mid, &box, 300);
  GeglRectangle r4 = operation_cached_region (&below, &box, 300);
  GeglRectangle level1 = { 1078, 918, 516, 516 };   /* a 256-pixel chunk at 50 % zoom */
  GeglRectangle r5 = operation_cached_region (&level1, &box, 9);
  GeglRectangle small_layer = { 0, 0, 2000, 1500 }, chunk = { 700, 500, 256, 256 };
  GeglRectangle r6 = operation_cached_region (&chunk, &small_layer, 300);
  GeglRectangle r7 = operation_cached_region (&chunk, &small_layer, 9);

  check (gegl_rectangle_equal (&r1, &box), "1/8 of the layer gets the whole layer", &r1);
  check (gegl_rectangle_equal (&r2, &box), "the whole layer gets the whole layer", &r2);
  check (contains (&r5, &level1) && r5.x == 1024 && r5.x + r5.width == 2048 && r5.y + r5.height == 2048,
         "a chunk with GEGL's mipmap margin gets the block of its size", &r5);
  check (gegl_rectangle_equal (&r6, &small_layer), "a view of a small layer costing more in blocks gets it whole", &r6);
  check (contains (&r7, &chunk) && r7.x == 512 && r7.x + r7.width == 1024 && r7.y + r7.height == 1024,
         "a small blur there still gets blocks", &r7);
  check (gegl_rectangle_equal (&r3, &mid), "a mid-sized request gets just itself", &r3);
  check (gegl_rectangle_equal (&r4, &below), "just under 1/8 of the layer gets itself", &r4);
}

/* A tile at the layer's top-left corner (where GIMP's merge starts) gets
 * the whole layer, a larger chunk there (the canvas going on to the rest
 * of the layer) just itself; a chunk beside the corner, its block
 * clipped to the layer, with negative coordinates too; nothing, nothing. */
static void
edges (void)
{
  GeglRectangle box = { -3000, -2000, 6000, 4000 };
  GeglRectangle corner = { -3000, -2000, 128, 64 }, beside = { -2993, -1995, 256, 256 };
  GeglRectangle neg = { -700, -300, 200, 200 };
  GeglRectangle rc = operation_cached_region (&corner, &box, 9);
  GeglRectangle grown = { -3000, -2000, 1024, 1024 };
  GeglRectangle rg = operation_cached_region (&grown, &box, 9);
  GeglRectangle rb = operation_cached_region (&beside, &box, 9);
  GeglRectangle rn = operation_cached_region (&neg, &box, 9);
  GeglRectangle empty = { 10, 10, 0, 0 };
  GeglRectangle re = operation_cached_region (&empty, &box, 9);

  check (gegl_rectangle_equal (&rc, &box), "a tile at the top-left corner (a merge's first) gets the whole layer", &rc);
  check (gegl_rectangle_equal (&rg, &grown), "a canvas's grown chunk at the corner gets just itself", &rg);
  check (contains (&box, &rb) && contains (&rb, &beside) && rb.x == box.x && rb.y == box.y
         && rb.width == 440 && rb.height == 464, "a chunk beside the corner gets its block, clipped", &rb);
  check (gegl_rectangle_is_empty (&re), "an empty request stays empty", &re);
  check (contains (&rn, &neg) && rn.x == -700 && rn.x + rn.width == 0 && rn.y == -512 && rn.height == 512,
         "negative coordinates align down", &rn);
}

int
main (void)
{
  canvas_chunks ();
  large_requests ();
  edges ();
  printf ("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
