/* The GEGL operation cuda:gaussian-blur: the blur inside the process that
 * holds the pixels (GIMP's, or the gegl tool's), with the properties of
 * GEGL's own gegl:gaussian-blur.  It renders the region it is asked for in
 * one engine run and lets GEGL cache it; the pixel path (pixels/) reads the
 * halo with the abyss policy, so every policy is exact. */
#include "config.h"

#include <glib/gi18n-lib.h>

#ifdef GEGL_PROPERTIES

enum_start (cuda_gaussian_blur_abyss)
   enum_value (CUDA_GAUSSIAN_BLUR_ABYSS_NONE,  "none",  N_("None"))
   enum_value (CUDA_GAUSSIAN_BLUR_ABYSS_CLAMP, "clamp", N_("Clamp"))
   enum_value (CUDA_GAUSSIAN_BLUR_ABYSS_BLACK, "black", N_("Black"))
   enum_value (CUDA_GAUSSIAN_BLUR_ABYSS_WHITE, "white", N_("White"))
enum_end (CudaGaussianBlurAbyss)

property_double (std_dev_x, _("Size X"), 1.5)
   description (_("Standard deviation for the horizontal axis (0: no blur along it)"))
   value_range (0.0, 1500.0)
   ui_range    (0.0, 100.0)
   ui_gamma    (3.0)
   ui_meta     ("unit", "pixel-distance")
   ui_meta     ("axis", "x")

property_double (std_dev_y, _("Size Y"), 1.5)
   description (_("Standard deviation for the vertical axis (0: no blur along it)"))
   value_range (0.0, 1500.0)
   ui_range    (0.0, 100.0)
   ui_gamma    (3.0)
   ui_meta     ("unit", "pixel-distance")
   ui_meta     ("axis", "y")

property_enum (abyss_policy, _("Abyss policy"), CudaGaussianBlurAbyss,
               cuda_gaussian_blur_abyss, CUDA_GAUSSIAN_BLUR_ABYSS_CLAMP)
   description (_("How image edges are handled"))

property_boolean (clip_extent, _("Clip to the input extent"), TRUE)
   description (_("Should the output extent be clipped to the input extent"))

property_boolean (linear, _("Linear light"), TRUE)
   description (_("Blur in linear light (TRUE) or the stored, perceptual values (FALSE)"))

#else

#define GEGL_OP_FILTER
#define GEGL_OP_NAME     cuda_gaussian_blur
#define GEGL_OP_C_SOURCE gegl-operation.c

#include "gegl-op.h"
#include "pixel-engine.h"
#include "pixel-path.h"
#include "cache-region.h"
#include "operation-support.h"

static GeglAbyssPolicy
abyss_of (CudaGaussianBlurAbyss abyss)
{
  switch (abyss)
    {
    case CUDA_GAUSSIAN_BLUR_ABYSS_NONE:  return GEGL_ABYSS_NONE;
    case CUDA_GAUSSIAN_BLUR_ABYSS_BLACK: return GEGL_ABYSS_BLACK;
    case CUDA_GAUSSIAN_BLUR_ABYSS_WHITE: return GEGL_ABYSS_WHITE;
    default:                             return GEGL_ABYSS_CLAMP;
    }
}

/* How far the blur reaches along each axis, at full resolution. */
static GeglRectangle
grow (const GeglRectangle *rect, GeglProperties *o)
{
  gint rx = gblur_radius (o->std_dev_x), ry = gblur_radius (o->std_dev_y);

  return (GeglRectangle) { rect->x - rx, rect->y - ry, rect->width + 2 * rx,
                           rect->height + 2 * ry };
}

static void
prepare (GeglOperation *operation)
{
  GeglProperties *o = GEGL_PROPERTIES (operation);
  const Babl     *source = gegl_operation_get_source_format (operation, "input");
  const Babl     *format = blur_region_format (source, o->linear);

  if (!format)   /* no source yet, or one the path cannot take */
    format = babl_format_with_space ("RGBA float", source);
  gegl_operation_set_format (operation, "input", format);
  gegl_operation_set_format (operation, "output", format);
}

static GeglRectangle
get_bounding_box (GeglOperation *operation)
{
  const GeglRectangle *in = gegl_operation_source_get_bounding_box (operation, "input");

  if (!in)
    return *GEGL_RECTANGLE (0, 0, 0, 0);
  if (gegl_rectangle_is_infinite_plane (in) || GEGL_PROPERTIES (operation)->clip_extent)
    return *in;
  return grow (in, GEGL_PROPERTIES (operation));
}

static GeglRectangle
get_required_for_output (GeglOperation *operation, const gchar *input_pad,
                         const GeglRectangle *roi)
{
  (void) input_pad;
  return grow (roi, GEGL_PROPERTIES (operation));
}

static GeglRectangle
get_invalidated_by_change (GeglOperation *operation, const gchar *input_pad,
                           const GeglRectangle *input_region)
{
  (void) input_pad;
  return grow (input_region, GEGL_PROPERTIES (operation));
}

/* Instances that rendered a canvas's chunk as a whole layer: when the last
 * goes (its filter closed), the engines' kept buffers go too. */
static gint canvases;

static void
canvas_closed (gpointer data, GObject *operation)
{
  (void) data;
  (void) operation;
  if (g_atomic_int_dec_and_test (&canvases))
    operation_release_kept ();
}

/* A chunk (GIMP's canvas, a merge) made the whole layer: it goes to the
 * engine for parts, which starts CUDA at once. */
static void
mark_canvas (GeglOperation *operation, GeglProperties *o)
{
  if (o->user_data)
    return;
  o->user_data = operation;
  g_atomic_int_inc (&canvases);
  g_object_weak_ref (G_OBJECT (operation), canvas_closed, NULL);
}

/* What one render blurs and GEGL caches: the whole layer when the engine
 * is expected to blur it within one of GIMP's iterations, else a block
 * around a small request (the canvas zoomed in), or the request
 * (cache-region.h). */
static GeglRectangle
get_cached_region (GeglOperation *operation, const GeglRectangle *roi)
{
  GeglProperties *o = GEGL_PROPERTIES (operation);
  GeglRectangle   box = get_bounding_box (operation);
  const Babl     *format = gegl_operation_get_format (operation, "output");
  gint            radius = MAX (gblur_radius (o->std_dev_x), gblur_radius (o->std_dev_y));

  if (gegl_rectangle_is_empty (&box) || gegl_rectangle_is_infinite_plane (&box))
    return *roi;
  if (!gegl_rectangle_equal (roi, &box) && format
      && operation_run_fits ((gint64) box.width * box.height, babl_format_get_bytes_per_pixel (format),
                             radius, WHOLE_LAYER_MS))
    {
      mark_canvas (operation, o);
      return box;
    }
  return operation_cached_region (roi, &box, radius);
}

/* The level's pixels wholly inside `rect` that GEGL's filters render for
 * it (they round its size down). */
static GeglRectangle
inside_at_level (const GeglRectangle *rect, gint level)
{
  gint x = (rect->x + (1 << level) - 1) >> level, y = (rect->y + (1 << level) - 1) >> level;

  return (GeglRectangle) { x, y, (rect->x >> level) + (rect->width >> level) - x,
                           (rect->y >> level) + (rect->height >> level) - y };
}

/* The level's pixels that hold any of `rect`, as GEGL counts a buffer's
 * extent at a level (rounded outward). */
static GeglRectangle
outward_at_level (const GeglRectangle *rect, gint level)
{
  gint x = rect->x >> level, y = rect->y >> level;

  return (GeglRectangle) { x, y, ((rect->x + rect->width + (1 << level) - 1) >> level) - x,
                           ((rect->y + rect->height + (1 << level) - 1) >> level) - y };
}

static void
free_lock (gpointer lock)
{
  g_mutex_clear (lock);
  g_free (lock);
}

/* A node's lock for renders nested in ours: GEGL keeps one render state a
 * node, which two threads must not share. */
static GMutex *
node_lock (GeglNode *node)
{
  static GMutex made;
  GMutex       *lock;

  g_mutex_lock (&made);
  lock = g_object_get_data (G_OBJECT (node), "cuda-gaussian-blur-lock");
  if (!lock)
    {
      lock = g_new (GMutex, 1);
      g_mutex_init (lock);
      g_object_set_data_full (G_OBJECT (node), "cuda-gaussian-blur-lock", lock, free_lock);
    }
  g_mutex_unlock (&made);
  return lock;
}

/* The input with the halo of `roi` (at the shape's level) of `result`: GEGL
 * renders the input only as far as get_required_for_output asks, which
 * names no level, and a level's radius in its rounded pixels reaches
 * further; that halo is then rendered here, in a buffer of the source's
 * extent, whose edges the abyss keeps. */
static GeglBuffer *
input_at_level (GeglOperation *operation, GeglBuffer *input, const GeglRectangle *result,
                const GeglRectangle *roi, const BlurShape *shape)
{
  const GeglRectangle *source = gegl_operation_source_get_bounding_box (operation, "input");
  const Babl          *format = gegl_buffer_get_format (input);
  gint                 rx = gblur_radius (shape->sigma_x), ry = gblur_radius (shape->sigma_y);
  GeglRectangle        halo = { roi->x - rx, roi->y - ry, roi->width + 2 * rx, roi->height + 2 * ry };
  GeglRectangle        have, layer;
  GeglNode            *node = gegl_operation_get_source_node (operation, "input");
  GeglBuffer          *copy;
  guchar              *data;
  GMutex              *lock;

  if (shape->level == 0 || !source || !node || gegl_rectangle_is_infinite_plane (source))
    return g_object_ref (input);
  have = get_required_for_output (operation, "input", result);
  gegl_rectangle_intersect (&have, &have, source);
  have = inside_at_level (&have, shape->level);
  layer = outward_at_level (source, shape->level);
  if (!gegl_rectangle_intersect (&halo, &halo, &layer) || gegl_rectangle_contains (&have, &halo))
    return g_object_ref (input);
  copy = gegl_buffer_new (source, format);
  data = g_malloc ((gsize) halo.width * halo.height * babl_format_get_bytes_per_pixel (format));
  lock = node_lock (node);
  g_mutex_lock (lock);
  gegl_node_blit (node, 1.0 / (1 << shape->level), &halo, format, data, GEGL_AUTO_ROWSTRIDE, GEGL_BLIT_DEFAULT);
  g_mutex_unlock (lock);
  gegl_buffer_set (copy, &halo, shape->level, format, data, GEGL_AUTO_ROWSTRIDE);
  g_free (data);
  return copy;
}

static gboolean
process (GeglOperation *operation, GeglBuffer *input, GeglBuffer *output,
         const GeglRectangle *result, gint level)
{
  GeglProperties *o = GEGL_PROPERTIES (operation);
  GeglRectangle   roi = blur_rectangle_at_level (result, level);
  GeglRectangle   box = get_bounding_box (operation);
  BlurShape       shape = { o->std_dev_x / (1 << level), o->std_dev_y / (1 << level), o->linear,
                            abyss_of (o->abyss_policy), level };
  gboolean        done;

  if (gegl_rectangle_is_empty (&roi))
    return TRUE;
  if (shape.sigma_x <= 0.0 && shape.sigma_y <= 0.0)
    {
      gegl_buffer_copy (input, result, GEGL_ABYSS_NONE, output, result);
      return TRUE;
    }
  input = input_at_level (operation, input, result, &roi, &shape);
  done = operation_blur (input, gegl_operation_get_source_format (operation, "input"), &roi, &shape,
                         output, result, o->user_data || !gegl_rectangle_equal (result, &box));
  g_object_unref (input);
  return done;
}

static void
gegl_op_class_init (GeglOpClass *klass)
{
  GeglOperationClass       *operation_class = GEGL_OPERATION_CLASS (klass);
  GeglOperationFilterClass *filter_class = GEGL_OPERATION_FILTER_CLASS (klass);

  operation_bind_catalogs ();
  operation_class->prepare = prepare;
  operation_class->get_bounding_box = get_bounding_box;
  operation_class->get_required_for_output = get_required_for_output;
  operation_class->get_invalidated_by_change = get_invalidated_by_change;
  operation_class->get_cached_region = get_cached_region;
  /* One engine run per region; the engine uses every core (or the GPU). */
  operation_class->threaded = FALSE;
  operation_class->want_in_place = FALSE;
  filter_class->process = process;

  gegl_operation_class_set_keys (operation_class,
    "name",            "cuda:gaussian-blur",
    "title",           _("Gaussian Blur (CUDA)"),
    "categories",      "blur",
    "description",     _("Exact Gaussian blur, on an NVIDIA GPU when there is one, else on "
                         "every CPU core; the properties of gegl:gaussian-blur"),
    "gimp:menu-path",  "<Image>/Filters/Blur",
    "gimp:menu-label", _("Gaussian Blur (CUDA)…"),
    NULL);
}

#endif
