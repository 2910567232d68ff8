/* The files procedure's saving (files-export.h). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "pixel-engine.h"
#include "files-plan.h"
#include "files-export.h"

void
files_pdb_error (GError **error, const gchar *what)
{
#if GIMP_MAJOR_VERSION >= 3
  const gchar *why = gimp_pdb_get_last_error (gimp_get_pdb ());
#else
  const gchar *why = gimp_get_pdb_error ();
#endif
  g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR, "%s: %s", what,
               why && *why ? why : _("no reason given"));
}

#if GIMP_MAJOR_VERSION >= 3
/* The exporter `name` with `property` (its cost) set to `value`, its other
 * settings their defaults, as gimp_file_save runs it. */
static gboolean
export_with (FilesImage image, const gchar *path, const gchar *name, const gchar *property,
             const GValue *value, GError **error)
{
  GimpProcedure       *export = gimp_pdb_lookup_procedure (gimp_get_pdb (), name);
  GimpProcedureConfig *config = export ? gimp_procedure_create_config (export) : NULL;
  GimpValueArray      *values;
  GFile               *file;
  gboolean             ok;

  if (!config || !g_object_class_find_property (G_OBJECT_GET_CLASS (config), property))
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("cannot write it: this GIMP has no %s with a setting '%s'"), name, property);
      g_clear_object (&config);
      return FALSE;
    }
  file = g_file_new_for_path (path);
  g_object_set (config, "run-mode", GIMP_RUN_NONINTERACTIVE, "image", image, "file", file, NULL);
  g_object_set_property (G_OBJECT (config), property, value);
  values = gimp_procedure_run_config (export, config);
  ok = values && GIMP_VALUES_GET_ENUM (values, 0) == GIMP_PDB_SUCCESS;
  if (values)
    gimp_value_array_unref (values);
  g_object_unref (config);
  g_object_unref (file);
  if (!ok)
    files_pdb_error (error, _("cannot write it"));
  return ok;
}

static gboolean
save_png (FilesImage image, FilesLayer layer, const gchar *path, gint level, GError **error)
{
  GValue   value = G_VALUE_INIT;
  gboolean ok;

  (void) layer;
  g_value_init (&value, G_TYPE_INT);
  g_value_set_int (&value, level);
  ok = export_with (image, path, "file-png-export", "compression", &value, error);
  g_value_unset (&value);
  return ok;
}

static gboolean
save_jpeg (FilesImage image, FilesLayer layer, const gchar *path, gint quality, GError **error)
{
  GValue   value = G_VALUE_INIT;
  gboolean ok;

  (void) layer;
  g_value_init (&value, G_TYPE_DOUBLE);
  g_value_set_double (&value, quality / 100.0);
  ok = export_with (image, path, "file-jpeg-export", "quality", &value, error);
  g_value_unset (&value);
  return ok;
}

static gboolean
save_default (FilesImage image, FilesLayer layer, const gchar *path)
{
  GFile   *file = g_file_new_for_path (path);
  gboolean ok;

  (void) layer;
  ok = gimp_file_save (GIMP_RUN_NONINTERACTIVE, image, file, NULL);
  g_object_unref (file);
  return ok;
}
#else
/* file-png-save2 with GIMP's defaults (file-png-get-defaults) but the level. */
static gboolean
save_png (FilesImage image, FilesLayer layer, const gchar *path, gint level, GError **error)
{
  gint       n = 0, m = 0;
  GimpParam *d = gimp_run_procedure ("file-png-get-defaults", &n, GIMP_PDB_END);
  GimpParam *values = NULL;
  gboolean   ok = n >= 10 && d[0].data.d_status == GIMP_PDB_SUCCESS;

  if (ok)
    values = gimp_run_procedure ("file-png-save2", &m, GIMP_PDB_INT32, GIMP_RUN_NONINTERACTIVE,
                                 GIMP_PDB_IMAGE, image, GIMP_PDB_DRAWABLE, layer,
                                 GIMP_PDB_STRING, path, GIMP_PDB_STRING, path,
                                 GIMP_PDB_INT32, d[1].data.d_int32, GIMP_PDB_INT32, level,
                                 GIMP_PDB_INT32, d[3].data.d_int32, GIMP_PDB_INT32, d[4].data.d_int32,
                                 GIMP_PDB_INT32, d[5].data.d_int32, GIMP_PDB_INT32, d[6].data.d_int32,
                                 GIMP_PDB_INT32, d[7].data.d_int32, GIMP_PDB_INT32, d[8].data.d_int32,
                                 GIMP_PDB_INT32, d[9].data.d_int32, GIMP_PDB_END);
  ok = ok && m > 0 && values[0].data.d_status == GIMP_PDB_SUCCESS;
  gimp_destroy_params (d, n);
  if (values)
    gimp_destroy_params (values, m);
  if (!ok)
    files_pdb_error (error, _("cannot write it"));
  return ok;
}

/* file-jpeg-save with what gimp_file_save writes (GIMP 2.10's defaults:
 * no smoothing, optimized, progressive, 4:4:4, baseline, no restarts,
 * integer DCT) but the quality; below 0.01 it would take its defaults, and
 * libjpeg makes 0 into 1 anyway. */
static gboolean
save_jpeg (FilesImage image, FilesLayer layer, const gchar *path, gint quality, GError **error)
{
  gint       n = 0;
  GimpParam *values = gimp_run_procedure ("file-jpeg-save", &n, GIMP_PDB_INT32, GIMP_RUN_NONINTERACTIVE,
                                          GIMP_PDB_IMAGE, image, GIMP_PDB_DRAWABLE, layer,
                                          GIMP_PDB_STRING, path, GIMP_PDB_STRING, path,
                                          GIMP_PDB_FLOAT, MAX (quality, 1) / 100.0, GIMP_PDB_FLOAT, 0.0,
                                          GIMP_PDB_INT32, 1, GIMP_PDB_INT32, 1, GIMP_PDB_STRING, "",
                                          GIMP_PDB_INT32, 2, GIMP_PDB_INT32, 1, GIMP_PDB_INT32, 0,
                                          GIMP_PDB_INT32, 0, GIMP_PDB_END);
  gboolean   ok = n > 0 && values[0].data.d_status == GIMP_PDB_SUCCESS;

  gimp_destroy_params (values, n);
  if (!ok)
    files_pdb_error (error, _("cannot write it"));
  return ok;
}

static gboolean
save_default (FilesImage image, FilesLayer layer, const gchar *path)
{
  return gimp_file_save (GIMP_RUN_NONINTERACTIVE, image, layer, path, path);
}
#endif

gboolean
files_save_image (FilesImage image, FilesLayer layer, const gchar *path, const FilesCost *cost,
                  GError **error)
{
  FilesExportKind kind = files_plan_export_kind (path);

  gboolean        ok;

  if (kind == FILES_EXPORT_PNG && cost->png_level != FILES_COST_DEFAULT)
    ok = save_png (image, layer, path, cost->png_level, error);
  else if (kind == FILES_EXPORT_JPEG && cost->jpeg_quality != FILES_COST_DEFAULT)
    ok = save_jpeg (image, layer, path, cost->jpeg_quality, error);
  else if (!(ok = save_default (image, layer, path)))
    files_pdb_error (error, _("cannot write it"));
  if (!ok)
    files_plan_note_full (path, error);
  return ok;
}
