#!/bin/sh
# On the GPU machine: the speed inside real GIMP 3 (a relocatable bundle,
# ../shared/tools/gimp-gpu/make-gimp3-bundle.sh), side by side in one GIMP
# process per format: the copy-only floor, the procedure's own pixel path,
# the procedure (through the operation), the operation cuda:gaussian-blur
# merged directly, and GIMP's own gegl:gaussian-blur; on each backend.
#   tests/gimp/perf-on-gpu.sh BUNDLE BINDIR OUTDIR
# BINDIR holds, built in the bundle's chroot (--with-gimp=3
# --with-cuda-arch=90) and stripped: cuda-gaussian-blur, cuda-gaussian-blur.so,
# cuda-gaussian-blur-pixel-path, cuda-gaussian-blur-copy-only.  Settings as
# perf-in-gimp.sh: PERF_SIZE, PERF_SIGMAS, PERF_REPS, PERF_BACKENDS ("cuda cpu").
set -u
here=$(cd "$(dirname "$0")" && pwd)
bundle=${1:?usage: perf-on-gpu.sh BUNDLE BINDIR OUTDIR}
bin=${2:?BINDIR}
out=${3:?OUTDIR}
size=${PERF_SIZE:-4096}
sigmas=${PERF_SIGMAS:-2 10 30 100}
reps=${PERF_REPS:-3}
backends=${PERF_BACKENDS:-cuda cpu}
work=/tmp/cgb-perf-gpu
profile=$work/profile
mkdir -p "$out" "$work"
tar -xJf "$bundle" -C /opt || exit 1
# The bundle's GEGL_PATH replaces the user folder: the operation goes in its own.
cp "$bin/cuda-gaussian-blur.so" /opt/gimp3/lib/gegl-0.4/ || exit 1
for p in cuda-gaussian-blur cuda-gaussian-blur-pixel-path cuda-gaussian-blur-copy-only; do
  mkdir -p "$profile/plug-ins/$p" && cp "$bin/$p" "$profile/plug-ins/$p/" &&
    /opt/gimp3/patch-plugin.sh "$profile/plug-ins/$p/$p" >/dev/null || exit 1
done
for fmt in gray rgba; do
  python3 "$here/perf_in_gimp.py" prepare 3 "$work" "$size" "$fmt" "$sigmas" "$reps" || exit 1
done
rc=0
for backend in $backends; do
  logs=""
  for fmt in gray rgba; do
    log=$out/perf-$fmt-$backend.log
    LANG=C.UTF-8 HOME=$work GIMP3_DIRECTORY=$profile GBLUR_BACKEND=$backend CUDA_GBLUR_VERBOSE=1 \
      timeout 500 /opt/gimp3/run-gimp.sh -i --batch-interpreter=plug-in-script-fu-eval --quit \
      -b "(load \"$work/perf-$fmt.scm\")" >"$log" 2>&1
    # perf_in_gimp.py names a log perf-FORMAT-runN.log
    cp "$log" "$work/perf-$fmt-run1.log"
    logs="$logs $work/perf-$fmt-run1.log"
  done
  echo "== backend $backend ($(grep -m1 -o 'backend [^—]*' "$out/perf-gray-$backend.log"))"
  python3 "$here/perf_in_gimp.py" table 3 $logs | tee "$out/table-$backend.md" || rc=1
done
exit $rc
