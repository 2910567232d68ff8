/* Whether a merged filter blurred (merge-check.h). */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdlib.h>

#include "pixel-engine.h"
#include "merge-check.h"
#include "pixel-path.h"

/* The window's side; the 8-bit levels within which two results are the
 * same (both paths round to within 1 level of the exact blur), and by which
 * the blur must change a window for it to tell (more than twice that). */
#define WINDOW    16
#define SAME      2
#define CHANGED   (2 * SAME + 2)

struct MergeCheck {
  GeglRectangle window;   /* empty: no window tells (the blur changes nothing we looked at) */
  const Babl   *format;   /* 8-bit, the drawable's colour space */
  guchar       *before;
  guchar       *expected;
  GeglBuffer   *selection;    /* while choosing; NULL: nothing is selected */
  gint          offset_x;     /* the drawable's offsets in the image */
  gint          offset_y;
};

static gint
max_difference (const guchar *a, const guchar *b, gsize n)
{
  gint most = 0;

  for (gsize i = 0; i < n; i++)
    most = MAX (most, abs ((gint) a[i] - (gint) b[i]));
  return most;
}

/* Every pixel of `window` is fully selected (or nothing is selected). */
static gboolean
fully_selected (const MergeCheck *check, const GeglRectangle *window)
{
  guchar   values[WINDOW * WINDOW];
  gboolean all = TRUE;

  if (!check->selection)
    return TRUE;
  gegl_buffer_get (check->selection,
                   GEGL_RECTANGLE (window->x + check->offset_x, window->y + check->offset_y,
                                   window->width, window->height),
                   1.0, babl_format ("Y u8"), values, GEGL_AUTO_ROWSTRIDE, GEGL_ABYSS_NONE);
  for (gint i = 0; i < window->width * window->height; i++)
    all = all && values[i] == 255;
  return all;
}

/* The selection's mask, asked for once per check. */
static void
read_selection (MergeCheck *check, GimpDrawable *drawable)
{
  GimpImage *image = gimp_item_get_image (GIMP_ITEM (drawable));

  if (gimp_selection_is_empty (image))
    return;
  gimp_drawable_get_offsets (drawable, &check->offset_x, &check->offset_y);
  check->selection = gimp_drawable_get_buffer (GIMP_DRAWABLE (gimp_image_get_selection (image)));
}

/* The window at (fx, fy) of the room the drawable leaves it: (0, 0) is the
 * top-left corner, (1, 1) the bottom-right one. */
static GeglRectangle
window_at (GimpDrawable *drawable, gdouble fx, gdouble fy)
{
  gint          width = gimp_drawable_get_width (drawable);
  gint          height = gimp_drawable_get_height (drawable);
  GeglRectangle window = { (gint) (fx * MAX (width - WINDOW, 0)), (gint) (fy * MAX (height - WINDOW, 0)),
                           MIN (WINDOW, width), MIN (WINDOW, height) };

  return window;
}

/* Blurs `window` on `engine` and keeps it when the blur changes it. */
static gboolean
try_window (MergeCheck *check, gblur_engine *engine, GimpDrawable *drawable, GeglBuffer *buffer,
            const GeglRectangle *window, const BlurShape *shape, GError **error)
{
  gint  bpp = babl_format_get_bytes_per_pixel (check->format);
  gsize size = (gsize) window->width * window->height * bpp;

  if (gegl_rectangle_is_empty (window) || !fully_selected (check, window))
    return TRUE;
  gegl_buffer_get (buffer, window, 1.0, check->format, check->before, GEGL_AUTO_ROWSTRIDE,
                   GEGL_ABYSS_NONE);
  if (!blur_to_memory (engine, buffer, gimp_drawable_get_format (drawable), window, shape,
                       check->format, check->expected, window->width * bpp, error))
    return FALSE;
  if (max_difference (check->before, check->expected, size) >= CHANGED)
    check->window = *window;
  return TRUE;
}

MergeCheck *
merge_check_new (GimpDrawable *drawable, gdouble sigma, gboolean linear, GError **error)
{
  /* Corners first: there the halo is a quarter of the centre's (it matters
   * at large sigma, where reading it is most of the check); then the centre
   * and the sides' middles. */
  static const gdouble at[][2] = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 }, { 0.5, 0.5 },
                                   { 0.5, 0 }, { 0, 0.5 }, { 1, 0.5 }, { 0.5, 1 } };
  MergeCheck   *check = g_new0 (MergeCheck, 1);
  gblur_engine *engine = pixel_engine_new (PIXEL_ENGINE_CPU_ONLY, error);
  GeglBuffer   *buffer = gimp_drawable_get_buffer (drawable);
  gboolean      ok = engine != NULL;
  BlurShape     shape = blur_shape_uniform (sigma, linear);

  check->format = babl_format_with_space (gimp_drawable_is_rgb (drawable) ? "R'G'B'A u8" : "Y'A u8",
                                          gimp_drawable_get_format (drawable));
  check->before = g_malloc (WINDOW * WINDOW * 4);
  check->expected = g_malloc (WINDOW * WINDOW * 4);
  read_selection (check, drawable);
  for (gsize i = 0; ok && check->window.width == 0 && i < G_N_ELEMENTS (at); i++)
    {
      GeglRectangle window = window_at (drawable, at[i][0], at[i][1]);

      ok = try_window (check, engine, drawable, buffer, &window, &shape, error);
    }
  g_object_unref (buffer);
  g_clear_object (&check->selection);
  gblur_engine_free (engine);
  if (!ok)
    g_clear_pointer (&check, merge_check_free);
  return check;
}

MergeOutcome
merge_check_read (MergeCheck *check, GimpDrawable *drawable)
{
  gint        bpp = babl_format_get_bytes_per_pixel (check->format);
  gsize       size = (gsize) check->window.width * check->window.height * bpp;
  guchar     *after;
  GeglBuffer *buffer;
  gint        off_blur, off_before;

  if (size == 0)
    return MERGE_BLURRED;
  after = g_malloc (size);
  buffer = gimp_drawable_get_buffer (drawable);
  gegl_buffer_get (buffer, &check->window, 1.0, check->format, after, GEGL_AUTO_ROWSTRIDE,
                   GEGL_ABYSS_NONE);
  g_object_unref (buffer);
  off_blur = max_difference (after, check->expected, size);
  off_before = max_difference (after, check->before, size);
  g_free (after);
  if (off_blur <= SAME)
    return MERGE_BLURRED;
  return off_before <= SAME ? MERGE_UNTOUCHED : MERGE_WRONG;
}

void
merge_check_free (MergeCheck *check)
{
  if (!check)
    return;
  g_free (check->before);
  g_free (check->expected);
  g_free (check);
}
