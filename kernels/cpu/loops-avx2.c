/* The hot loops for AVX2 and FMA, 8 floats per vector; built with
 * -mavx2 -mfma (Makefile.am) and run only where backend.c found both. */
#if !defined(__AVX2__) || !defined(__FMA__)
#error "build this file with -mavx2 -mfma"
#endif

#define ISA avx2
#define VL  8
#include "loops.h"

const cpu_loops gblur_cpu_loops_avx2 = {
  .name = "avx2", .blur_tile = blur_tile_avx2, .tap_cost = CPU_TAP_COST_AVX2,
};
