#!/bin/sh
# The engine's small subset on the CPU (test-engine --sanitize: every
# format, per-axis, windows, tiles, the FFT path, the conversions, the error
# paths) and the CPU fault tests under valgrind memcheck: fails on any memory
# error (uninitialised reads included) or definite leak.  The whole quick
# suite took over 16 minutes here; it runs under ASan+UBSan (CI's
# --enable-sanitizers build) instead.  Needs a build without CUDA
# (the CUDA runtime's own allocations would drown the report) and without
# --enable-sanitizers (ASan and valgrind exclude each other).
#   tests/engine/valgrind-check.sh [BUILDDIR]
# Without BUILDDIR it configures and builds one in build-valgrind/ (run
# ./autogen.sh first in a fresh checkout).
set -u
cd "$(dirname "$0")/../.."
top=$PWD
command -v valgrind >/dev/null 2>&1 || { echo "valgrind: not installed (apt-get install valgrind)"; exit 1; }
if [ $# -ge 1 ]; then
  build=$(cd "$1" && pwd) || exit 1
else
  build=$top/build-valgrind
  mkdir -p "$build"
  (cd "$build" && "$top/configure" --without-cuda --with-gimp=no >configure.out 2>&1 \
     && make -j"$(nproc)" >make.out 2>&1) || { echo "valgrind: the build in $build failed"; exit 1; }
fi
if grep -q '^#define HAVE_CUDA' "$build/config.h" 2>/dev/null; then
  echo "valgrind: $build has the CUDA backend; configure it --without-cuda"; exit 1
fi
if grep -q '^CFLAGS = .*-fsanitize' "$build/Makefile" 2>/dev/null; then
  echo "valgrind: $build is a sanitizer build"; exit 1
fi
(cd "$build" && make tests/engine/test-engine tests/engine/test-faults >/dev/null 2>&1) || { echo "valgrind: cannot build the tests"; exit 1; }

status=0
for t in "test-engine --backend cpu --sanitize" "test-faults --backend cpu"; do
  name=${t%% *}
  log=$build/valgrind-$name.log
  valgrind --leak-check=full --errors-for-leak-kinds=definite \
      --error-exitcode=99 --track-origins=yes "$build/tests/engine/$name" ${t#* } >"$log" 2>&1
  rc=$?
  result=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -n 1)
  lost=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tail -n 1)
  echo "valgrind $t: ${result:-no result}; ${errors:-?} errors, ${lost:-0} bytes definitely lost (exit $rc)"
  if [ $rc -ne 0 ] || [ "${errors:-1}" != 0 ] || [ "${lost:-0}" != 0 ]; then
    grep -E -A 12 '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|[0-9,]+ bytes in)' "$log" | head -n 60
    echo "!! valgrind: $t failed (log $log)"
    status=1
  fi
done
exit $status
