#!/bin/sh
# On the GPU machine: the warm process's and the folder procedure's soak
# (tests/gimp/soak-test.sh) in the relocatable GIMP 2.10, the CUDA backend
# forced: every result within 1 level, nothing left behind, and resident and
# device memory (nvidia-smi) flat after the warm-up.  Two GIMPs side by side
# to fit one call: CALLS calls (and 40 files), FILES files (and 144 calls:
# a warm-up of 36, every picture, sigma and light once, so that CUDA's
# modules, loaded on first use, load in it).
#   tests/gpu/soak-on-gpu.sh BUNDLE PLUGIN [CALLS [FILES]]
# BUNDLE: ../shared/tools/gimp-gpu/make-gimp210-bundle.sh; PLUGIN:
# cuda-gaussian-blur built --with-gimp=2 --with-cuda-arch=90, stripped.
# Defaults: 1000 calls, 1000 files.  Logs in $OUT (default /tmp/out).
set -u
here=$(cd "$(dirname "$0")" && pwd)
bundle=${1:?usage: soak-on-gpu.sh BUNDLE PLUGIN [CALLS [FILES]]}
plugin=${2:?PLUGIN}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/gpu-soak/plugin
# soak_test.py checks every output with numpy (Ubuntu's python3 there has none).
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "soak-on-gpu.sh: python3 has no numpy; carry a wheel (PYTHONPATH)"; exit 1; }
[ -x /opt/gimp210/run-gimp.sh ] || tar -xJf "$bundle" -C /opt || exit 1
cp "$plugin" /tmp/gpu-soak/plugin/cuda-gaussian-blur || exit 1   # soak-test.sh's BUILDDIR
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export GIMP2_CONSOLE=/opt/gimp210/run-gimp.sh GBLUR_BACKEND=cuda SOAK_DEVICE_MEMORY=1 LANG=C.UTF-8
"$here/../gimp/soak-test.sh" 2 /tmp/gpu-soak "${3:-1000}" 40 >"$OUT/soak-calls.log" 2>&1 &
calls=$!
"$here/../gimp/soak-test.sh" 2 /tmp/gpu-soak 144 "${4:-1000}" >"$OUT/soak-files.log" 2>&1
rc=$?
wait $calls || rc=1
for f in calls files; do
  echo "== soak-$f"
  grep -E '^(PASS|FAIL)|soak: |passed, ' "$OUT/soak-$f.log" || tail -n 5 "$OUT/soak-$f.log"
  # A failed soak keeps its folder: its logs and samples come back.
  kept=$(sed -n 's/^kept //p' "$OUT/soak-$f.log")
  [ -z "$kept" ] || { mkdir -p "$OUT/kept-$f" && cp "$kept"/*.log "$kept"/*.rss* "$OUT/kept-$f/"; }
done
exit $rc
