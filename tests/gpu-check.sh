#!/bin/sh
# On a machine with an NVIDIA GPU and the CUDA toolkit (no GIMP, no GLib, no
# libtool needed): builds the engine, its tests and the benchmark with nvcc
# for this machine's GPU, then runs
#   1. the engine suite on the CUDA backend and on the CPU backend,
#   2. the quick CUDA suite under compute-sanitizer memcheck, racecheck,
#      initcheck and synccheck,
#   3. the preview benchmark and the benchmark (all backends, the fixed matrix).
# Logs go to $LOGDIR (default build-gpu/).  Exit status: non-zero if any
# suite or sanitizer run failed.
#   tests/gpu-check.sh [--no-bench] [--no-sanitizer]
set -u
cd "$(dirname "$0")/.."
BUILD=build-gpu
LOGDIR=${LOGDIR:-$BUILD}
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
ARCH=${GPU_ARCH:-native}
bench=1 sanitize=1
for a in "$@"; do
  case $a in
    --no-bench) bench=0 ;;
    --no-sanitizer) sanitize=0 ;;
    *) echo "usage: $0 [--no-bench] [--no-sanitizer]" >&2; exit 2 ;;
  esac
done
mkdir -p "$BUILD" "$LOGDIR"

FLAGS="-O3 -g -lineinfo -arch=$ARCH -DHAVE_CUDA -Ikernels -Xcompiler -Wall,-Wextra"
set -e
for f in kernels/gblur-common.c kernels/gblur-cpu.c kernels/gblur-engine.c tests/reference.c \
         tests/test-engine.c tests/bench.c tests/preview-bench.c kernels/gblur-cuda.cu; do
  $NVCC $FLAGS -c "$f" -o "$BUILD/$(basename "$f").o"
done
ENGINE="$BUILD/gblur-common.c.o $BUILD/gblur-cpu.c.o $BUILD/gblur-engine.c.o $BUILD/gblur-cuda.cu.o"
$NVCC -arch=$ARCH -o "$BUILD/test-engine" $BUILD/test-engine.c.o $BUILD/reference.c.o $ENGINE -lpthread -lm
$NVCC -arch=$ARCH -o "$BUILD/bench" $BUILD/bench.c.o $ENGINE -lpthread -lm
$NVCC -arch=$ARCH -o "$BUILD/preview-bench" $BUILD/preview-bench.c.o $ENGINE -lpthread -lm
set +e

status=0
run () { # name, command...
  name=$1; shift
  echo "== $name: $*"
  "$@" > "$LOGDIR/$name.log" 2>&1
  rc=$?
  tail -n 3 "$LOGDIR/$name.log"
  [ $rc -eq 0 ] || { echo "!! $name failed (exit $rc)"; status=1; }
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null
run suite-cuda "$BUILD/test-engine" --backend cuda
run suite-cpu "$BUILD/test-engine" --backend cpu
if [ $sanitize = 1 ]; then
  for tool in memcheck racecheck initcheck synccheck; do
    extra=
    [ $tool = memcheck ] && extra="--leak-check full"
    run "sanitizer-$tool" compute-sanitizer --tool $tool $extra --error-exitcode 99 \
        "$BUILD/test-engine" --backend cuda --quick
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$LOGDIR/sanitizer-$tool.log" | tail -n 2
  done
fi
if [ $bench = 1 ]; then
  echo "== preview updates (the dialog's path, without GEGL)"
  for b in cuda cpu; do "$BUILD/preview-bench" --backend $b | tee -a "$LOGDIR/preview-bench.md"; done
  echo "== bench"
  "$BUILD/bench" --backend cuda-device | tee "$LOGDIR/bench-cuda-device.md"
  "$BUILD/bench" --backend cuda | tee "$LOGDIR/bench-cuda.md"
  "$BUILD/bench" --backend cpu --reps 3 | tee "$LOGDIR/bench-cpu.md"
fi
exit $status
