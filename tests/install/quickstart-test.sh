#!/bin/sh
# Runs ./quickstart.sh as a newcomer would, in a copy of this tree: here
# (Debian 12, GIMP 2.10) or in a GIMP 3 chroot (3.0: Debian 13, 3.2:
# forky), and checks that the sample came out blurred.
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
# Blurred: the same size as the sample, and different from it.
if [ $rc = 0 ] && grep -q '^== done' "$root$copy.log" && /usr/bin/python3 -c "import sys, cv2, numpy as np
a, b = cv2.imread(sys.argv[1]), cv2.imread(sys.argv[2])
sys.exit(0 if a is not None and b is not None and a.shape == b.shape and np.abs(a.astype(int) - b).max() > 0 else 1)" \
  "$top/samples/sample.png" "$out"; then
  echo "PASS: quickstart.sh for GIMP $version"; echo "1 passed, 0 failed"
else
  echo "FAIL: quickstart.sh for GIMP $version (exit $rc)"; echo "0 passed, 1 failed"; exit 1
fi
