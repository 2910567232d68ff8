#!/bin/sh
# Faults and extremes in real GIMP, batch mode, each in its own GIMP process:
# simulated engine faults (GBLUR_FAULT: a failure in mid-run, failed
# allocations — the drawable must be untouched; CUDA unusable — the CPU must
# finish the blur), a 10000×10000 image (must complete, with progress, and be
# right), and the plug-in killed in mid-blur, as GIMP does when the user
# cancels it from the progress bar (the image must be untouched).
#   tests/gimp/robustness-test.sh 2 BUILDDIR | 3
# Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
version=${1:?usage: robustness-test.sh 2 BUILDDIR | 3}
PY=/usr/bin/python3
base=$(mktemp -d /tmp/cgb-robust$version.XXXXXX)
mkdir -p "$base/plug-in"

if [ "$version" = 2 ]; then
  cp "${2:?BUILDDIR needed}/plugin/cuda-gaussian-blur" "$base/plug-in/" || exit 1
else
  GIMP3_CHROOT_BIND=$base "$top/tests/gimp3-chroot.sh" sh -c "
    set -e; rm -rf /build-gimp3-robust && mkdir -p /build-gimp3-robust && cd /build-gimp3-robust
    /src/configure --with-gimp=3 --with-cuda-arch=75 >configure.out
    make -j\$(nproc) plugin/cuda-gaussian-blur >make.out 2>&1 || { tail -n 30 make.out; exit 1; }
    cp plugin/cuda-gaussian-blur $base/plug-in/" || exit 1
fi

run_gimp () { # work fault
  local work=$1 fault=$2
  mkdir -p "$work/profile/plug-ins/cuda-gaussian-blur"
  cp "$base/plug-in/cuda-gaussian-blur" "$work/profile/plug-ins/cuda-gaussian-blur/"
  if [ "$version" = 2 ]; then
    env ${fault:+GBLUR_FAULT=$fault} GIMP2_DIRECTORY="$work/profile" CUDA_GBLUR_VERBOSE=1 \
      gimp-console-2.10 -i -b "(load \"$work/robust.scm\")" -b '(gimp-quit 0)' >"$work/log" 2>&1
  else
    GIMP3_CHROOT_BIND=$base "$top/tests/gimp3-chroot.sh" sh -c "
      export ${fault:+GBLUR_FAULT=$fault} GIMP3_DIRECTORY=$work/profile CUDA_GBLUR_VERBOSE=1
      gimp-console-3.0 -i --batch-interpreter=plug-in-script-fu-eval -b '(load \"$work/robust.scm\")' \
        -b '(gimp-quit 0)'" >"$work/log" 2>&1
  fi
}

passed=0 failed=0
for scenario in fault-cpu-stripe fault-cpu-alloc fault-host-alloc fault-cuda-init huge kill; do
  work=$base/$scenario
  mkdir -p "$work"
  $PY "$here/batch_test.py" robust-prepare "$version" "$work" "$scenario" || exit 1
  fault=""
  case $scenario in fault-*) fault=$($PY "$here/batch_test.py" fault-of "$scenario") ;; esac
  if [ "$scenario" = kill ]; then
    run_gimp "$work" "" &
    gimp=$!
    # Kill the plug-in once it is blurring (it first reads the pixels).
    i=0
    while ! pgrep -f "$work/profile/plug-ins/cuda-gaussian-blur/cuda-gaussian-blur" >/dev/null && [ $i -lt 600 ]; do
      sleep 0.1; i=$((i + 1))
    done
    sleep 1.5
    pkill -9 -f "$work/profile/plug-ins/cuda-gaussian-blur/cuda-gaussian-blur" && echo "killed the plug-in" >>"$work/log"
    wait $gimp
  else
    run_gimp "$work" "$fault"
  fi
  if $PY "$here/batch_test.py" robust-check "$version" "$work" "$scenario" "$work/log"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); tail -n 15 "$work/log"
  fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && rm -rf "$base"
[ $failed -eq 0 ]
