/* The CPU backend's thread pool: the caller and threads - 1 workers run one
 * function together, for the direct loops (backend.c) and the FFT path
 * (fft-run.c) alike.  Not installed. */
#ifndef GBLUR_CPU_POOL_H
#define GBLUR_CPU_POOL_H

typedef struct cpu_pool cpu_pool;
typedef void (*pool_fn) (void *ctx, int worker);

/* A pool of `threads` (at least 1; fewer when a thread cannot start); NULL
 * when out of memory. */
cpu_pool *gblur_cpu_pool_new (int threads);
void      gblur_cpu_pool_free (cpu_pool *pool);
int       gblur_cpu_pool_threads (const cpu_pool *pool);
/* Runs fn (ctx, worker) on each of the pool's threads (worker 0 is the
 * caller) and waits for all. */
void      gblur_cpu_pool_run (cpu_pool *pool, pool_fn fn, void *ctx);

#endif
