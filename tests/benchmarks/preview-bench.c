/* Times a dialog preview update the way the plug-in does it (ui/blur-preview.c
 * -> pixels/pixel-path.c): allocate host buffers with the engine's
 * allocator, copy the visible rectangle plus its halo out of the drawable,
 * blur that window, free.  GEGL's copy is stood in for by memcpy, so this runs
 * where GIMP is not installed (the GPU machine) too.
 *   preview-bench [--backend cpu|cuda] [--size 512] [--format gray|rgba]
 */
#include "gblur.h"
#include "pixel-env.h"
#include "timing.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define IMAGE 4096   /* the drawable the preview looks into */

int
main (int argc, char **argv)
{
  gblur_backend backend = GBLUR_BACKEND_CPU;
  int           size = 512, channels = 4;
  static const double sigmas[] = { 2, 20, 100 };

  for (int i = 1; i + 1 < argc; i += 2)
    {
      if (strcmp (argv[i], "--backend") == 0)
        backend = strcmp (argv[i + 1], "cuda") == 0 ? GBLUR_BACKEND_CUDA : GBLUR_BACKEND_CPU;
      else if (strcmp (argv[i], "--size") == 0)
        size = atoi (argv[i + 1]);
      else if (strcmp (argv[i], "--format") == 0)
        channels = strcmp (argv[i + 1], "gray") == 0 ? 1 : 4;
    }

  gblur_config  config = { .backend = backend, .no_fallback = 1 };
  gblur_status  st;
  char          msg[300];
  PixelEnv      env;   /* GBLUR_THREADS, GBLUR_CPU_ISA and the like */
  gblur_engine *engine;

  if (!pixel_env_read (&env, msg, sizeof msg))
    {
      fprintf (stderr, "preview-bench: %s\n", msg);
      return 2;
    }
  pixel_env_apply (&env, &config);
  engine = gblur_engine_new (&config, &st, msg, sizeof msg);
  if (!engine)
    {
      printf ("skipped: %s\n", msg);
      return 77;
    }
  unsigned char *image = malloc ((size_t) IMAGE * IMAGE * channels);
  uint64_t       s = 88172645463325252ull;
  for (size_t i = 0; i < (size_t) IMAGE * IMAGE * channels; i++)
    {
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      image[i] = (unsigned char) (s >> 32);
    }

  printf ("| backend | format | preview | sigma | ms per update (median of 15) |\n| --- | --- | --- | --- | --- |\n");
  for (size_t g = 0; g < sizeof sigmas / sizeof sigmas[0]; g++)
    {
      double t[15];
      int    r = gblur_radius (sigmas[g]);
      int    x = (IMAGE - size) / 2, y = x;   /* a rectangle in the middle */
      int    hx = x - r < 0 ? 0 : x - r, hy = hx;
      int    hw = (x + size + r > IMAGE ? IMAGE : x + size + r) - hx, hh = hw;
      for (int rep = 0; rep < 16; rep++)
        {
          double       t0 = now_ms ();
          gblur_image  src = { NULL, (size_t) hw * channels, hw, hh, channels, GBLUR_U8 };
          gblur_image  dst = { NULL, (size_t) size * channels, size, size, channels, GBLUR_U8 };
          gblur_params params = { .sigma = sigmas[g],
                                  .flags = GBLUR_LINEAR_LIGHT
                                           | (channels == 4 ? GBLUR_PREMULTIPLY_ALPHA : 0) };
          src.data = gblur_engine_alloc_host (engine, src.stride * hh);
          dst.data = gblur_engine_alloc_host (engine, dst.stride * size);
          for (int row = 0; row < hh; row++)
            memcpy ((unsigned char *) src.data + row * src.stride,
                    image + ((size_t) (hy + row) * IMAGE + hx) * channels, src.stride);
          if (gblur_engine_run_window (engine, &src, x - hx, y - hy, &dst, &params, NULL) != GBLUR_OK)
            {
              printf ("error: %s\n", gblur_engine_last_error (engine));
              return 1;
            }
          gblur_engine_free_host (engine, src.data);
          gblur_engine_free_host (engine, dst.data);
          if (rep > 0)   /* the first is the warm-up */
            t[rep - 1] = now_ms () - t0;
        }
      qsort (t, 15, sizeof t[0], cmp_double);
      printf ("| %s | %s | %d² | %g | %.2f |\n", gblur_engine_describe (engine),
              channels == 4 ? "RGBA8 linear" : "gray8 linear", size, sigmas[g], t[7]);
    }
  gblur_engine_free (engine);
  free (image);
  return 0;
}
