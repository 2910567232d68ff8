#!/bin/sh
# On the GPU machine: the engine built with each CUDA toolkit users' builds
# come from (Debian 12's 11.8, Debian 13's 12.4, NVIDIA's 13.x), built
# elsewhere for sm_90 and carried here, side by side in one run:
#   1. the engine suite (its output hashes too) and the fault suite on CUDA,
#   2. the hashes compared with the first build's,
#   3. compute-sanitizer memcheck on each build's sanitizer subset,
#   4. bench (cuda-device and cuda, 4096², all formats, sigma 1-100), the
#      builds taking turns, twice.
# BUILDS is a folder of builds, one folder each (named by toolkit, e.g.
# cuda13.0, cuda12.4, cuda11.8) holding test-engine, test-faults and bench;
# the last in `ls` order (the newest toolkit) is the reference.  Logs and
# tables go to $OUT.
#   tests/gpu/toolkits-on-gpu.sh BUILDS [--no-bench]
set -u
builds=$(cd "${1:?usage: toolkits-on-gpu.sh BUILDS [--no-bench]}" && pwd)
OUT=${OUT:-/tmp/toolkits}; mkdir -p "$OUT"
names=$(ls "$builds")
ref=$(echo "$names" | tail -n 1)
status=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for n in $names; do
  b=$builds/$n
  echo "== $n"
  GBLUR_TEST_SEED=7 "$b/test-engine" --backend cuda --hash "$OUT/$n-hashes.txt" >"$OUT/$n-suite.log" 2>&1 || status=1
  "$b/test-faults" --backend cuda >"$OUT/$n-faults.log" 2>&1 || status=1
  compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99 "$b/test-engine" --backend cuda --sanitize \
    >"$OUT/$n-memcheck.log" 2>&1 || status=1
  for log in suite faults memcheck; do
    printf '%-9s %s %s\n' "$log:" "$(grep -E 'passed, .* failed' "$OUT/$n-$log.log" | tail -n 1)" \
      "$(grep -E 'ERROR SUMMARY|LEAK SUMMARY' "$OUT/$n-$log.log" | sed 's/^=* *//' | tr '\n' ' ')"
  done
  grep -m 1 'backend' "$OUT/$n-suite.log"
done
for n in $names; do
  [ "$n" = "$ref" ] && continue
  if cmp -s "$OUT/$ref-hashes.txt" "$OUT/$n-hashes.txt"; then
    echo "hashes: $n = $ref ($(wc -l <"$OUT/$n-hashes.txt") outputs)"
  else
    echo "hashes: $n differs from $ref in $(diff "$OUT/$ref-hashes.txt" "$OUT/$n-hashes.txt" | grep -c '^>') outputs"
    status=1
  fi
done
[ "${2:-}" = --no-bench ] && exit $status
for round in 1 2; do
  for n in $names; do
    for backend in cuda-device cuda; do
      "$builds/$n/bench" --backend $backend --size 4096 --format all --sigma 1 --sigma 3 --sigma 10 --sigma 30 --sigma 100 \
        >"$OUT/bench-$n-$backend-$round.md" 2>&1 || status=1
    done
  done
done
echo "== bench tables: $OUT/bench-*.md"
exit $status
