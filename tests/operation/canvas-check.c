/* A canvas against a one-request render (canvas-check.h). */
#include "canvas-check.h"

#include <stdlib.h>

double
canvas_difference (GeglNode *ref, const GeglRectangle *all, GeglBuffer *canvas, int max_level)
{
  GeglBuffer *full = gegl_buffer_new (all, gegl_buffer_get_format (canvas));
  const Babl *u16 = babl_format ("R'G'B'A u16");   /* float would blur a 16-bit level */
  gsize       n = (gsize) all->width * 64 * 4;
  guint16    *a = g_new (guint16, n), *b = g_new (guint16, n);
  double      worst = 0;

  gegl_node_blit_buffer (ref, full, all, 0, GEGL_ABYSS_NONE);
  /* in stripes of rows: a whole 16-bit layer twice would be large */
  for (int y = all->y; y < all->y + all->height; y += 64)
    {
      GeglRectangle stripe = { all->x, y, all->width, MIN (64, all->y + all->height - y) };
      gsize         count = (gsize) stripe.width * stripe.height * 4;

      gegl_buffer_get (canvas, &stripe, 1.0, u16, a, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
      gegl_buffer_get (full, &stripe, 1.0, u16, b, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
      for (gsize i = 0; i < count; i++)
        worst = MAX (worst, abs ((int) a[i] - (int) b[i]) * (double) max_level / 65535);
    }
  g_free (a);
  g_free (b);
  g_object_unref (full);
  return worst;
}
