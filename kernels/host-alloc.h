/* The engine's host buffers (gblur_engine_alloc_host): page-locked when
 * CUDA is in use, else large ordinary ones, and freed ones kept for reuse. */
#ifndef GBLUR_HOST_ALLOC_H
#define GBLUR_HOST_ALLOC_H

#include "gblur-internal.h"
#include "tuning.h"

/* Ordinary host buffers kept for reuse: a run's input and output. */
#define PLAIN_KEPT 2

typedef struct {
  unsigned char *pinned_kept[PINNED_KEPT];  /* freed page-locked buffers, for reuse */
  gblur_kept     plain_kept[PLAIN_KEPT];    /* freed large ordinary ones */
} gblur_host_pool;

void  gblur_host_pool_init (gblur_host_pool *pool);
/* Frees the kept buffers; the pool stays usable, empty.  Callers keep
 * alloc, free and clear to one thread at a time (the operation: its lock). */
void  gblur_host_pool_clear (gblur_host_pool *pool);
/* `size` bytes, page-locked when `pinned` asks and CUDA gives them, else
 * ordinary; NULL when out of memory. */
void *gblur_host_pool_alloc (gblur_host_pool *pool, int pinned, size_t size);
/* Frees or keeps a buffer of gblur_host_pool_alloc; pool may be NULL. */
void  gblur_host_pool_free (gblur_host_pool *pool, void *ptr);

#endif
