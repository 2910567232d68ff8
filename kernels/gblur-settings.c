/* The engine's settings: its configuration (gblur_config), checked, with
 * the defaults filled in.  The engine reads nothing else. */
#include "gblur-internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int
refuse (char *msg, size_t msg_size, const char *field, int value)
{
  if (msg && msg_size > 0)
    snprintf (msg, msg_size, "gblur_config.%s %d is out of range", field, value);
  return 0;
}

int
gblur_settings_read (const gblur_config *config, gblur_settings *settings, char *msg,
                     size_t msg_size)
{
  memset (settings, 0, sizeof *settings);
  if ((int) config->cpu_isa < 0 || (int) config->cpu_isa > (int) GBLUR_CPU_ISA_AVX512)
    return refuse (msg, msg_size, "cpu_isa", (int) config->cpu_isa);
  if ((int) config->cpu_fft < 0 || (int) config->cpu_fft > (int) GBLUR_FFT_ALWAYS)
    return refuse (msg, msg_size, "cpu_fft", (int) config->cpu_fft);
  settings->backend = config->backend;
  settings->memory_limit = config->memory_limit ? config->memory_limit
                                                : GBLUR_DEFAULT_MEMORY_LIMIT;
  settings->no_fallback = config->no_fallback;
  settings->defer_cuda = config->defer_cuda;
  settings->threads = config->threads;
  /* BEST -> -1 (no cap), BASELINE..AVX512 -> 0..2 */
  settings->cpu_isa_cap = (int) config->cpu_isa - 1;
  settings->cpu_fft = config->cpu_fft;
  settings->cuda_device = config->cuda_device;
  settings->cuda_no_fused = (config->cuda_skip & GBLUR_CUDA_SKIP_FUSED) != 0;
  settings->cuda_no_gray = (config->cuda_skip & GBLUR_CUDA_SKIP_GRAY) != 0;
  settings->cuda_no_mma = (config->cuda_skip & GBLUR_CUDA_SKIP_MMA) != 0;
  if (config->faults)
    settings->faults = *config->faults;
  return 1;
}
