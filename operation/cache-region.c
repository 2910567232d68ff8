/* What the GEGL operation renders for a request (cache-region.h). */
#include "config.h"

#include "cache-region.h"

/* A part is under 1/PART_OF_LAYER of the layer: GEGL's chunks at level L
 * are 256·2^L pixels, so a 24 MP layer's chunks are parts at 100 % zoom and
 * not at 50 % (where the whole level, 6 MP, is cheaper than blocks). */
#define PART_OF_LAYER 128
/* A part's block is the power of two at least BLOCK_SIDES times its larger
 * side (2 beat 1 and 4 at sigma 3-100 on the canvas benchmark). */
#define BLOCK_SIDES   2

static gboolean
is_part (const GeglRectangle *rect, const GeglRectangle *box)
{
  return (gint64) rect->width * rect->height * PART_OF_LAYER < (gint64) box->width * box->height;
}

static gint
floor_to (gint v, gint block)
{
  return (v >= 0 ? v / block : -((-v + block - 1) / block)) * block;
}

GeglRectangle
operation_cached_region (const GeglRectangle *roi, const GeglRectangle *box)
{
  gint          block = 1;
  GeglRectangle region;

  if (!is_part (roi, box))
    return *box;
  while (block < BLOCK_SIDES * MAX (roi->width, roi->height))
    block *= 2;
  /* The block holding the request's centre, and the request's overhang:
   * a chunk across a block edge then redoes only its overhang, not the
   * block beside it, which an earlier chunk may have rendered. */
  region.x = floor_to (roi->x + roi->width / 2, block);
  region.y = floor_to (roi->y + roi->height / 2, block);
  region.width = region.height = block;
  gegl_rectangle_bounding_box (&region, &region, roi);
  gegl_rectangle_intersect (&region, &region, box);
  return region;
}
