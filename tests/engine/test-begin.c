/* The start the engine's suites share (test-begin.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "test-begin.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "test-util.h"

int
test_begin (const char *what, gblur_backend backend, PixelEnv *env)
{
  const char *seed_env = getenv ("GBLUR_TEST_SEED");
  uint64_t    seed = seed_env ? strtoull (seed_env, NULL, 0) : (uint64_t) time (NULL);
  char        env_error[300];

  rng_state = seed ? seed : 1;
  if (!pixel_env_read (env, env_error, sizeof env_error))
    {
      fprintf (stderr, "%s\n", env_error);
      return 0;
    }
  printf ("%s, backend %s, seed %llu (GBLUR_TEST_SEED to repeat)\n", what,
          backend == GBLUR_BACKEND_CUDA ? "cuda" : "cpu", (unsigned long long) seed);
  return 1;
}
