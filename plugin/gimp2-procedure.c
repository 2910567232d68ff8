/* The front end for GIMP 2.10: registration and run.  What it shares with
 * GIMP 3's is in ui/. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <libgimp/gimp.h>

#include "blur-dialog.h"
#include "blur-procedure.h"
#include "drawable-blur.h"

static void query (void);
static void run   (const gchar      *name,
                   gint              nparams,
                   const GimpParam  *param,
                   gint             *nreturn_vals,
                   GimpParam       **return_vals);

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

static void
query (void)
{
  static const GimpParamDef args[] = {
    { GIMP_PDB_INT32,    "run-mode", "The run mode { RUN-INTERACTIVE (0), RUN-NONINTERACTIVE (1) }" },
    { GIMP_PDB_IMAGE,    "image",    "Input image" },
    { GIMP_PDB_DRAWABLE, "drawable", "Input drawable" },
    { GIMP_PDB_FLOAT,    "sigma",    SIGMA_BLURB },
    { GIMP_PDB_INT32,    "linear",   LINEAR_BLURB }
  };

  bind_catalogs ();
  gimp_install_procedure (blur_identity.procedure, PLUG_IN_BLURB, PLUG_IN_HELP, PLUG_IN_AUTHOR,
                          PLUG_IN_COPYRIGHT, PLUG_IN_DATE, PLUG_IN_MENU_LABEL, "RGB*, GRAY*",
                          GIMP_PLUGIN, G_N_ELEMENTS (args), 0, args, NULL);
  if (blur_identity.menu_path)
    gimp_plugin_menu_register (blur_identity.procedure, blur_identity.menu_path);
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

static void
run (const gchar *name, gint nparams, const GimpParam *param, gint *nreturn_vals,
     GimpParam **return_vals)
{
  static GimpParam  values[2];
  GimpRunMode       run_mode = param[0].data.d_int32;
  gint32            drawable = param[2].data.d_drawable;
  BlurValues        blur = { SIGMA_DEFAULT, LINEAR_DEFAULT };
  GError           *error = NULL;
  GimpPDBStatusType status = GIMP_PDB_SUCCESS;
  gblur_engine     *engine = NULL;

  (void) name;
  bind_catalogs ();
  blur_gegl_init (run_mode == GIMP_RUN_INTERACTIVE);

  if (!read_values (run_mode, nparams, param, &blur, &error)
      || !check_arguments (&blur, drawable, &error))
    goto done;
  /* One engine for the dialog's preview and the final blur, so OK applies
   * exactly what the preview showed. */
  if (!(engine = blur_engine_new (run_mode != GIMP_RUN_INTERACTIVE, &error)))
    goto done;
  if (run_mode == GIMP_RUN_INTERACTIVE)
    {
      if (!blur_dialog (drawable, engine, &blur))
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
  gblur_engine_free (engine);
  *nreturn_vals = 1;
  *return_vals = values;
  values[0].type = GIMP_PDB_STATUS;
  values[0].data.d_status = error ? error_status (error) : status;
  if (error)
    {
      *nreturn_vals = 2;
      values[1].type = GIMP_PDB_STRING;
      values[1].data.d_string = g_strdup (error->message);
      if (run_mode == GIMP_RUN_INTERACTIVE)
        g_message ("%s", error->message);
      g_error_free (error);
    }
}
