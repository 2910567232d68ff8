#!/bin/sh
# Runs ./quickstart.sh as a newcomer would, in a copy of this tree: here
# (Debian 12, GIMP 2.10) or in a GIMP 3 chroot (3.0: Debian 13, 3.2:
# forky), and checks that the sample came out blurred and that the output
# names the backend that blurred (why, without CUDA) and the time, and
# leaves the rest to -v.
#   tests/install/quickstart-test.sh 2|3.0|3.2      (as root; CONFIGURE_FLAGS passes on)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
version=${1:?usage: quickstart-test.sh 2|3.0|3.2}
chroots=${GIMP3_CHROOTS:-/var/cache/cuda-gaussian-blur}
case $version in
  2) root= ;;
  3.0) root=$chroots/trixie ;;
  3.2) root=$chroots/forky ;;
  *) echo "quickstart-test: 2, 3.0 or 3.2, not '$version'" >&2; exit 2 ;;
esac
copy=/tmp/cgb-quickstart
rm -rf "$root$copy" && mkdir -p "$root$copy"
(cd "$top" && tar --exclude='./_build*' --exclude=./_quickstart --exclude=./_release -cf - .) | tar -xf - -C "$root$copy"
cmd="cd $copy && CONFIGURE_FLAGS='${CONFIGURE_FLAGS:-}' ./quickstart.sh 3"
if [ -z "$root" ]; then sh -c "$cmd"; else "$top/tests/env/gimp3-chroot.sh" "$version" sh -c "$cmd"; fi >"$root$copy.log" 2>&1
rc=$?
cat "$root$copy.log"
out=$root$copy/sample-blurred.png
passed=0 failed=0
result () { # OK NAME
  if [ "$1" = 1 ]; then echo "PASS: $2"; passed=$((passed + 1)); else echo "FAIL: $2"; failed=$((failed + 1)); fi
}
# Blurred: the same size as the sample, and different from it.
blurred=0
[ $rc = 0 ] && grep -q '^== done' "$root$copy.log" && /usr/bin/python3 -c "import sys, cv2, numpy as np
a, b = cv2.imread(sys.argv[1]), cv2.imread(sys.argv[2])
sys.exit(0 if a is not None and b is not None and a.shape == b.shape and np.abs(a.astype(int) - b).max() > 0 else 1)" \
  "$top/samples/sample.png" "$out" && blurred=1
result $blurred "quickstart.sh for GIMP $version (exit $rc)"
# One backend and why (without CUDA, that reason, not the deferring
# engine's; no line of an engine the user did not ask for, as the GIMP 3
# procedure's check, forced to the CPU), and the time taken.
lines=$(grep '^cuda-gaussian-blur: ' "$root$copy.log")
backend=$(printf '%s\n' "$lines" | grep '^cuda-gaussian-blur: backend ' | sort -u)
why='backend (CPU, [0-9]+ threads? — .+|[^—]+)$'   # the CPU and why, or a GPU
case " ${CONFIGURE_FLAGS:-} " in *" --without-cuda "*) why=" — built without CUDA support$" ;; esac
result "$([ -n "$backend" ] && [ "$(printf '%s\n' "$backend" | wc -l)" = 1 ] \
  && printf '%s\n' "$backend" | grep -q -E -- "$why" && echo 1)" \
  "GIMP $version: one backend, and why: ${backend:-none}"
result "$(printf '%s\n' "$lines" | grep -q -E ' ms \(read, blur, write\)|merged .*: [0-9.]+ ms$' && echo 1)" \
  "GIMP $version: the time taken"
# The rest (progress steps, the merge's check) only with -v: in the log.
hidden=$(grep -c -E '^cuda-gaussian-blur: ([0-9]+ progress steps|the merge.s check)' \
  "$root$copy/_quickstart/gimp.log" 2>/dev/null)
result "$([ "${hidden:-0}" -gt 0 ] && ! printf '%s\n' "$lines" | grep -q -E 'progress steps|check:' \
  && grep -q -- 'quickstart.sh -v' "$root$copy.log" && echo 1)" \
  "GIMP $version: ${hidden:-no} more lines of the log left to -v"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
