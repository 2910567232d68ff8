#!/bin/sh
# Hashes every output the engine suite checks, on each CPU instruction set
# and, where a GPU answers, on CUDA: one file per run in OUTDIR.  Two builds
# give the same pixels when `diff -r` of their OUTDIRs is empty.
# Usage: tests/engine/pixel-hashes.sh BUILDDIR OUTDIR [SEED]
set -eu
build=$1 out=$2 seed=${3:-7}
mkdir -p "$out"
suite=$build/tests/engine/test-engine
[ -x "$suite" ] || suite=$build/tests/test-engine   # a build from before tests/engine/
for isa in baseline avx2 avx512; do
  GBLUR_TEST_SEED=$seed GBLUR_CPU_ISA=$isa "$suite" --backend cpu \
    --hash "$out/cpu-$isa.txt" | tail -1 | sed "s/^/cpu $isa: /"
done
GBLUR_TEST_SEED=$seed "$suite" --backend cuda --hash "$out/cuda.txt" \
  | tail -1 | sed "s/^/cuda: /" || true
[ -s "$out/cuda.txt" ] || rm -f "$out/cuda.txt"
exit 0
