#!/bin/sh
# Runs the batch tests of the plug-in in real GIMP, in a throwaway profile.
#   tests/gimp/run-batch-tests.sh 2 BUILDDIR   GIMP 2.10 on this machine, with the
#                                              plug-in built in BUILDDIR
#   tests/gimp/run-batch-tests.sh 2 --installed   GIMP 2.10 with the plug-in installed
#                                              system-wide (the Debian package)
#   tests/gimp/run-batch-tests.sh 3            GIMP 3.0 in the Debian 13 chroot
#                                              (tests/gimp3-chroot.sh), built there
# Prints one line per case and ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
version=${1:?usage: run-batch-tests.sh 2 BUILDDIR | 3}
work=$(mktemp -d /tmp/cgb-gimp$version.XXXXXX)
profile=$work/profile
mkdir -p "$profile/plug-ins/cuda-gaussian-blur"
PY=/usr/bin/python3   # Debian's, which has python3-opencv

$PY "$here/batch_test.py" prepare "$version" "$work" || exit 1

case $version in
  2)
    build=${2:?BUILDDIR or --installed needed for GIMP 2}
    if [ "$build" != --installed ]; then
      cp "$build/plugin/cuda-gaussian-blur" "$profile/plug-ins/cuda-gaussian-blur/" || exit 1
    fi
    GIMP2_DIRECTORY=$profile gimp-console-2.10 -i -b "(load \"$work/cases.scm\")" -b '(gimp-quit 0)' \
      >"$work/log" 2>&1
    rc=$?
    ;;
  3)
    build3=/build-gimp3
    GIMP3_CHROOT_BIND=$work "$top/tests/gimp3-chroot.sh" sh -c "
      set -e
      rm -rf $build3 && mkdir -p $build3 && cd $build3
      /src/configure --with-gimp=3 >configure.out
      make -j\$(nproc) plugin/cuda-gaussian-blur >make.out 2>&1 || { tail -n 30 make.out; exit 1; }
      cp plugin/cuda-gaussian-blur $profile/plug-ins/cuda-gaussian-blur/
      GIMP3_DIRECTORY=$profile gimp-console-3.0 -i --batch-interpreter=plug-in-script-fu-eval \
        --quit -b '(load \"$work/cases.scm\")'" >"$work/log" 2>&1
    rc=$?
    ;;
  *) echo "GIMP version must be 2 or 3" >&2; exit 2 ;;
esac

# The README's one-liner for this version, word for word, on /tmp/in.png.
oneliner=$(grep -m 1 "^ *gimp-console-$version\.[0-9]* " "$top/README.md" | sed 's/^ *//')
if [ -n "$oneliner" ]; then
  case $version in
    2) tmp=/tmp; run_line () { GIMP2_DIRECTORY=$profile sh -c "$oneliner"; } ;;
    3) tmp=${GIMP3_CHROOT:-/var/cache/cuda-gaussian-blur/trixie}/tmp
       run_line () { GIMP3_CHROOT_BIND=$work "$top/tests/gimp3-chroot.sh" \
                       sh -c "GIMP3_DIRECTORY=$profile $oneliner"; } ;;
  esac
  cp "$work/gray8.png" "$tmp/in.png" && rm -f "$tmp/out.png"
  echo "== README one-liner: $oneliner" >>"$work/log"
  run_line >>"$work/log" 2>&1 || rc=1
  [ -f "$tmp/out.png" ] && mv "$tmp/out.png" "$work/out-readme-oneliner.png"
  rm -f "$tmp/in.png"
fi

# GIMP 2.10 exits 0 after a failed script: look for its message instead.
if grep -q "batch command experienced an execution error" "$work/log"; then
  echo "FAIL: the batch script itself failed:"; grep -B2 -A5 "execution error" "$work/log" | head -n 30
  rc=1
fi
$PY "$here/batch_test.py" check "$version" "$work" "$work/log"
check=$?
if [ $rc -ne 0 ] || [ $check -ne 0 ]; then
  echo "GIMP exit status $rc; log and images kept in $work"
  tail -n 40 "$work/log"
  exit 1
fi
rm -rf "$work"
