/* A small persistent thread pool: each run wakes the workers, runs fn on
 * the caller as worker 0 and waits until every worker is done. */
#include "pool.h"

#include <pthread.h>
#include <stdlib.h>

struct cpu_pool {
  int              threads;
  pthread_t       *workers;    /* threads - 1 of them; the caller is worker 0 */
  pthread_mutex_t  lock;
  pthread_cond_t   wake;
  pthread_cond_t   idle;
  unsigned         generation;
  int              busy;
  int              stop;
  pool_fn          fn;
  void            *ctx;
};

typedef struct {
  cpu_pool *pool;
  int       index;
} worker_arg;

static void *
worker_main (void *data)
{
  worker_arg *arg = data;
  cpu_pool   *pool = arg->pool;
  int         index = arg->index;
  unsigned    seen = 0;

  free (arg);
  pthread_mutex_lock (&pool->lock);
  for (;;)
    {
      while (!pool->stop && pool->generation == seen)
        pthread_cond_wait (&pool->wake, &pool->lock);
      if (pool->stop)
        break;
      seen = pool->generation;
      pthread_mutex_unlock (&pool->lock);
      pool->fn (pool->ctx, index);
      pthread_mutex_lock (&pool->lock);
      if (--pool->busy == 0)
        pthread_cond_signal (&pool->idle);
    }
  pthread_mutex_unlock (&pool->lock);
  return NULL;
}

void
gblur_cpu_pool_run (cpu_pool *pool, pool_fn fn, void *ctx)
{
  if (pool->threads > 1)
    {
      pthread_mutex_lock (&pool->lock);
      pool->fn = fn;
      pool->ctx = ctx;
      pool->busy = pool->threads - 1;
      pool->generation++;
      pthread_cond_broadcast (&pool->wake);
      pthread_mutex_unlock (&pool->lock);
    }
  fn (ctx, 0);
  if (pool->threads > 1)
    {
      pthread_mutex_lock (&pool->lock);
      while (pool->busy > 0)
        pthread_cond_wait (&pool->idle, &pool->lock);
      pthread_mutex_unlock (&pool->lock);
    }
}

cpu_pool *
gblur_cpu_pool_new (int threads)
{
  cpu_pool *pool = calloc (1, sizeof *pool);

  if (!pool)
    return NULL;
  pool->threads = threads < 1 ? 1 : threads;
  pthread_mutex_init (&pool->lock, NULL);
  pthread_cond_init (&pool->wake, NULL);
  pthread_cond_init (&pool->idle, NULL);
  pool->workers = calloc ((size_t) pool->threads, sizeof *pool->workers);
  if (!pool->workers)
    {
      free (pool);
      return NULL;
    }
  for (int i = 1; i < pool->threads; i++)
    {
      worker_arg *arg = malloc (sizeof *arg);
      if (arg)
        {
          arg->pool = pool;
          arg->index = i;
        }
      if (!arg || pthread_create (&pool->workers[i - 1], NULL, worker_main, arg) != 0)
        {
          free (arg);
          pool->threads = i; /* run with the workers we have */
          break;
        }
    }
  return pool;
}

void
gblur_cpu_pool_free (cpu_pool *pool)
{
  if (!pool)
    return;
  pthread_mutex_lock (&pool->lock);
  pool->stop = 1;
  pthread_cond_broadcast (&pool->wake);
  pthread_mutex_unlock (&pool->lock);
  for (int i = 1; i < pool->threads; i++)
    pthread_join (pool->workers[i - 1], NULL);
  pthread_mutex_destroy (&pool->lock);
  pthread_cond_destroy (&pool->wake);
  pthread_cond_destroy (&pool->idle);
  free (pool->workers);
  free (pool);
}

int
gblur_cpu_pool_threads (const cpu_pool *pool)
{
  return pool->threads;
}
