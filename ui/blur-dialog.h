/* The dialog: sigma slider, linear toggle, live preview, the backend in use.
 * One implementation per GIMP major version (the APIs really differ). */
#ifndef BLUR_DIALOG_H
#define BLUR_DIALOG_H

#include <libgimp/gimp.h>
#include "gblur.h"

/* What the procedure that opens the dialog tells it of itself: plugin/
 * opens the dialog, and ui/ includes nothing of plugin/. */
typedef struct {
  const gchar *binary;        /* the program's name, for gimp_ui_init */
  const Babl  *format;        /* the format the preview reads the drawable in */
#if GIMP_MAJOR_VERSION < 3
  const gchar *help_id;       /* the procedure's name */
  const gchar *sigma_help;    /* the arguments' blurbs, translated */
  const gchar *linear_help;
#endif
} BlurDialogSetup;

#if GIMP_MAJOR_VERSION >= 3
/* Edits `config` (sigma, linear); TRUE when the user pressed OK. */
gboolean blur_dialog (GimpProcedure         *procedure,
                      GimpProcedureConfig   *config,
                      GimpDrawable          *drawable,
                      gblur_engine          *engine,
                      const BlurDialogSetup *setup);
#else
typedef struct {
  gdouble  sigma;
  gboolean linear;
} BlurValues;

/* Edits *values; TRUE when the user pressed OK. */
gboolean blur_dialog (gint32                 drawable,
                      gblur_engine          *engine,
                      const BlurDialogSetup *setup,
                      BlurValues            *values);
#endif

#endif
