/* The engine's settings: its configuration, and the environment variables
 * that override it or steer the tests.  This is the only place the engine
 * reads the environment (the variables are listed in gblur-internal.h). */
#include "gblur-internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void
say (char *msg, size_t msg_size, const char *text)
{
  if (msg && msg_size > 0)
    snprintf (msg, msg_size, "%s", text);
}

static int
parse_backend (const char *env, gblur_backend *backend)
{
  if (!env || !*env)
    return 1;
  if (strcasecmp (env, "cpu") == 0)
    *backend = GBLUR_BACKEND_CPU;
  else if (strcasecmp (env, "cuda") == 0)
    *backend = GBLUR_BACKEND_CUDA;
  else if (strcasecmp (env, "auto") == 0)
    *backend = GBLUR_BACKEND_AUTO;
  else
    return 0;
  return 1;
}

/* baseline|avx2|avx512 -> 0..2; anything else: no cap (-1). */
static int
parse_isa_cap (const char *env)
{
  static const char *const names[] = { "baseline", "avx2", "avx512" };

  for (int i = 0; env && i < 3; i++)
    if (strcmp (env, names[i]) == 0)
      return i;
  return -1;
}

/* off|always -> GBLUR_FFT_OFF|ALWAYS; unset or empty: auto; 0 when
 * malformed. */
static int
parse_fft_mode (const char *env, gblur_fft_mode *mode)
{
  *mode = GBLUR_FFT_AUTO;
  if (!env || !*env)
    return 1;
  if (strcmp (env, "off") == 0)
    *mode = GBLUR_FFT_OFF;
  else if (strcmp (env, "always") == 0)
    *mode = GBLUR_FFT_ALWAYS;
  else
    return 0;
  return 1;
}

/* GBLUR_FAULT's sites and where each one's N goes. */
static const struct { const char *name; size_t offset; } fault_sites[] = {
  { "cuda-init", offsetof (gblur_faults, cuda_init) },
  { "cuda-alloc", offsetof (gblur_faults, cuda_alloc) },
  { "cuda-copy", offsetof (gblur_faults, cuda_copy) },
  { "cuda-launch", offsetof (gblur_faults, cuda_launch) },
  { "cpu-alloc", offsetof (gblur_faults, cpu_alloc) },
  { "cpu-stripe", offsetof (gblur_faults, cpu_stripe) },
  { "host-alloc", offsetof (gblur_faults, host_alloc) },
  { "stall", offsetof (gblur_faults, stall) },
};
#define FAULT_SITES (sizeof fault_sites / sizeof fault_sites[0])

/* The site whose name is the `len` bytes at p; FAULT_SITES when none is. */
static size_t
fault_site (const char *p, size_t len)
{
  size_t i;

  for (i = 0; i < FAULT_SITES; i++)
    if (strlen (fault_sites[i].name) == len && strncmp (p, fault_sites[i].name, len) == 0)
      break;
  return i;
}

/* The N of ":N" at *p, *p moved past it; *n stays as it is when there is
 * no ":N".  0 when N is malformed, with the reason in msg. */
static int
fault_count (const char *spec, const char **p, const char *site, long *n, char *msg, size_t msg_size)
{
  char *end;

  if (**p != ':')
    return 1;
  *n = strtol (*p + 1, &end, 10);
  if (end == *p + 1 || *n < 1 || *n > 1000000000 || (*end && *end != ','))
    {
      if (msg && msg_size)
        snprintf (msg, msg_size, "GBLUR_FAULT=%s: '%s' after '%s:' must be a count from 1",
                  spec, *p + 1, site);
      return 0;
    }
  *p = end;
  return 1;
}

/* Parses GBLUR_FAULT (syntax in gblur-internal.h) into *faults; 0 on a
 * malformed value, with the reason in msg. */
static int
parse_faults (const char *spec, gblur_faults *faults, char *msg, size_t msg_size)
{
  const char *p = spec;

  memset (faults, 0, sizeof *faults);
  if (!spec || !*spec)
    return 1;
  for (;;)
    {
      size_t len = strcspn (p, ":,");
      size_t i = fault_site (p, len);
      long   n = 1;

      if (i == FAULT_SITES)
        {
          if (msg && msg_size)
            snprintf (msg, msg_size, "GBLUR_FAULT=%s: unknown site '%.*s' (cuda-init, cuda-alloc, "
                      "cuda-copy, cuda-launch, cpu-alloc, cpu-stripe, host-alloc or stall)",
                      spec, (int) len, p);
          return 0;
        }
      p += len;
      if (!fault_count (spec, &p, fault_sites[i].name, &n, msg, msg_size))
        return 0;
      *(int *) ((char *) faults + fault_sites[i].offset) = (int) n;
      if (!*p)
        return 1;
      p++;  /* the comma; a trailing one names an empty site, refused above */
    }
}

int
gblur_settings_read (const gblur_config *config, gblur_settings *settings, char *msg,
                     size_t msg_size)
{
  const char *threads = getenv ("GBLUR_THREADS");
  const char *device = getenv ("GBLUR_CUDA_DEVICE");

  memset (settings, 0, sizeof *settings);
  settings->backend = config->backend;
  settings->memory_limit = config->memory_limit ? config->memory_limit
                                                : GBLUR_DEFAULT_MEMORY_LIMIT;
  settings->no_fallback = config->no_fallback;
  settings->defer_cuda = config->defer_cuda;
  settings->threads = threads && atoi (threads) > 0 ? atoi (threads) : config->threads;
  settings->cpu_isa_cap = parse_isa_cap (getenv ("GBLUR_CPU_ISA"));
  settings->cuda_device = device && *device ? atoi (device) : 0;
  settings->cuda_device_env = device;
  settings->cuda_no_fused = getenv ("GBLUR_CUDA_NO_FUSED") != NULL;
  settings->cuda_no_gray = getenv ("GBLUR_CUDA_NO_GRAY") != NULL;
  settings->cuda_no_mma = getenv ("GBLUR_CUDA_NO_MMA") != NULL;
  if (!config->backend_fixed && !parse_backend (getenv ("GBLUR_BACKEND"), &settings->backend))
    {
      say (msg, msg_size, "GBLUR_BACKEND must be cpu, cuda or auto");
      return 0;
    }
  if (!parse_fft_mode (getenv ("GBLUR_CPU_FFT"), &settings->cpu_fft))
    {
      say (msg, msg_size, "GBLUR_CPU_FFT must be off or always");
      return 0;
    }
  return parse_faults (getenv ("GBLUR_FAULT"), &settings->faults, msg, msg_size);
}
