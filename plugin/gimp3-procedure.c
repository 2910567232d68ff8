/* The front end for GIMP 3: registration and run.  What it shares with
 * GIMP 2.10's is in drawable-blur.c, blur-procedure.c, ui/ and pixels/.
 *
 * GIMP 3 starts a plug-in process for every call too, and each pays for its
 * start and libgimp's, often more than the blur itself through the operation
 * (docs/performance.md).  So, as on GIMP 2.10 (gimp2-procedure.c),
 * the plug-in also registers a persistent procedure without arguments,
 * which GIMP starts with itself: it installs the procedure again, under the
 * same name, as a temporary procedure of that long-lived process.  GIMP's
 * PDB runs the newest procedure of a name, so calls by name (scripts, batch
 * mode) reach the warm one while it runs, and the one-shot procedure
 * otherwise.  The menu entry stays the one-shot procedure's (the temporary
 * one has none), and both run the same code below. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <libgimp/gimp.h>

#include "blur-dialog.h"
#include "pixel-engine.h"
#include "blur-procedure.h"
#include "identity.h"
#include "merge-check.h"
#include "drawable-blur.h"
#include "files-plan.h"
#include "files-run.h"

typedef struct _CudaBlur      CudaBlur;
typedef struct _CudaBlurClass CudaBlurClass;

struct _CudaBlur {
  GimpPlugIn parent_instance;
};

struct _CudaBlurClass {
  GimpPlugInClass parent_class;
};

#define CUDA_BLUR_TYPE (cuda_blur_get_type ())

GType                  cuda_blur_get_type (void) G_GNUC_CONST;
static GList          *cuda_blur_query_procedures (GimpPlugIn *plug_in);
static GimpProcedure  *cuda_blur_create_procedure (GimpPlugIn  *plug_in,
                                                   const gchar *name);
static gboolean        cuda_blur_set_i18n         (GimpPlugIn  *plug_in,
                                                   const gchar *procedure_name,
                                                   gchar      **gettext_domain,
                                                   gchar      **catalog_dir);
static GimpValueArray *cuda_blur_run              (GimpProcedure        *procedure,
                                                   GimpRunMode           run_mode,
                                                   GimpImage            *image,
                                                   GimpDrawable        **drawables,
                                                   GimpProcedureConfig  *config,
                                                   gpointer              run_data);
static GimpValueArray *run_extension              (GimpProcedure        *procedure,
                                                   GimpProcedureConfig  *config,
                                                   gpointer              run_data);
static GimpValueArray *run_files                  (GimpProcedure        *procedure,
                                                   GimpProcedureConfig  *config,
                                                   gpointer              run_data);

/* The warm process: its engine for the pixel path, made when first needed
 * (CUDA deferred) and kept; whether a call is running on it (libgimp runs a
 * call that comes while another waits for GIMP, nested: that one gets an
 * engine of its own). */
typedef struct {
  gblur_engine *engine;
  gboolean      busy;
} WarmProcess;

G_DEFINE_TYPE (CudaBlur, cuda_blur, GIMP_TYPE_PLUG_IN)

GIMP_MAIN (CUDA_BLUR_TYPE)

static void
cuda_blur_class_init (CudaBlurClass *klass)
{
  GimpPlugInClass *plug_in_class = GIMP_PLUG_IN_CLASS (klass);

  plug_in_class->query_procedures = cuda_blur_query_procedures;
  plug_in_class->create_procedure = cuda_blur_create_procedure;
  plug_in_class->set_i18n = cuda_blur_set_i18n;
}

static void
cuda_blur_init (CudaBlur *blur)
{
  (void) blur;
}

static GList *
cuda_blur_query_procedures (GimpPlugIn *plug_in)
{
  (void) plug_in;
  return g_list_append (g_list_append (g_list_append (NULL, g_strdup (blur_identity.procedure)),
                                      g_strdup (blur_extension_name ())),
                        g_strdup (files_procedure_name ()));
}

/* Catalogs live in locale/ inside the plug-in's folder, domain GETTEXT_PACKAGE. */
static gboolean
cuda_blur_set_i18n (GimpPlugIn *plug_in, const gchar *procedure_name, gchar **gettext_domain,
                    gchar **catalog_dir)
{
  (void) plug_in;
  (void) procedure_name;
  if (!blur_identity.catalogs)
    return FALSE;
  *gettext_domain = g_strdup (GETTEXT_PACKAGE);
  *catalog_dir = g_strdup ("locale");
  return TRUE;
}

/* The procedure: the one-shot one (PLUGIN, with the menu entry) or the warm
 * process's (TEMPORARY, run_data its WarmProcess). */
static GimpProcedure *
blur_procedure_new (GimpPlugIn *plug_in, GimpPDBProcType type, gpointer run_data)
{
  GimpProcedure *procedure = gimp_image_procedure_new (plug_in, blur_identity.procedure, type,
                                                       cuda_blur_run, run_data, NULL);

  gimp_procedure_set_image_types (procedure, "RGB*, GRAY*");
  gimp_procedure_set_sensitivity_mask (procedure, GIMP_PROCEDURE_SENSITIVE_DRAWABLE
                                                  | GIMP_PROCEDURE_SENSITIVE_DRAWABLES);
  if (blur_identity.menu_path && type == GIMP_PDB_PROC_TYPE_PLUGIN)
    {
      gimp_procedure_set_menu_label (procedure, _(PLUG_IN_MENU_LABEL));
      gimp_procedure_add_menu_path (procedure, blur_identity.menu_path);
    }
  gimp_procedure_set_documentation (procedure, _(PLUG_IN_BLURB), _(PLUG_IN_HELP),
                                    blur_identity.procedure);
  gimp_procedure_set_attribution (procedure, PLUG_IN_AUTHOR, PLUG_IN_COPYRIGHT, PLUG_IN_DATE);

  gimp_procedure_add_double_argument (procedure, "sigma", _("S_igma"), _(SIGMA_BLURB),
                                      GBLUR_SIGMA_MIN, GBLUR_SIGMA_MAX, SIGMA_DEFAULT,
                                      G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "linear", _("Li_near light"), _(LINEAR_BLURB),
                                       LINEAR_DEFAULT, G_PARAM_READWRITE);
  return procedure;
}

/* The files procedure: the first five arguments fixed (scripts name them),
 * the rest optional. */
static GimpProcedure *
files_procedure_new (GimpPlugIn *plug_in)
{
  GimpProcedure *procedure = gimp_procedure_new (plug_in, files_procedure_name (),
                                                 GIMP_PDB_PROC_TYPE_PLUGIN, run_files, NULL, NULL);

  gimp_procedure_set_documentation (procedure, _(FILES_BLURB), _(FILES_HELP), files_procedure_name ());
  gimp_procedure_set_attribution (procedure, PLUG_IN_AUTHOR, PLUG_IN_COPYRIGHT, PLUG_IN_DATE);
  gimp_procedure_add_enum_argument (procedure, "run-mode", "Run mode", "The run mode",
                                    GIMP_TYPE_RUN_MODE, GIMP_RUN_NONINTERACTIVE, G_PARAM_READWRITE);
  gimp_procedure_add_string_argument (procedure, "pattern", _("Pattern"), _(PATTERN_BLURB), "",
                                      G_PARAM_READWRITE);
  gimp_procedure_add_double_argument (procedure, "sigma", _("S_igma"), _(SIGMA_BLURB),
                                      GBLUR_SIGMA_MIN, GBLUR_SIGMA_MAX, SIGMA_DEFAULT,
                                      G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "linear", _("Li_near light"), _(LINEAR_BLURB),
                                       LINEAR_DEFAULT, G_PARAM_READWRITE);
  gimp_procedure_add_string_argument (procedure, "output-folder", _("Output folder"),
                                      _(FOLDER_BLURB), "", G_PARAM_READWRITE);
  gimp_procedure_add_string_argument (procedure, "format", _("Format"), _(FORMAT_BLURB), "",
                                      G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "every-layer", _("Every layer"), _(LAYERS_BLURB),
                                       FALSE, G_PARAM_READWRITE);
  gimp_procedure_add_boolean_argument (procedure, "overwrite", _("Overwrite"), _(OVERWRITE_BLURB),
                                       FALSE, G_PARAM_READWRITE);
  gimp_procedure_add_int_argument (procedure, "png-compression", _("PNG compression"),
                                   _(PNG_LEVEL_BLURB), FILES_COST_DEFAULT, FILES_PNG_LEVEL_MAX,
                                   FILES_COST_DEFAULT, G_PARAM_READWRITE);
  gimp_procedure_add_int_argument (procedure, "jpeg-quality", _("JPEG quality"),
                                   _(JPEG_QUALITY_BLURB), FILES_COST_DEFAULT, FILES_JPEG_QUALITY_MAX,
                                   FILES_COST_DEFAULT, G_PARAM_READWRITE);
  return procedure;
}

static GimpProcedure *
cuda_blur_create_procedure (GimpPlugIn *plug_in, const gchar *name)
{
  GimpProcedure *procedure;

  if (g_strcmp0 (name, blur_identity.procedure) == 0)
    return blur_procedure_new (plug_in, GIMP_PDB_PROC_TYPE_PLUGIN, NULL);
  if (g_strcmp0 (name, files_procedure_name ()) == 0)
    return files_procedure_new (plug_in);
  if (g_strcmp0 (name, blur_extension_name ()) != 0)
    return NULL;
  /* Persistent and without arguments: GIMP starts it when it starts. */
  procedure = gimp_procedure_new (plug_in, name, GIMP_PDB_PROC_TYPE_PERSISTENT, run_extension,
                                  NULL, NULL);
  gimp_procedure_set_documentation (procedure, "Keeps the blur's engine warm between calls",
                                    "Installs the blur procedure as a temporary procedure of a "
                                    "process that lives as long as GIMP, so that a call by name "
                                    "starts no process.", name);
  gimp_procedure_set_attribution (procedure, PLUG_IN_AUTHOR, PLUG_IN_COPYRIGHT, PLUG_IN_DATE);
  return procedure;
}

/* The operation cuda:gaussian-blur as a filter on the whole drawable, or
 * NULL when GIMP does not have it. */
static GimpDrawableFilter *
operation_filter (GimpDrawable *drawable, gdouble sigma, gboolean linear)
{
  GimpPlugIn         *plug_in = gimp_get_plug_in ();
  GimpPDBErrorHandler handler = gimp_plug_in_get_pdb_error_handler (plug_in);
  GimpDrawableFilter *filter;

  /* A missing operation is an answer here, not an error to show. */
  gimp_plug_in_set_pdb_error_handler (plug_in, GIMP_PDB_ERROR_HANDLER_PLUGIN);
  filter = gimp_drawable_filter_new (drawable, blur_identity.operation, _("CUDA Gaussian Blur"));
  gimp_plug_in_set_pdb_error_handler (plug_in, handler);
  if (filter)
    g_object_set (gimp_drawable_filter_get_config (filter), "std-dev-x", sigma, "std-dev-y", sigma,
                  "linear", linear, NULL);
  return filter;
}

/* Merges the operation into the drawable (one undo step): the blur runs in
 * GIMP's own process, and no pixel crosses the plug-in's wire.  The merge is
 * checked (merge-check.h): TRUE when the drawable holds the blur; FALSE with
 * no error when the pixel path should blur (GIMP has no such operation, or
 * it left the drawable as it was); FALSE with *error set when the check
 * cannot run, or the pixels are neither. */
static gboolean
blur_in_gimp (GimpDrawable *drawable, gdouble sigma, gboolean linear, GError **error)
{
  GimpDrawableFilter *filter;
  MergeCheck         *check;
  MergeOutcome        outcome;
  gint64              start = g_get_monotonic_time (), checking, merging;

  if (!blur_identity.operation || !(filter = operation_filter (drawable, sigma, linear)))
    return FALSE;
  if (!(check = merge_check_new (drawable, sigma, linear, error)))
    {
      gimp_drawable_filter_delete (filter);
      return FALSE;
    }
  checking = g_get_monotonic_time () - start;
  start = g_get_monotonic_time ();
  gimp_drawable_filter_update (filter);
  gimp_drawable_merge_filter (drawable, filter);
  merging = g_get_monotonic_time () - start;
  start = g_get_monotonic_time ();
  outcome = merge_check_read (check, drawable);
  checking += g_get_monotonic_time () - start;
  merge_check_free (check);
  if (pixel_env ()->verbose)
    g_printerr ("cuda-gaussian-blur: merged %s into the drawable, sigma %g: %.1f ms\n"
                "cuda-gaussian-blur: the merge's check: %.1f ms\n",
                blur_identity.operation, sigma, merging / 1000.0, checking / 1000.0);
  if (outcome == MERGE_UNTOUCHED)
    g_printerr ("cuda-gaussian-blur: %s left the layer unblurred (GIMP's error console says why); "
                "blurring on the plug-in's own pixel path\n", blur_identity.operation);
  if (outcome == MERGE_WRONG)
    g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                 _("GIMP's %s filter changed the layer without blurring it (see GIMP's error "
                   "console)"), blur_identity.operation);
  return outcome == MERGE_BLURRED;
}

/* Through the operation where GIMP has it and the selection's bounds cover
 * the drawable (a filter reads only within the selection's bounds, GIMP's
 * way for filters, while the procedure reads around them); else, or when
 * the operation could not blur, through the plug-in's own pixel path,
 * whose engine is made when first needed. */
static gboolean
blur_one (GimpDrawable *drawable, gblur_engine **engine, gdouble sigma, gboolean linear,
          GError **error)
{
  GimpImage *image = gimp_item_get_image (GIMP_ITEM (drawable));
  gint       x, y, width, height;
  gboolean   ok;

  if (!gimp_drawable_mask_intersect (drawable, &x, &y, &width, &height))
    return TRUE; /* the selection misses this drawable: nothing to do */
  /* One undo step, also when the pixel path redoes what the filter did not. */
  gimp_image_undo_group_start (image);
  ok = width == gimp_drawable_get_width (drawable) && height == gimp_drawable_get_height (drawable)
       && blur_in_gimp (drawable, sigma, linear, error);
  if (!ok && !*error)
    ok = (*engine || (*engine = pixel_engine_new (PIXEL_ENGINE_DEFER_CUDA, error)))
         && blur_drawable (*engine, drawable, sigma, linear, error);
  gimp_image_undo_group_end (image);
  return ok;
}

/* Checks every drawable before any is changed. */
static gboolean
check_drawables (gdouble sigma, GimpDrawable **drawables, gint n, GError **error)
{
  if (!blur_check_arguments (sigma, n > 0, FALSE, FALSE, error))
    return FALSE;
  for (gint i = 0; i < n; i++)
    if (!blur_check_arguments (sigma, GIMP_IS_DRAWABLE (drawables[i]),
                               gimp_item_is_group (GIMP_ITEM (drawables[i])),
                               gimp_drawable_is_indexed (drawables[i]), error))
      return FALSE;
  return TRUE;
}

/* The extension: installs the procedure, acknowledges (GIMP goes on
 * starting only then, so the first call finds it) and serves calls until
 * GIMP quits.  CUDA starts between calls once the pixel path has needed
 * the engine: a GIMP whose blurs all go through the operation makes no
 * CUDA context here, and no call waits for one. */
static GimpValueArray *
run_extension (GimpProcedure *procedure, GimpProcedureConfig *config, gpointer run_data)
{
  static WarmProcess warm;
  GimpPlugIn        *plug_in = gimp_procedure_get_plug_in (procedure);
  GimpProcedure     *blur = blur_procedure_new (plug_in, GIMP_PDB_PROC_TYPE_TEMPORARY, &warm);

  (void) config;
  (void) run_data;
  gimp_plug_in_add_temp_procedure (plug_in, blur);
  g_object_unref (blur);
  gimp_procedure_persistent_ready (procedure);
  blur_gegl_init (TRUE);   /* after the ack: GIMP's start does not wait for it */
  for (;;)
    {
      gimp_plug_in_persistent_process (plug_in, 0);   /* one message: a call, or GIMP quitting */
      if (warm.engine)
        gblur_engine_start_cuda (warm.engine);        /* once, then it does nothing */
    }
  return NULL;
}

/* The dialog, on a new engine (*engine): FALSE when it could not start,
 * or the user cancelled (*cancelled), or the values it ends with are
 * wrong (*error). */
static gboolean
run_dialog (GimpProcedure *procedure, GimpProcedureConfig *config, GimpDrawable *drawable,
            gblur_engine **engine, gdouble *sigma, gboolean *linear, gboolean *cancelled,
            GError **error)
{
  BlurDialogSetup setup = { .binary = blur_identity.binary, .format = blur_drawable_format (drawable) };

  if (!(*engine = pixel_engine_new (PIXEL_ENGINE_START_CUDA, error)))
    return FALSE;
  if (!blur_dialog (procedure, config, drawable, *engine, &setup))
    {
      *cancelled = TRUE;
      return FALSE;
    }
  g_object_get (config, "sigma", sigma, "linear", linear, NULL);
  return blur_check_arguments (*sigma, TRUE, FALSE, FALSE, error);
}

/* Blurs each drawable in turn, in one undo step; stops at the first error. */
static void
blur_drawables (GimpImage *image, GimpDrawable **drawables, gint n, gblur_engine **engine,
                gdouble sigma, gboolean linear, GError **error)
{
  if (n > 1)
    gimp_image_undo_group_start (image);
  for (gint i = 0; i < n && !*error; i++)
    blur_one (drawables[i], engine, sigma, linear, error);
  if (n > 1)
    gimp_image_undo_group_end (image);
}

/* The call's return values: the error's kind and message, or success. */
static GimpValueArray *
return_values (GimpProcedure *procedure, gboolean cancelled, GError *error)
{
  if (error)
    {
      GimpPDBStatusType status = error->code == BLUR_CALLING_ERROR ? GIMP_PDB_CALLING_ERROR
                                                                   : GIMP_PDB_EXECUTION_ERROR;
      return gimp_procedure_new_return_values (procedure, status, error);
    }
  return gimp_procedure_new_return_values (procedure, cancelled ? GIMP_PDB_CANCEL : GIMP_PDB_SUCCESS,
                                           NULL);
}

/* The warm process whose engine this call uses, marked busy; NULL in a
 * one-shot process (GEGL started here) or for a call nested in another. */
static WarmProcess *
enter_call (gpointer run_data, GimpRunMode run_mode)
{
  WarmProcess *warm = run_data && !((WarmProcess *) run_data)->busy ? run_data : NULL;

  if (warm)
    warm->busy = TRUE;
  if (!run_data)
    blur_gegl_init (run_mode == GIMP_RUN_INTERACTIVE);
  if (run_data && pixel_env ()->verbose)
    g_printerr ("cuda-gaussian-blur: a call in the warm process%s\n", warm ? "" : " (nested)");
  return warm;
}

/* One call of the procedure: in a one-shot process, or in the warm one
 * (run_data its WarmProcess), whose engine outlives the call. */
static GimpValueArray *
cuda_blur_run (GimpProcedure *procedure, GimpRunMode run_mode, GimpImage *image,
               GimpDrawable **drawables, GimpProcedureConfig *config, gpointer run_data)
{
  gdouble       sigma = SIGMA_DEFAULT;
  gboolean      linear = LINEAR_DEFAULT;
  gint          n = drawables ? (gint) gimp_core_object_array_get_length ((GObject **) drawables) : 0;
  GError       *error = NULL;
  WarmProcess  *warm = enter_call (run_data, run_mode);
  gblur_engine *own = NULL, **engine = warm ? &warm->engine : &own;
  gboolean      cancelled = FALSE;

  /* libgimp fills config from the arguments, or from the last values for
   * RUN-WITH-LAST-VALS and RUN-INTERACTIVE (the dialog starts from them). */
  g_object_get (config, "sigma", &sigma, "linear", &linear, NULL);

  if (!check_drawables (sigma, drawables, n, &error))
    goto done;

  if (run_mode == GIMP_RUN_INTERACTIVE)
    {
      /* The preview's engine, CUDA at once, also blurs where the operation
       * is missing, so OK applies what the preview showed. */
      engine = &own;
      if (!run_dialog (procedure, config, drawables[0], &own, &sigma, &linear, &cancelled, &error))
        goto done;
    }

  blur_drawables (image, drawables, n, engine, sigma, linear, &error);
  if (!error && run_mode != GIMP_RUN_NONINTERACTIVE)
    gimp_displays_flush ();

done:
  gblur_engine_free (own);
  if (warm)
    warm->busy = FALSE;
  return return_values (procedure, cancelled, error);
}

/* The files procedure: every file a pattern names, in this one process; the
 * blur of each goes to the one-file procedure (the warm process's). */
static GimpValueArray *
run_files (GimpProcedure *procedure, GimpProcedureConfig *config, gpointer run_data)
{
  gchar     *pattern = NULL, *folder = NULL, *format = NULL;
  FilesArgs  args = { NULL, SIGMA_DEFAULT, LINEAR_DEFAULT, NULL, NULL, FALSE, FALSE,
                       { FILES_COST_DEFAULT, FILES_COST_DEFAULT } };
  FilesCount count;
  GError    *error = NULL;

  (void) run_data;
  g_object_get (config, "pattern", &pattern, "sigma", &args.sigma, "linear", &args.linear,
                "output-folder", &folder, "format", &format, "every-layer", &args.every_layer,
                "overwrite", &args.overwrite, "png-compression", &args.cost.png_level,
                "jpeg-quality", &args.cost.jpeg_quality, NULL);
  args.pattern = pattern;
  args.folder = folder;
  args.format = format;
  files_run (&args, &count, &error);
  g_free (pattern);
  g_free (folder);
  g_free (format);
  return return_values (procedure, FALSE, error);
}
