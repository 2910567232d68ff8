#!/bin/sh
# Faults and extremes in real GIMP, batch mode, each in its own GIMP process:
# simulated engine faults (GBLUR_FAULT: a failure in mid-run, failed
# allocations — the drawable must be untouched; CUDA unusable — the CPU must
# finish the blur), a 10000×10000 image (must complete, with progress, and be
# right), the plug-in killed in mid-blur, and — in GIMP 2.10's GUI under
# Xvfb — Cancel pressed in the progress window during a blur (the image must
# be untouched both times).  The kill and the Cancel act while the plug-in is
# known to be in mid-blur: GBLUR_FAULT=stall holds it at a progress step and
# it says so in the log; nothing here depends on the machine's speed.
#   tests/gimp/robustness-test.sh 2 BUILDDIR | 3.0|3.2 [-|DIR]   (DIR: built there in
#                                                 the chroot; -: built now)
# ROBUST_SCENARIOS picks scenarios (default: all); GIMP2_CONSOLE is GIMP
# 2.10's console program (default gimp-console-2.10; on the GPU machine, the
# relocatable GIMP's run-gimp.sh).
# Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/common.sh"
gimp_version "${1:?usage: robustness-test.sh 2 BUILDDIR | 3.0|3.2 [-|DIR]}"
PY=${PYTHON:-/usr/bin/python3}   # Debian's, with OpenCV (PYTHON: another with numpy and Pillow)
base=$(mktemp -d /tmp/cgb-robust$version.XXXXXX)
mkdir -p "$base/plug-in"

if [ "$version" = 2 ]; then
  cp "${2:?BUILDDIR needed}/plugin/cuda-gaussian-blur" "$base/plug-in/" || exit 1
else
  gimp3_build "$base" "${2:--}" /build-gimp$version-robust &&
    in_gimp3 "$base" "cp $plugin_dir/plugin/cuda-gaussian-blur $base/plug-in/" || exit 1
fi

run_gimp () { # work fault [gui]
  local work=$1 fault=$2 gui=${3:-}
  mkdir -p "$work/profile/plug-ins/cuda-gaussian-blur"
  cp "$base/plug-in/cuda-gaussian-blur" "$work/profile/plug-ins/cuda-gaussian-blur/"
  [ -n "$gui" ] && gimprc_quiet "$work/profile"
  if [ "$version" = 2 ]; then
    if [ -n "$gui" ]; then
      env ${fault:+GBLUR_FAULT=$fault} GIMP2_DIRECTORY="$work/profile" GBLUR_VERBOSE=1 \
        timeout -k 10 "$GIMP_RUN_LIMIT" gimp-2.10 --no-splash -b "(load \"$work/robust.scm\")" >"$work/log" 2>&1
    else
      env ${fault:+GBLUR_FAULT=$fault} GIMP2_DIRECTORY="$work/profile" GBLUR_VERBOSE=1 \
        timeout -k 10 "$GIMP_RUN_LIMIT" ${GIMP2_CONSOLE:-gimp-console-2.10} -i -b "(load \"$work/robust.scm\")" -b '(gimp-quit 0)' \
        >"$work/log" 2>&1
    fi
  elif [ -n "$gui" ]; then
    in_gimp3 "$base" "
      export ${fault:+GBLUR_FAULT=$fault} DISPLAY=$DISPLAY GIMP3_DIRECTORY=$work/profile GBLUR_VERBOSE=1
      $(gimp_binary gui) --no-splash --batch-interpreter=plug-in-script-fu-eval -b '(load \"$work/robust.scm\")'" \
      >"$work/log" 2>&1
  else
    in_gimp3 "$base" "
      export ${fault:+GBLUR_FAULT=$fault} GIMP3_DIRECTORY=$work/profile GBLUR_VERBOSE=1
      $(gimp_binary console) -i --batch-interpreter=plug-in-script-fu-eval -b '(load \"$work/robust.scm\")' \
        -b '(gimp-quit 0)'" >"$work/log" 2>&1
  fi
}

# The plug-in's process for a run (not the query GIMP starts it for in a
# fresh profile).
run_pattern () { echo "$1/profile/plug-ins/cuda-gaussian-blur/cuda-gaussian-blur .*-run"; }
stall_line="gblur: stalled at progress step"

passed=0 failed=0
# GIMP 2.10 shows a batch call's progress in a window of its own, with a
# Cancel button; GIMP 3 shows it in the image window's status bar, which this
# test does not drive: there the killed plug-in stands for a cancel.
scenarios="fault-cpu-stripe fault-cpu-alloc fault-host-alloc fault-cuda-init huge kill"
[ "$version" = 2 ] && scenarios="$scenarios cancel"
scenarios=${ROBUST_SCENARIOS:-$scenarios}
for scenario in $scenarios; do
  work=$base/$scenario
  mkdir -p "$work"
  $PY "$here/batch_test.py" robust-prepare "$major" "$work" "$scenario" || exit 1
  fault=$($PY "$here/batch_test.py" fault-of "$scenario")
  if [ "$scenario" = kill ]; then
    run_gimp "$work" "$fault" &
    gimp=$!
    # Kill the plug-in where it stalls, in mid-blur.
    if wait_until 300 $gimp "the plug-in to stall in mid-blur ('$stall_line')" log_has "$work/log" "$stall_line" \
         2>>"$work/log"; then
      pkill -9 -f "$(run_pattern "$work")" && echo "killed the plug-in" >>"$work/log"
    fi
    wait $gimp
  elif [ "$scenario" = cancel ]; then
    start_xvfb "$work/xvfb.log" 2>>"$work/log"
    run_gimp "$work" "$fault" gui &
    gimp=$!
    # Once the plug-in stalls in mid-blur, press Cancel in GIMP's progress window.
    if wait_until 300 $gimp "the plug-in to stall in mid-blur ('$stall_line')" log_has "$work/log" "$stall_line" \
         2>>"$work/log" \
       && wait_until 60 $gimp "GIMP's progress window" find_window "^Progress$" 2>>"$work/log"; then
      eval "$(x xdotool getwindowgeometry --shell "$win")"
      x import -window root "$base/cancel-progress.png" 2>/dev/null
      x xdotool mousemove $((X + WIDTH - 50)) $((Y + HEIGHT - 25)) click 1 && touch "$work/cancel.marker"
    fi
    wait_until 120 "" "GIMP to quit after Cancel" sh -c "! kill -0 $gimp 2>/dev/null" 2>>"$work/log"
    kill $gimp 2>/dev/null; pkill -f "$work/robust.scm" 2>/dev/null; kill $xvfb 2>/dev/null
    unset DISPLAY
  else
    run_gimp "$work" "$fault"
  fi
  # Which backend ran (the GPU machine's runs must say CUDA).
  grep -E -m 2 "^cuda-gaussian-blur: (backend|.* ms \(read, blur, write\))" "$work/log" | sed "s/^/  $scenario: /"
  if $PY "$here/batch_test.py" robust-check "$major" "$work" "$scenario" "$work/log"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); tail -n 15 "$work/log"
  fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && rm -rf "$base"
[ $failed -eq 0 ]
