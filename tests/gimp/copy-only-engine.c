/* A stand-in for the engine (kernels/gblur.h) that copies the window
 * instead of blurring it, and the identity of the plug-in built with it:
 * plug-in-cuda-gaussian-blur-copy-only, no menu entry.  Linked with the
 * product's front end and pixel path, it reads and writes every pixel as
 * the plug-in does, so its time is the floor of any plug-in
 * (tests/gimp/perf-in-gimp.sh); linked with the operation, the canvas's
 * host side with an engine that only copies (it says CPU, so the operation
 * chooses by the rates it measures: canvas-bench --profile). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gblur.h"
#include "identity.h"

const BlurIdentity blur_identity = {
  .procedure = "plug-in-cuda-gaussian-blur-copy-only",
  .binary = "cuda-gaussian-blur-copy-only",
  .menu_path = NULL,
  .operation = NULL,
  .catalogs = FALSE,
};

struct gblur_engine {
  int unused;
};

gblur_engine *
gblur_engine_new (const gblur_config *config, gblur_status *status, char *msg, size_t msg_size)
{
  (void) config;
  *status = GBLUR_OK;
  if (msg && msg_size)
    *msg = '\0';
  return calloc (1, sizeof (gblur_engine));
}

void          gblur_engine_free (gblur_engine *engine) { free (engine); }
gblur_backend gblur_engine_backend (const gblur_engine *e) { (void) e; return GBLUR_BACKEND_CPU; }
gblur_backend gblur_engine_start_cuda (gblur_engine *e) { (void) e; return GBLUR_BACKEND_CPU; }
const char   *gblur_engine_describe (const gblur_engine *e) { (void) e; return "copy only"; }
int           gblur_engine_cpu_threads (const gblur_engine *e) { (void) e; return 1; }
const char   *gblur_engine_last_error (const gblur_engine *e) { (void) e; return ""; }

/* Freed buffers are kept for the next run, as the engine's own pool keeps
 * them: a fresh one's page faults are no part of the host side measured. */
#define KEPT 4
#define HEADER 64   /* the size, and the pool's alignment */
static struct { void *p; size_t size; } kept[KEPT];

void *
gblur_engine_alloc_host (gblur_engine *e, size_t size)
{
  (void) e;
  for (int i = 0; i < KEPT; i++)
    if (kept[i].p && kept[i].size >= size && kept[i].size <= 2 * size)
      {
        unsigned char *base = kept[i].p;
        kept[i].p = NULL;
        return base + HEADER;
      }
  for (int i = 0; i < KEPT; i++)   /* room for the new one's size later */
    if (kept[i].p)
      {
        free (kept[i].p);
        kept[i].p = NULL;
        break;
      }
  size_t *base = size <= SIZE_MAX - HEADER ? malloc (size + HEADER) : NULL;
  if (!base)
    return NULL;
  *base = size;
  return (unsigned char *) base + HEADER;
}

void
gblur_engine_free_host (gblur_engine *e, void *ptr)
{
  (void) e;
  if (!ptr)
    return;
  for (int i = 0; i < KEPT; i++)
    if (!kept[i].p)
      {
        kept[i].p = (unsigned char *) ptr - HEADER;
        kept[i].size = *(size_t *) kept[i].p;
        return;
      }
  free ((unsigned char *) ptr - HEADER);
}

void
gblur_engine_release_kept (gblur_engine *e)
{
  (void) e;
  for (int i = 0; i < KEPT; i++)
    {
      free (kept[i].p);
      kept[i].p = NULL;
    }
}

const char *
gblur_engine_cuda_unavailable_reason (const gblur_engine *engine)
{
  (void) engine;
  return "copy-only stand-in";
}

int
gblur_radius (double sigma)
{
  return (int) ceil (3.0 * sigma);
}

size_t
gblur_sample_size (gblur_sample sample)
{
  return sample == GBLUR_U8 ? 1 : sample == GBLUR_U16 ? 2 : 4;
}

gblur_status
gblur_engine_run_window (gblur_engine *engine, const gblur_image *src, int src_x, int src_y,
                         gblur_image *dst, const gblur_params *params, gblur_result *result)
{
  size_t bpp = dst->stride / (size_t) dst->width;

  (void) engine;
  for (int row = 0; row < dst->height; row++)
    memcpy ((unsigned char *) dst->data + row * dst->stride,
            (const unsigned char *) src->data + (row + src_y) * src->stride + src_x * bpp,
            (size_t) dst->width * bpp);
  if (params->progress)
    params->progress (dst->height, dst->height, params->user_data);
  if (result)
    *result = (gblur_result) { .rows_valid = dst->height };
  return GBLUR_OK;
}
