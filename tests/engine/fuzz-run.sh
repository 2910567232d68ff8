#!/bin/sh
# Builds tests/engine/fuzz-engine.c with clang's libFuzzer, ASan and UBSan,
# with the FFT path linked to FFTW as the product links it (fftw3f from its
# static archive, fftw3 shared), and runs it for SECONDS (default 60) from
# the seed corpus in tests/engine/fuzz-corpus/ (new inputs go to a scratch
# copy, not into the repository).  Prints
#   fuzz: N runs, 0 crashes (V valid runs checked, B on the FFT's 16-bit bound,
#   R refusals checked)
# and exits 0, or prints the crash and the input that caused it (kept in
# $BUILD, default build-fuzz/) and exits 1; also 1 when V, B or R is 0
# (nothing was checked).  Needs clang and its runtime,
# and FFTW (Debian 12: apt-get install clang libclang-rt-14-dev
# libfftw3-dev).
#   tests/engine/fuzz-run.sh [SECONDS]
set -u
cd "$(dirname "$0")/../.."
seconds=${1:-60}
case $seconds in ''|*[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac
BUILD=${BUILD:-build-fuzz}
CLANG=${CLANG:-clang}
mkdir -p "$BUILD"
rm -rf "$BUILD/corpus" && mkdir -p "$BUILD/corpus"

# The CPU loops of each x86 instruction set with that set's flags (as
# Makefile.am builds them); kernels/cpu/backend.h then calls them by itself.
FLAGS="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -Wall -Wextra -Ikernels"
loops=
case $(uname -m) in
  x86_64|i?86)
    $CLANG $FLAGS -fsanitize=fuzzer-no-link -mavx2 -mfma -c kernels/cpu/loops-avx2.c \
        -o "$BUILD/loops-avx2.o" \
      && $CLANG $FLAGS -fsanitize=fuzzer-no-link -mavx512f -mavx512bw -mavx512vl -mavx2 -mfma \
        -c kernels/cpu/loops-avx512.c -o "$BUILD/loops-avx512.o" \
      || { echo "fuzz: the build failed"; exit 1; }
    loops="$BUILD/loops-avx2.o $BUILD/loops-avx512.o" ;;
esac
# FFTW as configure.ac links it: fftw3f's archive, fftw3 shared.
fftw_libs="$(pkg-config --variable=libdir fftw3f)/libfftw3f.a $(pkg-config --libs fftw3)" \
  && fftw_cflags=$(pkg-config --cflags fftw3f fftw3) \
  || { echo "fuzz: FFTW not found (apt-get install libfftw3-dev)"; exit 1; }
# The engine without CUDA (gblur-nocuda.c), with the FFT path: every unit
# but the loops built above.
engine=
for f in kernels/*.c kernels/cpu/*.c; do
  case $f in kernels/cpu/loops-avx*.c) continue ;; esac
  engine="$engine $f"
done
# The reference (the slow part) optimised, without the fuzzer's coverage.
$CLANG -g -O2 -Wall -Wextra -Ikernels -c tests/engine/reference.c -o "$BUILD/reference.o" \
  || { echo "fuzz: the build failed"; exit 1; }
$CLANG $FLAGS -DHAVE_FFTW $fftw_cflags -fsanitize=fuzzer -Itests/engine tests/engine/fuzz-engine.c \
    tests/engine/test-util.c "$BUILD/reference.o" $engine $loops $fftw_libs -lpthread -lm -o "$BUILD/fuzz-engine" \
  || { echo "fuzz: the build failed"; exit 1; }

# One job; timeouts and memory as crashes too (-timeout per input).
"$BUILD/fuzz-engine" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$BUILD/" \
    "$BUILD/corpus" tests/engine/fuzz-corpus >"$BUILD/fuzz.log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$BUILD/fuzz.log" | tail -n 1)
if [ $rc -ne 0 ]; then
  grep -E -A 25 'fuzz-engine:|ERROR: |runtime error|deadly signal|timeout' "$BUILD/fuzz.log" | head -n 60
  ls "$BUILD"/crash-* "$BUILD"/timeout-* "$BUILD"/oom-* 2>/dev/null
  echo "fuzz: ${runs:-?} runs, 1 crash (exit $rc; log $BUILD/fuzz.log)"
  exit 1
fi
if [ -z "$runs" ]; then
  tail -n 20 "$BUILD/fuzz.log"
  echo "fuzz: no statistics in $BUILD/fuzz.log"
  exit 1
fi
counts=$(sed -n 's/^fuzz-engine: \([0-9]*\) valid runs checked, \([0-9]*\) forced .*, \([0-9]*\) refusals checked$/\1 valid runs checked, \2 on the FFT'"'"'s 16-bit bound, \3 refusals checked/p' "$BUILD/fuzz.log" | tail -n 1)
echo "fuzz: $runs runs, 0 crashes (${counts:-no counts})"
# A run that checked no valid input, none on the bound or no refusal
# checked nothing.
case $counts in
  ''|'0 valid'*|*' 0 on the FFT'*|*' 0 refusals'*)
    echo "fuzz: no valid run, none on the 16-bit bound or no refusal was checked"; exit 1 ;;
esac
