#!/bin/sh
# Makes (or reuses) a Debian chroot with GIMP 3 and the tools to build the
# plug-in against it, and runs a command inside it with the project tree
# bind-mounted at /src and the CUDA toolkit at /usr/local/cuda.
#   tests/env/gimp3-chroot.sh 3.0|3.2 [command...]   (default: print the GIMP version)
# GIMP 3.0 comes from Debian 13 (trixie), GIMP 3.2 from Debian forky.  The
# chroots live in $GIMP3_CHROOTS/SUITE (default /var/cache/cuda-gaussian-blur);
# building it takes a few minutes once.  Needs root and debootstrap.
# Packages come from this machine's own Debian mirror (its apt sources).
# Runs at once share the mounts; the last one out unmounts them.
#   tests/env/gimp3-chroot.sh --mirror     prints that mirror
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)

# The URI of this machine's Debian archive: the apt source of its own
# release's main suite (one-line or deb822 format), else Debian's default.
debian_mirror () {
  codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
  uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk -v s="$codename" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++; if ($2 ~ /^\[/) i++;
      if ($(i + 1) == s) { print $i; exit } }')
  [ -n "$uri" ] || uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk -v s="$codename" 'BEGIN { RS = ""; FS = "\n" }
      { u = ""; ok = 0
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/) { split($i, w, " "); u = w[2] }
          if ($i ~ /^Suites:/) { n = split($i, w, " "); for (j = 2; j <= n; j++) if (w[j] == s) ok = 1 }
          if ($i ~ /^Enabled: *no/) ok = 0 }
        if (ok && u != "") { print u; exit } }')
  echo "${uri:-http://deb.debian.org/debian}"
}
[ "${1:-}" = --mirror ] && { debian_mirror; exit 0; }

version=${1:?usage: gimp3-chroot.sh 3.0|3.2 [command...] | --mirror}
shift
case $version in
  3.0) suite=trixie; script="" ;;
  # Debian 12's debootstrap has no forky script; forky is built like sid.
  3.2) suite=forky;  script=/usr/share/debootstrap/scripts/sid ;;
  *) echo "gimp3-chroot: GIMP version must be 3.0 or 3.2, not '$version'" >&2; exit 2 ;;
esac
root=${GIMP3_CHROOTS:-/var/cache/cuda-gaussian-blur}/$suite
mirror=$(debian_mirror)
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

mkdir -p "${root%/*}"
exec 8>"$root.create.lock"
flock 8   # one run makes the chroot; the others wait for it
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
flock -u 8

# Mount what the command needs, shared with runs at once: each mount lists
# the runs (PIDs) using it, under a lock; the last one out unmounts it.
# Another tree at the same target waits until that one is released.
mounts=$root.mounts; mkdir -p "$mounts"
exec 9>"$root.lock"
held=""
acquire () { # source target
  mkdir -p "$2"
  rec=$mounts/$(echo "$2" | tr / _) tries=0
  while :; do
    flock 9
    pids=""; [ -f "$rec" ] && for p in $(tail -n +2 "$rec"); do kill -0 "$p" 2>/dev/null && pids="$pids $p"; done
    if [ -z "$pids" ]; then
      if [ "$1" = proc ]; then mountpoint -q "$2" || mount -t proc proc "$2"
      elif ! [ "$1" -ef "$2" ]; then mount --bind "$1" "$2"; fi
      printf '%s\n%s\n' "$1" $$ >"$rec"; break
    elif [ "$(head -n 1 "$rec")" = "$1" ]; then
      printf '%s\n' "$1" $pids $$ >"$rec"; break
    fi
    flock -u 9; tries=$((tries + 1))
    [ $tries -lt 3600 ] || { echo "gimp3-chroot: $2 stayed busy with $(head -n 1 "$rec")" >&2; exit 1; }
    sleep 1
  done
  flock -u 9; held="$2 $held"
}
release () { # target: unmounted when no other live run uses it
  rec=$mounts/$(echo "$1" | tr / _)
  flock 9
  pids=""; for p in $(tail -n +2 "$rec" 2>/dev/null); do [ "$p" != $$ ] && kill -0 "$p" 2>/dev/null && pids="$pids $p"; done
  if [ -n "$pids" ]; then printf '%s\n' "$(head -n 1 "$rec")" $pids >"$rec"
  else umount -l "$1" 2>/dev/null || true; rm -f "$rec"; fi
  flock -u 9
}
cleanup () { for m in $held; do release "$m"; done; held=""; }
trap cleanup EXIT
trap 'exit 130' INT TERM
acquire proc "$root/proc"
acquire /dev "$root/dev"
acquire "$top" "$root/src"
[ -d /usr/local/cuda ] && acquire /usr/local/cuda "$root/usr/local/cuda"
[ -n "${GIMP3_CHROOT_BIND:-}" ] && acquire "$GIMP3_CHROOT_BIND" "$root$GIMP3_CHROOT_BIND"

if [ $# -eq 0 ]; then set -- gimp-console-$version --version; fi
chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root LANG=C.UTF-8 ${GBLUR_BACKEND:+GBLUR_BACKEND=$GBLUR_BACKEND} "$@"
