#!/bin/sh
# On a machine with an NVIDIA GPU and the CUDA toolkit (no GIMP, no GLib, no
# libtool needed): builds the engine, its tests and the benchmark with nvcc
# for this machine's GPU, then runs
#   1. the engine suite on the CUDA backend (quick runs again with the
#      general and FP32 kernels forced, see kernels/cuda/backend.cu) and on the CPU backend,
#   2. the fault-injection tests (GBLUR_FAULT) on both backends, and a
#      20000x20000 image on each with its memory bounds (huge-image),
#   3. the sanitizer subsets (test-engine --sanitize: every kernel family
#      and format, per-axis sigmas, windows, tiles, device-resident images;
#      test-faults --sanitize: each CUDA fault and its CPU fallback; small
#      images) under compute-sanitizer memcheck (with leak check),
#      racecheck, initcheck and synccheck, each tool's time and summary,
#   4. the differential fuzzer (tests/engine/fuzz-cuda.c: the CUDA backend
#      against the CPU backend on random sizes, strides, windows, formats,
#      flags, per-axis sigmas, memory limits and kernel families, each
#      within 1 level of the reference) for --fuzz-seconds N (default 120;
#      0: not run),
#   5. the preview benchmark and the benchmark (all backends, the fixed matrix),
#   6. with GIMP210_BUNDLE set (a relocatable GIMP 2.10, ../shared/tools/
#      gimp-gpu/make-gimp210-bundle.sh) and GIMP210_BIN (the plug-in and its
#      copy-only twin built for it: --with-gimp=2 --with-cuda-arch=90,
#      stripped; GIMP's own file-tiff, for the suite's float images, with
#      its libraries in the bundle (make-gimp210-bundle.sh -p); and in
#      GIMP210_BIN/icc the suite's ICC profiles, which this machine lacks:
#      tests/gimp/batch_test.py's PROFILES): the plug-in's
#      batch suite inside that GIMP with the CUDA backend forced, then its
#      speed against GIMP's own blur with the automatic and the CPU backend
#      (tests/gpu/perf-on-gpu.sh),
#   7. with GIMP3_BUNDLE set (a relocatable GIMP 3.0, make-gimp3-bundle.sh,
#      with GIMP's own file-tiff packed: -P) and GIMP3_BIN (cuda-gaussian-blur,
#      cuda-gaussian-blur.so, the twins of perf-on-gpu.sh, built in the
#      bundle's chroot with --with-gimp=3 --with-cuda-arch=90 and stripped;
#      GIMP3_BIN/icc the ICC profiles): the batch suite inside that GIMP with
#      the CUDA backend forced, once with the procedure on its own pixel path
#      (no operation installed) and once through the operation in GIMP's
#      process, then tests/gpu/perf-on-gpu.sh.
# Objects and programs go to $BUILD_DIR (default build-gpu/), logs to
# $LOGDIR (default the same).  Exit status: non-zero if the build, or any
# suite or sanitizer run failed.
#   tests/gpu/gpu-check.sh [--no-suites] [--no-bench] [--no-sanitizer] [--no-huge] [--build-only]
#                      [--no-build] [--sanitizer-only] [--fuzz-seconds N] [--fuzz-only]
# (--no-suites: not steps 1 and 2; with --no-sanitizer --no-bench as well,
# only the GIMP steps run; --sanitizer-only: builds only the engine and its
# two test programs and runs step 3 alone: about 2 minutes on the H200,
# docs/performance.md; --fuzz-only: builds only the engine and the fuzzer
# and runs step 4 alone, FUZZ_SEED=S repeating a run.  SANITIZER_TIMEOUT=
# seconds stops each sanitizer run after that long, as a failure; --no-build:
# runs the programs already in $BUILD_DIR, built elsewhere with --build-only
# and GPU_ARCH of this GPU.)
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD_DIR:-build-gpu}
LOGDIR=${LOGDIR:-$BUILD}
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
ARCH=${GPU_ARCH:-native}
suites=1 bench=1 sanitize=1 huge=1 build_only=0 no_build=0 only_sanitizer=0 only_fuzz=0 fuzz_seconds=120
usage="usage: $0 [--no-suites] [--no-bench] [--no-sanitizer] [--no-huge] [--build-only] [--no-build] [--sanitizer-only]
       [--fuzz-seconds N] [--fuzz-only]"
while [ $# -gt 0 ]; do
  a=$1; shift
  case $a in
    --fuzz-seconds)
      fuzz_seconds=${1:-}; shift
      case $fuzz_seconds in ''|*[!0-9]*) echo "$usage" >&2; exit 2 ;; esac ;;
    --fuzz-only) only_fuzz=1 suites=0 huge=0 bench=0 sanitize=0 ;;
    --no-suites) suites=0; huge=0 ;;
    --no-bench) bench=0 ;;
    --no-sanitizer) sanitize=0 ;;
    --no-huge) huge=0 ;;
    --build-only) build_only=1 ;;
    --no-build) no_build=1 ;;
    --sanitizer-only) only_sanitizer=1 suites=0 huge=0 bench=0 sanitize=1 fuzz_seconds=0 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
mkdir -p "$BUILD" "$LOGDIR"

if [ $no_build = 0 ]; then
FLAGS="-O3 -g -lineinfo -arch=$ARCH -DHAVE_CUDA -Ikernels -Xcompiler -Wall,-Wextra"
build_start=$(date +%s)
# Objects compile side by side (kernels-general.cu alone takes about a minute).
pids=
compile () { # source [nvcc flags...]: $BUILD/<source's name>.o, in the background
  src=$1; shift
  $NVCC $FLAGS "$@" -c "$src" -o "$BUILD/$(basename "$src").o" &
  pids="$pids $!"
}
compiled () { # waits for every compile; exits if one failed
  ok=1
  for p in $pids; do wait "$p" || ok=0; done
  pids=
  [ $ok = 1 ] || { echo "!! build failed"; exit 1; }
}
# The engine suite: every file of it (tests/engine/test-engine*.c).
SUITE_SOURCES=$(echo tests/engine/test-engine*.c)
programs="$SUITE_SOURCES tests/engine/test-faults.c"
[ $only_sanitizer = 1 ] || programs="$programs tests/engine/huge-image.c tests/benchmarks/bench.c \
  tests/benchmarks/preview-bench.c tests/engine/fuzz-cuda.c"
[ $only_fuzz = 1 ] && programs=tests/engine/fuzz-cuda.c
SUITE_OBJS=
for f in $SUITE_SOURCES; do SUITE_OBJS="$SUITE_OBJS $BUILD/$(basename "$f").o"; done
# The engine: every unit of kernels/ but the no-CUDA stand-in, the FFT path
# (no FFTW here) and the wider instruction sets' loops (below).
ENGINE=
for f in kernels/*.c kernels/cpu/*.c kernels/cuda/*.cu; do
  case $f in
    kernels/gblur-nocuda.c|kernels/cpu/fft*.c|kernels/cpu/loops-avx*.c) continue ;;
  esac
  compile "$f"
  ENGINE="$ENGINE $BUILD/$(basename "$f").o"
done
# The environment as the front ends read it (GBLUR_CPU_ISA, GBLUR_FAULT, ...),
# which the tests and benchmarks read too.
ENV_OBJS="$BUILD/pixel-env.c.o $BUILD/pixel-stall.c.o"
for f in tests/engine/reference.c tests/engine/test-util.c tests/engine/test-begin.c pixels/pixel-env.c pixels/pixel-stall.c $programs; do
  compile "$f" -Ipixels
done
# The CPU loops of each wider x86 instruction set, with that set's flags (as
# Makefile.am builds them); kernels/cpu/backend.c then calls them by itself.
case $(uname -m) in
  x86_64|i?86)
    compile kernels/cpu/loops-avx2.c -Xcompiler -mavx2,-mfma
    compile kernels/cpu/loops-avx512.c -Xcompiler -mavx512f,-mavx512bw,-mavx512vl,-mavx2,-mfma
    ENGINE="$ENGINE $BUILD/loops-avx2.c.o $BUILD/loops-avx512.c.o" ;;
esac
compiled
set -e
if [ $only_fuzz = 0 ]; then
  $NVCC -arch=$ARCH -o "$BUILD/test-engine" $SUITE_OBJS $BUILD/test-util.c.o $BUILD/test-begin.c.o $BUILD/reference.c.o $ENV_OBJS $ENGINE -lpthread -lm
  $NVCC -arch=$ARCH -o "$BUILD/test-faults" $BUILD/test-faults.c.o $BUILD/test-util.c.o $BUILD/test-begin.c.o $BUILD/reference.c.o $ENV_OBJS $ENGINE -lpthread -lm
fi
if [ $only_sanitizer = 0 ]; then
  $NVCC -arch=$ARCH -o "$BUILD/fuzz-cuda" $BUILD/fuzz-cuda.c.o $BUILD/test-util.c.o $BUILD/reference.c.o $ENGINE -lpthread -lm
fi
if [ $only_sanitizer = 0 ] && [ $only_fuzz = 0 ]; then
  $NVCC -arch=$ARCH -o "$BUILD/huge-image" $BUILD/huge-image.c.o $BUILD/reference.c.o $ENV_OBJS $ENGINE -lpthread -lm
  # The benchmark compares against NPP where the toolkit has it (not everywhere).
  if [ -f "$(dirname "$(command -v "$NVCC")")/../include/nppi_filtering_functions.h" ] \
     && $NVCC $FLAGS -Ipixels -DHAVE_NPP -c tests/benchmarks/bench.c -o "$BUILD/bench-npp.c.o" \
     && $NVCC -arch=$ARCH -o "$BUILD/bench" $BUILD/bench-npp.c.o $ENV_OBJS $ENGINE -lnppif -lnppc -lpthread -lm; then
    echo "bench: with NPP"
  else
    echo "bench: without NPP"
    $NVCC -arch=$ARCH -o "$BUILD/bench" $BUILD/bench.c.o $ENV_OBJS $ENGINE -lpthread -lm
  fi
  $NVCC -arch=$ARCH -o "$BUILD/preview-bench" $BUILD/preview-bench.c.o $ENV_OBJS $ENGINE -lpthread -lm
fi
set +e
echo "== build: $(( $(date +%s) - build_start )) s"
fi
[ $build_only = 1 ] && exit 0

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
if [ $suites = 1 ]; then
  run suite-cuda "$BUILD/test-engine" --backend cuda
  # one-channel images on the general kernels, small-radius RGBA8 on the tensor cores
  run suite-cuda-general env GBLUR_CUDA_NO_GRAY=1 "$BUILD/test-engine" --backend cuda --quick
  # 8-bit gray and RGBA stored as is on the FP32 kernels instead of the tensor cores
  run suite-cuda-fp32-gray env GBLUR_CUDA_NO_MMA=1 "$BUILD/test-engine" --backend cuda --quick
  # everything on the general kernels
  run suite-cuda-general-only env GBLUR_CUDA_NO_GRAY=1 GBLUR_CUDA_NO_MMA=1 "$BUILD/test-engine" --backend cuda --quick
  run suite-cpu "$BUILD/test-engine" --backend cpu
  run faults-cuda "$BUILD/test-faults" --backend cuda
  run faults-cpu "$BUILD/test-faults" --backend cpu
fi
if [ $huge = 1 ]; then
  run huge-cuda "$BUILD/huge-image" --backend cuda
  run huge-cpu "$BUILD/huge-image" --backend cpu
fi
if [ $sanitize = 1 ]; then
  # Each tool over both subsets: the kernels (test-engine --sanitize) and
  # the failure paths (test-faults --sanitize: buffers freed, nothing left
  # queued or leaked, the CPU fallback right).  A finding exits 99.
  summary=
  for tool in memcheck racecheck initcheck synccheck; do
    extra=
    [ $tool = memcheck ] && extra="--leak-check full"
    for prog in test-engine test-faults; do
      name=sanitizer-$tool-$prog
      start=$(date +%s)
      run "$name" ${SANITIZER_TIMEOUT:+timeout $SANITIZER_TIMEOUT} compute-sanitizer --tool $tool $extra \
          --error-exitcode 99 "$BUILD/$prog" --backend cuda --sanitize
      line="$name: $(( $(date +%s) - start )) s; $(grep -E "passed, .* failed" "$LOGDIR/$name.log" | tail -n 1);"
      line="$line $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$LOGDIR/$name.log" \
                    | sed 's/^=* *//' | tr '\n' ';')"
      echo "   $line"
      summary="$summary
$line"
    done
  done
  echo "== sanitizers:$summary"
fi
if [ "$fuzz_seconds" -gt 0 ]; then
  run fuzz-cuda "$BUILD/fuzz-cuda" --seconds "$fuzz_seconds" ${FUZZ_SEED:+--seed "$FUZZ_SEED"}
  grep '^FAIL' "$LOGDIR/fuzz-cuda.log" | head -n 10
fi
if [ $bench = 1 ]; then
  echo "== preview updates (the dialog's path, without GEGL)"
  for b in cuda cpu; do "$BUILD/preview-bench" --backend $b | tee -a "$LOGDIR/preview-bench.md"; done
  echo "== bench"
  "$BUILD/bench" --backend cuda-device --format all | tee "$LOGDIR/bench-cuda-device.md"
  "$BUILD/bench" --backend npp --size 8192 --format all | tee "$LOGDIR/bench-npp.md"
  "$BUILD/bench" --backend cuda --size 4096 --size 8192 | tee "$LOGDIR/bench-cuda.md"
  "$BUILD/bench" --backend cpu --size 8192 --format gray --sigma 1 --sigma 2 --sigma 10 --sigma 20 --reps 3 \
    | tee "$LOGDIR/bench-cpu.md"
fi
if [ -n "${GIMP210_BUNDLE:-}" ]; then
  mkdir -p /opt "$BUILD/gimp210/plugin" && tar -xJf "$GIMP210_BUNDLE" -C /opt \
    && cp "$GIMP210_BIN/cuda-gaussian-blur" "$BUILD/gimp210/plugin/" \
    && mkdir -p /opt/gimp210/lib/gimp/2.0/plug-ins/file-tiff \
    && cp "$GIMP210_BIN/file-tiff" /opt/gimp210/lib/gimp/2.0/plug-ins/file-tiff/ || status=1
  run gimp210-batch-cuda env GBLUR_BACKEND=cuda GIMP2_CONSOLE=/opt/gimp210/run-gimp.sh PYTHON=python3 \
      ICC_PROFILE_DIRS="$GIMP210_BIN/icc" LANG=C.UTF-8 tests/gimp/run-batch-tests.sh 2 "$BUILD/gimp210"
  run gimp210-perf env PERF_BACKENDS="${PERF_BACKENDS:-auto cpu}" \
      tests/gpu/perf-on-gpu.sh "$GIMP210_BUNDLE" "$GIMP210_BIN" "$LOGDIR/gimp210-perf"
fi
if [ -n "${GIMP3_BUNDLE:-}" ]; then
  module=/opt/gimp3/lib/gegl-0.4/cuda-gaussian-blur.so
  # file-tiff, packed into the bundle's own profile (-P), joins GIMP's plug-ins:
  # the suite runs in a profile of its own.
  mkdir -p /opt "$BUILD/gimp3/plugin" && tar -xJf "$GIMP3_BUNDLE" -C /opt && rm -f "$module" \
    && cp -r /opt/gimp3/profile/plug-ins/file-tiff /opt/gimp3/lib/gimp/3.0/plug-ins/ \
    && cp "$GIMP3_BIN/cuda-gaussian-blur" "$BUILD/gimp3/plugin/" || status=1
  gimp3_batch () { # name, how many calls must merge the operation: none|some
    run "$1" env GBLUR_BACKEND=cuda GBLUR_VERBOSE=1 GIMP3_CONSOLE=/opt/gimp3/run-gimp.sh PYTHON=python3 \
        ICC_PROFILE_DIRS="$GIMP3_BIN/icc" LANG=C.UTF-8 tests/gimp/run-batch-tests.sh 3.0 "$BUILD/gimp3"
    merged=$(sed -n 's/^== the procedure merged the operation in \([0-9]*\) calls$/\1/p' "$LOGDIR/$1.log")
    case $2:${merged:-none} in
      none:0|some:[1-9]*) ;;
      *) echo "!! $1: the procedure merged the operation in ${merged:-no} calls, expected $2"; status=1 ;;
    esac
  }
  # The bundle's GEGL_PATH holds only its own folder: without the module
  # there, the procedure takes its pixel path.
  gimp3_batch gimp3-batch-cuda-pixel-path none
  cp "$GIMP3_BIN/cuda-gaussian-blur.so" "$module" || status=1
  gimp3_batch gimp3-batch-cuda-operation some
  run gimp3-perf env PERF_BACKENDS="${PERF_BACKENDS:-cuda cpu}" \
      tests/gpu/perf-on-gpu.sh "$GIMP3_BUNDLE" "$GIMP3_BIN" "$LOGDIR/gimp3-perf"
fi
exit $status
