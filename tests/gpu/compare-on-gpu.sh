#!/bin/sh
# On the GPU machine: an old tree's engine and this tree's, side by side in
# one run: both built (gpu-check.sh --build-only), the engine suite's output
# hashes on CUDA and each CPU instruction set compared, then bench on each
# alternately, twice.  Results and logs in $OUT.  Run from the tree's top.
#   tests/gpu/compare-on-gpu.sh OLD_TREE
# (OLD_TREE: a copy of kernels/ and tests/, in this layout or the one before
# tests/gpu/.)
set -u
old=${1:?usage: compare-on-gpu.sh OLD_TREE}
OUT=${OUT:-/tmp/compare}; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E 'Model name|^CPU\(s\)'
t0=$(date +%s)
(cd "$old" && check=tests/gpu/gpu-check.sh && { [ -f $check ] || check=tests/gpu-check.sh; } &&
 BUILD_DIR=/tmp/bb $check --build-only > $OUT/build-before.log 2>&1; echo "before build rc $?") &
BUILD_DIR=/tmp/ba tests/gpu/gpu-check.sh --build-only > $OUT/build-after.log 2>&1; echo "after build rc $?"
wait
echo "builds: $(( $(date +%s) - t0 )) s"
tail -2 $OUT/build-after.log
hashes () { # build dir, prefix
  GBLUR_TEST_SEED=7 $1/test-engine --backend cuda --hash $OUT/$2-cuda.txt > $OUT/$2-cuda.log 2>&1
  for isa in baseline avx2 avx512; do
    GBLUR_TEST_SEED=7 GBLUR_CPU_ISA=$isa $1/test-engine --backend cpu --hash $OUT/$2-cpu-$isa.txt > $OUT/$2-cpu-$isa.log 2>&1
  done
}
t0=$(date +%s)
hashes /tmp/bb bb & hashes /tmp/ba ba; wait
echo "hashes: $(( $(date +%s) - t0 )) s"
for f in cuda cpu-baseline cpu-avx2 cpu-avx512; do
  echo "$f: before $(tail -1 $OUT/bb-$f.log) | after $(tail -1 $OUT/ba-$f.log) | $(wc -l < $OUT/ba-$f.txt) hashes | $(cmp -s $OUT/bb-$f.txt $OUT/ba-$f.txt && echo IDENTICAL || echo DIFFERENT)"
done
GBLUR_TEST_SEED=7 /tmp/ba/test-faults --backend cuda 2>&1 | tail -1
for r in 1 2; do for v in bb ba; do
  echo "== $v round $r"
  /tmp/$v/bench --backend cuda-device --size 8192 --format all --reps 5 | grep '^| cuda' > $OUT/bench-$v-dev-$r.md
  /tmp/$v/bench --backend cuda --size 4096 --format all --reps 5 | grep '^| cuda' > $OUT/bench-$v-host-$r.md
  for f in gray layer; do
    /tmp/$v/bench --backend cpu --size 4096 --format $f --sigma 2 --sigma 30 --reps 3 | grep '^| cpu'
  done > $OUT/bench-$v-cpu-$r.md
done; done
echo "bench done"
