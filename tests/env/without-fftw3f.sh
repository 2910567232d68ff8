#!/bin/sh
# Runs a command where single-precision FFTW does not exist, as in the
# Flatpak GIMP's runtime: in a private mount namespace, /dev/null is bound
# over libfftw3f.so.3 on this machine and in the GIMP 3 chroots
# (tests/env/gimp3-chroot.sh), so any binary that needs it fails to start.
#   tests/env/without-fftw3f.sh COMMAND [ARG...]     (as root)
# Checks first that the library is really gone (a dlopen of it fails).
set -u
if [ -z "${CGB_FFTW3F_HIDDEN:-}" ]; then
  exec unshare --mount --propagation unchanged env CGB_FFTW3F_HIDDEN=1 "$0" "$@"
fi
# Our mounts must not reach other namespaces.  Inside a chroot (fresh-ci) /
# is no mount point and cannot be made private: then the mount that holds the
# libraries must not be shared.
if ! mount --make-rprivate / 2>/dev/null && [ "$(findmnt -n -o PROPAGATION --target /usr/lib)" = shared ]; then
  echo "FAIL: cannot keep the mounts to this namespace (/ is shared and cannot be made private)"
  echo "0 passed, 1 failed"; exit 1
fi
chroots=${GIMP3_CHROOTS:-/var/cache/cuda-gaussian-blur}
loads () { # ROOT: python3 under ROOT can dlopen libfftw3f.so.3
  chroot "$1" python3 -c 'import ctypes; ctypes.CDLL("libfftw3f.so.3")' 2>/dev/null
}
for root in / "$chroots"/*/; do
  [ -x "$root/usr/bin/python3" ] || continue
  hidden=0
  for lib in "$root"/usr/lib/*/libfftw3f.so.3; do
    [ -e "$lib" ] || continue
    mount --bind /dev/null "$(readlink -f "$lib")" || exit 1
    hidden=1
  done
  if loads "$root"; then
    echo "FAIL: libfftw3f.so.3 still loads in $root"; echo "0 passed, 1 failed"; exit 1
  fi
  [ $hidden = 1 ] && echo "== libfftw3f.so.3 hidden in $root"
done
exec "$@"
