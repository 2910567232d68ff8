#!/bin/sh
# Blurs many files with plug-in-cuda-gaussian-blur-files: the files split
# over N GIMP processes side by side, as many as keep the machine busy (a
# GIMP exports on one core: one process per core, fewer where memory is
# short, 1 GiB each), the GPUs shared among them (CUDA_VISIBLE_DEVICES).
#   batch/blur-files.sh -s SIGMA -o OUTDIR [options] [FILE...]
# The files come from the arguments, else one a line on stdin (so that GNU
# parallel --pipe can hand each machine its share), named as they are (no
# glob escapes: spaces, quotes, * ? [ ] are all part of the name).  Options:
#   -s SIGMA           the blur's sigma, in pixels (required)
#   -o OUTDIR          an existing folder for the outputs (required; the
#                      inputs' own folder only with -w)
#   -g N               processes (default: the cores, fewer where memory is
#                      short); process i sees GPU i mod the GPUs nvidia-smi
#                      lists, and 1/N of the CPU threads
#   -c LEVEL           PNG compression, 0 (fast, large) to 9 (GIMP's own,
#                      slow, small); 6 cost 1.4-4.4x less CPU a file than 9
#                      for files 3-6% larger (docs/performance.md)
#   -q QUALITY         JPEG quality, 0 to 100 (default: GIMP's own, 90)
#   -p                 perceptual: blur the stored values (default: linear light)
#   -f EXT             output format, an extension (default: the input's)
#   -l                 blur every layer (default: the visible layers merged)
#   -w                 overwrite outputs that exist (default: keep them)
#   -G COMMAND         GIMP's console (default: gimp-console-3, else gimp-console-2.10)
# Two inputs whose outputs would share a name (ignoring case) stop it
# before any file.  Exits 0 when every file was blurred or its output
# existed, 1 when any failed (each named, with the reason), 2 on bad usage.
set -u
usage () { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
bad () { echo "blur-files: $*" >&2; exit 2; }
sigma="" out="" procs="" linear=TRUE format="" layers=FALSE overwrite=FALSE gimp="" level=-1 quality=-1
while getopts s:o:g:c:q:pf:lwG:h opt; do
  case $opt in
    s) sigma=$OPTARG ;; o) out=$OPTARG ;; g) procs=$OPTARG ;; c) level=$OPTARG ;; q) quality=$OPTARG ;;
    p) linear=FALSE ;; f) format=$OPTARG ;; l) layers=TRUE ;; w) overwrite=TRUE ;; G) gimp=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ -n "$sigma" ] && [ -n "$out" ] || usage
[ -d "$out" ] || bad "the output folder '$out' does not exist"
out=$(cd "$out" && pwd)
case $level in -1|[0-9]) ;; *) bad "-c wants a level from 0 to 9, not '$level'" ;; esac
case $quality in -1|[0-9]|[1-9][0-9]|100) ;; *) bad "-q wants a quality from 0 to 100, not '$quality'" ;; esac
[ -z "$procs" ] || [ "$procs" -gt 0 ] 2>/dev/null || bad "-g wants a count, not '$procs'"
if [ -z "$gimp" ]; then
  gimp=gimp-console-2.10
  command -v gimp-console-3 >/dev/null 2>&1 && gimp=gimp-console-3
fi

# The Script-Fu of GIMP 2.10 or 3, as the program says its version.
series=$("$gimp" --version 2>/dev/null | sed -n 's/.*version \([0-9][0-9.]*\).*/\1/p' | tail -n 1)
[ -n "$series" ] || bad "'$gimp --version' says no version"

work=$(mktemp -d "${TMPDIR:-/tmp}/blur-files.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# The inputs, absolute, one a line in $work/list; each with its output's
# name, folded to lower case, in $work/names.
tab=$(printf '\t')
out_p=$(cd -P "$out" && pwd -P)
same_dir () { # FOLDER: whether it is the output folder (an empty name never is; a mount of it is)
  [ -n "$1" ] && { [ "$(cd -P "$1" 2>/dev/null && pwd -P)" = "$out_p" ] || [ "$1" -ef "$out_p" ]; }
}
target_dir () { # FILE: the folder of the file its links lead to (POSIX: no readlink -f)
  t=$1 hops=0
  while [ -h "$t" ] && [ $hops -lt 40 ]; do
    l=$(readlink "$t") || return 0
    case $l in /*) t=$l ;; *) t=$(dirname "$t")/$l ;; esac
    hops=$((hops + 1))
  done
  dirname "$t"
}
add () {
  [ -n "$1" ] || return 0
  case $1 in /*) f=$1 ;; *) f=$(pwd)/$1 ;; esac
  [ -e "$f" ] || { echo "blur-files: no such file: $1" >&2; : >"$work/missing"; return 0; }
  # The file's own folder, and the folder of the file a link names.
  if [ "$overwrite" = FALSE ] && { same_dir "$(dirname "$f")" || same_dir "$(target_dir "$f")"; }; then
    bad "$1 is in the output folder $out: its output would replace it (-w to allow)"
  fi
  base=$(basename "$f")
  if [ -n "$format" ]; then
    case $base in ?*.*) base=${base%.*} ;; esac
    base=$base.${format#.}
  fi
  printf '%s\n' "$f" >>"$work/list"
  printf '%s\t%s\n' "$(printf '%s' "$base" | tr '[:upper:]' '[:lower:]')" "$f" >>"$work/names"
}
if [ $# -gt 0 ]; then for f in "$@"; do add "$f"; done
else while IFS= read -r f; do add "$f"; done; fi
[ -s "$work/list" ] || bad "no input files"
n=$(wc -l <"$work/list")

# Every output's name once over the whole run, before any GIMP starts.
clashes=$(sort -t "$tab" -k1,1 "$work/names" | awk -F "$tab" -v out="$out" '
  $1 == key { if (!shown) printf "%s", "  " out "/" key ": " first; printf " and %s", $2; shown = 1; next }
  { if (shown) print ""; key = $1; first = $2; shown = 0 }
  END { if (shown) print "" }')
[ -z "$clashes" ] || bad "inputs would be written to the same output (names compared ignoring case):
$clashes"

# Processes: one per core, 1 GiB of available memory each, no more than files.
cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
if [ -z "$procs" ]; then
  mem=$(awk '/^MemAvailable:/ { print int($2 / 1048576) }' /proc/meminfo 2>/dev/null)
  procs=$cores
  [ -n "$mem" ] && [ "$mem" -lt "$procs" ] && procs=$mem
  [ "$procs" -gt "$n" ] && procs=$n
  [ "$procs" -gt 0 ] || procs=1
fi
listed=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
threads=$((cores / procs)); [ $threads -gt 0 ] || threads=1

# Process i's share, as links in a folder of its own: its pattern is FOLDER/*.
i=0
while [ $i -lt "$procs" ]; do mkdir "$work/$i"; i=$((i + 1)); done
k=0
while IFS= read -r f; do
  ln -s "$f" "$work/$((k % procs))/$(basename "$f")" || : >"$work/missing"
  k=$((k + 1))
done <"$work/list"

# A Scheme string: backslashes and quotes escaped.
scm () { printf '"%s"' "$(printf '%s' "$1" | sed 's/[\\"]/\\&/g')"; }
# Share i's pattern: its folder's glob characters escaped (TMPDIR may hold them).
glob_escaped () { printf '%s' "$1" | sed 's/[][*?\\]/\\&/g'; }
run_one () { # share: GIMP on share i, GPU i mod the GPUs listed; its exit status in $work/rc.i
  share=$1
  call="plug-in-cuda-gaussian-blur-files"
  case $series in
    # GIMP 2.10's Script-Fu passes every argument: the export's two go to -files2.
    2.*) cost=""
         [ "$level$quality" = -1-1 ] || call=${call}2 cost=" $level $quality"
         set -- -i -b "($call RUN-NONINTERACTIVE $(scm "$(glob_escaped "$work/$share")/*") $sigma $linear $(scm "$out") \
$(scm "$format") $layers $overwrite$cost)" -b '(gimp-quit 0)' ;;
    *) set -- -i --batch-interpreter=plug-in-script-fu-eval --quit -b "($call #:run-mode RUN-NONINTERACTIVE \
#:pattern $(scm "$(glob_escaped "$work/$share")/*") #:sigma $sigma #:linear $linear #:output-folder $(scm "$out") \
#:format $(scm "$format") #:every-layer $layers #:overwrite $overwrite #:png-compression $level \
#:jpeg-quality $quality)" ;;
  esac
  # Without GPUs listed, CUDA_VISIBLE_DEVICES is left as it is.
  [ "$listed" -gt 0 ] 2>/dev/null && { CUDA_VISIBLE_DEVICES=$((share % listed)); export CUDA_VISIBLE_DEVICES; }
  [ -n "${GBLUR_THREADS:-}" ] || { GBLUR_THREADS=$threads; export GBLUR_THREADS; }
  "$gimp" "$@" >"$work/log.$share" 2>&1
  echo $? >"$work/rc.$share"
}
i=0
while [ $i -lt "$procs" ]; do
  [ -n "$(ls -A "$work/$i")" ] && (run_one $i) &
  i=$((i + 1))
done
wait
status=0
i=0
while [ $i -lt "$procs" ]; do
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
