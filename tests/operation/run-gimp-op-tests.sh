#!/bin/sh
# The GEGL operation cuda:gaussian-blur in real GIMP 3 (in its Debian chroot,
# tests/env/gimp3-chroot.sh), and the procedure through it:
#   tests/operation/run-gimp-op-tests.sh 3.0|3.2 [-|DIR]
# Builds the plug-in and the operation in /build-gimp3.x (or takes those an
# earlier suite built in DIR of the chroot), installs the
# operation where GEGL looks for a user's ($XDG_DATA_HOME/gegl-0.4/plug-ins)
# and runs GIMP processes: with the operation (merged, appended and saved in
# XCF, the procedure), a new one that reopens the XCF, two (Python) that
# append it as a layer effect, change its std-devs through libgimp's filter
# config, save and reopen the XCF, one without the
# operation (the procedure falls back to its pixel path), two with CUDA
# faults in GIMP's own process (GBLUR_FAULT=cuda-init, cuda-launch:1), and
# three where the blur fails in GIMP's process and the plug-in's
# (GBLUR_FAULT=cpu-alloc, cpu-stripe:2, GBLUR_BACKEND=cuda without a GPU):
# no call may report success for pixels it did not blur; and one with the
# fault in GIMP's process only.  KEEP=1 keeps the
# work folder.  Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/tests/gimp/common.sh"
gimp_version "${1:?usage: run-gimp-op-tests.sh 3.0|3.2 [-|DIR]}"
[ "$major" = 3 ] || { echo "the operation's GIMP tests need GIMP 3" >&2; exit 2; }
work=$(mktemp -d /tmp/cgb-op$version.XXXXXX)
profile=$work/profile
modules=$work/data/gegl-0.4/plug-ins
mkdir -p "$profile/plug-ins/cuda-gaussian-blur" "$modules" "$work/empty"
PY=/usr/bin/python3

$PY "$here/gimp_op_test.py" prepare "$work" || exit 1
gimp3_build "$work" "${2:--}" /build-gimp$version &&
  in_gimp3 "$work" "cp $plugin_dir/plugin/cuda-gaussian-blur $profile/plug-ins/cuda-gaussian-blur/ &&
    cp $plugin_dir/operation/cuda-gaussian-blur.so $modules/ && cp -r $plugin_dir/po/locale $modules/" || exit 1

run_gimp () { # SCRIPT DATA_HOME LOG [VAR=value...]
  case $1 in
    *.py) interpreter=python-fu-eval batch="exec(open(\"$work/$1\").read())" ;;
    *) interpreter=plug-in-script-fu-eval batch="(load \"$work/$1\")" ;;
  esac
  in_gimp3 "$work" "${4:-} XDG_DATA_HOME=$2 GBLUR_VERBOSE=1 GIMP3_DIRECTORY=$profile \
    $(gimp_binary console) -i --batch-interpreter=$interpreter --quit -b '$batch'" >"$3" 2>&1
}
rc=0
run_gimp merge.scm "$work/data" "$work/merge.log" || rc=1
run_gimp reopen.scm "$work/data" "$work/reopen.log" || rc=1
# Editable later: the effect's std-devs changed through libgimp, kept in XCF.
run_gimp edit.py "$work/data" "$work/edit.log" || rc=1
run_gimp edit-reopen.py "$work/data" "$work/edit-reopen.log" || rc=1
run_gimp fallback.scm "$work/empty" "$work/fallback.log" || rc=1
# A CUDA fault inside GIMP's process: the CPU finishes, GIMP exits normally.
run_gimp fault.scm "$work/data" "$work/fault.log" GBLUR_FAULT=cuda-init || rc=1
run_gimp fault.scm "$work/data" "$work/fault-launch.log" GBLUR_FAULT=cuda-launch:1 || rc=1
# Nothing can blur, or the first engine fails: no false success.
for run in cpu-alloc:GBLUR_FAULT=cpu-alloc cpu-stripe:GBLUR_FAULT=cpu-stripe:2 cuda-forced:GBLUR_BACKEND=cuda; do
  run_gimp truth-${run%%:*}.scm "$work/data" "$work/truth-${run%%:*}.log" "${run#*:}" || rc=1
done
# The blur fails in GIMP's process only (the plug-in runs through a wrapper
# without the fault): the procedure finds the layer untouched and blurs it.
plugin=$profile/plug-ins/cuda-gaussian-blur/cuda-gaussian-blur
mkdir -p "$work/real" && mv "$plugin" "$work/real/"
printf '#!/bin/sh\nunset GBLUR_FAULT\nexec %s "$@"\n' "$work/real/cuda-gaussian-blur" >"$plugin"
chmod 755 "$plugin"
run_gimp truth-gimp-only.scm "$work/data" "$work/truth-gimp-only.log" GBLUR_FAULT=cpu-alloc || rc=1
mv "$work/real/cuda-gaussian-blur" "$plugin"
$PY "$here/gimp_op_test.py" check "$work" "$work/merge.log" "$work/reopen.log" "$work/fallback.log" \
  "$work/fault.log" "$work/fault-launch.log" "$work/edit.log" "$work/edit-reopen.log"
check=$?
if [ $rc -ne 0 ] || [ $check -ne 0 ]; then
  echo "a GIMP run failed or a case did not pass; logs and images kept in $work"
  tail -n 20 "$work/merge.log"
  exit 1
fi
[ -n "${KEEP:-}" ] || rm -rf "$work"
