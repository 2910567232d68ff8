/* The engine's test suite: every format, size class, sigma and option
 * against the double-precision reference, outputs poisoned before each run,
 * and every error path.
 * `test-engine --backend cpu|cuda [--quick | --sanitize] [--hash FILE]`
 * (--sanitize: only the small subset that tests/gpu/gpu-check.sh runs under
 * compute-sanitizer, see test-engine-sanitize.c; --hash: a line per checked
 * output, to compare two builds' pixels with the same GBLUR_TEST_SEED).
 * With --backend cuda on a machine without a usable GPU it prints
 * "skipped: no CUDA device" and exits 77 (automake's SKIP).
 * This file reads the options and runs the subjects, one file each:
 * formats (test-engine-formats.c), per-axis sigmas (-axes), windows and
 * tiles (-windows), the FFT path (-fft), alpha and the sRGB encoder
 * (-conversions), CUDA (-cuda), errors (-errors), the environment
 * (-environment); test-engine-cases.c compares one case with the
 * reference. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gblur.h"
#include "pixel-env.h"
#include "test-engine.h"
#include "test-begin.h"
#include "test-util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

gblur_backend   backend = GBLUR_BACKEND_CPU;
int             quick;
static int      sanitize;   /* --sanitize: run_sanitize only */
FILE           *hash_out;   /* --hash FILE: a hash of each checked output */
PixelEnv        test_env;   /* GBLUR_CPU_ISA and the like, for every engine */

/* The options into the globals above; 0, or 2 (usage, or --hash's file). */
static int
parse_options (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--backend") == 0 && i + 1 < argc)
        {
          i++;
          backend = strcmp (argv[i], "cuda") == 0 ? GBLUR_BACKEND_CUDA : GBLUR_BACKEND_CPU;
        }
      else if (strcmp (argv[i], "--quick") == 0)
        quick = 1;
      else if (strcmp (argv[i], "--sanitize") == 0)
        sanitize = quick = 1;   /* quick: test_windows' 8 cases */
      else if (strcmp (argv[i], "--hash") == 0 && i + 1 < argc && !hash_out)
        {
          hash_out = fopen (argv[++i], "w");
          if (!hash_out)
            {
              perror (argv[i]);
              return 2;
            }
        }
      else
        {
          fprintf (stderr, "usage: %s [--backend cpu|cuda] [--quick | --sanitize] [--hash FILE]\n",
                   argv[0]);
          return 2;
        }
    }
  return 0;
}

/* With --backend cuda: whether no CUDA engine can be made (then printed as
 * a skip); else prints the device. */
static int
cuda_missing (void)
{
  gblur_config  config = with_env ((gblur_config) { .backend = GBLUR_BACKEND_CUDA, .no_fallback = 1 });
  gblur_status  st;
  char          msg[300];
  gblur_engine *probe = gblur_engine_new (&config, &st, msg, sizeof msg);

  if (!probe)
    {
      printf ("skipped: no CUDA device (%s)\n", msg);
      printf ("0 passed, 0 failed, 1 skipped\n");
      return 1;
    }
  printf ("device: %s\n", gblur_engine_describe (probe));
  gblur_engine_free (probe);
  return 0;
}

/* The whole suite (without --sanitize), subject by subject. */
static void
run_suite (void)
{
  {
    gblur_engine *engine = new_engine (0, 0);
    printf ("backend in use: %s\n", gblur_engine_describe (engine));
    test_matrix (engine);
    test_axis_matrix (engine);
    test_long_sums (engine, "");
    test_windows (engine, 0);
    test_windows (engine, 1);
    test_rgba8 (engine);
    test_rgba8_small_radii (engine);
    test_gray8_small_radii (engine);
#ifdef HAVE_CUDA
    if (backend == GBLUR_BACKEND_CUDA)
      test_cuda_specific (engine);
#endif
    gblur_engine_free (engine);
  }
#ifdef HAVE_CUDA
  if (backend == GBLUR_BACKEND_CUDA)
    test_cuda_paths ();
#endif
  test_tiling ();
  test_cuda_tile_plan ();
  test_deferred_reason ();
  test_deferred_cuda ();
  if (backend == GBLUR_BACKEND_CPU)
    {
      test_srgb_encode ();
      test_fft_forced ();
      test_fft_hdr_rows ();
      test_opaque_alpha ();
      test_fft_vs_direct ();
      test_fft_hard ();
      test_fft_bounded ();
      test_fft_bounded_small ();
      test_kept_buffers ();
    }
  test_progress_and_cancel ();
  test_errors ();
  test_environment ();
}

int
main (int argc, char **argv)
{
  if (parse_options (argc, argv) != 0 || !test_begin ("engine tests", backend, &test_env))
    return 2;

  if (backend == GBLUR_BACKEND_CUDA && cuda_missing ())
    return 77;
  if (sanitize)
    run_sanitize ();
  else
    run_suite ();
  printf ("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
