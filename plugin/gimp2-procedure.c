/* The front end for GIMP 2.10: registration and run.  What it shares with
 * GIMP 3's is in drawable-blur.c, blur-procedure.c, ui/ and pixels/.
 *
 * GIMP 2.10 starts a plug-in process for every call, and each pays for its
 * start, GEGL's and the engine's (a CUDA context: 0.1-0.3 s).  So the
 * plug-in also registers an extension, which GIMP starts once, with
 * itself: it installs the procedure again, under the same name, as a
 * temporary procedure of that long-lived process, whose engine (and CUDA
 * context) is made once.  GIMP's PDB runs the newest procedure of a name:
 * calls by name (scripts, batch mode) reach the warm one while the
 * extension runs, and the one-shot procedure otherwise.  The menu entry
 * stays the one-shot procedure's (the temporary one has none), and both
 * run the same code below. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <libgimp/gimp.h>

#include "blur-dialog.h"
#include "pixel-engine.h"
#include "blur-procedure.h"
#include "identity.h"
#include "drawable-blur.h"
#include "files-plan.h"
#include "files-run.h"

static void query (void);
static void run_blur (const gchar      *name,
                      gint              nparams,
                      const GimpParam  *param,
                      gint             *nreturn_vals,
                      GimpParam       **return_vals);
static void run   (const gchar      *name,
                   gint              nparams,
                   const GimpParam  *param,
                   gint             *nreturn_vals,
                   GimpParam       **return_vals);

static void return_status (GimpPDBStatusType  status,
                           GError            *error,
                           GimpRunMode        run_mode,
                           gint              *nreturn_vals,
                           GimpParam        **return_vals);

const GimpPlugInInfo PLUG_IN_INFO = { NULL, NULL, query, run };

MAIN ()

/* Catalogs live in locale/ inside the plug-in's own folder, as GIMP 3
 * expects, so one layout serves both versions and per-user installs. */
static void
bind_catalogs (void)
{
  gchar *folder = g_path_get_dirname (gimp_get_progname ());
  gchar *locale = g_build_filename (folder, "locale", NULL);

  bindtextdomain (GETTEXT_PACKAGE, locale);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  gimp_plugin_domain_register (GETTEXT_PACKAGE, locale);
  g_free (locale);
  g_free (folder);
}

static const GimpParamDef blur_args[] = {
  { GIMP_PDB_INT32,    "run-mode", "The run mode { RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1) }" },
  { GIMP_PDB_IMAGE,    "image",    "Input image" },
  { GIMP_PDB_DRAWABLE, "drawable", "Input drawable" },
  { GIMP_PDB_FLOAT,    "sigma",    SIGMA_BLURB },
  { GIMP_PDB_INT32,    "linear",   LINEAR_BLURB }
};

/* The files procedures': the first five fixed (scripts name them), the
 * rest optional (a caller may leave them out).  GIMP 2.10's Script-Fu passes
 * every argument a procedure declares, so the export's two came as a second
 * procedure, -files2, as GIMP's own did (file-png-save2): -files declares
 * the first eight, as it always has, so that its callers' scripts still run. */
static const GimpParamDef files_args[] = {
  { GIMP_PDB_INT32,  "run-mode",      "The run mode { RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1) }" },
  { GIMP_PDB_STRING, "pattern",       PATTERN_BLURB },
  { GIMP_PDB_FLOAT,  "sigma",         SIGMA_BLURB },
  { GIMP_PDB_INT32,  "linear",        LINEAR_BLURB },
  { GIMP_PDB_STRING, "output-folder", FOLDER_BLURB },
  { GIMP_PDB_STRING, "format",        FORMAT_BLURB },
  { GIMP_PDB_INT32,  "every-layer",   LAYERS_BLURB },
  { GIMP_PDB_INT32,  "overwrite",     OVERWRITE_BLURB },
  { GIMP_PDB_INT32,  "png-compression", PNG_LEVEL_BLURB },
  { GIMP_PDB_INT32,  "jpeg-quality",  JPEG_QUALITY_BLURB }
};
#define FILES_FIRST_ARGS 8   /* -files' */

#define FILES2_HELP N_("Does what plug-in-cuda-gaussian-blur-files does, with two more arguments: " \
                       "the PNG outputs' compression level and the JPEG outputs' quality (-1: " \
                       "GIMP's own). -1 -1 makes it plug-in-cuda-gaussian-blur-files.")

/* The second files procedure's name: the first's with "2". */
static const gchar *
files2_procedure_name (void)
{
  static gchar *name;

  if (!name)
    name = g_strconcat (files_procedure_name (), "2", NULL);
  return name;
}

static void
query (void)
{
  bind_catalogs ();
  gimp_install_procedure (blur_identity.procedure, PLUG_IN_BLURB, PLUG_IN_HELP, PLUG_IN_AUTHOR,
                          PLUG_IN_COPYRIGHT, PLUG_IN_DATE, PLUG_IN_MENU_LABEL, "RGB*, GRAY*",
                          GIMP_PLUGIN, G_N_ELEMENTS (blur_args), 0, blur_args, NULL);
  if (blur_identity.menu_path)
    gimp_plugin_menu_register (blur_identity.procedure, blur_identity.menu_path);
  gimp_install_procedure (files_procedure_name (), FILES_BLURB, FILES_HELP, PLUG_IN_AUTHOR,
                          PLUG_IN_COPYRIGHT, PLUG_IN_DATE, NULL, NULL, GIMP_PLUGIN,
                          FILES_FIRST_ARGS, 0, files_args, NULL);
  gimp_install_procedure (files2_procedure_name (), FILES_BLURB, FILES2_HELP, PLUG_IN_AUTHOR,
                          PLUG_IN_COPYRIGHT, PLUG_IN_DATE, NULL, NULL, GIMP_PLUGIN,
                          G_N_ELEMENTS (files_args), 0, files_args, NULL);
  /* An extension without arguments: GIMP starts it when it starts. */
  gimp_install_procedure (blur_extension_name (), "Keeps the blur's engine warm between calls",
                          "Installs the blur procedure as a temporary procedure of a process "
                          "that lives as long as GIMP, so that its engine and CUDA context "
                          "are made once, not for every call.",
                          PLUG_IN_AUTHOR, PLUG_IN_COPYRIGHT, PLUG_IN_DATE, NULL, NULL,
                          GIMP_EXTENSION, 0, 0, NULL, NULL);
}

/* The warm process's engine, made once (NULL in a one-shot process); the
 * calls it served; whether one is running on it (libgimp runs a call that
 * comes while another waits for GIMP, nested: that one gets an engine of
 * its own). */
static gblur_engine *warm_engine;
static guint         warm_calls;
static gboolean      warm_busy;

/* The extension: makes its engine (CUDA deferred, so that a bad setting
 * shows at once), installs the procedure, then acknowledges (GIMP goes on
 * starting only then, so the first call finds the procedure) and serves
 * calls until GIMP quits.  CUDA starts after the first call, between calls:
 * a GIMP that never blurs makes no CUDA context, and the first call is
 * never slower than the CPU. */
static void
run_extension (void)
{
  GError *error = NULL;

  bind_catalogs ();
  warm_engine = pixel_engine_new (PIXEL_ENGINE_DEFER_CUDA, &error);
  if (warm_engine)
    gimp_install_temp_proc (blur_identity.procedure, PLUG_IN_BLURB, PLUG_IN_HELP, PLUG_IN_AUTHOR,
                            PLUG_IN_COPYRIGHT, PLUG_IN_DATE, NULL, "RGB*, GRAY*", GIMP_TEMPORARY,
                            G_N_ELEMENTS (blur_args), 0, blur_args, NULL, run_blur);
  gimp_extension_ack ();
  if (!warm_engine)        /* the one-shot procedure will report it at each call */
    {
      g_printerr ("%s: %s\n", blur_identity.binary, error->message);
      g_error_free (error);
      return;
    }
  blur_gegl_init (TRUE);   /* after the ack: GIMP's start does not wait for it */
  for (;;)
    {
      gimp_extension_process (0);   /* one message: a call, or GIMP quitting */
      if (warm_calls > 0)           /* starts CUDA once, then does nothing */
        gblur_engine_start_cuda (warm_engine);
    }
}

/* The values to blur with: the arguments, or the last values (where the
 * dialog starts). */
static gboolean
read_values (GimpRunMode run_mode, gint nparams, const GimpParam *param, BlurValues *blur,
             GError **error)
{
  if (run_mode != GIMP_RUN_NONINTERACTIVE)
    {
      gimp_get_data (blur_identity.procedure, blur);
      return TRUE;
    }
  if (nparams != 5)
    {
      g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                   _("Expected 5 arguments (run-mode, image, drawable, sigma, linear), got %d."),
                   nparams);
      return FALSE;
    }
  blur->sigma = param[3].data.d_float;
  blur->linear = param[4].data.d_int32 != 0;
  return TRUE;
}

static gboolean
check_arguments (const BlurValues *blur, gint32 drawable, GError **error)
{
  gboolean valid = gimp_item_is_valid (drawable);

  return blur_check_arguments (blur->sigma, valid, valid && gimp_item_is_group (drawable),
                               valid && gimp_drawable_is_indexed (drawable), error);
}

static GimpPDBStatusType
error_status (const GError *error)
{
  return error->code == BLUR_CALLING_ERROR ? GIMP_PDB_CALLING_ERROR : GIMP_PDB_EXECUTION_ERROR;
}

/* The files procedures: every file a pattern names, in this one process;
 * the blur of each goes to the one-file procedure (the warm process's).
 * -files is -files2 with the export's arguments -1, GIMP's own. */
static void
run_files (const gchar *name, gint nparams, const GimpParam *param, gint *nreturn_vals,
           GimpParam **return_vals)
{
  FilesArgs      args = { NULL, SIGMA_DEFAULT, LINEAR_DEFAULT, NULL, "", FALSE, FALSE,
                           { FILES_COST_DEFAULT, FILES_COST_DEFAULT } };
  const gboolean second = strcmp (name, files2_procedure_name ()) == 0;
  FilesCount     count;
  GError        *error = NULL;

  bind_catalogs ();
  if (nparams < 5 || nparams > (second ? (gint) G_N_ELEMENTS (files_args) : FILES_FIRST_ARGS))
    g_set_error (&error, BLUR_ERROR, BLUR_CALLING_ERROR,
                 second ? _("Expected 5 to 10 arguments (run-mode, pattern, sigma, linear, output-folder, "
                            "format, every-layer, overwrite, png-compression, jpeg-quality), got %d.")
                        : _("Expected 5 to 8 arguments (run-mode, pattern, sigma, linear, output-folder, "
                            "format, every-layer, overwrite), got %d."), nparams);
  else
    {
      args.pattern = param[1].data.d_string;
      args.sigma = param[2].data.d_float;
      args.linear = param[3].data.d_int32 != 0;
      args.folder = param[4].data.d_string;
      args.format = nparams > 5 && param[5].data.d_string ? param[5].data.d_string : "";
      args.every_layer = nparams > 6 && param[6].data.d_int32 != 0;
      args.overwrite = nparams > 7 && param[7].data.d_int32 != 0;
      args.cost.png_level = nparams > 8 ? param[8].data.d_int32 : FILES_COST_DEFAULT;
      args.cost.jpeg_quality = nparams > 9 ? param[9].data.d_int32 : FILES_COST_DEFAULT;
      files_run (&args, &count, &error);
    }
  return_status (GIMP_PDB_SUCCESS, error, GIMP_RUN_NONINTERACTIVE, nreturn_vals, return_vals);
}

static void
run (const gchar *name, gint nparams, const GimpParam *param, gint *nreturn_vals,
     GimpParam **return_vals)
{
  static GimpParam values[1];

  if (strcmp (name, blur_extension_name ()) == 0)
    {
      run_extension ();
      *nreturn_vals = 1;
      *return_vals = values;
      values[0].type = GIMP_PDB_STATUS;
      values[0].data.d_status = GIMP_PDB_EXECUTION_ERROR;
      return;
    }
  if (strcmp (name, files_procedure_name ()) == 0 || strcmp (name, files2_procedure_name ()) == 0)
    {
      run_files (name, nparams, param, nreturn_vals, return_vals);
      return;
    }
  run_blur (name, nparams, param, nreturn_vals, return_vals);
}

/* The call's return values: the status, and the error's message (shown
 * too in an interactive call); frees the error. */
static void
return_status (GimpPDBStatusType status, GError *error, GimpRunMode run_mode, gint *nreturn_vals,
               GimpParam **return_vals)
{
  static GimpParam values[2];

  *nreturn_vals = 1;
  *return_vals = values;
  values[0].type = GIMP_PDB_STATUS;
  values[0].data.d_status = status;
  if (!error)
    return;
  *nreturn_vals = 2;
  values[0].data.d_status = error_status (error);
  values[1].type = GIMP_PDB_STRING;
  g_free (values[1].data.d_string);   /* the last failed call's, in a warm process */
  values[1].data.d_string = g_strdup (error->message);
  if (run_mode == GIMP_RUN_INTERACTIVE)
    g_message ("%s", error->message);
  g_error_free (error);
}

/* The dialog, told what it shows of this procedure. */
static gboolean
open_dialog (gint32 drawable, gblur_engine *engine, BlurValues *values)
{
  BlurDialogSetup setup = { .binary = blur_identity.binary, .format = blur_drawable_format (drawable),
                            .help_id = blur_identity.procedure, .sigma_help = _(SIGMA_BLURB),
                            .linear_help = _(LINEAR_BLURB) };

  return blur_dialog (drawable, engine, &setup, values);
}

/* One call of the procedure: in a one-shot process with an engine of its
 * own, or in the warm one with its engine. */
static void
run_blur (const gchar *name, gint nparams, const GimpParam *param, gint *nreturn_vals,
          GimpParam **return_vals)
{
  GimpRunMode       run_mode = param[0].data.d_int32;
  gint32            drawable = param[2].data.d_drawable;
  BlurValues        blur = { SIGMA_DEFAULT, LINEAR_DEFAULT };
  GError           *error = NULL;
  GimpPDBStatusType status = GIMP_PDB_SUCCESS;
  gblur_engine     *engine = warm_busy ? NULL : warm_engine, *own = NULL;
  const gboolean    warm = engine != NULL;

  (void) name;
  if (warm)
    warm_busy = TRUE, warm_calls++;
  if (!engine)
    {
      bind_catalogs ();
      blur_gegl_init (run_mode == GIMP_RUN_INTERACTIVE);
    }
  else if (pixel_env ()->verbose)
    g_printerr ("%s: backend %s (warm process)\n", blur_identity.binary,
                gblur_engine_describe (engine));

  if (!read_values (run_mode, nparams, param, &blur, &error)
      || !check_arguments (&blur, drawable, &error))
    goto done;
  /* One engine for the dialog's preview and the final blur, so OK applies
   * exactly what the preview showed. */
  if (!engine && !(engine = own = pixel_engine_new (run_mode == GIMP_RUN_INTERACTIVE
                                                      ? PIXEL_ENGINE_START_CUDA : PIXEL_ENGINE_DEFER_CUDA,
                                                    &error)))
    goto done;
  if (run_mode == GIMP_RUN_INTERACTIVE)
    {
      if (!open_dialog (drawable, engine, &blur))
        {
          status = GIMP_PDB_CANCEL;
          goto done;
        }
      if (!check_arguments (&blur, drawable, &error))
        goto done;
    }
  if (!blur_drawable (engine, drawable, blur.sigma, blur.linear, &error))
    goto done;
  if (run_mode != GIMP_RUN_NONINTERACTIVE)
    gimp_displays_flush ();
  gimp_set_data (blur_identity.procedure, &blur, sizeof blur);

done:
  gblur_engine_free (own);
  if (warm)
    warm_busy = FALSE;
  return_status (status, error, run_mode, nreturn_vals, return_vals);
}
