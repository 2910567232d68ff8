#!/bin/sh
# Makes (or reuses) a Debian 13 chroot with GIMP 3.0 and the tools to build
# the plug-in against it, and runs a command inside it with the project tree
# bind-mounted at /src and the CUDA toolkit at /usr/local/cuda.
#   tests/gimp3-chroot.sh [command...]      (default: print the GIMP version)
# The chroot lives in $GIMP3_CHROOT (default /var/cache/cuda-gaussian-blur/trixie);
# building it takes a few minutes once.  Needs root and debootstrap.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
root=${GIMP3_CHROOT:-/var/cache/cuda-gaussian-blur/trixie}
packages="gimp libgimp-3.0-dev libgimp-3.0-bin build-essential autoconf automake libtool pkg-config gettext
          locales fonts-nanum"
# Locales the GUI tests run in.
locales="ko_KR.UTF-8 de_DE.UTF-8"

if [ ! -f "$root/.ready" ]; then
  command -v debootstrap >/dev/null 2>&1 || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
  echo "gimp3-chroot: building a Debian 13 chroot in $root (once)" >&2
  mkdir -p "$root"
  [ -x "$root/usr/bin/apt-get" ] || debootstrap --variant=minbase trixie "$root" >"$root.debootstrap.log" 2>&1 || {
    tail -n 20 "$root.debootstrap.log" >&2; exit 1; }
  mount -t proc proc "$root/proc" 2>/dev/null || true
  chroot "$root" /bin/sh -c "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && \
    apt-get install -y -qq --no-install-recommends $packages >/dev/null" || exit 1
  umount "$root/proc" 2>/dev/null || true
  touch "$root/.ready"
fi
# What later versions of this script added to the package list.
if ! chroot "$root" dpkg-query -W $packages >/dev/null 2>&1; then
  chroot "$root" /bin/sh -c "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && \
    apt-get install -y -qq --no-install-recommends $packages >/dev/null" || exit 1
fi
for l in $locales; do
  grep -q "^$l UTF-8" "$root/etc/locale.gen" 2>/dev/null || { echo "$l UTF-8" >>"$root/etc/locale.gen"; regen=1; }
done
[ -n "${regen:-}" ] && chroot "$root" locale-gen >/dev/null

# Mount what the command needs; unmount on the way out.
mounted=""
cleanup () { for m in $mounted; do umount -l "$m" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM
bind () { # source target
  mkdir -p "$2"
  if ! mountpoint -q "$2"; then mount --bind "$1" "$2" && mounted="$2 $mounted"; fi
}
mountpoint -q "$root/proc" || { mount -t proc proc "$root/proc" && mounted="$root/proc $mounted"; }
bind /dev "$root/dev"
bind "$top" "$root/src"
[ -d /usr/local/cuda ] && bind /usr/local/cuda "$root/usr/local/cuda"
[ -n "${GIMP3_CHROOT_BIND:-}" ] && bind "$GIMP3_CHROOT_BIND" "$root$GIMP3_CHROOT_BIND"

if [ $# -eq 0 ]; then set -- gimp-console-3.0 --version; fi
chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root LANG=C.UTF-8 ${GBLUR_BACKEND:+GBLUR_BACKEND=$GBLUR_BACKEND} "$@"
