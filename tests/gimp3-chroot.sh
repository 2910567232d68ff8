#!/bin/sh
# Makes (or reuses) a Debian chroot with GIMP 3 and the tools to build the
# plug-in against it, and runs a command inside it with the project tree
# bind-mounted at /src and the CUDA toolkit at /usr/local/cuda.
#   tests/gimp3-chroot.sh 3.0|3.2 [command...]   (default: print the GIMP version)
# GIMP 3.0 comes from Debian 13 (trixie), GIMP 3.2 from Debian forky.  The
# chroots live in $GIMP3_CHROOTS/SUITE (default /var/cache/cuda-gaussian-blur);
# building it takes a few minutes once.  Needs root and debootstrap.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
version=${1:?usage: gimp3-chroot.sh 3.0|3.2 [command...]}
shift
case $version in
  3.0) suite=trixie; script="" ;;
  # Debian 12's debootstrap has no forky script; forky is built like sid.
  3.2) suite=forky;  script=/usr/share/debootstrap/scripts/sid ;;
  *) echo "gimp3-chroot: GIMP version must be 3.0 or 3.2, not '$version'" >&2; exit 2 ;;
esac
root=${GIMP3_CHROOTS:-/var/cache/cuda-gaussian-blur}/$suite
mirror=http://deb.debian.org/debian
# One line: it is pasted into a shell command below.  g++-14: nvcc 13.0 rejects
# forky's default gcc 16 (configure finds the older one by itself).
packages="gimp libgimp-3.0-dev libgimp-3.0-bin liblcms2-dev libfftw3-dev build-essential autoconf automake libtool pkg-config gettext locales fonts-nanum dpkg-dev debhelper libgs-common"
[ "$suite" = forky ] && packages="$packages g++-14"
# Debian 13's own CUDA toolkit (12.4, non-free) with the g++ it wants: the
# Debian package and the release are built with it.
[ "$suite" = trixie ] && packages="$packages nvidia-cuda-toolkit-gcc"
# Locales the GUI tests run in.
locales="ko_KR.UTF-8 de_DE.UTF-8"

apt_install () { # installs $packages in the chroot, quietly; shows the log when it fails
  # The toolkit is in non-free.
  [ "$suite" = trixie ] && echo "deb $mirror $suite contrib non-free" >"$root/etc/apt/sources.list.d/contrib-non-free.list"
  chroot "$root" /bin/sh -c "export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && \
    apt-get install -y -qq --no-install-recommends $packages" >"$root.apt.log" 2>&1 || {
    echo "gimp3-chroot: apt-get in $root failed:" >&2; tail -n 20 "$root.apt.log" >&2; return 1; }
}

if [ ! -f "$root/.ready" ]; then
  command -v debootstrap >/dev/null 2>&1 || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
  echo "gimp3-chroot: building a Debian $suite chroot for GIMP $version in $root (once)" >&2
  mkdir -p "$root"
  [ -x "$root/usr/bin/apt-get" ] || debootstrap --variant=minbase "$suite" "$root" $mirror $script \
    >"$root.debootstrap.log" 2>&1 || { tail -n 20 "$root.debootstrap.log" >&2; exit 1; }
  # The testing suites' Release files can be past their Valid-Until date on mirrors.
  echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99no-check-valid-until"
  mount -t proc proc "$root/proc" 2>/dev/null || true
  apt_install || { umount "$root/proc" 2>/dev/null; exit 1; }
  umount "$root/proc" 2>/dev/null || true
  touch "$root/.ready"
fi
# What later versions of this script added to the package list (dpkg-query
# -W alone also succeeds for packages that are known but not installed).
installed=$(chroot "$root" dpkg-query -W -f='${db:Status-Status} ${Package}\n' $packages 2>/dev/null | grep -c '^installed ')
[ "$installed" = "$(echo $packages | wc -w)" ] || apt_install || exit 1
for l in $locales; do
  grep -q "^$l UTF-8" "$root/etc/locale.gen" 2>/dev/null || { echo "$l UTF-8" >>"$root/etc/locale.gen"; regen=1; }
done
[ -n "${regen:-}" ] && chroot "$root" locale-gen >/dev/null

# Mount what the command needs; unmount on the way out.
mounted=""
cleanup () { for m in $mounted; do umount -l "$m" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM
bind () { # source target: mounted unless source is there already (another
  # suite's mount of another tree is covered by ours, not reused)
  mkdir -p "$2"
  [ "$1" -ef "$2" ] || { mount --bind "$1" "$2" && mounted="$2 $mounted"; }
}
mountpoint -q "$root/proc" || { mount -t proc proc "$root/proc" && mounted="$root/proc $mounted"; }
bind /dev "$root/dev"
bind "$top" "$root/src"
[ -d /usr/local/cuda ] && bind /usr/local/cuda "$root/usr/local/cuda"
[ -n "${GIMP3_CHROOT_BIND:-}" ] && bind "$GIMP3_CHROOT_BIND" "$root$GIMP3_CHROOT_BIND"

if [ $# -eq 0 ]; then set -- gimp-console-$version --version; fi
chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root LANG=C.UTF-8 ${GBLUR_BACKEND:+GBLUR_BACKEND=$GBLUR_BACKEND} "$@"
