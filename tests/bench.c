/* The engine's benchmark: times each backend over a fixed matrix and prints
 * a table.  Host-to-host runs use the engine's host allocator (pinned memory
 * on CUDA); device-resident runs rotate through input buffers larger than the
 * GPU's L2 cache.  Inputs are random, never zeros.
 *
 *   bench [--backend cpu|cuda|cuda-device|all] [--size N]... [--sigma S]...
 *         [--format gray|rgba|all] [--reps N]
 */
#include "gblur.h"
#include "timing.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_CUDA
#include <cuda_runtime.h>
#endif

static void
fill_random (unsigned char *p, size_t n, uint64_t seed)
{
  uint64_t s = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; i++)
    {
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      p[i] = (unsigned char) (s >> 24);
    }
}

typedef enum { RUN_CPU, RUN_CUDA, RUN_CUDA_DEVICE } run_kind;
static const char *run_names[] = { "cpu", "cuda", "cuda-device" };

/* Median of `reps` timed runs after one warm-up, in ms; < 0 on error. */
static double
time_case (gblur_engine *engine, run_kind kind, int size, int channels, double sigma, int reps)
{
  gblur_params params = { sigma, 0, NULL, NULL };
  size_t       bytes = (size_t) size * size * channels;
  double      *t = calloc ((size_t) reps, sizeof *t);
  double       result = -1;
  gblur_image  src = { NULL, (size_t) size * channels, size, size, channels, GBLUR_U8 };
  gblur_image  dst = src;

  if (kind != RUN_CUDA_DEVICE)
    {
      src.data = gblur_engine_alloc_host (engine, bytes);
      dst.data = gblur_engine_alloc_host (engine, bytes);
      if (src.data && dst.data)
        {
          fill_random (src.data, bytes, (uint64_t) size + channels);
          if (gblur_engine_run (engine, &src, &dst, &params, NULL) == GBLUR_OK)
            {
              for (int i = 0; i < reps; i++)
                {
                  double t0 = now_ms ();
                  gblur_engine_run (engine, &src, &dst, &params, NULL);
                  t[i] = now_ms () - t0;
                }
              qsort (t, (size_t) reps, sizeof *t, cmp_double);
              result = t[reps / 2];
            }
          else
            fprintf (stderr, "run failed: %s\n", gblur_engine_last_error (engine));
        }
      gblur_engine_free_host (engine, src.data);
      gblur_engine_free_host (engine, dst.data);
    }
#ifdef HAVE_CUDA
  else
    {
      /* Enough inputs to cover 256 MB, so no run finds its input in L2. */
      int    nbuf = (int) ((256u << 20) / bytes) + 1;
      void **in;
      void  *out = NULL;
      int    ok = 1;
      nbuf = nbuf < 2 ? 2 : nbuf > 64 ? 64 : nbuf;
      in = calloc ((size_t) nbuf, sizeof *in);
      unsigned char *host = malloc (bytes);
      fill_random (host, bytes, 7);
      for (int b = 0; b < nbuf && ok; b++)
        {
          ok = cudaMalloc (&in[b], bytes) == cudaSuccess;
          if (ok)
            {
              host[0] = (unsigned char) b;  /* each buffer differs */
              cudaMemcpy (in[b], host, bytes, cudaMemcpyHostToDevice);
            }
        }
      ok = ok && cudaMalloc (&out, bytes) == cudaSuccess;
      if (ok)
        {
          dst.data = out;
          src.data = in[0];
          ok = gblur_engine_run_device (engine, &src, &dst, &params) == GBLUR_OK;
          if (!ok)
            fprintf (stderr, "run failed: %s\n", gblur_engine_last_error (engine));
          for (int i = 0; ok && i < reps; i++)
            {
              cudaEvent_t e0, e1;
              float       ms;
              src.data = in[(i + 1) % nbuf];
              cudaEventCreate (&e0);
              cudaEventCreate (&e1);
              cudaDeviceSynchronize ();
              cudaEventRecord (e0, 0);
              gblur_engine_run_device (engine, &src, &dst, &params);
              cudaEventRecord (e1, 0);
              cudaEventSynchronize (e1);
              cudaEventElapsedTime (&ms, e0, e1);
              t[i] = ms;
              cudaEventDestroy (e0);
              cudaEventDestroy (e1);
            }
          if (ok)
            {
              qsort (t, (size_t) reps, sizeof *t, cmp_double);
              result = t[reps / 2];
            }
        }
      for (int b = 0; b < nbuf; b++)
        cudaFree (in[b]);
      cudaFree (out);
      free (in);
      free (host);
    }
#endif
  free (t);
  return result;
}

int
main (int argc, char **argv)
{
  int    sizes[8], nsizes = 0;
  double sigmas[16];
  int    nsigmas = 0;
  int    want[3] = { 1, 1, 1 };
  int    formats[2] = { 1, 1 };   /* gray, rgba */
  int    reps = 0;

  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (!v)
        goto usage;
      i++;
      if (strcmp (a, "--size") == 0 && nsizes < 8)
        sizes[nsizes++] = atoi (v);
      else if (strcmp (a, "--sigma") == 0 && nsigmas < 16)
        sigmas[nsigmas++] = atof (v);
      else if (strcmp (a, "--reps") == 0)
        reps = atoi (v);
      else if (strcmp (a, "--backend") == 0)
        for (int k = 0; k < 3; k++)
          want[k] = strcmp (v, "all") == 0 || strcmp (v, run_names[k]) == 0;
      else if (strcmp (a, "--format") == 0)
        {
          formats[0] = strcmp (v, "rgba") != 0;
          formats[1] = strcmp (v, "gray") != 0;
        }
      else
        goto usage;
    }
  if (!nsizes)
    {
      sizes[0] = 1024; sizes[1] = 4096; sizes[2] = 8192;
      nsizes = 3;
    }
  if (!nsigmas)
    {
      static const double d[] = { 1, 2, 5, 10, 20, 50 };
      memcpy (sigmas, d, sizeof d);
      nsigmas = 6;
    }

  printf ("| backend | device | format | size | sigma | ms (median) | Mpix/s |\n");
  printf ("| --- | --- | --- | --- | --- | --- | --- |\n");
  for (int k = 0; k < 3; k++)
    {
      if (!want[k])
        continue;
      gblur_config  config = { k == RUN_CPU ? GBLUR_BACKEND_CPU : GBLUR_BACKEND_CUDA, 0, 0, 1 };
      gblur_status  st;
      char          msg[300];
      gblur_engine *engine = gblur_engine_new (&config, &st, msg, sizeof msg);
      if (!engine)
        {
          printf ("| %s | skipped: %s | | | | | |\n", run_names[k], msg);
          continue;
        }
      for (int f = 0; f < 2; f++)
        for (int s = 0; s < nsizes; s++)
          for (int g = 0; g < nsigmas; g++)
            {
              if (!formats[f])
                continue;
              int    channels = f ? 4 : 1;
              double mpix = (double) sizes[s] * sizes[s] / 1e6;
              /* enough repeats for a stable median, bounded for slow rows */
              int    r = reps ? reps : k == RUN_CPU ? (mpix > 20 ? 3 : 5) : 21;
              double ms = time_case (engine, (run_kind) k, sizes[s], channels, sigmas[g], r);
              if (ms < 0)
                printf ("| %s | %s | %s | %d² | %g | error | |\n", run_names[k],
                        gblur_engine_describe (engine), f ? "RGBA8" : "gray8", sizes[s], sigmas[g]);
              else
                printf ("| %s | %s | %s | %d² | %g | %.3f | %.0f |\n", run_names[k],
                        gblur_engine_describe (engine), f ? "RGBA8" : "gray8", sizes[s], sigmas[g],
                        ms, mpix / (ms / 1e3));
              fflush (stdout);
            }
      gblur_engine_free (engine);
    }
  return 0;

usage:
  fprintf (stderr, "usage: %s [--backend cpu|cuda|cuda-device|all] [--size N]... [--sigma S]... "
           "[--format gray|rgba|all] [--reps N]\n", argv[0]);
  return 2;
}
