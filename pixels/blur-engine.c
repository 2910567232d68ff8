/* The engine as the GIMP side uses it (blur-engine.h). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "blur-engine.h"

G_DEFINE_QUARK (cuda-gaussian-blur-error-quark, blur_error)

const BlurEnvironment *
blur_environment (void)
{
  static BlurEnvironment env;
  static gsize           read = 0;

  if (g_once_init_enter (&read))
    {
      env.verbose = g_getenv ("CUDA_GBLUR_VERBOSE") != NULL;
      env.overlap = g_strcmp0 (g_getenv ("CUDA_GBLUR_OVERLAP"), "0") != 0;
      env.gegl_modules = g_strcmp0 (g_getenv ("CUDA_GBLUR_GEGL_MODULES"), "1") == 0;
      g_once_init_leave (&read, 1);
    }
  return &env;
}

static gblur_engine *
engine_new (const gblur_config *config, GError **error)
{
  gblur_status  status;
  char          msg[300];
  gblur_engine *engine = gblur_engine_new (config, &status, msg, sizeof msg);

  if (!engine)
    g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                 _("The blur engine could not start: %s"), msg);
  else if (blur_environment ()->verbose)
    g_printerr ("cuda-gaussian-blur: backend %s%s%s\n", gblur_engine_describe (engine),
                *gblur_engine_cuda_unavailable_reason (engine) ? " — " : "",
                gblur_engine_cuda_unavailable_reason (engine));
  return engine;
}

gblur_engine *
blur_engine_new (gboolean once, GError **error)
{
  gblur_config config = { .backend = GBLUR_BACKEND_AUTO, .defer_cuda = once };

  return engine_new (&config, error);
}

gblur_engine *
blur_cpu_engine_new (GError **error)
{
  gblur_config config = { .backend = GBLUR_BACKEND_CPU, .backend_fixed = 1 };

  return engine_new (&config, error);
}

void
blur_set_engine_error (GError **error, gblur_status status, gblur_engine *engine)
{
  g_set_error (error, BLUR_ERROR,
               status == GBLUR_E_SIGMA ? BLUR_CALLING_ERROR : BLUR_EXECUTION_ERROR,
               _("The blur failed: %s"), gblur_engine_last_error (engine));
}

void
blur_note_result (const gblur_result *result)
{
  if (result->fell_back_to_cpu)
    g_printerr ("cuda-gaussian-blur: the GPU failed; the CPU finished the blur\n");
}

gchar *
blur_engine_summary (gblur_engine *engine)
{
  if (gblur_engine_backend (engine) == GBLUR_BACKEND_CUDA)
    return g_strdup_printf (_("GPU: %s"), gblur_engine_describe (engine));
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "CPU: %d thread — %s",
                                       "CPU: %d threads — %s",
                                       gblur_engine_cpu_threads (engine)),
                          gblur_engine_cpu_threads (engine),
                          gblur_engine_cuda_unavailable_reason (engine));
}
