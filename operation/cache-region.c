/* What the GEGL operation renders for a request (cache-region.h). */
#include "config.h"

#include "cache-region.h"

/* A request of 1/WHOLE_FRACTION of the layer or more (a merge's or an
 * export's grown chunks) gets the whole layer: one engine run, no halos. */
#define WHOLE_FRACTION 8
/* A merge's first chunk: one of GEGL's 128×64 tiles (two, to be safe). */
#define FIRST_TILES    (128 * 128)
/* A request whose larger side is at most BLOCK_MAX / BLOCK_SIDES (the
 * canvas's chunks at 100 and 50 % zoom, GIMP's first adaptive chunks) gets
 * the aligned block of BLOCK_SIDES times its side, as a power of two, which
 * the next chunks reuse; a larger one gets just itself, so that no
 * mid-sized chunk costs the whole layer.  Fitted on the canvas benchmark,
 * fixed and adaptive chunks (docs/performance.md). */
#define BLOCK_SIDES    2
#define BLOCK_MAX      1024
/* A view is about VIEW_CHUNKS small chunks (1920×1080 in 256-pixel ones):
 * when the whole layer costs less than that many blocks with their halos
 * (a zoomed-out view, a small layer), a small chunk gets the whole layer. */
#define VIEW_CHUNKS    40

static gint
floor_to (gint v, gint block)
{
  return (v >= 0 ? v / block : -((-v + block - 1) / block)) * block;
}

/* Whether the blocks of a view cost more than the whole layer. */
static gboolean
view_costs_more (const GeglRectangle *roi, const GeglRectangle *box, gint block, gint radius)
{
  gdouble halo = (gdouble) (block + 2 * radius) / block;

  return (gdouble) box->width * box->height
         < VIEW_CHUNKS * (gdouble) roi->width * roi->height * halo * halo;
}

GeglRectangle
operation_cached_region (const GeglRectangle *roi, const GeglRectangle *box, gint radius)
{
  gint          block = 1;
  GeglRectangle region;

  if (gegl_rectangle_is_empty (roi))
    return *roi;
  if ((gint64) roi->width * roi->height * WHOLE_FRACTION >= (gint64) box->width * box->height)
    return *box;
  /* GIMP's merges start at the layer's top-left corner with one tile; its
   * canvas starts where the window is, and goes on to the rest of the layer
   * (from that corner too) in chunks grown to take 1/15 s. */
  if (roi->x == box->x && roi->y == box->y && (gint64) roi->width * roi->height <= FIRST_TILES)
    return *box;
  /* Rounded down to 16: at a mipmap level GEGL asks for 2 pixels more on
   * each side, which must not double the block. */
  while (block < BLOCK_SIDES * (MAX (roi->width, roi->height) & ~15))
    block *= 2;
  if (block > BLOCK_MAX)
    return *roi;
  if (view_costs_more (roi, box, block, radius))
    return *box;
  /* The block holding the request's last pixel, and the request's overhang:
   * GIMP renders chunks left to right, top to bottom, so a chunk across a
   * block edge redoes only its own part of the block an earlier chunk
   * rendered, not that block. */
  region.x = floor_to (roi->x + roi->width - 1, block);
  region.y = floor_to (roi->y + roi->height - 1, block);
  region.width = region.height = block;
  gegl_rectangle_bounding_box (&region, &region, roi);
  gegl_rectangle_intersect (&region, &region, box);
  return region;
}
