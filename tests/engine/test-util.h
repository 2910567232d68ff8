/* Helpers the engine's test programs share: counting checks, a seeded
 * random stream, images filled with noise or hard steps, poisoned outputs,
 * the checks of a refusal under a memory limit. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "gblur.h"

#define POISON 0xA5

extern int      passed, failed;
extern uint64_t rng_state;   /* seed it before use */

/* Counts a check; prints the message on failure. */
void     check (int ok, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
uint64_t rng (void);

/* A w x h image with `pad` spare (poisoned) bytes after each row, filled with
 * noise or, with `pattern`, flat blocks and hard steps (the worst case for
 * rounding). */
gblur_image make_image (int w, int h, int c, gblur_sample s, size_t pad, int pattern);

/* Sample (x, y, ch) of img set to u (0..1 full scale), rounded. */
void     set_sample (gblur_image *img, int x, int y, int ch, double u);

/* A w x h image of like's channels and sample type, every byte POISON. */
gblur_image make_poisoned (int w, int h, const gblur_image *like, size_t pad);

static inline gblur_image
make_poisoned_like (const gblur_image *src, size_t pad)
{
  return make_poisoned (src->width, src->height, src, pad);
}

/* Bytes that surely hold either backend's smallest tile for radii rx, ry
 * and c channels: over twice the CPU's one-column scratch (kernels/cpu/
 * backend.c) and 8 times the CUDA backend's two one-pixel tiles, so that
 * a refusal under a limit this large is not due. */
size_t refusal_bound (int rx, int ry, int c);

/* What is wrong with a GBLUR_E_NOMEM refusal of a run with params under
 * memory limit `limit` (not 0): NULL when its message (msg) blames that
 * limit for the run's radii, the limit is under refusal_bound, rows_valid
 * is 0 and dst (made of POISON bytes) is untouched; else a reason, in why. */
const char *refusal_flaw (const char *msg, size_t limit, const gblur_params *params, const gblur_image *dst,
                          int rows_valid, char *why, size_t why_size);

#endif
