# The CI steps (.ci/run): their names, lanes and lines, each a function
# step_NAME (dots and dashes as underscores) that counts its checks.
# A whole run runs the lanes side by side: main (this machine's GIMP 2.10),
# 3.0 and 3.2 (their chroots), release and builds (builds that no GIMP of
# this machine's sees; the release first, which the installs wait for).
# Within a lane the steps run in this order; a step that needs another
# lane's output waits for it (wait_for).
STEPS="
packages            main    the packages a fresh Debian 12 lacks, the locales the GUI tests use
autogen             main    configure and the Makefiles, which every build of this tree uses
build               main    plug-in, operation, engine for GIMP 2.10 (CUDA sm_75); make check; NEEDED
shape               main    the product code's shape: file and function sizes, no include or call cycle
gimp2-batch         main    the plug-in in GIMP 2.10, batch mode and its warm process
gimp2-operation     main    the operation at mipmap levels, on the canvas as GIMP renders it, in GIMP 2.10
gimp2-gui           main    the dialog in GIMP 2.10 under Xvfb, in English and Korean
gimp2-robustness    main    faults, a 10000x10000 image, a killed plug-in; the folder run under faults, GIMP 2.10
gimp2-installs      main    quickstart, make install-user, the Debian 12 package, the 2.10 release tarball
gimp3.0-chroot      3.0     the Debian 13 chroot with GIMP 3.0 and Debian's CUDA 12.4
gimp3.0-batch       3.0     the plug-in built in the chroot, batch mode, warm process; NEEDED
gimp3.0-operation   3.0     the operation merged, appended, in XCF; single-precision FFTW hidden
gimp3.0-gui         3.0     the dialog, and the operation from its menu entry, under Xvfb (en, ko, de)
gimp3.0-robustness  3.0     faults, a 10000x10000 image, a killed plug-in; the folder run under faults, GIMP 3.0
gimp3.0-installs    3.0     quickstart, make install-user, the Debian 13 package, the GIMP 3 tarball
gimp3.2-chroot      3.2     the Debian forky chroot with GIMP 3.2
gimp3.2-batch       3.2     the plug-in built in the chroot, batch mode, warm process, soaks; NEEDED
gimp3.2-operation   3.2     the operation merged, appended, in XCF; single-precision FFTW hidden
gimp3.2-gui         3.2     the dialog, and the operation from its menu entry, under Xvfb (en, ko, de)
gimp3.2-robustness  3.2     faults, a 10000x10000 image, a killed plug-in; the folder run under faults, GIMP 3.2
gimp3.2-installs    3.2     quickstart, the GIMP 3 release tarball in forky
forky-default       3.2     forky's default configure (gcc 16, which nvcc refuses) builds, make check
driver-messages     3.2     why a CUDA build blurs on the CPU, as users read it (no driver, too old)
release-build       release the release tarballs, CUDA's oldest and newest machine code (sm_60, sm_90)
sanitizers          release the engine under ASan and UBSan, under valgrind, and fuzzed for 60 s (FFT path included)
debian-build        builds  the Debian packages for GIMP 2.10 and 3.0, with Debian's CUDA 11.8 and 12.4
cpu-build           builds  the engine and operation without CUDA and GIMP; make check, NEEDED, gegl tool
distcheck           builds  make distcheck, CUDA's newest machine code (sm_120)
"
LANES="main 3.0 3.2 release builds"

step_names () { echo "$STEPS" | awk 'NF { print $1 }'; }
list_steps () { echo "$STEPS" | awk 'NF'; }
known_step () { step_names | grep -qx -- "$1"; }
lane_steps () { echo "$STEPS" | awk -v l="$1" '$2 == l { print $1 }'; }
lane_of () { echo "$STEPS" | awk -v s="$1" '$1 == s { print $2 }'; }

passed=0 failed=0 skipped=0 timings=""
cpu_now=0
mark_cpu () { # cpu_now: CPU seconds of this shell's finished children (times here, not in a $(...))
  local f=_ci/times.$BASHPID
  times >"$f"
  cpu_now=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] }
    printf "%d", t }' "$f")
}
run_step () { # NAME: runs it, lists its seconds (wall and CPU), marks it done
  local t0 c0 now
  mark_cpu; t0=$(date +%s) c0=$cpu_now
  echo "======== $1"
  "step_$(echo "$1" | tr .- __)"
  now=$(date +%s)
  echo "   ($((now - t0)) s)"
  mark_cpu
  timings="$timings$(printf '%6d s %6d s CPU  %-8s %s' $((now - t0)) $((cpu_now - c0)) "$(lane_of "$1")" "$1")
"
  touch "_ci/$1.done"
}
add_counts () { # the last "N passed, N failed" line of a log; none counts as a failure
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
  if [ -n "$line" ]; then
    passed=$((passed + $(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')))
    failed=$((failed + $(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')))
  else
    echo "!! $1 has no result line"; failed=$((failed + 1))
  fi
}
check () { # name, command...: a check that counts as one test
  local name=$1; shift
  echo "== $name"
  if "$@"; then passed=$((passed + 1)); else echo "!! $name failed"; failed=$((failed + 1)); return 1; fi
}
needs () { # FILE WHAT: a step's input from an earlier step
  [ -e "$1" ] && return 0
  echo "!! ${1:-the output of $2} is missing: run .ci/run $2 first"; failed=$((failed + 1)); return 1
}
tally () { # the engine suites of a build, install.sh's series logic, the pixel
  # path's where the plug-in is built, the operation's cache regions where the module is
  local log
  add_counts "$1/tests/install/install-series-test.sh.log"
  for log in "$1"/tests/engine/engine-*.log; do
    [ -f "$log" ] || { echo "!! no test logs in $1"; failed=$((failed + 1)); continue; }
    add_counts "$log"
    grep -q '^skipped:' "$log" && skipped=$((skipped + 1))
  done
  if grep -q '^GIMP_USER_VERSION = [0-9]' "$1/Makefile" 2>/dev/null; then
    log=$1/tests/gimp/test-pixel-path.log
    if grep -q '^skipped:' "$log" 2>/dev/null; then skipped=$((skipped + 1)); else add_counts "$log"; fi
  fi
  if [ -f "$1/operation/cuda-gaussian-blur.so" ]; then
    add_counts "$1/tests/operation/test-cache-region.log"
  fi
}
build_tree () { # DIR CONFIGURE-ARGS...: configure, make, make check, tally
  local dir=$1; shift
  rm -rf "$dir" && mkdir "$dir"
  (cd "$dir" && ../configure "$@" >configure.out && tail -n 6 configure.out && make -j"$(nproc)" >make.out 2>&1) \
    || { echo "!! the build in $dir failed"; tail -n 30 "$dir/make.out" 2>/dev/null; failed=$((failed + 1)); return 1; }
  (cd "$dir" && make -j"$(nproc)" check 2>&1 | grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS):|^# ')
  tally "$dir"
  grep -h -E '^(skipped|FAIL)' "$dir"/tests/*/*.log 2>/dev/null | head -n 50
}
gimp_suite () { # script (in tests/gimp/, or a path), version, log, args...
  local script=$1 version=$2 log=$3; shift 3
  case $script in */*) ;; *) script=tests/gimp/$script ;; esac
  local t0; t0=$(date +%s)
  echo "== GIMP $version: $script ${GUI_LANG:+(GUI_LANG=$GUI_LANG)}${WRAP:+ (through $WRAP)}"
  if ${WRAP:-} "$script" "$version" "$@" >"$log" 2>&1; then
    grep -E '^== GIMP|^(PASS|FAIL)|passed, ' "$log"
  else
    cat "$log"
  fi
  add_counts "$log"
  echo "   ($(( $(date +%s) - t0 )) s)"
}
logged () { # LOG COMMAND...: runs it into LOG, shows its results, counts them
  local log=$1; shift
  "$@" >"$log" 2>&1
  grep -E '^(==|PASS|FAIL)|passed, ' "$log"
  add_counts "$log"
}

# ---- a whole run: the lanes side by side ------------------------------
# Each lane but main runs in a subshell; its counts, timings and log come
# back through _ci/ when it ends.
run_lane () { # LANE
  echo $BASHPID >"_ci/$1.pid"
  local s
  for s in $(lane_steps "$1"); do run_step "$s"; done
  touch "_ci/$1.end"
}
start_lane () { # LANE
  ( passed=0 failed=0 skipped=0 timings=""
    run_lane "$1"
    echo "$passed $failed $skipped" >"_ci/$1.counts"
    printf '%s' "$timings" >"_ci/$1.timings"
  ) >"_ci/$1.log" 2>&1 &
}
wait_for () { # STEP: wait while its lane, running beside this one, has it to do
  local lane; lane=$(lane_of "$1")
  [ -e "_ci/$lane.pid" ] || return 0
  while [ ! -e "_ci/$1.done" ] && [ ! -e "_ci/$lane.end" ]; do sleep 2; done
}
finish_lanes () { # waits for the other lanes; their logs, counts and timings
  wait
  local lane c
  for lane in $LANES; do
    [ "$lane" != main ] && [ -e "_ci/$lane.pid" ] || continue
    echo "======== lane $lane"
    cat "_ci/$lane.log"
    c=($(cat "_ci/$lane.counts" 2>/dev/null || echo "0 1 0"))
    passed=$((passed + c[0])) failed=$((failed + c[1])) skipped=$((skipped + c[2]))
    timings="$timings$(cat "_ci/$lane.timings" 2>/dev/null)
"
  done
}

. .ci/steps-build.sh
. .ci/steps-gimp.sh
. .ci/steps-ship.sh
