/* The procedure's argument checks (blur-procedure.h). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "pixel-engine.h"
#include "blur-procedure.h"

gboolean
blur_check_arguments (gdouble sigma, gboolean drawable_valid, gboolean is_group,
                      gboolean is_indexed, GError **error)
{
  if (!(sigma >= GBLUR_SIGMA_MIN && sigma <= GBLUR_SIGMA_MAX)) /* NaN fails too */
    {
      g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                   _("Sigma must be between %g and %g pixels (got %g)."),
                   GBLUR_SIGMA_MIN, GBLUR_SIGMA_MAX, sigma);
      return FALSE;
    }
  if (!drawable_valid)
    {
      g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                   _("No valid drawable was given."));
      return FALSE;
    }
  if (is_group)
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("Cannot blur a layer group: select one of its layers."));
      return FALSE;
    }
  if (is_indexed)
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("Cannot blur an indexed image: convert it to RGB or grayscale first."));
      return FALSE;
    }
  return TRUE;
}
