#!/bin/sh
# Installs CUDA Gaussian Blur from this folder (the release tarball): the
# GIMP plug-in, the GEGL operation and their translations.
#   ./install.sh               for you: every profile of this GIMP series found
#                              (~/.config/GIMP/3.0 and 3.2, or 2.10; a Flatpak
#                              GIMP's own ~/.var/app/org.gimp.GIMP/config/GIMP/X
#                              where the host has no such profile) and GEGL's
#                              user folders (the Flatpak's too)
#   ./install.sh --system      for all users, into the GIMP and GEGL of the system
#   ./install.sh [--system] --uninstall    removes what these put there
# Prints each folder.  Needs an NVIDIA driver for the GPU; without one the
# CPU blurs.
# GIMP 2.10 and GIMP 3 read the same GEGL folders, which hold one
# cuda:gaussian-blur: GIMP 3's procedure merges it, GIMP 2.10's does not
# use it.  So the GIMP 3 tarball replaces a GIMP 2.10 one there, and the GIMP
# 2.10 tarball keeps one that may be GIMP 3's (or removes only its own),
# saying so; --force replaces (or removes) it all the same.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
series=$(sed -n 's/^gimp-series: //p' "$here/BUILD-INFO")
action=install system=no force=no
for a in "$@"; do
  case $a in
    --system) system=yes ;;
    --uninstall) action=uninstall ;;
    --force) force=yes ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option '$a' (--system, --uninstall, --force, --help)" >&2; exit 2 ;;
  esac
done
case $series in
  3) versions="3.0 3.2" libversion=3.0 dirvar=GIMP3_DIRECTORY name="GIMP 3 (3.0 or 3.2)" ;;
  2.10) versions=2.10 libversion=2.0 dirvar=GIMP2_DIRECTORY name="GIMP 2.10" ;;
  *) echo "install.sh: $here/BUILD-INFO names no GIMP series" >&2; exit 1 ;;
esac
refuse () { echo "install.sh: $*" >&2; exit 1; }
# A damaged download installs nothing.
[ $action = uninstall ] || ! command -v sha256sum >/dev/null ||
  (cd "$here" && sha256sum --quiet -c SHA256SUMS) || refuse "files differ from SHA256SUMS: download again"

# The copying is the source tree's `make install-user` scripts', one folder each.
copy () { # COMMAND...: runs it, prints what it did but its "Restart GIMP" line
  out=$("$@") || { printf '%s\n' "$out" >&2; refuse "could not $action: $*"; }
  printf '%s\n' "$out" | grep -v -e '^Restart GIMP' -e '^$' || true
}
plugin_into () { # PROFILE (a folder holding plug-ins/)
  copy env "$dirvar=$1" sh "$here/scripts/install-user.sh" $action "$here/cuda-gaussian-blur" "$here/locale" ${versions%% *}
}
# The series whose operation FOLDER holds: 3, 2.10, unknown (a source
# build's, or an earlier release's), or none.
series_in () {
  [ -f "$1/cuda-gaussian-blur.so" ] || { echo none; return; }
  [ -f "$1/cuda-gaussian-blur.BUILD-INFO" ] || { echo unknown; return; }
  there=$(sed -n 's/^gimp-series: //p' "$1/cuda-gaussian-blur.BUILD-INFO")
  echo "${there:-unknown}"
}
# Whether this tarball writes (or removes) the operation in FOLDER: where
# none is or its own series' is; GIMP 3's install over any other; an
# uninstall, one of unknown build too; else only with --force.  Says what
# it replaces, removes or keeps.
may_touch () { # FOLDER
  there=$(series_in "$1")
  if [ $there = none ] || [ $there = $series ] || { [ $action = uninstall ] && [ $there = unknown ]; }; then
    return 0
  fi
  case $there in
    unknown) what="the cuda:gaussian-blur in $1 (a source build's or an earlier release's, maybe GIMP 3's)" ;;
    *) what="GIMP $there's cuda:gaussian-blur $(sed -n 's/^version: //p' "$1/cuda-gaussian-blur.BUILD-INFO") in $1" ;;
  esac
  if [ $action = uninstall ]; then
    [ $force = yes ] && { echo "Removing $what"; return 0; }
    echo "Kept $what: this tarball did not install it (--force removes it)"
  else
    [ $force = yes ] || [ $series = 3 ] && { echo "Replacing $what"; return 0; }
    echo "Kept $what: GIMP 2.10 and 3 share this folder, and only GIMP 3's plug-in uses the operation (--force replaces it)"
  fi
  return 1
}
module_into () { # FOLDER (empty: GEGL's user folders, the Flatpak GIMP's too)
  folders=${1:-$(sh "$here/scripts/install-gegl-user.sh" folders)}
  printf '%s\n' "$folders" | while IFS= read -r f; do
    ! may_touch "$f" || copy env GEGL_MODULE_FOLDER="$f" sh "$here/scripts/install-gegl-user.sh" $action \
      "$here/cuda-gaussian-blur.so" "$here/locale" "$here/BUILD-INFO"
  done
}

if [ $system = yes ]; then
  # Debian/Ubuntu, Fedora/openSUSE, Arch, a source build: the first that has this GIMP.
  libdir=
  for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
    [ -d "$d/gimp/$libversion/plug-ins" ] && { libdir=$d; break; }
  done
  [ -n "$libdir" ] || refuse "no $name installed for all users (no /usr/lib*/gimp/$libversion/plug-ins).
A Flatpak or AppImage GIMP reads only your own profile: run ./install.sh without --system."
  [ -w "$libdir/gimp/$libversion/plug-ins" ] || refuse "$libdir/gimp/$libversion/plug-ins is not writable: run as root (sudo)."
  plugin_into "$libdir/gimp/$libversion"
  for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do   # GEGL's (Debian 12: not GIMP's)
    [ -d "$d/gegl-0.4" ] && { module_into "$d/gegl-0.4"; break; }
  done
else
  home=${HOME:?HOME is not set}
  config=${XDG_CONFIG_HOME:-$home/.config} flatpak=$home/.var/app/org.gimp.GIMP/config
  profiles=""
  for v in $versions; do
    if [ $action = uninstall ]; then profiles="$profiles$config/GIMP/$v
$flatpak/GIMP/$v
"
    # The Flatpak GIMP reads the host's profile where it exists, else its own.
    elif [ -d "$config/GIMP/$v" ]; then profiles="$profiles$config/GIMP/$v
"
    elif [ -d "$flatpak/GIMP/$v" ]; then profiles="$profiles$flatpak/GIMP/$v
"
    # Installed but never started: the profile it will make.
    elif command -v "gimp-$v" >/dev/null || command -v "gimp-console-$v" >/dev/null; then
      profiles="$profiles$config/GIMP/$v
"
    fi
  done
  [ -n "$profiles" ] || refuse "found no $name: no profile (~/.config/GIMP/$(echo $versions | sed 's/ /, /'), \
~/.var/app/org.gimp.GIMP/config/GIMP/...) and no $(echo $versions | sed 's/^/gimp-/; s/ / or gimp-/') on PATH.
Start your GIMP once (package, Flatpak or AppImage) so that it makes its profile, then run this again."
  printf '%s' "$profiles" | while IFS= read -r p; do plugin_into "$p"; done
  module_into ""
fi
[ $action = install ] && echo "Restart GIMP: Filters > Blur > CUDA Gaussian Blur…"
exit 0
