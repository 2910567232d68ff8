#!/bin/sh
# The robustness suite on the GPU machine, in the relocatable GIMP 2.10
# (../shared/tools/gimp-gpu/make-gimp210-bundle.sh), with the CUDA backend:
# the whole suite once (not the GUI Cancel: the bundle has no GUI; the CPU
# backend's own faults with GBLUR_BACKEND=cpu, since the GPU never reaches
# them), the kill case 10 times in a row, then the kill and huge cases with
# every core busy.
# Also the engine's fault tests (the stall site among them) on both backends.
#   tests/gpu/robustness-on-gpu.sh BUNDLE.tar.xz PLUGIN OUTDIR
# PLUGIN: the plug-in built here for GIMP 2.10 with --with-cuda-arch=90.
# Prints the suites' lines; exit status non-zero if any failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bundle=${1:?usage: robustness-on-gpu.sh BUNDLE.tar.xz PLUGIN OUTDIR} plugin=$2 out=$3
mkdir -p /opt "$out" /tmp/gpu-robust/plugin
tar -xJf "$bundle" -C /opt || exit 1
cp "$plugin" /tmp/gpu-robust/plugin/cuda-gaussian-blur || exit 1
nvidia-smi -L
python3 -c 'import numpy, PIL; print("numpy", numpy.__version__, "Pillow", PIL.__version__)' || exit 1
export GIMP2_CONSOLE=/opt/gimp210/run-gimp.sh PYTHON=python3 LANG=C.UTF-8
status=0
suite () { # label, scenarios [VAR=value]
  echo "== $1"
  env ${3:-} ROBUST_SCENARIOS="$2" "$top/tests/gimp/robustness-test.sh" 2 /tmp/gpu-robust >"$out/last.log" 2>&1 || status=1
  grep -E "^(PASS|FAIL)|passed, |^  [a-z-]+: cuda-gaussian-blur" "$out/last.log"
}

(cd "$top" && tests/gpu/gpu-check.sh --build-only >"$out/build.log" 2>&1) || { tail -n 20 "$out/build.log"; exit 1; }
for backend in cuda cpu; do
  "$top/build-gpu/test-faults" --backend $backend >"$out/faults-$backend.log" 2>&1 || status=1
  grep -v "^gblur: CUDA failed" "$out/faults-$backend.log" | grep -E "stall|FAIL|passed, " | sed "s/^/engine faults, $backend: /"
done

suite "whole suite, CUDA backend" "fault-host-alloc fault-cuda-init huge kill"
suite "the CPU backend's faults, GBLUR_BACKEND=cpu" "fault-cpu-stripe fault-cpu-alloc" GBLUR_BACKEND=cpu
for i in 1 2 3 4 5 6 7 8 9 10; do suite "kill, run $i of 10" kill; done

# Every core busy (bounded), GIMP and the plug-in competing with them.
cores=$(nproc)
for c in $(seq "$cores"); do timeout 300 sh -c 'while :; do :; done' & done
for i in 1 2 3; do suite "kill and huge under a CPU hog ($cores busy loops), run $i of 3" "kill huge"; done
kill $(jobs -p) 2>/dev/null
exit $status
