#!/bin/sh
# A folder in one GIMP process against one GIMP run per file, side by side:
# N W×H 8-bit RGB PNGs blurred at sigma S, with plug-in-cuda-gaussian-blur-files
# (one process) and with plug-in-cuda-gaussian-blur (GIMP started per file);
# prints both times, the ratio, and whether every output's pixels match.
#   tests/benchmarks/folder-bench.sh 2 BUILDDIR [N [W H [S]]]     GIMP 2.10 here
#   tests/benchmarks/folder-bench.sh 3.0|3.2 [DIR] [N [W H [S]]]  in the chroot;
#                 DIR: where the batch suite built it there (default /build-gimp3.x)
# Defaults: 100 files, 1920×1080, sigma 5.  Backend: GBLUR_BACKEND (default cpu).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/tests/gimp/common.sh"
gimp_version "${1:?usage: folder-bench.sh 2 BUILDDIR | 3.0|3.2 [DIR] [N [W H [S]]]}"
build=${2:-}
[ "$major" = 3 ] && [ -z "$build" ] && build=/build-gimp$version
n=${3:-100} w=${4:-1920} h=${5:-1080} sigma=${6:-5}
export GBLUR_BACKEND=${GBLUR_BACKEND:-cpu}
work=$(mktemp -d /tmp/cgb-folder-bench.XXXXXX)
profile=$work/profile
mkdir -p "$profile/plug-ins/cuda-gaussian-blur" "$work/in" "$work/one" "$work/each"
gimprc_quiet "$profile"
PY=${PYTHON:-/usr/bin/python3}

$PY "$here/make-photos.py" "$work/in" "$n" "$w" "$h" || exit 1   # photographs' stand-in

if [ "$major" = 2 ]; then
  cp "$build/plugin/cuda-gaussian-blur" "$profile/plug-ins/cuda-gaussian-blur/" || exit 1
  gimp () { GIMP2_DIRECTORY=$profile timeout -k 10 "$GIMP_RUN_LIMIT" gimp-console-2.10 -i -b "$1" -b '(gimp-quit 0)'; }
  one="(plug-in-cuda-gaussian-blur-files RUN-NONINTERACTIVE \"$work/in/*.png\" $sigma TRUE \"$work/one\" \"\" FALSE FALSE)"
  each () { echo "(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"$1\" \"$1\"))) (drw (car (gimp-image-get-active-layer img)))) (plug-in-cuda-gaussian-blur RUN-NONINTERACTIVE img drw $sigma TRUE) (gimp-file-save RUN-NONINTERACTIVE img drw \"$2\" \"$2\"))"; }
else
  in_gimp3 "$work" "cp $build/plugin/cuda-gaussian-blur $profile/plug-ins/cuda-gaussian-blur/" || exit 1
  gimp () { in_gimp3 "$work" "GBLUR_BACKEND=$GBLUR_BACKEND GIMP3_DIRECTORY=$profile $(gimp_binary console) -i \
    --batch-interpreter=plug-in-script-fu-eval --quit -b '$1'"; }
  one="(plug-in-cuda-gaussian-blur-files #:run-mode RUN-NONINTERACTIVE #:pattern \"$work/in/*.png\" #:sigma $sigma #:linear TRUE #:output-folder \"$work/one\")"
  each () { echo "(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"$1\"))) (drw (vector-ref (car (gimp-image-get-layers img)) 0))) (plug-in-cuda-gaussian-blur #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector drw) #:sigma $sigma #:linear TRUE) (gimp-file-save RUN-NONINTERACTIVE img \"$2\" -1))"; }
fi
gimp '(gimp-quit 0)' >"$work/first.log" 2>&1   # GIMP's first start in a profile registers the plug-ins

now () { date +%s.%N; }
t0=$(now)
gimp "$one" >"$work/one.log" 2>&1
t1=$(now)
for f in "$work"/in/*.png; do
  gimp "$(each "$f" "$work/each/${f##*/}")" >>"$work/each.log" 2>&1
done
t2=$(now)

$PY - "$work" "$n" "$w" "$h" "$sigma" "$t0" "$t1" "$t2" "$release" <<'PYEOF'
import sys, os, hashlib, cv2
work, n, w, h, sigma = sys.argv[1], *sys.argv[2:6]
t0, t1, t2 = map(float, sys.argv[6:9])
same = 0
for f in sorted(os.listdir(f"{work}/in")):
    a, b = (cv2.imread(f"{work}/{d}/{f}", cv2.IMREAD_UNCHANGED) for d in ("one", "each"))
    if a is not None and b is not None and hashlib.sha256(a.tobytes()).digest() == hashlib.sha256(b.tobytes()).digest():
        same += 1
one, each = t1 - t0, t2 - t1
print(f"| {sys.argv[9]} | {n} × {w}×{h} 8-bit RGB PNG, sigma {sigma} | {one:.1f} s ({one / int(n) * 1000:.0f} ms a file) "
      f"| {each:.1f} s ({each / int(n) * 1000:.0f} ms a file) | {each / one:.1f}× | {same} of {n} |")
sys.exit(0 if same == int(n) else 1)
PYEOF
rc=$?
[ $rc = 0 ] && rm -rf "$work" || echo "outputs differ: kept in $work"
exit $rc
