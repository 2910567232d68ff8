#!/bin/sh
# Blurs many files with plug-in-cuda-gaussian-blur-files: the files split
# over N GIMP processes side by side, one per GPU (CUDA_VISIBLE_DEVICES).
#   batch/blur-files.sh -s SIGMA -o OUTDIR [options] [FILE...]
# The files come from the arguments, else one a line on stdin (so that GNU
# parallel --pipe can hand each machine its share).  Options:
#   -s SIGMA           the blur's sigma, in pixels (required)
#   -o OUTDIR          an existing folder for the outputs (required)
#   -g N               processes, one per GPU (default: the GPUs nvidia-smi
#                      lists, else 1); process i sees GPU i only (more
#                      processes than GPUs share them, round-robin)
#   -p                 perceptual: blur the stored values (default: linear light)
#   -f EXT             output format, an extension (default: the input's)
#   -l                 blur every layer (default: the visible layers merged)
#   -w                 overwrite outputs that exist (default: keep them)
#   -G COMMAND         GIMP's console (default: gimp-console-3, else gimp-console-2.10)
# Exits 0 when every file was blurred or its output existed, 1 when any
# failed (each named, with the reason, in the output), 2 on bad usage.
set -u
usage () { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
sigma="" out="" gpus="" linear=TRUE format="" layers=FALSE overwrite=FALSE gimp=""
while getopts s:o:g:pf:lwG:h opt; do
  case $opt in
    s) sigma=$OPTARG ;; o) out=$OPTARG ;; g) gpus=$OPTARG ;; p) linear=FALSE ;;
    f) format=$OPTARG ;; l) layers=TRUE ;; w) overwrite=TRUE ;; G) gimp=$OPTARG ;; *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ -n "$sigma" ] && [ -n "$out" ] || usage
[ -d "$out" ] || { echo "blur-files: the output folder '$out' does not exist" >&2; exit 2; }
out=$(cd "$out" && pwd)
listed=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ -z "$gpus" ]; then
  gpus=$listed
  [ "$gpus" -gt 0 ] 2>/dev/null || gpus=1
fi
[ "$gpus" -gt 0 ] 2>/dev/null || { echo "blur-files: -g wants a count, not '$gpus'" >&2; exit 2; }
if [ -z "$gimp" ]; then
  gimp=gimp-console-2.10
  command -v gimp-console-3 >/dev/null 2>&1 && gimp=gimp-console-3
fi

# The Script-Fu of GIMP 2.10 or 3, as the program says its version.
series=$("$gimp" --version 2>/dev/null | sed -n 's/.*version \([0-9][0-9.]*\).*/\1/p' | tail -n 1)
[ -n "$series" ] || { echo "blur-files: '$gimp --version' says no version" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/blur-files.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
# Process i's share, as links in a folder of its own: its pattern is FOLDER/*.
i=0
while [ $i -lt "$gpus" ]; do mkdir "$work/$i"; i=$((i + 1)); done
n=0
link () {
  [ -n "$1" ] || return 0
  case $1 in /*) f=$1 ;; *) f=$(pwd)/$1 ;; esac
  [ -e "$f" ] || { echo "blur-files: no such file: $1" >&2; : >"$work/missing"; return 0; }
  ln -s "$f" "$work/$((n % gpus))/$(basename "$f")" 2>/dev/null ||
    { echo "blur-files: two inputs named $(basename "$f")" >&2; : >"$work/missing"; }
  n=$((n + 1))
}
if [ $# -gt 0 ]; then for f in "$@"; do link "$f"; done
else while IFS= read -r f; do link "$f"; done; fi
[ $n -gt 0 ] || { echo "blur-files: no input files" >&2; exit 2; }

# A Scheme string: backslashes and quotes escaped.
scm () { printf '"%s"' "$(printf '%s' "$1" | sed 's/[\\"]/\\&/g')"; }
run_one () { # i: GIMP on share i, GPU i; its exit status in $work/rc.i
  call="plug-in-cuda-gaussian-blur-files"
  case $series in
    2.*) set -- -i -b "($call RUN-NONINTERACTIVE $(scm "$work/$1/*") $sigma $linear $(scm "$out") \
$(scm "$format") $layers $overwrite)" -b '(gimp-quit 0)' ;;
    *) set -- -i --batch-interpreter=plug-in-script-fu-eval --quit -b "($call #:run-mode RUN-NONINTERACTIVE \
#:pattern $(scm "$work/$1/*") #:sigma $sigma #:linear $linear #:output-folder $(scm "$out") \
#:format $(scm "$format") #:every-layer $layers #:overwrite $overwrite)" ;;
  esac
  gpu=$1
  [ "$listed" -gt 0 ] 2>/dev/null && gpu=$(($1 % listed))
  CUDA_VISIBLE_DEVICES=$gpu "$gimp" "$@" >"$work/log.$i" 2>&1
  echo $? >"$work/rc.$i"
}
i=0
while [ $i -lt "$gpus" ]; do
  [ -n "$(ls "$work/$i")" ] && run_one $i &
  i=$((i + 1))
done
wait
status=0
i=0
while [ $i -lt "$gpus" ]; do
  if [ -f "$work/rc.$i" ]; then
    sed "s/^/[$i] /" "$work/log.$i"
    # GIMP 2.10 exits 0 after a failed script: its message tells.
    if [ "$(cat "$work/rc.$i")" != 0 ] || grep -q "batch command experienced an execution error" "$work/log.$i" ||
       ! grep -q "^cuda-gaussian-blur: .* files: .* 0 failed$" "$work/log.$i"; then
      echo "blur-files: process $i failed" >&2; status=1
    fi
  fi
  i=$((i + 1))
done
[ -f "$work/missing" ] && status=1
exit $status
