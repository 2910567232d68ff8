# The CI steps (.ci/run): their names and lines in order, each a function
# step_NAME (dashes as underscores) that counts its checks into the totals.

# A "&" marks the steps that a whole run does in the background, beside the
# others, at low priority: builds that need no GIMP of this machine's.
STEPS="
packages          the packages a fresh Debian 12 lacks, the locales the GUI tests use
chroots           the GIMP 3.0 (Debian 13) and 3.2 (forky) chroots, made in the background
build             the plug-in, operation and engine for GIMP 2.10 (CUDA for sm_75); make check
cpu-build       & the engine and operation without CUDA and GIMP; make check, NEEDED, the gegl tool
release-build   & the release tarballs, with CUDA's oldest and newest machine code (sm_60, sm_90)
debian-build    & the Debian packages for GIMP 2.10 (Debian 12) and 3.0 (Debian 13, its chroot)
sanitizers      & the engine under ASan and UBSan (make check), under valgrind, and fuzzed for 60 s
distcheck       & make distcheck, with CUDA's newest machine code (sm_120)
shape             the product code's shape: file and function sizes, layers, no include or call cycle
gimp2-batch       the plug-in in GIMP 2.10, batch mode; its warm process
operation         the operation at mipmap levels, on the canvas as GIMP renders it, in GIMP 2.10's GEGL tool
driver-messages   why a CUDA build blurs on the CPU, as users read it (no driver, too old a driver)
gimp3-batch       the plug-in in GIMP 3.0 and 3.2, batch mode and warm process, built in each chroot
gimp3-operation   the operation in GIMP 3.0 and 3.2: merged, appended, in XCF, with single-precision FFTW hidden
needed            every binary needs only libraries GIMP has, and glibc <= 2.42
quickstart        ./quickstart.sh as a newcomer runs it on Debian 12, 13 and forky
gui               the dialog in GIMP 2.10, 3.0 and 3.2 under Xvfb, in English and Korean
gui-operation     the operation from its menu entry in GIMP 3.0 and 3.2, the canvas following the slider
robustness        faults, a 10000x10000 image and a killed plug-in in all three GIMPs
forky-default     Debian forky's default configure (gcc 16, which nvcc refuses) builds and passes make check
install-user      make install-user into fake homes (a Flatpak GIMP's among them), GIMP 2.10 and 3.0
debian-test       the Debian packages installed, the batch suite on the installed copies, removed
release-test      the release tarballs as users get them: checksums, machine code, install.sh, batch suites
"

step_names () { echo "$STEPS" | awk 'NF { print $1 }'; }
list_steps () { echo "$STEPS" | awk 'NF' | sed 's/ & /   /'; }
known_step () { step_names | grep -qx -- "$1"; }
background_steps () { echo "$STEPS" | awk '$2 == "&" { print $1 }'; }

step_names () { echo "$STEPS" | awk 'NF { print $1 }'; }
list_steps () { echo "$STEPS" | awk 'NF'; }
known_step () { step_names | grep -qx -- "$1"; }

passed=0 failed=0 skipped=0 timings=""
mark () { # LABEL: the seconds since the previous mark
  local now; now=$(date +%s)
  echo "   ($((now - t_last)) s)"
  timings="$timings$(printf '%6d s  %s' $((now - t_last)) "$1")
"
  t_last=$now
}
run_step () { # NAME
  echo "======== $1"
  "step_${1//-/_}"
  mark "$1"
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
tally () { # the engine suites of a build, the pixel path's where the plug-in
  # is built, and the operation's cache regions where the module is
  local log
  for log in "$1"/tests/engine-*.log; do
    [ -f "$log" ] || { echo "!! no test logs in $1"; failed=$((failed + 1)); continue; }
    add_counts "$log"
    grep -q '^skipped:' "$log" && skipped=$((skipped + 1))
  done
  if grep -q '^GIMP_USER_VERSION = [0-9]' "$1/Makefile" 2>/dev/null; then
    log=$1/tests/test-pixel-path.log
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
  grep -h -E '^(skipped|FAIL)' "$dir"/tests/*.log 2>/dev/null | head -n 50
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

# ---- a whole run: the background steps beside the others ----------------
# The background lane runs in a subshell; its counts, timings and log come
# back through _ci/ when it ends.
bg_lane="" bg_chroots=""
start_background () {
  ( renice -n 19 -p $BASHPID >/dev/null
    passed=0 failed=0 skipped=0 timings="" t_last=$(date +%s)
    for s in $(background_steps); do run_step "$s"; done
    echo "$passed $failed $skipped" >_ci/background.counts
    printf '%s' "$timings" | sed 's/$/  (background)/' >_ci/background.timings
  ) >_ci/background.log 2>&1 &
  bg_lane=$!
}
wait_for () { # STEP: wait while the background lane has it to do
  [ -n "$bg_lane" ] || return 0
  while [ ! -e "_ci/$1.done" ] && kill -0 $bg_lane 2>/dev/null; do sleep 2; done
}
finish_background () {
  [ -n "$bg_lane" ] || { wait; return; }
  wait $bg_lane; wait
  echo "======== the background steps' log"
  cat _ci/background.log
  local c
  c=($(cat _ci/background.counts 2>/dev/null || echo "0 1 0"))
  passed=$((passed + c[0])) failed=$((failed + c[1])) skipped=$((skipped + c[2]))
  timings="$timings$(cat _ci/background.timings 2>/dev/null)
"
}
# The chroots' background job, or make them now.
wait_chroots () {
  [ -z "$bg_chroots" ] || { wait $bg_chroots; bg_chroots=""; }
  local v
  for v in 3.0 3.2; do
    tests/gimp3-chroot.sh $v true >/tmp/cgb-chroot$v.log 2>&1 || { cat /tmp/cgb-chroot$v.log; return 1; }
  done
}

. .ci/steps-build.sh
. .ci/steps-gimp.sh
. .ci/steps-ship.sh
