/* The layer padded with the abyss's colour past the reference's reach, so
 * that the reference's clamped edges see that colour. */
#include "exact-canvas.h"
#include "../engine/reference.h"

#include <math.h>

static void
fill_abyss (guint16 *p, size_t n, int abyss, guint16 top)
{
  const guint16 v = abyss == 3 ? top : 0, a = abyss == 0 ? 0 : top;

  for (size_t i = 0; i < n; i++)
    p[i] = i % 4 == 3 ? a : v;
}

double
exact_canvas_difference (GeglBuffer *layer, GeglBuffer *canvas, double sigma_x, double sigma_y,
                         gboolean linear, int abyss, int depth)
{
  const GeglRectangle *all = gegl_buffer_get_extent (layer);
  const int            px = abyss == 1 ? 0 : (int) ceil (3 * sigma_x) + 1;
  const int            py = abyss == 1 ? 0 : (int) ceil (3 * sigma_y) + 1;
  const int            W = all->width + 2 * px, H = all->height + 2 * py;
  const Babl          *format = babl_format ("R'G'B'A u16");
  const double         scale = depth == 8 ? 255.0 / 65535.0 : 1.0;
  guint16             *padded = g_new (guint16, (size_t) W * H * 4);
  guint16             *shown = g_new (guint16, (size_t) all->width * all->height * 4);
  double              *exact = g_new (double, (size_t) W * H * 4), worst = 0;
  gblur_image          img = { padded, (size_t) W * 4 * sizeof *padded, W, H, 4, GBLUR_U16 };

  /* u8 layers widen exactly to u16 (v * 257), whose blur is 257 times u8's. */
  fill_abyss (padded, (size_t) W * H * 4, abyss, 65535);
  gegl_buffer_get (layer, all, 1.0, format, padded + ((size_t) py * W + px) * 4, img.stride, GEGL_ABYSS_NONE);
  gegl_buffer_get (canvas, all, 1.0, format, shown, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  reference_blur_xy (&img, sigma_x, sigma_y, GBLUR_PREMULTIPLY_ALPHA | (linear ? GBLUR_LINEAR_LIGHT : 0), exact);
  for (int y = 0; y < all->height; y++)
    for (int i = 0; i < all->width * 4; i++)
      {
        double want = exact[((size_t) (y + py) * W + px) * 4 + i] * scale;
        double got = shown[(size_t) y * all->width * 4 + i] * scale;
        worst = MAX (worst, fabs (got - want));
      }
  g_free (padded);
  g_free (shown);
  g_free (exact);
  return worst;
}
