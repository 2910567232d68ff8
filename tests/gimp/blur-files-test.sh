#!/bin/sh
# batch/blur-files.sh without GIMP: a stand-in GIMP console prints what
# each process gets (CUDA_VISIBLE_DEVICES, GBLUR_THREADS, its call, its
# files) and a stand-in nvidia-smi lists three GPUs.  Checks the GPU of
# each process, the process count, the outputs' names checked over the
# whole run, dot-files, the output folder (links followed without
# readlink -f), and the export's cost.
#   tests/gimp/blur-files-test.sh   (prints PASS/FAIL lines, "N passed, N failed")
set -u
here=$(cd "$(dirname "$0")" && pwd)
script=$here/../../batch/blur-files.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/blur-files-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check () { # what, then a command that must succeed
  what=$1; shift
  if "$@"; then echo "PASS: $what"; passed=$((passed + 1))
  else echo "FAIL: $what"; failed=$((failed + 1)); sed 's/^/    /' "$work/log"; fi
}

mkdir -p "$work/bin" "$work/in/d1" "$work/in/d2" "$work/out" "$work/dot"
cat >"$work/bin/gimp-stand-in" <<'EOF'
#!/bin/sh
[ "$1" = --version ] && { echo "GNU Image Manipulation Program version ${STAND_IN_VERSION:-2.10.34}"; exit 0; }
for a; do case $a in *plug-in-cuda-gaussian-blur-files*) call=$a ;; esac; done
dir=$(printf '%s\n' "$call" | sed -n 's/.*"\([^"]*\)\/\*".*/\1/p')
echo "stand-in: CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset} GBLUR_THREADS=${GBLUR_THREADS-unset}"
echo "stand-in: call $call"
n=0
for f in $(ls -A "$dir"); do echo "stand-in: file $f"; n=$((n + 1)); done
echo "cuda-gaussian-blur: $n files: $n blurred, 0 skipped (their outputs exist), 0 failed"
EOF
printf '#!/bin/sh\nfor i in 0 1 2; do echo "GPU $i: Stand-in GPU (UUID: GPU-$i)"; done\n' >"$work/bin/nvidia-smi"
printf '#!/bin/sh\necho 3\n' >"$work/bin/nproc"
chmod +x "$work/bin/"*
for f in a b c d e; do : >"$work/in/$f.png"; done
: >"$work/in/d1/x.png"; : >"$work/in/d2/x.png"; : >"$work/in/X.PNG"; : >"$work/in/scan.tif"
: >"$work/dot/.hidden.png"
export PATH="$work/bin:$PATH"
unset CUDA_VISIBLE_DEVICES GBLUR_THREADS
run () { "$script" -G gimp-stand-in -s 3 -o "$work/out" "$@" >"$work/log" 2>&1; }
gpu_of () { grep -q "^\[$1\] stand-in: CUDA_VISIBLE_DEVICES=$2 " "$work/log"; }
ran () { grep -q "stand-in: call" "$work/log"; }
not () { ! "$@"; }
says () { grep -q -- "$1" "$work/log"; }

# Five processes over three GPUs: 0 1 2 0 1.
run -g 5 "$work"/in/?.png
check "-g 5, 3 GPUs: process 0 sees GPU 0" gpu_of 0 0
check "process 1 sees GPU 1" gpu_of 1 1
check "process 2 sees GPU 2" gpu_of 2 2
check "process 3 sees GPU 0" gpu_of 3 0
check "process 4 sees GPU 1" gpu_of 4 1

# No GPU listed: CUDA_VISIBLE_DEVICES left as it was.
printf '#!/bin/sh\nexit 9\n' >"$work/bin/nvidia-smi"
run -g 2 "$work/in/a.png" "$work/in/b.png"
check "no GPU listed: CUDA_VISIBLE_DEVICES left unset in process 0" gpu_of 0 unset
check "... in process 1" gpu_of 1 unset

# Without -g: one process per core (the stand-in nproc: 3), each 1 thread;
# no more processes than files.
run "$work"/in/?.png
check "3 cores, 5 files: 3 processes" sh -c "grep -q '^\[2\] stand-in: call' '$work/log' && ! grep -q '^\[3\]' '$work/log'"
check "... each with GBLUR_THREADS=1" sh -c "[ \$(grep -c 'GBLUR_THREADS=1\$' '$work/log') = 3 ]"
run "$work/in/a.png" "$work/in/b.png"
check "3 cores, 2 files: 2 processes" sh -c "grep -q '^\[1\] stand-in: call' '$work/log' && ! grep -q '^\[2\]' '$work/log'"

# Outputs' names over the whole run, whatever the shares.
run -g 2 "$work/in/d1/x.png" "$work/in/d2/x.png"
check "d1/x.png and d2/x.png refused before any GIMP, both named" \
  sh -c "! grep -q 'stand-in: call' '$work/log' && grep -q 'd1/x.png and .*d2/x.png' '$work/log'"
run -g 2 "$work/in/a.png" "$work/in/a.png"
check "one file named twice refused" not ran
run -g 2 "$work/in/d1/x.png" "$work/in/X.PNG"
check "x.png and X.PNG refused (case-insensitive disks)" sh -c "! grep -q 'stand-in: call' '$work/log' && grep -q 'X.PNG' '$work/log'"
: >"$work/in/scan.png"
run -g 2 -f png "$work/in/scan.png" "$work/in/scan.tif"
check "scan.png and scan.tif with -f png refused" sh -c "! grep -q 'stand-in: call' '$work/log' && grep -q 'scan.tif' '$work/log'"
run -g 2 "$work/in/scan.png" "$work/in/scan.tif"
check "scan.png and scan.tif as they are: run" ran

# Dot-files: a share of only .hidden.png runs, and the file is in it.
run -g 1 "$work/dot/.hidden.png"
check "a dot-file is blurred" says "stand-in: file .hidden.png"

# The output folder is the inputs': refused unless -w.
"$script" -G gimp-stand-in -s 3 -o "$work/in/." "$work/in/a.png" >"$work/log" 2>&1
rc=$?
check "output folder = input folder refused" sh -c "[ $rc = 2 ] && ! grep -q 'stand-in: call' '$work/log'"
"$script" -G gimp-stand-in -s 3 -w -o "$work/in/." "$work/in/a.png" >"$work/log" 2>&1
check "... run with -w" ran
mkdir -p "$work/links" && ln -s ../in/a.png "$work/links/a.png"
"$script" -G gimp-stand-in -s 3 -o "$work/in" "$work/links/a.png" >"$work/log" 2>&1
rc=$?
check "a link to an input in the output folder refused" sh -c "[ $rc = 2 ] && ! grep -q 'stand-in: call' '$work/log'"
# A readlink without -f (POSIX has none), run from the output folder: an
# input elsewhere goes; a chain of links into the output folder is refused.
real_readlink=$(command -v readlink)
printf '#!/bin/sh\n[ "$1" = -f ] && exit 1\nexec %s "$@"\n' "$real_readlink" >"$work/bin/readlink"
chmod +x "$work/bin/readlink"
(cd "$work/out" && "$script" -G gimp-stand-in -s 3 -o . "$work/in/a.png" >"$work/log" 2>&1)
check "readlink without -f, run in the output folder: an input elsewhere is blurred" ran
ln -s a.png "$work/links/b.png"
"$script" -G gimp-stand-in -s 3 -o "$work/in" "$work/links/b.png" >"$work/log" 2>&1
rc=$?
check "... two links to an input in the output folder refused" sh -c "[ $rc = 2 ] && ! grep -q 'stand-in: call' '$work/log'"
rm "$work/bin/readlink"

# A temporary folder whose name holds glob characters: escaped in the pattern.
mkdir -p "$work/t[1]"
TMPDIR="$work/t[1]" run -g 1 "$work/in/a.png"
check "TMPDIR with [ ]: escaped in the pattern" grep -q -F 't\\[1\\]/blur-files.' "$work/log"

# The export's cost: passed on, in GIMP 2.10's and GIMP 3's Script-Fu; bad values refused.
# GIMP 2.10: -files2 with -c or -q, else -files with its eight arguments.
run -g 1 -c 6 -q 85 "$work/in/a.png"
check "-c 6 -q 85 in GIMP 2.10's call (-files2)" says '(plug-in-cuda-gaussian-blur-files2 RUN-NONINTERACTIVE .*"" FALSE FALSE 6 85)'
run -g 1 -q 85 "$work/in/a.png"
check "-q 85 alone in GIMP 2.10's call (-files2)" says '(plug-in-cuda-gaussian-blur-files2 .*"" FALSE FALSE -1 85)'
run -g 1 "$work/in/a.png"
check "without -c, -q: GIMP 2.10's eight arguments" says '(plug-in-cuda-gaussian-blur-files RUN-NONINTERACTIVE .*"" FALSE FALSE)'
STAND_IN_VERSION=3.0.4 run -g 1 -c 6 "$work/in/a.png"
check "-c 6 in GIMP 3's call" says "#:png-compression 6 #:jpeg-quality -1)"
for v in "-c 10" "-c x" "-q 101" "-q -2"; do
  run -g 1 $v "$work/in/a.png"
  check "$v refused before any GIMP" sh -c "! grep -q 'stand-in: call' '$work/log' && grep -q 'wants' '$work/log'"
done

echo "$passed passed, $failed failed"
[ $failed = 0 ]
