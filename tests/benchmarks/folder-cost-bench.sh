#!/bin/sh
# A folder through GIMP 2.10 at each export cost, against libvips: N
# photo-like W×H 8-bit RGB PNGs blurred at sigma S by batch/blur-files.sh
# (one process, as before: the old default on a machine without GPUs; then
# its default, one per core) at PNG level 9 (GIMP's own) and 6, and to JPEG
# (GIMP's own quality, 90); a GIMP per file at level 6; and `vips gaussblur`
# through GNU parallel (a job per core) at levels 9 and 6, all PNG filters
# as GIMP's libpng uses.  Prints a table row per run: wall and CPU seconds,
# files per second, where a file's time went (the files procedure's own
# lines), output size, the speed against the old default.
#   tests/benchmarks/folder-cost-bench.sh BUILDDIR [N [W H [S]]]
# Defaults: 8 files, 1920×1080, sigma 5.  Backend: GBLUR_BACKEND (default cpu).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/tests/gimp/common.sh"
gimp_version 2
build=${1:?usage: folder-cost-bench.sh BUILDDIR [N [W H [S]]]}
n=${2:-8} w=${3:-1920} h=${4:-1080} sigma=${5:-5}
export GBLUR_BACKEND=${GBLUR_BACKEND:-cpu}
work=$(mktemp -d /tmp/cgb-cost-bench.XXXXXX)
profile=$work/profile
mkdir -p "$profile/plug-ins/cuda-gaussian-blur" "$work/in"
gimprc_quiet "$profile"
cp "$build/plugin/cuda-gaussian-blur" "$profile/plug-ins/cuda-gaussian-blur/" || exit 1
export GIMP2_DIRECTORY=$profile
PY=${PYTHON:-/usr/bin/python3}

$PY "$here/make-photos.py" "$work/in" "$n" "$w" "$h" || exit 1   # photographs' stand-in
gimp-console-2.10 -i -b '(gimp-quit 0)' >/dev/null 2>&1   # registers the plug-ins in the profile

base=""
row () { # name, folder, wall seconds, CPU seconds (user + system, GIMP's processes included)
  size=$(du -sk "$2" | cut -f1)
  files=$(ls "$2" | wc -l)
  fps=$(calc "$files / $3")
  [ -n "$base" ] || base=$fps
  # Where the files procedure's time went, from its lines (load, blur, save ms).
  split=$(sed -n 's/.*(load \([0-9]*\) ms, blur \([0-9]*\) ms, save \([0-9]*\) ms)$/\1 \2 \3/p' "$2.log" |
    awk '{ l += $1; b += $2; s += $3 } END { if (NR) printf "%.2f / %.2f / %.2f s", l / NR / 1000, b / NR / 1000, s / NR / 1000; else printf "–" }')
  printf '| %s | %d × %d×%d | %.1f s | %.1f s | %.3f | %s | %.1f MB | %.1f× |\n' "$1" "$files" "$w" "$h" "$3" \
    "$4" "$fps" "$split" "$(calc "$size / 1024")" "$(calc "$fps / $base")"
  [ "$files" = "$n" ] || echo "  ($1: $files of $n outputs)"
}
timed () { # name, folder, command...
  name=$1 out=$work/$2; shift 2
  mkdir -p "$out"
  times >"$work/times"; c0=$(cpu) t0=$(now)
  "$@" >"$out.log" 2>&1
  t1=$(now); times >"$work/times"; c1=$(cpu)
  row "$name" "$out" "$(calc "$t1 - $t0")" "$(calc "$c1 - $c0")"
}
now () { date +%s.%N; }
calc () { awk "BEGIN { print $1 }"; }   # bc is not everywhere (the GPU machine)
# The children's user + system seconds so far: `times` in this shell (a
# subshell's children start from 0), its second line.
cpu () { tail -n 1 "$work/times" | sed 's/m/ /g; s/s//g' | awk '{ print $1 * 60 + $2 + $3 * 60 + $4 }'; }
files () { ls "$work"/in/*.png; }
bf () { files | "$top/batch/blur-files.sh" -G gimp-console-2.10 -s "$sigma" "$@"; }
per_file () { # a GIMP start per file, level 6
  for f in "$work"/in/*.png; do
    o=$work/each6/${f##*/}
    gimp-console-2.10 -i -b "(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"$f\" \"$f\"))) \
(drw (car (gimp-image-get-active-layer img)))) (plug-in-cuda-gaussian-blur RUN-NONINTERACTIVE img drw $sigma TRUE) \
(file-png-save2 RUN-NONINTERACTIVE img drw \"$o\" \"$o\" 0 6 1 0 0 1 1 1 0))" -b '(gimp-quit 0)' || return 1
  done
}
cores=$(nproc)
echo "| run | files | wall | CPU | files/s | a file: load / blur / save | output | files/s vs the old default |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
timed "GIMP, 1 process, level 9 (the old default)" one9 bf -g 1 -o "$work/one9"
timed "GIMP, $cores processes, level 9" many9 bf -o "$work/many9"
timed "GIMP, $cores processes, level 6 (-c 6)" many6 bf -c 6 -o "$work/many6"
timed "GIMP, $cores processes, JPEG (-f jpg, quality 90)" manyjpg bf -f jpg -o "$work/manyjpg"
timed "GIMP per file, 1 process, level 6" each6 per_file
if command -v vips >/dev/null && command -v parallel >/dev/null; then
  for l in 9 6; do
    timed "libvips through GNU parallel, $cores jobs, level $l" vips$l sh -c \
      "ls '$work'/in/*.png | parallel --will-cite -j $cores vips gaussblur {} '$work/vips$l/{/}[compression=$l,filter=all]' $sigma"
  done
fi
rm -rf "$work"
