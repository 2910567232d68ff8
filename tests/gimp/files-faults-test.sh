#!/bin/sh
# plug-in-cuda-gaussian-blur-files under faults, in real GIMP: names with
# spaces, quotes, non-ASCII and glob characters (files and folders, through
# the procedure and batch/blur-files.sh); the output folder equal to the
# input folder (refused however spelled; with overwrite, the replaced file's
# mode, owner and other hard link); a symlinked input file and folder; a
# full disk (a 64 KiB tmpfs, and one that holds all but the end of an
# output); the plug-in killed as it writes, and the whole GIMP, each run
# again.  Every output within 1 level of the reference (files_faults.py).
#   tests/gimp/files-faults-test.sh 2 BUILDDIR | 3.0|3.2 [-|DIR]   (as root; the
#                                       tmpfs cases say SKIP where mount is refused)
# Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/common.sh"
gimp_version "${1:?usage: files-faults-test.sh 2 BUILDDIR | 3.0|3.2 [-|DIR]}"
PY=${PYTHON:-/usr/bin/python3}   # Debian's, with numpy and OpenCV
work=$(mktemp -d /tmp/cgb-faults$version.XXXXXX)
mkdir -p "$work/profile/plug-ins/cuda-gaussian-blur"
$PY "$here/files_faults.py" prepare "$major" "$work" || exit 1

if [ "$version" = 2 ]; then
  cp "${2:?BUILDDIR needed}/plugin/cuda-gaussian-blur" "$work/profile/plug-ins/cuda-gaussian-blur/" || exit 1
  timeout -k 10 "$GIMP_RUN_LIMIT" sh "$here/files-faults-run.sh" 2 "$work" \
    "${GIMP2_CONSOLE:-gimp-console-2.10}" "$top/batch/blur-files.sh" >"$work/log" 2>&1
else
  gimp3_build "$work" "${2:--}" /build-gimp$version || exit 1
  in_gimp3 "$work" "cp $plugin_dir/plugin/cuda-gaussian-blur $work/profile/plug-ins/cuda-gaussian-blur/ &&
    sh /src/tests/gimp/files-faults-run.sh 3 $work $(gimp_binary console) /src/batch/blur-files.sh" \
    >"$work/log" 2>&1
fi
[ $? = 124 ] && echo "FAIL: GIMP did not finish within $GIMP_RUN_LIMIT s" | tee -a "$work/log"
grep -E '^(==|[a-z0-9]+ (killed|never killed|skipped):|script exit)' "$work/log"
if $PY "$here/files_faults.py" check "$major" "$work" "$work/log"; then
  rm -rf "$work"
else
  echo "log and files kept in $work"; tail -n 40 "$work/log"; exit 1
fi
