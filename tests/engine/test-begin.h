/* The start the engine's suites share (test-engine, test-faults). */
#ifndef TEST_BEGIN_H
#define TEST_BEGIN_H

#include "gblur.h"
#include "pixel-env.h"

/* Seeds the random stream (GBLUR_TEST_SEED, else the time), reads the
 * environment into *env and prints "WHAT, backend B, seed S"; 0 when the
 * environment is malformed (said on stderr). */
int test_begin (const char *what, gblur_backend backend, PixelEnv *env);

#endif
