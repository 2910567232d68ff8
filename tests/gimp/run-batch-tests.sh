#!/bin/sh
# Runs the batch tests of the plug-in in real GIMP, in a throwaway profile.
#   tests/gimp/run-batch-tests.sh 2 BUILDDIR   GIMP 2.10 on this machine, with the
#                                              plug-in built in BUILDDIR
#   tests/gimp/run-batch-tests.sh 2 --installed   GIMP 2.10 with the plug-in installed
#                                              system-wide (the Debian package)
#   tests/gimp/run-batch-tests.sh 3.0|3.2      GIMP 3.0 or 3.2 in its Debian chroot
#                                              (tests/env/gimp3-chroot.sh), built there
#                                              afresh in /build-gimp3.x
#   tests/gimp/run-batch-tests.sh 3.0 /FOLDER   that chroot's GIMP, with the plug-in an
#                                              earlier suite built in /FOLDER there
#   tests/gimp/run-batch-tests.sh 3.0 --installed   GIMP 3.0 with the plug-in installed
#                                              in the chroot (its Debian package)
#   tests/gimp/run-batch-tests.sh 3.0 BUILDDIR   with GIMP3_CONSOLE set: that GIMP 3,
#                                              with the plug-in built in BUILDDIR
#   tests/gimp/run-batch-tests.sh 2|3.0|3.2 --home=DIR   with the plug-in and the
#                                              operation an install put in HOME=DIR (the
#                                              release's install.sh; for GIMP 3 a chroot path)
#   tests/gimp/run-batch-tests.sh 2|3.0|3.2 --flatpak-home=DIR   the same as the Flatpak
#                                              GIMP sees it: XDG_CONFIG_HOME and XDG_DATA_HOME
#                                              in DIR/.var/app/org.gimp.GIMP
# Prints one line per case and ends with "N passed, N failed".  GIMP
# elsewhere (the GPU machine's relocatable bundles, tests/gpu/gpu-check.sh):
# GIMP2_CONSOLE or GIMP3_CONSOLE names its gimp-console (the bundle's
# run-gimp.sh), PYTHON a python3 with numpy and Pillow.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/common.sh"
gimp_version "${1:?usage: run-batch-tests.sh 2 BUILDDIR|--installed | 3.0|3.2 [--installed]}"
build=${2:-}
work=$(mktemp -d /tmp/cgb-gimp$version.XXXXXX)
profile=$work/profile
# An installed user's copy: HOME (and the Flatpak's XDG folders) for GIMP, its profile.
user_env="" dotversion=$version; [ "$version" = 2 ] && dotversion=2.10
case $build in
  --home=*) user_env="HOME=${build#*=}"; profile=${build#*=}/.config/GIMP/$dotversion ;;
  --flatpak-home=*) app=${build#*=}/.var/app/org.gimp.GIMP
    user_env="HOME=${build#*=} XDG_CONFIG_HOME=$app/config XDG_DATA_HOME=$app/data"; profile=$app/config/GIMP/$dotversion ;;
  *) mkdir -p "$profile/plug-ins/cuda-gaussian-blur" ;;
esac
PY=${PYTHON:-/usr/bin/python3}   # Debian's, which has python3-opencv

$PY "$here/batch_test.py" prepare "$major" "$work" || exit 1

case $version in
  2)
    [ -n "$build" ] || { echo "BUILDDIR or --installed needed for GIMP 2" >&2; exit 2; }
    if [ "$build" != --installed ] && [ -z "$user_env" ]; then
      cp "$build/plugin/cuda-gaussian-blur" "$profile/plug-ins/cuda-gaussian-blur/" || exit 1
    fi
    env $user_env GIMP2_DIRECTORY=$profile timeout -k 10 "$GIMP_RUN_LIMIT" \
      ${GIMP2_CONSOLE:-gimp-console-2.10} -i -b "(load \"$work/cases.scm\")" -b '(gimp-quit 0)' >"$work/log" 2>&1
    rc=$?
    ;;
  *)
    if [ -n "${GIMP3_CONSOLE:-}" ]; then
      [ -n "$build" ] || { echo "BUILDDIR needed with GIMP3_CONSOLE" >&2; exit 2; }
      cp "$build/plugin/cuda-gaussian-blur" "$profile/plug-ins/cuda-gaussian-blur/" || exit 1
    elif [ "$build" != --installed ] && [ -z "$user_env" ]; then
      gimp3_build "$work" "${build:--}" /build-gimp$version &&
        in_gimp3 "$work" "cp $plugin_dir/plugin/cuda-gaussian-blur $profile/plug-ins/cuda-gaussian-blur/" || exit 1
    fi
    : >"$work/log"
    in_gimp3 "$work" "$user_env GIMP3_DIRECTORY=$profile $(gimp_binary console) -i \
      --batch-interpreter=plug-in-script-fu-eval --quit -b '(load \"$work/cases.scm\")'" >"$work/log" 2>&1
    rc=$?
    ;;
esac
[ $rc = 124 ] && echo "FAIL: GIMP did not finish within $GIMP_RUN_LIMIT s" | tee -a "$work/log"

# batch/blur-files.sh: the files over two processes, then over two jobs of
# GNU parallel (here: the machines' stand-in), each one process.
files="$work/files/f1.png $work/files/f2.png $work/files/f3.png"
split_args="-s 3 -o $work/files-split -g 2 $files" parallel_args="-s 3 -o $work/files-parallel -g 1"
parallel="parallel --will-cite -j 2 --pipe -N 2"
limit="timeout -k 10 $GIMP_RUN_LIMIT"
if [ "$major" = 2 ]; then
  run2="env $user_env GIMP2_DIRECTORY=$profile $limit $top/batch/blur-files.sh -G ${GIMP2_CONSOLE:-gimp-console-2.10}"
  split_files () { $run2 $split_args; }
  parallel_files () { ls $files | $limit $parallel "$run2 $parallel_args"; }
elif [ -n "${GIMP3_CONSOLE:-}" ]; then
  split_files () { GIMP3_DIRECTORY=$profile "$top/batch/blur-files.sh" -G "$GIMP3_CONSOLE" $split_args; }
  parallel_files () { ls $files | GIMP3_DIRECTORY=$profile $limit $parallel "$top/batch/blur-files.sh -G $GIMP3_CONSOLE $parallel_args"; }
else   # in the chroot; GNU parallel here, each job entering it as it would a machine
  split_files () { in_gimp3 "$work" "$user_env GIMP3_DIRECTORY=$profile /src/batch/blur-files.sh $split_args"; }
  parallel_files () { ls $files | GIMP3_CHROOT_BIND=$work $limit $parallel "$top/tests/env/gimp3-chroot.sh $version \
    env $user_env GIMP3_DIRECTORY=$profile /src/batch/blur-files.sh $parallel_args"; }
fi
# Installs (--installed, --home, --flatpak-home) test what was installed: the
# script's four GIMP starts are left to the suites of builds.
case $build in
  --*) printf '\nsplit skipped: an install'"'"'s run\nparallel skipped: an install'"'"'s run\n' >>"$work/log" ;;
  *) echo "== batch/blur-files.sh, 2 processes" >>"$work/log"
     split_files >>"$work/log" 2>&1 && grep -q '^\[1\] cuda-gaussian-blur: ' "$work/log" && echo "split ran" >>"$work/log"
     echo "== batch/blur-files.sh under GNU parallel, 2 jobs" >>"$work/log"
     # A relocatable GIMP's machine (the GPU machine) may lack GNU parallel: said, not failed.
     if ! command -v parallel >/dev/null && [ -n "${GIMP2_CONSOLE:-}${GIMP3_CONSOLE:-}" ]; then
       printf '\nparallel skipped: no GNU parallel here\n' >>"$work/log"
     else
       parallel_files >>"$work/log" 2>&1 && echo "parallel ran" >>"$work/log"
     fi ;;
esac

# A run killed mid-folder (its whole process group, as soon as it has written
# something), then run again: the rerun must complete the folder.  GIMP 2.10
# here only: the chroots' GIMP runs behind another process.
if [ "$major" = 2 ] && [ "${build#--}" = "$build" ]; then
  echo "== batch/blur-files.sh killed, then run again" >>"$work/log"
  killed="env $user_env TMPDIR=$work GIMP2_DIRECTORY=$profile $top/batch/blur-files.sh -G ${GIMP2_CONSOLE:-gimp-console-2.10} \
-s 3 -g 1 -o $work/files-killed $files"
  mkdir -p "$work/files-killed"
  setsid sh -c "$killed" >>"$work/log" 2>&1 &
  group=$! waited=0
  while [ $waited -lt 3000 ] && [ -z "$(ls -A "$work/files-killed")" ]; do sleep 0.05; waited=$((waited + 1)); done
  kill -9 -$group 2>/dev/null   # the whole group: blur-files.sh, GIMP, its plug-ins
  wait $group 2>/dev/null
  printf '\nkilled left: %s\n' "$(ls -A "$work/files-killed" | tr '\n' ' ')" >>"$work/log"
  $limit sh -c "$killed" >>"$work/log" 2>&1 && echo "killed rerun ran" >>"$work/log"
else
  printf '\nkilled skipped: GIMP 2.10 builds only\n' >>"$work/log"
fi

# The README's one-liner for this version, word for word, on /tmp/in.png.
oneliner=$(grep -m 1 "^ *gimp-console-$major[.0-9]* " "$top/README.md" | sed 's/^ *//')
if [ -n "$oneliner" ]; then
  case $version in
    # Word for word, with GIMP2_CONSOLE under the README's name.
    2) tmp=/tmp; mkdir -p "$work/bin"
       [ -n "${GIMP2_CONSOLE:-}" ] && ln -s "$GIMP2_CONSOLE" "$work/bin/gimp-console-2.10"
       run_line () { env $user_env GIMP2_DIRECTORY=$profile PATH=$work/bin:$PATH timeout -k 10 300 sh -c "$oneliner"; } ;;
    # Word for word but the folder: /tmp is the chroot's own (and
    # GIMP3_CONSOLE under the README's name).
    *) tmp=$work; oneliner=$(echo "$oneliner" | sed "s|/tmp/|$work/|g"); mkdir -p "$work/bin"
       [ -n "${GIMP3_CONSOLE:-}" ] && ln -s "$GIMP3_CONSOLE" "$work/bin/${oneliner%% *}"
       run_line () { in_gimp3 "$work" "$user_env PATH=$work/bin:\$PATH GIMP3_DIRECTORY=$profile $oneliner"; } ;;
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
# Where GIMP 3's procedure blurred (with GBLUR_VERBOSE set).
[ "$major" = 3 ] && grep -q "^cuda-gaussian-blur: " "$work/log" &&
  echo "== the procedure merged the operation in $(grep -c "merged cuda:gaussian-blur" "$work/log") calls"
$PY "$here/batch_test.py" check "$major" "$work" "$work/log"
check=$?
if [ $rc -ne 0 ] || [ $check -ne 0 ]; then
  echo "GIMP exit status $rc; log and images kept in $work"
  tail -n 40 "$work/log"
  exit 1
fi
rm -rf "$work"
