/* Fault injection (gblur_config.faults, see gblur.h; GBLUR_FAULT's syntax
 * in pixels/pixel-env.h): every failure path the engine can take gives a
 * clean result.  `test-faults --backend cpu|cuda`.
 *   cpu:  the CPU sites (scratch allocation, a stripe in mid-run), CUDA
 *         initialisation failing, host buffers, the variable's syntax;
 *         run under ASan (--enable-sanitizers) or valgrind these also show
 *         that no failure path leaks.
 *   cuda: each CUDA site; the CPU fallback must give exactly the CPU
 *         backend's image, and config.no_fallback must give GBLUR_E_CUDA
 *         with rows [0, rows_valid) final.  Without a usable GPU it prints
 *         "skipped: no CUDA device" and exits 77 (automake's SKIP).
 *         --sanitize: the CUDA sites on small images (sanitize_cases),
 *         without the stall test's child process: for compute-sanitizer. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gblur.h"
#include "pixel-env.h"
#include "pixel-stall.h"
#include "reference.h"
#include "test-begin.h"
#include "test-util.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_CUDA
#include <cuda_runtime.h>
#endif

static void
poison (gblur_image *img)
{
  memset (img->data, POISON, img->stride * img->height);
}

static int
all_poison (const gblur_image *img)
{
  const unsigned char *p = img->data;
  for (size_t i = 0; i < img->stride * img->height; i++)
    if (p[i] != POISON)
      return 0;
  return 1;
}

/* Rows [0, rows) of a and b are byte for byte equal, padding included. */
static int
same_rows (const gblur_image *a, const gblur_image *b, int rows)
{
  return a->stride == b->stride && memcmp (a->data, b->data, a->stride * rows) == 0;
}

/* Largest |dst - ref| over rows [0, rows) of the window at (wx, wy) of a
 * whole-image reference (ref_w pixels wide). */
static double
error_vs_reference (const gblur_image *dst, const double *ref, int ref_w, int wx, int wy, int rows)
{
  double worst = 0;
  for (int y = 0; y < rows; y++)
    for (int x = 0; x < dst->width; x++)
      for (int c = 0; c < dst->channels; c++)
        {
          double e = fabs (reference_sample (dst, x, y, c)
                           - ref[((size_t) (wy + y) * ref_w + wx + x) * dst->channels + c]);
          if (!(e <= worst))
            worst = isnan (e) ? INFINITY : e;
        }
  return worst;
}

static PixelEnv       test_env;     /* GBLUR_CPU_ISA and the like, for every engine */
static gblur_fft_mode forced_fft;   /* the CPU FFT mode a test forces; AUTO: the environment's */

/* An engine with these faults (NULL: none). */
static gblur_engine *
engine_of (const gblur_faults *faults, gblur_backend backend, size_t limit, int threads,
           int no_fallback, gblur_status *status, char *msg, size_t msg_size)
{
  gblur_config config = { .backend = backend, .memory_limit = limit, .threads = threads,
                          .no_fallback = no_fallback };

  pixel_env_apply (&test_env, &config);
  config.faults = faults;
  if (forced_fft != GBLUR_FFT_AUTO)
    config.cpu_fft = forced_fft;
  return gblur_engine_new (&config, status, msg, msg_size);
}

/* An engine with the faults GBLUR_FAULT=spec gives (none when spec is
 * NULL); NULL when spec is malformed. */
static gblur_engine *
engine_with (const char *spec, gblur_backend backend, size_t limit, int threads, int no_fallback,
             gblur_status *status, char *msg, size_t msg_size)
{
  gblur_faults faults;
  int          stall_at;

  if (!pixel_env_parse_faults (spec, &faults, &stall_at, msg, msg_size))
    {
      *status = GBLUR_E_INVALID;
      return NULL;
    }
  return engine_of (spec ? &faults : NULL, backend, limit, threads, no_fallback, status, msg, msg_size);
}

static gblur_engine *
must_engine (const char *spec, gblur_backend backend, size_t limit, int threads, int no_fallback)
{
  gblur_status  st;
  char          msg[300];
  gblur_engine *engine = engine_with (spec, backend, limit, threads, no_fallback, &st, msg, sizeof msg);
  if (!engine)
    {
      printf ("cannot create an engine with GBLUR_FAULT=%s: %s\n", spec ? spec : "(unset)", msg);
      exit (1);
    }
  return engine;
}

static int
has_injected (const gblur_engine *engine)
{
  return strstr (gblur_engine_last_error (engine), "injected fault") != NULL;
}

typedef struct {
  int calls, last_rows;
} progress_log;

static int
on_progress (int rows_done, int rows_total, void *data)
{
  progress_log *log = data;
  (void) rows_total;
  log->calls++;
  log->last_rows = rows_done;
  return 0;
}

/* ---- the variable itself ---- */

static void
test_syntax (void)
{
  static const char *bad[] = { "cpu-strip", "cuda-launch:", "cuda-launch:0", "cuda-launch:-2",
                               "cuda-launch:3x", "cpu-alloc,", ",cpu-alloc", "cpu-alloc,,host-alloc",
                               "CUDA-INIT", "cuda-launch:99999999999" };
  static const char *good[] = { "", "cpu-alloc", "cpu-stripe:2,host-alloc", "cuda-launch:3", "stall:4",
                                "cuda-init,cuda-alloc:2,cuda-copy:4,cuda-launch:1,cpu-stripe:7", "cuda-short:3" };

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      gblur_faults faults;
      int          stall_at = -1;
      char         msg[300] = "";
      int          ok = pixel_env_parse_faults (bad[i], &faults, &stall_at, msg, sizeof msg);
      check (!ok && strstr (msg, "GBLUR_FAULT") && stall_at == 0 && !faults.cpu_alloc,
             "GBLUR_FAULT=%s must be refused: '%s'", bad[i], msg);
    }
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    {
      gblur_status  st;
      char          msg[300] = "";
      gblur_engine *e = engine_with (good[i], GBLUR_BACKEND_CPU, 0, 1, 1, &st, msg, sizeof msg);
      check (e && st == GBLUR_OK, "GBLUR_FAULT=%s must be accepted: %s", good[i], msg);
      gblur_engine_free (e);
    }
  {
    gblur_faults faults;
    int          stall_at = 0;
    check (pixel_env_parse_faults ("cuda-copy:4,stall:3", &faults, &stall_at, NULL, 0)
             && faults.cuda_copy == 4 && stall_at == 3 && !faults.cpu_stripe,
           "GBLUR_FAULT=cuda-copy:4,stall:3: the engine's site and the front ends' stall");
  }
}

/* The faults are copied when the engine is made, not read when it runs. */
static void
test_read_at_creation (void)
{
  gblur_faults  faults = { .cpu_alloc = 1 };
  gblur_status  st;
  gblur_engine *faulty = engine_of (&faults, GBLUR_BACKEND_CPU, 0, 2, 1, &st, NULL, 0);
  gblur_engine *clean;
  gblur_image   src = make_image (40, 30, 1, GBLUR_U8, 0, 0);
  gblur_image   dst = make_poisoned (40, 30, &src, 0);
  gblur_params  params = { .sigma = 2.0, .flags = 0 };
  gblur_status  a, b;

  faults.cpu_alloc = 0;
  clean = engine_of (&faults, GBLUR_BACKEND_CPU, 0, 2, 1, &st, NULL, 0);
  faults.cpu_alloc = 1;
  a = gblur_engine_run (faulty, &src, &dst, &params, NULL);
  b = gblur_engine_run (clean, &src, &dst, &params, NULL);
  check (a == GBLUR_E_NOMEM && b == GBLUR_OK,
         "fault per engine, fixed at creation: faulty engine %s, clean engine %s",
         gblur_status_name (a), gblur_status_name (b));
  gblur_engine_free (faulty);
  gblur_engine_free (clean);
  free (src.data);
  free (dst.data);
}

/* ---- CPU sites ---- */

static void
test_cpu_alloc (void)
{
  static const int threads[] = { 1, 3 };

  for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++)
    {
      gblur_engine *engine = must_engine ("cpu-alloc", GBLUR_BACKEND_CPU, 0, threads[ti], 1);
      gblur_image   src = make_image (97, 61, 4, GBLUR_U16, 6, 0);
      gblur_image   dst = make_poisoned (97, 61, &src, 3);
      gblur_image   win = make_poisoned (30, 20, &src, 0);
      progress_log  log = { 0, 0 };
      gblur_params  params = { .sigma = 3.5, .flags = GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, .progress = on_progress, .user_data = &log };
      gblur_result  result = { .rows_valid = -1, .fell_back_to_cpu = -1 };

      /* Twice: a failed run leaves the engine as it was. */
      for (int rep = 0; rep < 2; rep++)
        {
          gblur_status st = gblur_engine_run (engine, &src, &dst, &params, &result);
          check (st == GBLUR_E_NOMEM && has_injected (engine) && result.rows_valid == 0
                   && !result.fell_back_to_cpu && log.calls == 0 && all_poison (&dst),
                 "cpu-alloc, %d threads, run %d: status %s, '%s', rows_valid %d, %d progress calls, "
                 "dst untouched %d", threads[ti], rep, gblur_status_name (st),
                 gblur_engine_last_error (engine), result.rows_valid, log.calls, all_poison (&dst));
        }
      {
        gblur_status st = gblur_engine_run_window (engine, &src, 40, 30, &win, &params, &result);
        check (st == GBLUR_E_NOMEM && has_injected (engine) && result.rows_valid == 0,
               "cpu-alloc, window: status %s, rows_valid %d", gblur_status_name (st), result.rows_valid);
      }
      gblur_engine_free (engine);
      free (src.data);
      free (dst.data);
      free (win.data);
    }
}

/* cpu-stripe:N fails in mid-run: the N - 1 steps done are final (equal to a
 * clean run's rows), the rest is reported as not valid. */
static void
cpu_stripe_case (int w, int h, int c, gblur_sample s, unsigned flags, double sigma, int threads,
                 size_t limit, int wx, int wy, int ww, int wh)
{
  gblur_engine *clean = must_engine (NULL, GBLUR_BACKEND_CPU, limit, threads, 1);
  gblur_image   src = make_image (w, h, c, s, 5, 0);
  gblur_image   want = make_poisoned (ww, wh, &src, 2);
  gblur_image   dst = make_poisoned (ww, wh, &src, 2);
  progress_log  log = { 0, 0 };
  gblur_params  params = { .sigma = sigma, .flags = flags, .progress = on_progress, .user_data = &log };
  gblur_result  result;
  gblur_status  st = gblur_engine_run_window (clean, &src, wx, wy, &want, &params, &result);
  int           steps = log.calls;

  check (st == GBLUR_OK && steps >= 3, "cpu-stripe: the clean run (%s) must take >= 3 steps, took %d",
         gblur_status_name (st), steps);
  for (int n = 1; n <= steps + 1; n++)
    {
      char          spec[40];
      gblur_engine *engine;

      snprintf (spec, sizeof spec, "cpu-stripe:%d", n);
      engine = must_engine (spec, GBLUR_BACKEND_CPU, limit, threads, 1);
      poison (&dst);
      log = (progress_log) { 0, 0 };
      st = gblur_engine_run_window (engine, &src, wx, wy, &dst, &params, &result);
      if (n <= steps)
        check (st == GBLUR_E_NOMEM && has_injected (engine) && log.calls == n - 1
                 && result.rows_valid == (n == 1 ? 0 : log.last_rows) && result.rows_valid < wh
                 && !result.fell_back_to_cpu && same_rows (&dst, &want, result.rows_valid),
               "%s of %d, %dx%d c%d: status %s, '%s', %d progress calls, rows_valid %d (last "
               "progress %d), valid rows equal %d", spec, steps, ww, wh, c, gblur_status_name (st),
               gblur_engine_last_error (engine), log.calls, result.rows_valid, log.last_rows,
               same_rows (&dst, &want, result.rows_valid));
      else /* past the last step: nothing fails */
        check (st == GBLUR_OK && result.rows_valid == wh && same_rows (&dst, &want, wh),
               "%s of %d steps must do nothing: status %s", spec, steps, gblur_status_name (st));
      gblur_engine_free (engine);
    }
  gblur_engine_free (clean);
  free (src.data);
  free (want.data);
  free (dst.data);
}

static void
test_cpu_stripe (void)
{
  cpu_stripe_case (200, 300, 1, GBLUR_U8, 0, 3.0, 2, 0, 0, 0, 200, 300);
  cpu_stripe_case (150, 170, 4, GBLUR_U8, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, 6.0, 3,
                   64 << 10, 0, 0, 150, 170);                  /* column blocks */
  cpu_stripe_case (120, 140, 2, GBLUR_F32, GBLUR_PREMULTIPLY_ALPHA, 2.0, 1, 0, 17, 9, 80, 100);
}

/* The CPU sites on the FFT path for large radii (cpu_fft always; a
 * build without FFTW runs them on the direct loops).  cpu-alloc fails the
 * FFT path's own buffers, in single precision (gray) and in the precise
 * runs (premultiplied 16-bit RGBA in linear light, premultiplied 8-bit gray
 * with alpha), whose error says so. */
static void
test_cpu_fft_sites (void)
{
  static const struct { int c; gblur_sample s; unsigned flags; } formats[] = {
    { 1, GBLUR_U8, 0 }, { 4, GBLUR_U16, GBLUR_PREMULTIPLY_ALPHA | GBLUR_LINEAR_LIGHT },
    { 2, GBLUR_U8, GBLUR_PREMULTIPLY_ALPHA },
  };

  forced_fft = GBLUR_FFT_ALWAYS;   /* for the engines made here */
  for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++)
    {
      gblur_engine *engine = must_engine ("cpu-alloc", GBLUR_BACKEND_CPU, 0, 2, 1);
      gblur_image   src = make_image (61, 47, formats[f].c, formats[f].s, 3, 0);
      gblur_image   dst = make_poisoned (61, 47, &src, 2);
      progress_log  log = { 0, 0 };
      gblur_params  params = { .sigma = 20.0, .flags = formats[f].flags,
                               .progress = on_progress, .user_data = &log };
      gblur_result  result = { .rows_valid = -1, .fell_back_to_cpu = -1 };
      gblur_status  st = gblur_engine_run (engine, &src, &dst, &params, &result);
#ifdef HAVE_FFTW
      const int     on_fft = strstr (gblur_engine_last_error (engine), "FFT buffers") != NULL;
#else
      const int     on_fft = 1;
#endif

      check (st == GBLUR_E_NOMEM && has_injected (engine) && on_fft && result.rows_valid == 0
               && log.calls == 0 && all_poison (&dst),
             "cpu-alloc, FFT path, %d channels, flags %u: status %s, '%s', rows_valid %d, "
             "%d progress calls, dst untouched %d", formats[f].c, formats[f].flags, gblur_status_name (st),
             gblur_engine_last_error (engine), result.rows_valid, log.calls, all_poison (&dst));
      gblur_engine_free (engine);
      free (src.data);
      free (dst.data);
    }
  cpu_stripe_case (200, 300, 1, GBLUR_U8, 0, 30.0, 2, 0, 0, 0, 200, 300);
  cpu_stripe_case (120, 140, 3, GBLUR_U16, 0, 12.0, 1, 0, 17, 9, 80, 100);   /* a window */
  cpu_stripe_case (150, 170, 4, GBLUR_U8, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, 25.0, 3,
                   0, 0, 0, 150, 170);                                           /* precise */
  forced_fft = GBLUR_FFT_AUTO;
}

/* ---- sites any build has ---- */

/* The child of test_stall: its progress reports and stderr go to fd; the
 * stall holds the second, as the front ends' progress callbacks do. */
static int
report_progress (int rows_done, int rows_total, void *data)
{
  (void) rows_done;
  (void) rows_total;
  pixel_stall_step (2);
  return dprintf (*(int *) data, "progress\n") < 0;
}

static const char *self_path;   /* argv[0]: this program, run again (not /proc/self/exe: valgrind's) */

/* `test-faults --stall-child cpu|cuda`: a process of its own (a forked copy
 * of a process that already used CUDA cannot use it again), reporting
 * progress on stdout and stderr, which test_stall reads. */
static int
stalled_child (gblur_backend backend)
{
  int           fd = STDOUT_FILENO;
  gblur_engine *engine = must_engine (NULL, backend, 1 << 20, 1, 1);   /* small: many tiles */
  gblur_image   src = make_image (600, 2000, 1, GBLUR_U8, 0, 0);
  gblur_image   dst = make_poisoned_like (&src, 0);
  gblur_params  params = { .sigma = 3.0, .flags = 0, .progress = report_progress, .user_data = &fd };

  setvbuf (stdout, NULL, _IONBF, 0);
  dprintf (fd, "finished %s\n", gblur_status_name (gblur_engine_run (engine, &src, &dst, &params, NULL)));
  return 0;
}

/* stall:2, held in the caller's progress callback as the front ends hold
 * it (pixels/pixel-stall.h), stops the run at its second progress report,
 * after the first one reached the caller, and says so on stderr; the blur
 * does not finish while it stalls (the test kills it there, as the GIMP
 * tests do). */
static void
test_stall (gblur_backend backend)
{
  int           fds[2];
  pid_t         pid;
  char          text[4096] = "";
  size_t        len = 0;
  struct pollfd pfd;
  int           status = 0;

  if (pipe (fds) != 0 || (pid = fork ()) < 0)
    {
      check (0, "stall: cannot start a child process");
      return;
    }
  if (pid == 0)
    {
      close (fds[0]);
      dup2 (fds[1], STDOUT_FILENO);
      dup2 (fds[1], STDERR_FILENO);
      execl (self_path, self_path, "--stall-child",
             backend == GBLUR_BACKEND_CUDA ? "cuda" : "cpu", (char *) NULL);
      _exit (127);
    }
  close (fds[1]);
  pfd = (struct pollfd) { fds[0], POLLIN, 0 };
  /* Until the line comes, then one more second: nothing may follow it. */
  for (int waited = 0; waited < 30000 && len < sizeof text - 1; )
    {
      int     stalled = strstr (text, "stalled at progress step 2") != NULL;
      ssize_t n;
      if (poll (&pfd, 1, stalled ? 1000 : 100) <= 0)
        {
          if (stalled)
            break;
          waited += 100;
          continue;
        }
      if ((n = read (fds[0], text + len, sizeof text - 1 - len)) <= 0)
        break;
      len += (size_t) n;
      text[len] = '\0';
    }
  kill (pid, SIGKILL);
  waitpid (pid, &status, 0);
  close (fds[0]);
  {
    const char *line = strstr (text, "gblur: stalled at progress step 2 (injected fault)");
    check (line && strncmp (text, "progress\n", 9) == 0 && line == text + 9
             && !strstr (text, "finished") && WIFSIGNALED (status),
           "stall:2 (%s): one report, then the stall line, then nothing until killed; got '%s'",
           backend == GBLUR_BACKEND_CUDA ? "cuda" : "cpu", text);
  }
}

static void
test_cuda_init (void)
{
  gblur_status  st;
  char          msg[300] = "";
  gblur_engine *engine = engine_with ("cuda-init", GBLUR_BACKEND_AUTO, 0, 1, 0, &st, msg, sizeof msg);

  check (engine && gblur_engine_backend (engine) == GBLUR_BACKEND_CPU
           && strstr (gblur_engine_cuda_unavailable_reason (engine), "injected fault")
           && strncmp (gblur_engine_describe (engine), "CPU", 3) == 0,
         "cuda-init with the automatic backend: the CPU, reason '%s'",
         engine ? gblur_engine_cuda_unavailable_reason (engine) : msg);
  if (engine)
    {
      gblur_image  src = make_image (33, 21, 3, GBLUR_U8, 0, 0);
      gblur_image  dst = make_poisoned (33, 21, &src, 0);
      double      *ref = malloc ((size_t) 33 * 21 * 3 * sizeof *ref);
      gblur_params params = { .sigma = 1.5, .flags = GBLUR_LINEAR_LIGHT };
      gblur_result result;
      st = gblur_engine_run (engine, &src, &dst, &params, &result);
      reference_blur (&src, 1.5, GBLUR_LINEAR_LIGHT, ref);
      check (st == GBLUR_OK && !result.fell_back_to_cpu
               && error_vs_reference (&dst, ref, 33, 0, 0, 21) <= 1.0,
             "cuda-init: the CPU engine blurs (status %s)", gblur_status_name (st));
      free (ref);
      free (src.data);
      free (dst.data);
    }
  gblur_engine_free (engine);

  engine = engine_with ("cuda-init", GBLUR_BACKEND_CUDA, 0, 1, 0, &st, msg, sizeof msg);
  check (!engine && st == GBLUR_E_BACKEND && strstr (msg, "injected fault"),
         "cuda-init with the CUDA backend forced: status %s, '%s'", gblur_status_name (st), msg);
  gblur_engine_free (engine);
}

static void
test_host_alloc (void)
{
  gblur_engine *faulty = must_engine ("host-alloc", GBLUR_BACKEND_AUTO, 0, 1, 1);
  gblur_engine *clean = must_engine (NULL, GBLUR_BACKEND_CPU, 0, 1, 1);
  void         *a = gblur_engine_alloc_host (faulty, 4096);
  void         *b = gblur_engine_alloc_host (clean, 4096);

  check (a == NULL && b != NULL, "host-alloc: faulty engine %p, clean engine %p", a, b);
  gblur_engine_free_host (clean, b);
  gblur_engine_free (faulty);
  gblur_engine_free (clean);
}

/* CUDA sites do nothing to the CPU backend. */
static void
test_cuda_sites_on_cpu (void)
{
  gblur_engine *engine = must_engine ("cuda-alloc,cuda-copy,cuda-launch", GBLUR_BACKEND_CPU, 0, 2, 1);
  gblur_image   src = make_image (50, 40, 1, GBLUR_U8, 0, 0);
  gblur_image   dst = make_poisoned (50, 40, &src, 0);
  gblur_params  params = { .sigma = 2.0, .flags = 0 };
  gblur_result  result;
  gblur_status  st = gblur_engine_run (engine, &src, &dst, &params, &result);

  check (st == GBLUR_OK && result.rows_valid == 40 && !result.fell_back_to_cpu,
         "CUDA sites on the CPU backend: status %s", gblur_status_name (st));
  gblur_engine_free (engine);
  free (src.data);
  free (dst.data);
}

/* ---- CUDA sites ---- */

typedef struct {
  int          w, h, c;
  gblur_sample s;
  unsigned     flags;
  double       sigma;            /* 0: sigma_x and sigma_y */
  int          wx, wy, ww, wh;   /* the window blurred (the whole image when it is) */
  double       sigma_x, sigma_y;
  size_t       limit;            /* the engines' memory limit; 0: CUDA_LIMIT */
} cuda_case;

#define CUDA_LIMIT  ((size_t) 1 << 20)  /* small: many tiles */
#define CUDA_THREADS 3

static void
cuda_fault_case (const cuda_case *k)
{
  const size_t  limit = k->limit ? k->limit : CUDA_LIMIT;
  gblur_engine *cpu = must_engine (NULL, GBLUR_BACKEND_CPU, limit, CUDA_THREADS, 1);
  gblur_engine *gpu = must_engine (NULL, GBLUR_BACKEND_CUDA, limit, CUDA_THREADS, 1);
  gblur_image   src = make_image (k->w, k->h, k->c, k->s, 3, 0);
  gblur_image   want = make_poisoned (k->ww, k->wh, &src, 5);
  gblur_image   dst = make_poisoned (k->ww, k->wh, &src, 5);
  double       *ref = malloc ((size_t) k->w * k->h * k->c * sizeof *ref);
  double        tol = k->s == GBLUR_F32 ? 1e-4 : 1.0;
  progress_log  log = { 0, 0 };
  gblur_params  params = { .sigma = k->sigma, .flags = k->flags, .progress = on_progress, .user_data = &log,
                           .sigma_x = k->sigma_x, .sigma_y = k->sigma_y };
  gblur_result  result;
  gblur_status  st;
  int           tiles;
  char          specs[16][40];
  int           nspecs = 0;

  if (k->sigma != 0)
    reference_blur (&src, k->sigma, k->flags, ref);
  else
    reference_blur_xy (&src, k->sigma_x, k->sigma_y, k->flags, ref);
  st = gblur_engine_run_window (cpu, &src, k->wx, k->wy, &want, &params, &result);
  check (st == GBLUR_OK, "CPU run for the CUDA fault tests: %s", gblur_status_name (st));
  log = (progress_log) { 0, 0 };
  st = gblur_engine_run_window (gpu, &src, k->wx, k->wy, &dst, &params, &result);
  tiles = log.calls;  /* full-width stripes at these sizes: one progress call per tile */
  check (st == GBLUR_OK && tiles >= 4 && error_vs_reference (&dst, ref, k->w, k->wx, k->wy, k->wh) <= tol,
         "clean CUDA run: status %s, %d tiles (want >= 4)", gblur_status_name (st), tiles);

  /* Allocations: 3 buffers per set (4 for 16-bit linear light), 2 sets.  Copies: 1 the weights, then
   * 2t the upload and 2t + 1 the download of tile t. */
  nspecs = 0;
  snprintf (specs[nspecs++], 40, "cuda-alloc:1");
  snprintf (specs[nspecs++], 40, "cuda-alloc:5");
  snprintf (specs[nspecs++], 40, "cuda-copy:1");
  snprintf (specs[nspecs++], 40, "cuda-copy:2");
  snprintf (specs[nspecs++], 40, "cuda-copy:7");
  snprintf (specs[nspecs++], 40, "cuda-copy:%d", 2 * tiles + 1);
  snprintf (specs[nspecs++], 40, "cuda-launch:1");
  snprintf (specs[nspecs++], 40, "cuda-launch:3");
  snprintf (specs[nspecs++], 40, "cuda-launch:%d", tiles);

  for (int i = 0; i < nspecs; i++)
    {
      gblur_engine *fb = must_engine (specs[i], GBLUR_BACKEND_CUDA, limit, CUDA_THREADS, 0);
      gblur_engine *nf = must_engine (specs[i], GBLUR_BACKEND_CUDA, limit, CUDA_THREADS, 1);

      /* Fallback: the CPU backend's image, exactly. */
      poison (&dst);
      st = gblur_engine_run_window (fb, &src, k->wx, k->wy, &dst, &params, &result);
      check (st == GBLUR_OK && result.fell_back_to_cpu && result.rows_valid == k->wh
               && same_rows (&dst, &want, k->wh),
             "%s with fallback, %dx%d c%d %s: status %s (%s), fell back %d, rows_valid %d, "
             "equals the CPU image %d", specs[i], k->ww, k->wh, k->c,
             k->s == GBLUR_U8 ? "u8" : k->s == GBLUR_U16 ? "u16" : "f32", gblur_status_name (st),
             gblur_engine_last_error (fb), result.fell_back_to_cpu, result.rows_valid,
             same_rows (&dst, &want, k->wh));

      /* No fallback: GBLUR_E_CUDA; the rows reported valid are final. */
      poison (&dst);
      log = (progress_log) { 0, 0 };
      st = gblur_engine_run_window (nf, &src, k->wx, k->wy, &dst, &params, &result);
      check (st == GBLUR_E_CUDA && has_injected (nf) && !result.fell_back_to_cpu
               && result.rows_valid >= 0 && result.rows_valid < k->wh
               && result.rows_valid == (log.calls ? log.last_rows : 0)
               && error_vs_reference (&dst, ref, k->w, k->wx, k->wy, result.rows_valid) <= tol,
             "%s without fallback: status %s, '%s', rows_valid %d (last progress %d)", specs[i],
             gblur_status_name (st), gblur_engine_last_error (nf), result.rows_valid, log.last_rows);
      if (strcmp (specs[i], "cuda-launch:3") == 0)
        check (result.rows_valid > 0, "cuda-launch:3: tile 1 is done, yet rows_valid is 0");
      gblur_engine_free (fb);
      gblur_engine_free (nf);
    }

  /* Past the last tile or copy: nothing fails, nothing falls back. */
  {
    char spec[60];
    snprintf (spec, sizeof spec, "cuda-launch:%d,cuda-copy:%d", tiles + 1, 2 * tiles + 2);
    gblur_engine *e = must_engine (spec, GBLUR_BACKEND_CUDA, limit, CUDA_THREADS, 0);
    poison (&dst);
    st = gblur_engine_run_window (e, &src, k->wx, k->wy, &dst, &params, &result);
    check (st == GBLUR_OK && !result.fell_back_to_cpu
             && error_vs_reference (&dst, ref, k->w, k->wx, k->wy, k->wh) <= tol,
           "%s: status %s, fell back %d", spec, gblur_status_name (st), result.fell_back_to_cpu);
    gblur_engine_free (e);
  }

  /* The device short at a reservation: what the run does not use freed, a
   * second try, no failure; twice, the second run on kept buffers. */
  for (int n = 1; n <= 5; n += 4)
    {
      char          spec[40];
      gblur_engine *e;

      snprintf (spec, sizeof spec, "cuda-short:%d", n);
      e = must_engine (spec, GBLUR_BACKEND_CUDA, limit, CUDA_THREADS, 1);
      for (int run = 0; run < 2; run++)
        {
          poison (&dst);
          st = gblur_engine_run_window (e, &src, k->wx, k->wy, &dst, &params, &result);
          check (st == GBLUR_OK && !result.fell_back_to_cpu
                   && error_vs_reference (&dst, ref, k->w, k->wx, k->wy, k->wh) <= tol,
                 "%s, run %d: status %s (%s)", spec, run + 1, gblur_status_name (st), gblur_engine_last_error (e));
        }
      gblur_engine_free (e);
    }

  /* A CUDA fault whose fallback meets a CPU fault: the CPU's clean error. */
  {
    gblur_engine *e = must_engine ("cuda-launch:2,cpu-stripe:2", GBLUR_BACKEND_CUDA, limit,
                                   CUDA_THREADS, 0);
    st = gblur_engine_run_window (e, &src, k->wx, k->wy, &dst, &params, &result);
    check (st == GBLUR_E_NOMEM && result.fell_back_to_cpu && has_injected (e)
             && result.rows_valid > 0 && result.rows_valid < k->wh
             && same_rows (&dst, &want, result.rows_valid),
           "cuda-launch:2 then cpu-stripe:2: status %s, fell back %d, rows_valid %d",
           gblur_status_name (st), result.fell_back_to_cpu, result.rows_valid);
    gblur_engine_free (e);
  }

  /* The GPU is still fine for an engine without faults. */
  poison (&dst);
  st = gblur_engine_run_window (gpu, &src, k->wx, k->wy, &dst, &params, &result);
  check (st == GBLUR_OK && !result.fell_back_to_cpu
           && error_vs_reference (&dst, ref, k->w, k->wx, k->wy, k->wh) <= tol,
         "clean CUDA run after the faults: status %s", gblur_status_name (st));

  gblur_engine_free (cpu);
  gblur_engine_free (gpu);
  free (ref);
  free (src.data);
  free (want.data);
  free (dst.data);
}

static const cuda_case full_cases[] = {
  { 517, 389, 4, GBLUR_U8, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, 3.0, 0, 0, 517, 389, 0, 0, 0 },
  { 300, 420, 3, GBLUR_U16, GBLUR_LINEAR_LIGHT, 5.0, 0, 0, 300, 420, 0, 0, 0 },
  { 260, 500, 1, GBLUR_F32, 0, 12.0, 0, 0, 260, 500, 0, 0, 0 },
  { 400, 480, 2, GBLUR_U8, GBLUR_PREMULTIPLY_ALPHA, 4.0, 31, 17, 333, 440, 0, 0, 0 },   /* a window */
  /* a sigma per axis (one of them 0), a window */
  { 320, 400, 3, GBLUR_U16, GBLUR_LINEAR_LIGHT, 0, 0, 0, 320, 400, 7.0, 0.0, 0 },
  { 400, 480, 2, GBLUR_U8, GBLUR_PREMULTIPLY_ALPHA, 0, 31, 17, 333, 440, 1.5, 6.0, 0 },
};

/* --sanitize (tests/gpu/gpu-check.sh runs it under compute-sanitizer): small
 * images with limits small enough for several tiles: the general kernels
 * on a whole image, a window with a sigma per axis, and the one-pass
 * tensor-core kernel (8-bit gray stored as is). */
static const cuda_case sanitize_cases[] = {
  { 160, 120, 4, GBLUR_U8, GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA, 3.0, 0, 0, 160, 120, 0, 0, 128 << 10 },
  { 150, 140, 2, GBLUR_U8, GBLUR_PREMULTIPLY_ALPHA, 0, 11, 7, 120, 110, 1.5, 6.0, 96 << 10 },
  { 144, 100, 1, GBLUR_U8, 0, 2.0, 0, 0, 144, 100, 0, 0, 32 << 10 },
};

static void
test_cuda_sites (const cuda_case *cases, size_t n)
{
  for (size_t i = 0; i < n; i++)
    cuda_fault_case (&cases[i]);

  /* cuda-init on a machine with a GPU: the CPU, the same image as the CPU backend. */
  {
    gblur_engine *cpu = must_engine (NULL, GBLUR_BACKEND_CPU, CUDA_LIMIT, CUDA_THREADS, 1);
    gblur_engine *e = must_engine ("cuda-init", GBLUR_BACKEND_AUTO, CUDA_LIMIT, CUDA_THREADS, 0);
    gblur_image   src = make_image (120, 90, 1, GBLUR_U8, 0, 0);
    gblur_image   a = make_poisoned (120, 90, &src, 0), b = make_poisoned (120, 90, &src, 0);
    gblur_params  params = { .sigma = 2.0, .flags = 0 };
    gblur_status  sa = gblur_engine_run (cpu, &src, &a, &params, NULL);
    gblur_status  sb = gblur_engine_run (e, &src, &b, &params, NULL);
    check (gblur_engine_backend (e) == GBLUR_BACKEND_CPU && sa == GBLUR_OK && sb == GBLUR_OK
             && same_rows (&a, &b, 90),
           "cuda-init beside a GPU: backend %d, reason '%s'", (int) gblur_engine_backend (e),
           gblur_engine_cuda_unavailable_reason (e));
    gblur_engine_free (cpu);
    gblur_engine_free (e);
    free (src.data);
    free (a.data);
    free (b.data);
  }

#ifdef HAVE_CUDA
  /* Device-resident images: no fallback possible, a clean GBLUR_E_CUDA. */
  {
    static const char *specs[] = { "cuda-alloc:1", "cuda-copy:1", "cuda-launch:1" };
    gblur_image  src = make_image (200, 150, 1, GBLUR_U8, 0, 0);
    size_t       size = src.stride * src.height;
    void        *d_src = NULL, *d_dst = NULL;
    gblur_params params = { .sigma = 2.0, .flags = 0 };

    if (cudaMalloc (&d_src, size) == cudaSuccess && cudaMalloc (&d_dst, size) == cudaSuccess)
      {
        gblur_image ds = src, dd = src;
        ds.data = d_src;
        dd.data = d_dst;
        for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
          {
            gblur_engine *e = must_engine (specs[i], GBLUR_BACKEND_CUDA, 0, 1, 0);
            gblur_status  st = gblur_engine_run_device (e, &ds, &dd, &params);
            check (st == GBLUR_E_CUDA && has_injected (e), "run_device with %s: status %s, '%s'",
                   specs[i], gblur_status_name (st), gblur_engine_last_error (e));
            gblur_engine_free (e);
          }
      }
    else
      check (0, "cudaMalloc for the device-resident fault test");
    cudaFree (d_src);
    cudaFree (d_dst);
    free (src.data);
  }
#endif
}

int
main (int argc, char **argv)
{
  gblur_backend backend = GBLUR_BACKEND_CPU;
  int           sanitize = 0;

  self_path = argv[0];
  if (argc == 3 && strcmp (argv[1], "--stall-child") == 0)
    return stalled_child (strcmp (argv[2], "cuda") == 0 ? GBLUR_BACKEND_CUDA : GBLUR_BACKEND_CPU);
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--backend") == 0 && i + 1 < argc)
        backend = strcmp (argv[++i], "cuda") == 0 ? GBLUR_BACKEND_CUDA : GBLUR_BACKEND_CPU;
      else if (strcmp (argv[i], "--sanitize") == 0)
        sanitize = 1;
      else
        {
          fprintf (stderr, "usage: %s [--backend cpu|cuda] [--sanitize]\n", argv[0]);
          return 2;
        }
    }
  if (!test_begin ("fault-injection tests", backend, &test_env))
    return 2;

  if (backend == GBLUR_BACKEND_CUDA)
    {
      gblur_status  st;
      char          msg[300];
      gblur_engine *probe = engine_with (NULL, GBLUR_BACKEND_CUDA, 0, 1, 1, &st, msg, sizeof msg);
      if (!probe)
        {
          printf ("skipped: no CUDA device (%s)\n", msg);
          printf ("0 passed, 0 failed, 1 skipped\n");
          return 77;
        }
      printf ("device: %s\n", gblur_engine_describe (probe));
      gblur_engine_free (probe);
      if (sanitize)
        test_cuda_sites (sanitize_cases, sizeof sanitize_cases / sizeof sanitize_cases[0]);
      else
        {
          test_cuda_sites (full_cases, sizeof full_cases / sizeof full_cases[0]);
          test_stall (GBLUR_BACKEND_CUDA);
        }
    }
  else
    {
      test_syntax ();
      test_read_at_creation ();
      test_cpu_alloc ();
      test_cpu_stripe ();
      test_cpu_fft_sites ();
      test_cuda_init ();
      test_host_alloc ();
      test_cuda_sites_on_cpu ();
      test_stall (GBLUR_BACKEND_CPU);
    }
  printf ("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
