/* The dialog for GIMP 3, built from the procedure's config. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include "blur-dialog.h"
#include "pixel-engine.h"
#include "blur-preview.h"

typedef struct {
  BlurPreview          preview;
  GimpProcedureConfig *config;
} DialogState;

static void
preview_invalidated (GimpPreview *preview, DialogState *state)
{
  gdouble  sigma;
  gboolean linear;

  g_object_get (state->config, "sigma", &sigma, "linear", &linear, NULL);
  blur_preview_render (&state->preview, preview, sigma, linear);
}

gboolean
blur_dialog (GimpProcedure *procedure, GimpProcedureConfig *config, GimpDrawable *drawable,
             gblur_engine *engine, const BlurDialogSetup *setup)
{
  GtkWidget   *dialog, *preview, *scale;
  GeglBuffer  *buffer;
  gchar       *summary;
  DialogState  state;
  gboolean     run;

  gimp_ui_init (setup->binary);
  dialog = gimp_procedure_dialog_new (procedure, config, _("CUDA Gaussian Blur"));

  preview = gimp_procedure_dialog_get_drawable_preview (GIMP_PROCEDURE_DIALOG (dialog),
                                                        "preview", drawable);
  /* Fine steps at small sigma, still reaching 1500. */
  scale = gimp_procedure_dialog_get_scale_entry (GIMP_PROCEDURE_DIALOG (dialog), "sigma", 1.0);
  gimp_scale_entry_set_logarithmic (GIMP_SCALE_ENTRY (scale), TRUE);
  gimp_label_spin_set_increments (GIMP_LABEL_SPIN (scale), 0.1, 1.0);
  gimp_label_spin_set_digits (GIMP_LABEL_SPIN (scale), 2);
  summary = pixel_engine_summary (engine);
  gimp_procedure_dialog_get_label (GIMP_PROCEDURE_DIALOG (dialog), "backend", summary,
                                   FALSE, FALSE);
  g_free (summary);
  gimp_procedure_dialog_fill (GIMP_PROCEDURE_DIALOG (dialog),
                              "preview", "sigma", "linear", "backend", NULL);

  buffer = gimp_drawable_get_buffer (drawable);
  blur_preview_init (&state.preview, engine, buffer, setup->format);
  g_object_unref (buffer);
  state.config = config;
  g_signal_connect (preview, "invalidated", G_CALLBACK (preview_invalidated), &state);
  g_signal_connect_swapped (config, "notify", G_CALLBACK (gimp_preview_invalidate), preview);

  run = gimp_procedure_dialog_run (GIMP_PROCEDURE_DIALOG (dialog));

  g_signal_handlers_disconnect_by_func (config, gimp_preview_invalidate, preview);
  gtk_widget_destroy (dialog);
  blur_preview_clear (&state.preview);
  return run;
}
