/* The hot loops for the baseline instruction set, built with the default
 * flags: any CPU of the target (SSE2 on x86-64), 4 floats per vector. */
#define ISA baseline
#define VL  4
#include "loops.h"

const cpu_loops gblur_cpu_loops_baseline = {
  .name = "baseline", .blur_tile = blur_tile_baseline, .tap_cost = CPU_TAP_COST_BASELINE,
};
