/* The environment as the front ends read it (pixels/pixel-env.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gblur.h"
#include "pixel-env.h"
#include "test-engine.h"
#include "test-util.h"

#include <stdlib.h>
#include <string.h>

/* Sets the variable (unsets it: NULL); returns its old value (a copy;
 * NULL when unset). */
static char *
set_variable (const char *name, const char *value)
{
  const char *old = getenv (name);
  char       *saved = old ? strdup (old) : NULL;

  if (value)
    setenv (name, value, 1);
  else
    unsetenv (name);
  return saved;
}

static void
restore_variable (const char *name, char *saved)
{
  if (saved)
    setenv (name, saved, 1);
  else
    unsetenv (name);
  free (saved);
}

/* The environment as the front ends read it (pixels/pixel-env.h): a bad
 * value is refused with its variable's name; good ones reach the engine
 * through its config. */
void
test_environment (void)
{
  static const char *const bad[][2] = {
    { "GBLUR_BACKEND", "gpu-please" }, { "GBLUR_THREADS", "two" }, { "GBLUR_THREADS", "-1" },
    { "GBLUR_CUDA_DEVICE", "1x" }, { "GBLUR_CPU_ISA", "sse9" }, { "GBLUR_CPU_FFT", "sometimes" },
    { "GBLUR_CUDA_NO_MMA", "yes" }, { "GBLUR_VERBOSE", "2" }, { "GBLUR_OVERLAP", "off" },
    { "GBLUR_GEGL_MODULES", "true" }, { "GBLUR_FAULT", "cpu-strip" },
  };
  static const char *const good[][2] = {
    { "GBLUR_BACKEND", "CPU" }, { "GBLUR_THREADS", "3" }, { "GBLUR_CPU_FFT", "off" },
    { "GBLUR_CUDA_NO_GRAY", "1" }, { "GBLUR_FAULT", "cpu-stripe:2,stall:4" }, { "GBLUR_OVERLAP", "0" },
    /* gpu-check.sh runs the suite with these set */
    { "GBLUR_CUDA_NO_MMA", NULL }, { "GBLUR_CUDA_NO_FUSED", NULL },
  };
  char         *saved[sizeof good / sizeof good[0]];
  PixelEnv      env;
  gblur_config  config;
  gblur_engine *engine;
  char          msg[300];

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      char *old = set_variable (bad[i][0], bad[i][1]);
      int   ok = pixel_env_read (&env, msg, sizeof msg);

      restore_variable (bad[i][0], old);
      check (!ok && strstr (msg, bad[i][0]) && !env.backend_set && env.overlap,
             "%s=%s must be refused with its name: '%s'", bad[i][0], bad[i][1], msg);
    }
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    saved[i] = set_variable (good[i][0], good[i][1]);
  check (pixel_env_read (&env, msg, sizeof msg) && env.backend_set && env.backend == GBLUR_BACKEND_CPU
           && env.threads == 3 && env.cpu_fft == GBLUR_FFT_OFF && env.cuda_skip == GBLUR_CUDA_SKIP_GRAY
           && env.faults.cpu_stripe == 2 && env.stall_at == 4 && !env.overlap,
         "good variables read: '%s'", msg);
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    restore_variable (good[i][0], saved[i]);
  config = (gblur_config) { .backend = env.backend };
  pixel_env_apply (&env, &config);
  engine = gblur_engine_new (&config, NULL, msg, sizeof msg);
  check (engine && gblur_engine_backend (engine) == GBLUR_BACKEND_CPU
           && gblur_engine_cpu_threads (engine) == 3 && config.faults && config.faults->cpu_stripe == 2,
         "GBLUR_BACKEND=cpu and GBLUR_THREADS=3 reach the engine: '%s'", msg);
  gblur_engine_free (engine);
}
