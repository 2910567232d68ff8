/* The engine's host buffers (host-alloc.h). */
#include "host-alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Host buffers carry a header saying how they were allocated, so they can be
 * freed correctly whatever happens to the backend in between. */
#define HOST_HEADER 64

static size_t
host_capacity (const unsigned char *base)
{
  size_t capacity;
  memcpy (&capacity, base + 8, sizeof capacity);
  return capacity;
}

void
gblur_host_pool_init (gblur_host_pool *pool)
{
  memset (pool->pinned_kept, 0, sizeof pool->pinned_kept);
  for (int i = 0; i < PLAIN_KEPT; i++)
    gblur_kept_init (&pool->plain_kept[i]);
}

/* Frees the kept page-locked buffers. */
static void
pinned_clear (gblur_host_pool *pool)
{
  for (int i = 0; i < PINNED_KEPT; i++)
    if (pool->pinned_kept[i])
      {
        gblur_cuda_host_free (pool->pinned_kept[i]);
        pool->pinned_kept[i] = NULL;
      }
}

void
gblur_host_pool_clear (gblur_host_pool *pool)
{
  pinned_clear (pool);
  for (int i = 0; i < PLAIN_KEPT; i++)
    gblur_kept_clear (&pool->plain_kept[i]);
}

/* An ordinary buffer of `bytes`, a kept one if one fits; *size: the bytes
 * it has after the header. */
static unsigned char *
plain_alloc (gblur_host_pool *pool, size_t bytes, size_t *size)
{
  unsigned char *base = NULL;
  size_t         capacity = 0;

  for (int i = 0; !base && i < PLAIN_KEPT; i++)
    base = gblur_kept_take (&pool->plain_kept[i], bytes, &capacity);
  if (!base)
    {
      capacity = gblur_large_capacity (bytes);
      base = gblur_alloc_large (bytes);
    }
  if (base)
    *size = capacity - HOST_HEADER;
  return base;
}

/* Large ones are kept, in an empty slot or else in place of the first. */
static void
plain_free (gblur_host_pool *pool, unsigned char *base)
{
  const size_t capacity = host_capacity (base) + HOST_HEADER;
  int          slot = 0;

  for (int i = 0; pool && i < PLAIN_KEPT; i++)
    if (gblur_kept_empty (&pool->plain_kept[i]))
      {
        slot = i;
        break;
      }
  if (pool)
    gblur_kept_give (&pool->plain_kept[slot], base, capacity);
  else
    free (base);
}

/* The smallest kept page-locked buffer that holds `size`, or NULL.  A larger
 * one serves a smaller run too: the canvas alternates regions and whole
 * layers, and allocating page-locked memory costs more than reading it. */
static unsigned char *
pinned_take (gblur_host_pool *pool, size_t size)
{
  int best = -1;

  for (int i = 0; i < PINNED_KEPT; i++)
    if (pool->pinned_kept[i] && host_capacity (pool->pinned_kept[i]) >= size
        && (best < 0 || host_capacity (pool->pinned_kept[i]) < host_capacity (pool->pinned_kept[best])))
      best = i;
  if (best < 0)
    return NULL;
  unsigned char *base = pool->pinned_kept[best];
  pool->pinned_kept[best] = NULL;
  return base;
}

/* Frees kept page-locked buffers, from the first slot on, until one of
 * `capacity` more fits in a slot and in PINNED_KEEP_BYTES; FALSE when it
 * never would. */
static int
pinned_make_room (gblur_host_pool *pool, size_t capacity)
{
  size_t kept = 0;
  int    empty = 0;

  if (capacity > PINNED_KEEP_BYTES)
    return 0;
  for (int i = 0; i < PINNED_KEPT; i++)
    if (pool->pinned_kept[i])
      kept += host_capacity (pool->pinned_kept[i]);
    else
      empty = 1;
  for (int i = 0; i < PINNED_KEPT && (!empty || kept + capacity > PINNED_KEEP_BYTES); i++)
    if (pool->pinned_kept[i])
      {
        kept -= host_capacity (pool->pinned_kept[i]);
        gblur_cuda_host_free (pool->pinned_kept[i]);
        pool->pinned_kept[i] = NULL;
        empty = 1;
      }
  return 1;
}

void *
gblur_host_pool_alloc (gblur_host_pool *pool, int pinned, size_t size)
{
  unsigned char *base = NULL;

  if (size > SIZE_MAX - HOST_HEADER)
    return NULL;
  if (pinned)
    {
      if ((base = pinned_take (pool, size)))
        return base + HOST_HEADER;
      base = gblur_cuda_host_alloc (size + HOST_HEADER);
      if (!base)   /* page-locked memory is short: the kept buffers go first */
        {
          pinned_clear (pool);
          base = gblur_cuda_host_alloc (size + HOST_HEADER);
        }
      pinned = base != NULL;
    }
  if (!base)
    base = plain_alloc (pool, size + HOST_HEADER, &size);
  if (!base)
    return NULL;
  base[0] = (unsigned char) pinned;
  memcpy (base + 8, &size, sizeof size);
  return base + HOST_HEADER;
}

void
gblur_host_pool_free (gblur_host_pool *pool, void *ptr)
{
  unsigned char *base;

  if (!ptr)
    return;
  base = (unsigned char *) ptr - HOST_HEADER;
  if (!base[0])
    {
      plain_free (pool, base);
      return;
    }
  if (pool && pinned_make_room (pool, host_capacity (base)))
    for (int i = 0; i < PINNED_KEPT; i++)
      if (!pool->pinned_kept[i])
        {
          pool->pinned_kept[i] = base;
          return;
        }
  gblur_cuda_host_free (base);
}
