/* The engine as the GIMP side uses it (pixel-engine.h). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "pixel-engine.h"

G_DEFINE_QUARK (cuda-gaussian-blur-error-quark, blur_error)

/* The engine's configuration: the environment's, and the backend it may
 * choose unless the caller wants the CPU. */
static gblur_config
engine_config (PixelEngineStart start)
{
  const PixelEnv *env = pixel_env ();
  gblur_config    config = { .backend = GBLUR_BACKEND_AUTO,
                             .defer_cuda = start == PIXEL_ENGINE_DEFER_CUDA };

  pixel_env_apply (env, &config);
  if (start == PIXEL_ENGINE_CPU_ONLY)
    config.backend = GBLUR_BACKEND_CPU;
  else if (env->backend_set)
    config.backend = env->backend;
  return config;
}

gblur_engine *
pixel_engine_new (PixelEngineStart start, GError **error)
{
  gblur_config  config;
  gblur_status  status;
  char          msg[300];
  gblur_engine *engine;

  if (*pixel_env_error ())
    {
      g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                   _("The blur engine could not start: %s"), pixel_env_error ());
      return NULL;
    }
  config = engine_config (start);
  engine = gblur_engine_new (&config, &status, msg, sizeof msg);
  if (!engine)
    g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                 _("The blur engine could not start: %s"), msg);
  /* A CPU-only engine is a helper's (a check, a retry): the line names the blur's. */
  else if (pixel_env ()->verbose && start != PIXEL_ENGINE_CPU_ONLY)
    g_printerr ("cuda-gaussian-blur: backend %s%s%s\n", gblur_engine_describe (engine),
                *gblur_engine_cuda_unavailable_reason (engine) ? " — " : "",
                gblur_engine_cuda_unavailable_reason (engine));
  return engine;
}

void
pixel_engine_set_error (GError **error, gblur_status status, gblur_engine *engine)
{
  g_set_error (error, BLUR_ERROR,
               status == GBLUR_E_SIGMA ? BLUR_CALLING_ERROR : BLUR_EXECUTION_ERROR,
               _("The blur failed: %s"), gblur_engine_last_error (engine));
}

void
pixel_engine_note_result (const gblur_result *result)
{
  if (result->fell_back_to_cpu)
    g_printerr ("cuda-gaussian-blur: the GPU failed; the CPU finished the blur\n");
}

gchar *
pixel_engine_summary (gblur_engine *engine)
{
  if (gblur_engine_backend (engine) == GBLUR_BACKEND_CUDA)
    return g_strdup_printf (_("GPU: %s"), gblur_engine_describe (engine));
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "CPU: %d thread — %s",
                                       "CPU: %d threads — %s",
                                       gblur_engine_cpu_threads (engine)),
                          gblur_engine_cpu_threads (engine),
                          gblur_engine_cuda_unavailable_reason (engine));
}
