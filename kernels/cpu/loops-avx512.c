/* The hot loops for AVX-512 F, BW and VL, 16 floats per vector (as many
 * instructions as AVX2 for twice the pixels); built with -mavx512f -mavx512bw
 * -mavx512vl -mavx2 -mfma (Makefile.am) and run only where backend.c found
 * all of them. */
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__FMA__)
#error "build this file with -mavx512f -mavx512bw -mavx512vl -mavx2 -mfma"
#endif

#define ISA avx512
#define VL  16
#include "loops.h"

const cpu_loops gblur_cpu_loops_avx512 = {
  .name = "avx512", .blur_tile = blur_tile_avx512, .tap_cost = CPU_TAP_COST_AVX512,
};
