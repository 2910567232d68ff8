/* The CPU backend is written for -O3's unrolling and inlining, whatever
 * the build's own level (docs/performance.md); unoptimised builds stay as
 * asked, for debugging.  Included first by each of its files. */
#ifndef GBLUR_CPU_OPTIMIZE_H
#define GBLUR_CPU_OPTIMIZE_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#pragma GCC optimize ("O3")
#endif

#endif
