#!/bin/sh
# Runs every test that starts an X server of its own N times, two runs at a
# time (so that servers start side by side, as CI's lanes do), and stops a
# test's runs at its first failure: a test that fails now and then is a race
# to find, not a step to rerun.
#   tests/gimp/repeat-x-tests.sh N BUILD2 DIR3 [TEST...]
# BUILD2: a build for GIMP 2.10 on this machine (e.g. _build); DIR3: the
# folder in each GIMP 3 chroot where the plug-in and the operation are built
# (e.g. /build-gimp3.0 and /build-gimp3.2 hold the same tree: give
# "/build-gimp" and the version is added).  TEST: gui2 gui3.0 gui3.2 opgui3.0
# opgui3.2 tool2 (default: all).  Logs of failed runs stay in /tmp.  Ends with
# "N passed, N failed", a run counting as one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
n=${1:?usage: repeat-x-tests.sh N BUILD2 DIR3 [TEST...]}
build2=$(cd "${2:?BUILD2}" && pwd) || exit 2
dir3=${3:?DIR3}
shift 3
tests=${*:-gui2 gui3.0 gui3.2 opgui3.0 opgui3.2 tool2}
passed=0 failed=0

command_of () { # TEST: the test's command line
  case $1 in
    gui2) echo "$here/gui-test.sh 2 $build2" ;;
    gui3.*) echo "$here/gui-test.sh ${1#gui} $dir3${1#gui}" ;;
    opgui3.*) echo "$top/tests/operation/gui-op-test.sh ${1#opgui} $dir3${1#opgui}" ;;
    tool2) echo "$top/tests/operation/gimp2-gegl-tool-test.sh 2 $build2" ;;
    *) echo "unknown test '$1'" >&2; return 1 ;;
  esac
}

for t in $tests; do
  cmd=$(command_of "$t") || exit 2
  run=0 t0=$(date +%s) ok=1
  while [ $run -lt "$n" ] && [ $ok = 1 ]; do
    logs=""
    for k in 1 2; do
      [ $((run + k)) -le "$n" ] || continue
      log=$(mktemp "/tmp/repeat-$t.XXXXXX")
      $cmd >"$log" 2>&1 &
      logs="$logs $!:$log"
    done
    for pl in $logs; do
      run=$((run + 1))
      if wait "${pl%%:*}" && grep -q '^[0-9]* passed, 0 failed' "${pl#*:}"; then
        passed=$((passed + 1)); rm -f "${pl#*:}"
      else
        failed=$((failed + 1)) ok=0
        echo "FAIL: $t, run $run: $(grep -E '^FAIL|gave up|Cannot open' "${pl#*:}" | head -n 3 | tr '\n' ' ') (log ${pl#*:})"
      fi
    done
  done
  echo "== $t: $run runs, $([ $ok = 1 ] && echo "all passed" || echo "stopped at a failure"), $(($(date +%s) - t0)) s"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
