/* The procedure for GIMP 2.10: registration and run.  The pixel path is in
 * blur-drawable.c, shared with GIMP 3. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <libgimp/gimp.h>

#include "blur-drawable.h"
#include "blur-dialog.h"

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
  gimp_install_procedure (PLUG_IN_PROC, PLUG_IN_BLURB, PLUG_IN_HELP, PLUG_IN_AUTHOR,
                          PLUG_IN_COPYRIGHT, PLUG_IN_DATE, PLUG_IN_MENU_LABEL, "RGB*, GRAY*",
                          GIMP_PLUGIN, G_N_ELEMENTS (args), 0, args, NULL);
#ifndef BLUR_COPY_ONLY
  gimp_plugin_menu_register (PLUG_IN_PROC, "<Image>/Filters/Blur");
#endif
}

static void
show_progress (gdouble fraction, gpointer data)
{
  (void) data;
  gimp_progress_update (fraction);
}

static gboolean
blur_drawable (gblur_engine *engine, gint32 drawable, const BlurValues *values, GError **error)
{
  gint        x, y, width, height;
  GeglBuffer *buffer, *shadow;
  gboolean    ok;

  if (!gimp_drawable_mask_intersect (drawable, &x, &y, &width, &height))
    return TRUE; /* the selection misses this drawable: nothing to do */

  gimp_progress_init (_("CUDA Gaussian Blur"));
  buffer = gimp_drawable_get_buffer (drawable);
  shadow = gimp_drawable_get_shadow_buffer (drawable);
  ok = blur_buffer (engine, buffer, shadow, blur_format_in_srgb (gimp_drawable_get_format (drawable)),
                    x, y, width, height, values->sigma, values->linear, show_progress, NULL, error);
  g_object_unref (buffer);
  g_object_unref (shadow); /* flushes the shadow before the merge */
  if (ok)
    {
      gimp_drawable_merge_shadow (drawable, TRUE);
      gimp_drawable_update (drawable, x, y, width, height);
    }
  return ok;
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
  *nreturn_vals = 1;
  *return_vals = values;
  values[0].type = GIMP_PDB_STATUS;

  bind_catalogs ();
  blur_gegl_init (run_mode == GIMP_RUN_INTERACTIVE);

  switch (run_mode)
    {
    case GIMP_RUN_NONINTERACTIVE:
      if (nparams != 5)
        {
          g_set_error (&error, BLUR_ERROR, BLUR_CALLING_ERROR,
                       _("Expected 5 arguments (run-mode, image, drawable, sigma, linear), got %d."),
                       nparams);
          break;
        }
      blur.sigma = param[3].data.d_float;
      blur.linear = param[4].data.d_int32 != 0;
      break;
    case GIMP_RUN_INTERACTIVE:
    case GIMP_RUN_WITH_LAST_VALS:
      gimp_get_data (PLUG_IN_PROC, &blur);
      break;
    }

  /* One engine for the dialog's preview and the final blur, so OK applies
   * exactly what the preview showed. */
  if (!error && run_mode == GIMP_RUN_INTERACTIVE
      && blur_check_arguments (blur.sigma, gimp_item_is_valid (drawable),
                               gimp_item_is_group (drawable), gimp_drawable_is_indexed (drawable),
                               &error)
      && (engine = blur_engine_new (&error))
      && !blur_dialog (drawable, engine, &blur))
    {
      gblur_engine_free (engine);
      values[0].data.d_status = GIMP_PDB_CANCEL;
      return;
    }

  if (!error
      && blur_check_arguments (blur.sigma, gimp_item_is_valid (drawable),
                               gimp_item_is_valid (drawable) && gimp_item_is_group (drawable),
                               gimp_item_is_valid (drawable) && gimp_drawable_is_indexed (drawable),
                               &error)
      && (engine || (engine = blur_engine_new (&error)))
      && blur_drawable (engine, drawable, &blur, &error))
    {
      if (run_mode != GIMP_RUN_NONINTERACTIVE)
        gimp_displays_flush ();
      gimp_set_data (PLUG_IN_PROC, &blur, sizeof blur);
    }
  gblur_engine_free (engine);

  if (error)
    {
      status = error->code == BLUR_CALLING_ERROR ? GIMP_PDB_CALLING_ERROR : GIMP_PDB_EXECUTION_ERROR;
      *nreturn_vals = 2;
      values[1].type = GIMP_PDB_STRING;
      values[1].data.d_string = g_strdup (error->message);
      if (run_mode == GIMP_RUN_INTERACTIVE)
        g_message ("%s", error->message);
      g_error_free (error);
    }
  values[0].data.d_status = status;
}
