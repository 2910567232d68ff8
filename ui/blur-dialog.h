/* The dialog: sigma slider, linear toggle, live preview, the backend in use.
 * One implementation per GIMP major version (the APIs really differ). */
#ifndef BLUR_DIALOG_H
#define BLUR_DIALOG_H

#include <libgimp/gimp.h>
#include "gblur.h"

#if GIMP_MAJOR_VERSION >= 3
/* Edits `config` (sigma, linear); TRUE when the user pressed OK. */
gboolean blur_dialog (GimpProcedure       *procedure,
                      GimpProcedureConfig *config,
                      GimpDrawable        *drawable,
                      gblur_engine        *engine);
#else
typedef struct {
  gdouble  sigma;
  gboolean linear;
} BlurValues;

/* Edits *values; TRUE when the user pressed OK. */
gboolean blur_dialog (gint32        drawable,
                      gblur_engine *engine,
                      BlurValues   *values);
#endif

#endif
