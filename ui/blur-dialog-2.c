/* The dialog for GIMP 2.10 (GTK 2): gimp_dialog_new and a scale entry. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>

#include "blur-dialog.h"
#include "pixel-engine.h"
#include "blur-preview.h"

#define SCALE_WIDTH 240
#define SPIN_DIGITS 6

typedef struct {
  BlurPreview  preview;
  BlurValues  *values;
} DialogState;

static void
preview_invalidated (GimpPreview *preview, DialogState *state)
{
  blur_preview_render (&state->preview, preview, state->values->sigma, state->values->linear);
}

gboolean
blur_dialog (gint32 drawable, gblur_engine *engine, const BlurDialogSetup *setup, BlurValues *values)
{
  GtkWidget  *dialog, *main_vbox, *preview, *table, *toggle, *label;
  GtkObject  *adj;
  GeglBuffer *buffer;
  gchar      *summary;
  DialogState state;
  gboolean    run;

  gimp_ui_init (setup->binary, TRUE);
  dialog = gimp_dialog_new (_("CUDA Gaussian Blur"), setup->binary, NULL, 0,
                            gimp_standard_help_func, setup->help_id,
                            _("_Cancel"), GTK_RESPONSE_CANCEL,
                            _("_OK"), GTK_RESPONSE_OK,
                            NULL);
  gtk_dialog_set_alternative_button_order (GTK_DIALOG (dialog), GTK_RESPONSE_OK,
                                           GTK_RESPONSE_CANCEL, -1);
  gimp_window_set_transient (GTK_WINDOW (dialog));

  main_vbox = gtk_vbox_new (FALSE, 12);
  gtk_container_set_border_width (GTK_CONTAINER (main_vbox), 12);
  gtk_box_pack_start (GTK_BOX (gtk_dialog_get_content_area (GTK_DIALOG (dialog))),
                      main_vbox, TRUE, TRUE, 0);

  preview = gimp_drawable_preview_new_from_drawable_id (drawable);
  gtk_box_pack_start (GTK_BOX (main_vbox), preview, TRUE, TRUE, 0);

  table = gtk_table_new (1, 3, FALSE);
  gtk_table_set_col_spacings (GTK_TABLE (table), 6);
  gtk_box_pack_start (GTK_BOX (main_vbox), table, FALSE, FALSE, 0);
  adj = gimp_scale_entry_new (GTK_TABLE (table), 0, 0, _("S_igma:"), SCALE_WIDTH, SPIN_DIGITS,
                              values->sigma, GBLUR_SIGMA_MIN, GBLUR_SIGMA_MAX, 0.1, 1.0, 2,
                              TRUE, 0, 0, setup->sigma_help, NULL);
  /* Fine steps at small sigma, still reaching 1500. */
  gimp_scale_entry_set_logarithmic (adj, TRUE);
  g_signal_connect (adj, "value-changed", G_CALLBACK (gimp_double_adjustment_update),
                    &values->sigma);
  g_signal_connect_swapped (adj, "value-changed", G_CALLBACK (gimp_preview_invalidate), preview);

  toggle = gtk_check_button_new_with_mnemonic (_("Li_near light"));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle), values->linear);
  gimp_help_set_help_data (toggle, setup->linear_help, NULL);
  gtk_box_pack_start (GTK_BOX (main_vbox), toggle, FALSE, FALSE, 0);
  g_signal_connect (toggle, "toggled", G_CALLBACK (gimp_toggle_button_update), &values->linear);
  g_signal_connect_swapped (toggle, "toggled", G_CALLBACK (gimp_preview_invalidate), preview);

  summary = pixel_engine_summary (engine);
  label = gtk_label_new (summary);
  g_free (summary);
  gtk_misc_set_alignment (GTK_MISC (label), 0.0, 0.5);
  gtk_label_set_line_wrap (GTK_LABEL (label), TRUE);
  gtk_box_pack_start (GTK_BOX (main_vbox), label, FALSE, FALSE, 0);

  buffer = gimp_drawable_get_buffer (drawable);
  blur_preview_init (&state.preview, engine, buffer, setup->format);
  g_object_unref (buffer);
  state.values = values;
  g_signal_connect (preview, "invalidated", G_CALLBACK (preview_invalidated), &state);

  gtk_widget_show_all (dialog);
  run = gimp_dialog_run (GIMP_DIALOG (dialog)) == GTK_RESPONSE_OK;

  gtk_widget_destroy (dialog);
  blur_preview_clear (&state.preview);
  return run;
}
