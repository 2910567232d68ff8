/* The files procedure's run (files-run.h). */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <libgimp/gimp.h>

#include "pixel-engine.h"
#include "blur-procedure.h"
#include "identity.h"
#include "files-plan.h"
#include "files-export.h"
#include "files-run.h"

const gchar *
files_procedure_name (void)
{
  static gchar *name;

  if (!name)
    name = g_strconcat (blur_identity.procedure, "-files", NULL);
  return name;
}

/* Our own PDB calls' errors are ours to report, not GIMP's to show. */
static void
errors_to_plug_in (void)
{
#if GIMP_MAJOR_VERSION >= 3
  gimp_plug_in_set_pdb_error_handler (gimp_get_plug_in (), GIMP_PDB_ERROR_HANDLER_PLUGIN);
#else
  gimp_plugin_set_pdb_error_handler (GIMP_PDB_ERROR_HANDLER_PLUGIN);
#endif
}

static FilesImage
load_image (const gchar *path, GError **error)
{
  FilesImage image;
#if GIMP_MAJOR_VERSION >= 3
  GFile *file = g_file_new_for_path (path);

  image = gimp_file_load (GIMP_RUN_NONINTERACTIVE, file);
  g_object_unref (file);
#else
  image = gimp_file_load (GIMP_RUN_NONINTERACTIVE, path, path);
#endif
  if (image == NO_IMAGE)
    files_pdb_error (error, _("cannot read it"));
  return image;
}

/* One layer through the one-file procedure, called by name: the warm
 * process serves it, and its pixels are that procedure's. */
static gboolean
blur_layer (FilesImage image, FilesLayer layer, const FilesArgs *args, GError **error)
{
  gboolean ok;
#if GIMP_MAJOR_VERSION >= 3
  GimpProcedure  *blur = gimp_pdb_lookup_procedure (gimp_get_pdb (), blur_identity.procedure);
  GimpDrawable   *drawables[2] = { layer, NULL };
  GimpValueArray *values = blur ? gimp_procedure_run (blur, "run-mode", GIMP_RUN_NONINTERACTIVE,
                                                      "image", image, "drawables", drawables,
                                                      "sigma", args->sigma, "linear", args->linear,
                                                      NULL)
                                : NULL;

  ok = values && GIMP_VALUES_GET_ENUM (values, 0) == GIMP_PDB_SUCCESS;
  if (values)
    gimp_value_array_unref (values);
#else
  gint       n = 0;
  GimpParam *values = gimp_run_procedure (blur_identity.procedure, &n,
                                          GIMP_PDB_INT32, GIMP_RUN_NONINTERACTIVE,
                                          GIMP_PDB_IMAGE, image, GIMP_PDB_DRAWABLE, layer,
                                          GIMP_PDB_FLOAT, args->sigma,
                                          GIMP_PDB_INT32, args->linear ? 1 : 0, GIMP_PDB_END);

  ok = n > 0 && values[0].data.d_status == GIMP_PDB_SUCCESS;
  gimp_destroy_params (values, n);
#endif
  if (!ok)
    files_pdb_error (error, _("cannot blur it"));
  return ok;
}

/* Adds the layers that hold pixels among `items`, groups opened. */
#if GIMP_MAJOR_VERSION >= 3
static void
add_layers (GArray *layers, GimpItem **items)
{
  for (gint i = 0; items && items[i]; i++)
    if (gimp_item_is_group (items[i]))
      {
        GimpItem **children = gimp_item_get_children (items[i]);

        add_layers (layers, children);
        g_free (children);
      }
    else
      {
        FilesLayer layer = GIMP_DRAWABLE (items[i]);
        g_array_append_val (layers, layer);
      }
}

static GArray *
image_layers (FilesImage image)
{
  GArray    *layers = g_array_new (FALSE, FALSE, sizeof (FilesLayer));
  GimpItem **top = (GimpItem **) gimp_image_get_layers (image);

  add_layers (layers, top);
  g_free (top);
  return layers;
}

static FilesLayer
merge_visible (FilesImage image)
{
  GimpLayer *layer = gimp_image_merge_visible_layers (image, GIMP_CLIP_TO_IMAGE);

  return layer ? GIMP_DRAWABLE (layer) : NULL;
}

static gboolean
any_visible (FilesImage image)
{
  GimpLayer **top = gimp_image_get_layers (image);
  gboolean    seen = FALSE;

  for (gint i = 0; top && top[i] && !seen; i++)
    seen = gimp_item_get_visible (GIMP_ITEM (top[i]));
  g_free (top);
  return seen;
}

static gboolean
remove_others (FilesImage image, FilesLayer keep)
{
  GimpLayer **top = gimp_image_get_layers (image);
  gboolean    ok = TRUE;

  for (gint i = 0; ok && top && top[i]; i++)
    if (gimp_item_get_id (GIMP_ITEM (top[i])) != gimp_item_get_id (GIMP_ITEM (keep)))
      ok = gimp_image_remove_layer (image, top[i]);
  g_free (top);
  return ok;
}
#else
static void
add_layers (GArray *layers, const gint *items, gint n)
{
  for (gint i = 0; i < n; i++)
    if (gimp_item_is_group (items[i]))
      {
        gint  m = 0;
        gint *children = gimp_item_get_children (items[i], &m);

        add_layers (layers, children, m);
        g_free (children);
      }
    else
      g_array_append_val (layers, items[i]);
}

static GArray *
image_layers (FilesImage image)
{
  GArray *layers = g_array_new (FALSE, FALSE, sizeof (FilesLayer));
  gint    n = 0;
  gint   *top = gimp_image_get_layers (image, &n);

  add_layers (layers, top, n);
  g_free (top);
  return layers;
}

static FilesLayer
merge_visible (FilesImage image)
{
  return gimp_image_merge_visible_layers (image, GIMP_CLIP_TO_IMAGE);
}

static gboolean
any_visible (FilesImage image)
{
  gint     n = 0;
  gint    *top = gimp_image_get_layers (image, &n);
  gboolean seen = FALSE;

  for (gint i = 0; i < n && !seen; i++)
    seen = gimp_item_get_visible (top[i]);
  g_free (top);
  return seen;
}

static gboolean
remove_others (FilesImage image, FilesLayer keep)
{
  gint     n = 0;
  gint    *top = gimp_image_get_layers (image, &n);
  gboolean ok = TRUE;

  for (gint i = 0; ok && i < n; i++)
    if (top[i] != keep)
      ok = gimp_image_remove_layer (image, top[i]);
  g_free (top);
  return ok;
}
#endif

/* The layers to blur: every layer, or the visible ones merged into one (a
 * lone layer as it is, so that the pixels are the one-file procedure's),
 * the hidden ones removed: a layered format would write them unblurred. */
static GArray *
layers_to_blur (FilesImage image, gboolean every_layer, GError **error)
{
  GArray    *layers = image_layers (image);
  FilesLayer merged;

  if (every_layer || layers->len == 1)
    return layers;
  g_array_set_size (layers, 0);
  /* GIMP 2.10 "merges" no visible layer into the active one. */
  if (!any_visible (image))
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR, _("none of its layers is visible"));
      g_array_free (layers, TRUE);
      return NULL;
    }
  merged = merge_visible (image);
  if (merged == NO_IMAGE)
    {
      files_pdb_error (error, _("cannot merge its visible layers"));
      g_array_free (layers, TRUE);
      return NULL;
    }
  if (!remove_others (image, merged))
    {
      files_pdb_error (error, _("cannot remove its hidden layers"));
      g_array_free (layers, TRUE);
      return NULL;
    }
  g_array_append_val (layers, merged);
  return layers;
}

/* GIMP 2.10 exports one drawable: every layer blurred, the visible ones
 * are merged for any format but XCF (GIMP 3's export does so itself). */
static FilesLayer
layer_to_save (FilesImage image, GArray *layers, const gchar *path)
{
#if GIMP_MAJOR_VERSION < 3
  if (layers->len > 1 && !files_plan_is_xcf (path))
    return merge_visible (image);
#else
  (void) image;
  (void) path;
#endif
  return g_array_index (layers, FilesLayer, 0);
}

/* What a saved file holds: its width and height, and (XCF) its layers. */
typedef struct {
  gint width, height, layers;
} FilesSize;

/* The size of `image` as saved to `path`: GIMP 2.10 saves `layer` (NO_IMAGE:
 * the image) but to XCF, GIMP 3 the image. */
#if GIMP_MAJOR_VERSION >= 3
static void
saved_size (FilesImage image, FilesLayer layer, const gchar *path, FilesSize *size)
{
  GimpLayer **top = gimp_image_get_layers (image);

  (void) layer;
  size->width = gimp_image_get_width (image);
  size->height = gimp_image_get_height (image);
  size->layers = 0;
  for (gint i = 0; files_plan_is_xcf (path) && top && top[i]; i++)
    size->layers++;
  g_free (top);
}
#else
static void
saved_size (FilesImage image, FilesLayer layer, const gchar *path, FilesSize *size)
{
  gint     n = 0;
  gint    *top = gimp_image_get_layers (image, &n);
  gboolean whole = files_plan_is_xcf (path) || layer == NO_IMAGE;

  g_free (top);
  size->width = whole ? gimp_image_width (image) : gimp_drawable_width (layer);
  size->height = whole ? gimp_image_height (image) : gimp_drawable_height (layer);
  size->layers = files_plan_is_xcf (path) ? n : 0;
}
#endif

/* FALSE with *error when GIMP cannot load `file`'s temporary file back (an
 * XCF: as `want`): its exporter may have missed a failed write on a disk
 * that does not look full (a quota, a network disk). */
static gboolean
loads_back (const FilePlan *file, const FilesSize *want, GError **error)
{
  FilesImage back = load_image (file->temp, NULL);
  FilesSize  got = { -1, -1, -1 };

  if (back != NO_IMAGE)
    {
      saved_size (back, NO_IMAGE, file->output, &got);
      gimp_image_delete (back);
    }
  /* Only XCF loads back as saved: a TIFF of a layer with an offset, a PSD or
   * a PDF load back at sizes of their own. */
  if (back != NO_IMAGE && (!files_plan_is_xcf (file->output)
                           || (got.width == want->width && got.height == want->height
                               && got.layers == want->layers)))
    return TRUE;
  g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
               _("what was written is cut short or unreadable (GIMP cannot load it back as saved): "
                 "not kept"));
  files_plan_note_full (file->temp, error);
  return FALSE;
}

/* Saves to the temporary file and loads it back, but a PNG or JPEG: the
 * commit checks their endings. */
static gboolean
save_checked (FilesImage image, FilesLayer layer, const FilePlan *file, const FilesCost *cost,
              GError **error)
{
  FilesSize size;

  if (!files_save_image (image, layer, file->temp, cost, error))
    return FALSE;
  if (files_plan_export_kind (file->output) != FILES_EXPORT_OTHER)
    return TRUE;
  saved_size (image, layer, file->output, &size);
  return loads_back (file, &size, error);
}

/* Where one file's time went, ms: loading, blurring, saving and renaming. */
typedef struct {
  gdouble load, blur, save;
} FileTimes;

static gdouble
ms_since (gint64 *start)
{
  gint64 now = g_get_monotonic_time ();
  gdouble ms = (now - *start) / 1000.0;

  *start = now;
  return ms;
}

/* One file: loaded, each layer blurred, saved under its temporary name,
 * checked and renamed.  FAILED with *error, or EXISTS (overwrite off, the
 * output made meanwhile): no output of ours, no temporary file. */
static FilesCommit
blur_file (const FilePlan *file, const FilesArgs *args, FileTimes *times, GError **error)
{
  gint64      start = g_get_monotonic_time ();
  FilesImage  image = load_image (file->input, error);
  GArray     *layers;
  gboolean    ok = FALSE;
  FilesCommit done = FILES_COMMIT_FAILED;

  times->load = ms_since (&start);
  if (image == NO_IMAGE)
    return done;
  if ((layers = layers_to_blur (image, args->every_layer, error)))
    {
      ok = layers->len > 0;
      if (!ok)
        g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR, _("it has no layer"));
      for (guint i = 0; ok && i < layers->len; i++)
        ok = blur_layer (image, g_array_index (layers, FilesLayer, i), args, error);
      times->blur = ms_since (&start);
      ok = ok && save_checked (image, layer_to_save (image, layers, file->output), file, &args->cost,
                               error);
      g_array_free (layers, TRUE);
    }
  gimp_image_delete (image);
  if (ok)
    done = files_plan_commit (file, args->overwrite, error);
  else
    g_unlink (file->temp);
  times->save = ms_since (&start);
  return done;
}

static void
say_skipped (const FilePlan *file, guint i, guint n, FilesCount *count)
{
  count->skipped++;
  g_printerr ("%s: [%u/%u] %s: skipped, %s exists\n", blur_identity.binary, i + 1, n, file->input,
              file->output);
}

/* One file of `n`: skipped when its output exists (unless overwrite),
 * else blurred; said on stderr, a line a file, and counted. */
static void
run_one (const FilePlan *file, guint i, guint n, const FilesArgs *args, FilesCount *count,
         GString *failures)
{
  GError     *error = NULL;
  FileTimes   times = { 0, 0, 0 };
  FilesCommit done;

  gimp_progress_set_text (file->input);
  if (!args->overwrite && g_file_test (file->output, G_FILE_TEST_EXISTS))
    say_skipped (file, i, n, count);
  else if ((done = blur_file (file, args, &times, &error)) == FILES_COMMIT_EXISTS)
    say_skipped (file, i, n, count);
  else if (done == FILES_COMMIT_DONE)
    {
      count->blurred++;
      g_printerr ("%s: [%u/%u] %s: blurred into %s (load %.0f ms, blur %.0f ms, save %.0f ms)\n",
                  blur_identity.binary, i + 1, n, file->input, file->output, times.load, times.blur,
                  times.save);
    }
  else
    {
      count->failed++;
      g_printerr ("%s: [%u/%u] %s: FAILED, %s\n", blur_identity.binary, i + 1, n, file->input,
                  error->message);
      g_string_append_printf (failures, "%s%s: %s", failures->len ? "; " : " ", file->input,
                              error->message);
      g_error_free (error);
    }
  gimp_progress_update ((gdouble) (i + 1) / n);
}

gboolean
files_run (const FilesArgs *args, FilesCount *count, GError **error)
{
  FilesPlan *plan;
  GString   *failures;

  *count = (FilesCount) { 0, 0, 0 };
  if (!blur_check_arguments (args->sigma, TRUE, FALSE, FALSE, error)
      || !files_plan_check_cost (args->cost.png_level, args->cost.jpeg_quality, error)
      || !(plan = files_plan_new (args->pattern, args->folder, args->format, args->overwrite,
                                      error)))
    return FALSE;
  errors_to_plug_in ();
  if (plan->folders)
    g_printerr ("%s: %u folders the pattern matched left out\n", blur_identity.binary, plan->folders);
  if (plan->stale)
    g_printerr ("%s: %u temporary files of runs that died removed\n", blur_identity.binary, plan->stale);
  failures = g_string_new (NULL);
  gimp_progress_init (_("CUDA Gaussian Blur: files"));
  for (guint i = 0; i < plan->n; i++)
    run_one (&plan->files[i], i, plan->n, args, count, failures);
  g_printerr ("%s: %u files: %u blurred, %u skipped (their outputs exist), %u failed\n",
              blur_identity.binary, plan->n, count->blurred, count->skipped, count->failed);
  if (count->failed)
    g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                 _("%u of %u files failed (the others are done):%s"), count->failed, plan->n,
                 failures->str);
  g_string_free (failures, TRUE);
  files_plan_free (plan);
  return count->failed == 0;
}
