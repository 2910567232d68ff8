/* The environment, read in this one place (pixel-env.h). */
#include "pixel-env.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_THREADS 4096
#define MAX_CUDA_DEVICE 1023

static const PixelEnv defaults = { .backend = GBLUR_BACKEND_AUTO, .overlap = 1 };

/* The variable's value; NULL when it is unset or empty. */
static const char *
value_of (const char *name)
{
  const char *value = getenv (name);

  return value && *value ? value : NULL;
}

static int
refuse (char *msg, size_t msg_size, const char *name, const char *what)
{
  if (msg && msg_size > 0)
    snprintf (msg, msg_size, "%s must be %s", name, what);
  return 0;
}

/* *index: which of the NULL-ended names the value is (any case); left as
 * it is when the variable is unset. */
static int
read_choice (const char *name, const char *const *names, const char *what, int *index, char *msg,
             size_t msg_size)
{
  const char *value = value_of (name);

  if (!value)
    return 1;
  for (int i = 0; names[i]; i++)
    if (strcasecmp (value, names[i]) == 0)
      {
        *index = i;
        return 1;
      }
  return refuse (msg, msg_size, name, what);
}

/* A whole number in [min, max]; *n left as it is when unset. */
static int
read_count (const char *name, long min, long max, int *n, char *msg, size_t msg_size)
{
  const char *value = value_of (name);
  char        what[80];
  char       *end;
  long        v;

  if (!value)
    return 1;
  v = strtol (value, &end, 10);
  if (end != value && !*end && v >= min && v <= max)
    {
      *n = (int) v;
      return 1;
    }
  snprintf (what, sizeof what, "a whole number from %ld to %ld", min, max);
  return refuse (msg, msg_size, name, what);
}

/* 0 or 1; *on left as it is when unset. */
static int
read_switch (const char *name, int *on, char *msg, size_t msg_size)
{
  const char *value = value_of (name);

  if (!value)
    return 1;
  if (strcmp (value, "0") != 0 && strcmp (value, "1") != 0)
    return refuse (msg, msg_size, name, "0 or 1");
  *on = value[0] == '1';
  return 1;
}

/* GBLUR_CUDA_NO_*: the CUDA paths left out. */
static int
read_cuda_skip (unsigned *skip, char *msg, size_t msg_size)
{
  static const struct { const char *name; unsigned flag; } paths[] = {
    { "GBLUR_CUDA_NO_FUSED", GBLUR_CUDA_SKIP_FUSED },
    { "GBLUR_CUDA_NO_GRAY", GBLUR_CUDA_SKIP_GRAY },
    { "GBLUR_CUDA_NO_MMA", GBLUR_CUDA_SKIP_MMA },
  };

  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
    {
      int on = 0;

      if (!read_switch (paths[i].name, &on, msg, msg_size))
        return 0;
      *skip |= on ? paths[i].flag : 0;
    }
  return 1;
}

/* The variables that steer the engine, into env. */
static int
read_engine_settings (PixelEnv *env, char *msg, size_t msg_size)
{
  static const char *const backends[] = { "auto", "cpu", "cuda", NULL };  /* gblur_backend's order */
  static const char *const isas[] = { "baseline", "avx2", "avx512", NULL };
  static const char *const ffts[] = { "off", "always", NULL };
  int                      backend = -1, isa = -1, fft = -1;

  if (!read_choice ("GBLUR_BACKEND", backends, "cpu, cuda or auto", &backend, msg, msg_size)
      || !read_count ("GBLUR_THREADS", 0, MAX_THREADS, &env->threads, msg, msg_size)
      || !read_count ("GBLUR_CUDA_DEVICE", 0, MAX_CUDA_DEVICE, &env->cuda_device, msg, msg_size)
      || !read_choice ("GBLUR_CPU_ISA", isas, "baseline, avx2 or avx512", &isa, msg, msg_size)
      || !read_choice ("GBLUR_CPU_FFT", ffts, "off or always", &fft, msg, msg_size)
      || !read_cuda_skip (&env->cuda_skip, msg, msg_size))
    return 0;
  env->backend_set = backend >= 0;
  env->backend = backend >= 0 ? (gblur_backend) backend : GBLUR_BACKEND_AUTO;
  env->cpu_isa = (gblur_cpu_isa) (isa + 1);    /* unset: GBLUR_CPU_ISA_BEST */
  env->cpu_fft = (gblur_fft_mode) (fft + 1);   /* unset: GBLUR_FFT_AUTO */
  return 1;
}

/* GBLUR_FAULT's sites and where each one's N goes: the engine's faults,
 * and the stall, which the front ends' progress callbacks carry. */
typedef struct {
  gblur_faults engine;
  int          stall;
} FaultSet;

static const struct { const char *name; size_t offset; } fault_sites[] = {
  { "cuda-init", offsetof (FaultSet, engine.cuda_init) },
  { "cuda-alloc", offsetof (FaultSet, engine.cuda_alloc) },
  { "cuda-short", offsetof (FaultSet, engine.cuda_short) },
  { "cuda-copy", offsetof (FaultSet, engine.cuda_copy) },
  { "cuda-launch", offsetof (FaultSet, engine.cuda_launch) },
  { "cpu-alloc", offsetof (FaultSet, engine.cpu_alloc) },
  { "cpu-stripe", offsetof (FaultSet, engine.cpu_stripe) },
  { "host-alloc", offsetof (FaultSet, engine.host_alloc) },
  { "stall", offsetof (FaultSet, stall) },
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

/* Parses spec into *set; 0 on a malformed value, with the reason in msg. */
static int
parse_fault_set (const char *spec, FaultSet *set, char *msg, size_t msg_size)
{
  const char *p = spec;

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
      *(int *) ((char *) set + fault_sites[i].offset) = (int) n;
      if (!*p)
        return 1;
      p++;  /* the comma; a trailing one names an empty site, refused above */
    }
}

int
pixel_env_parse_faults (const char *spec, gblur_faults *faults, int *stall_at, char *msg,
                        size_t msg_size)
{
  FaultSet set;
  int      ok;

  memset (&set, 0, sizeof set);
  ok = !spec || !*spec || parse_fault_set (spec, &set, msg, msg_size);
  if (!ok)
    memset (&set, 0, sizeof set);
  *faults = set.engine;
  *stall_at = set.stall;
  return ok;
}

int
pixel_env_read (PixelEnv *env, char *msg, size_t msg_size)
{
  *env = defaults;
  if (msg && msg_size > 0)
    msg[0] = '\0';
  if (read_engine_settings (env, msg, msg_size)
      && read_switch ("GBLUR_VERBOSE", &env->verbose, msg, msg_size)
      && read_switch ("GBLUR_PROFILE", &env->profile, msg, msg_size)
      && read_switch ("GBLUR_OVERLAP", &env->overlap, msg, msg_size)
      && read_switch ("GBLUR_GEGL_MODULES", &env->gegl_modules, msg, msg_size)
      && pixel_env_parse_faults (value_of ("GBLUR_FAULT"), &env->faults, &env->stall_at, msg,
                                 msg_size))
    return 1;
  *env = defaults;
  return 0;
}

static PixelEnv       process_env;
static char           process_error[300];
static pthread_once_t process_once = PTHREAD_ONCE_INIT;

static void
read_process_env (void)
{
  pixel_env_read (&process_env, process_error, sizeof process_error);
}

const PixelEnv *
pixel_env (void)
{
  pthread_once (&process_once, read_process_env);
  return &process_env;
}

const char *
pixel_env_error (void)
{
  pthread_once (&process_once, read_process_env);
  return process_error;
}

static int
any_fault (const gblur_faults *f)
{
  return f->cuda_init || f->cuda_alloc || f->cuda_short || f->cuda_copy || f->cuda_launch || f->cpu_alloc
         || f->cpu_stripe || f->host_alloc;
}

void
pixel_env_apply (const PixelEnv *env, gblur_config *config)
{
  if (env->threads > 0)
    config->threads = env->threads;
  if (env->cuda_device > 0)
    config->cuda_device = env->cuda_device;
  if (env->cpu_isa != GBLUR_CPU_ISA_BEST)
    config->cpu_isa = env->cpu_isa;
  if (env->cpu_fft != GBLUR_FFT_AUTO)
    config->cpu_fft = env->cpu_fft;
  config->cuda_skip |= env->cuda_skip;
  if (any_fault (&env->faults))
    config->faults = &env->faults;   /* the engine copies it when it is made */
}
