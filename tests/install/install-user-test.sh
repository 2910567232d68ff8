#!/bin/sh
# `make install-user` and plugin/install-user.sh with fake profiles: a fake
# HOME with a Flatpak GIMP (~/.var/app/org.gimp.GIMP) holding copies that an
# earlier install-user put in its hidden config folders.  A GIMP 3 build must
# land in the host's ~/.config/GIMP/3.0 and 3.2 (the Flatpak GIMP
# bind-mounts that folder over its own), a 2.10 build in 2.10's, and nowhere
# else; the hidden copies go; uninstall removes everything it wrote.
#   tests/install/install-user-test.sh BUILDDIR [GEGL_ONLY_BUILDDIR]
# (a build with the plug-in; a --with-gimp=no build with the operation)
# Ends with "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: install-user-test.sh BUILDDIR}" && pwd) || exit 1
work=$(mktemp -d /tmp/cgb-install-user.XXXXXX)
passed=0 failed=0
result () { # ok name
  if [ "$1" = 1 ]; then passed=$((passed + 1)); echo "PASS: $2"; else failed=$((failed + 1)); echo "FAIL: $2"; fi
}
plugin_in () { [ -x "$1/plug-ins/cuda-gaussian-blur/cuda-gaussian-blur" ] && \
  [ -f "$1/plug-ins/cuda-gaussian-blur/locale/ko/LC_MESSAGES/cuda-gaussian-blur.mo" ]; }
module_in () { [ -f "$1/gegl-0.4/plug-ins/cuda-gaussian-blur.so" ] && \
  [ -f "$1/gegl-0.4/plug-ins/locale/ko/LC_MESSAGES/cuda-gaussian-blur.mo" ]; }
flatpak=.var/app/org.gimp.GIMP/config/GIMP
fresh_home () { # with a Flatpak GIMP and stale hidden copies in its config folder
  rm -rf "$work/home" && mkdir -p "$work/home"
  for v in 2.10 3.0 3.2; do
    mkdir -p "$work/home/$flatpak/$v/plug-ins/cuda-gaussian-blur"
    touch "$work/home/$flatpak/$v/plug-ins/cuda-gaussian-blur/cuda-gaussian-blur"
  done
}
# Installs for GIMP version $1 with the script; checks where it went.
check_version () {
  fresh_home
  out=$(HOME=$work/home XDG_CONFIG_HOME= sh "$top/plugin/install-user.sh" install \
        "$build/plugin/cuda-gaussian-blur" "$build/po/locale" "$1" 2>&1)
  expect=".config/GIMP/$1"
  case $1 in 3.*) expect=".config/GIMP/3.0 .config/GIMP/3.2" ;; esac
  ok=1
  for p in .config/GIMP/2.10 .config/GIMP/3.0 .config/GIMP/3.2 $flatpak/2.10 $flatpak/3.0 $flatpak/3.2; do
    want=0; case " $expect " in *" $p "*) want=1 ;; esac
    got=0; plugin_in "$work/home/$p" && got=1
    [ $want = $got ] || { ok=0; echo "  $p: expected $want, found $got"; }
    [ $want = 1 ] && ! echo "$out" | grep -q -F "Installed in $work/home/$p/plug-ins/cuda-gaussian-blur" \
      && { ok=0; echo "  $p not named in the output: $out"; }
  done
  hidden=$(find "$work/home/.var" -name cuda-gaussian-blur -type f | wc -l)
  [ "$hidden" = 0 ] || { ok=0; echo "  $hidden copies left under ~/.var/app/org.gimp.GIMP/config"; }
  result $ok "GIMP $1 build with a Flatpak GIMP: into $expect, none in the hidden config folders"
  HOME=$work/home sh "$top/plugin/install-user.sh" uninstall \
    "$build/plugin/cuda-gaussian-blur" "$build/po/locale" "$1" >/dev/null 2>&1
  left=$(find "$work/home" -name cuda-gaussian-blur -type f | wc -l)
  result $([ "$left" = 0 ] && echo 1 || echo 0) "GIMP $1: uninstall leaves no copy ($left left)"
}
# uninstall alone also removes the hidden copies.
fresh_home
HOME=$work/home sh "$top/plugin/install-user.sh" uninstall \
  "$build/plugin/cuda-gaussian-blur" "$build/po/locale" 3.0 >/dev/null 2>&1
result $([ -z "$(find "$work/home" -name cuda-gaussian-blur -type f)" ] && echo 1 || echo 0) \
  "uninstall removes the copies hidden in the Flatpak GIMP's config folder"
for v in 2.10 3.0 3.2; do check_version $v; done

# GIMP3_DIRECTORY / GIMP2_DIRECTORY name one profile: only that one is written.
fresh_home
HOME=$work/home GIMP3_DIRECTORY=$work/elsewhere sh "$top/plugin/install-user.sh" install \
  "$build/plugin/cuda-gaussian-blur" "$build/po/locale" 3.2 >/dev/null
result $(plugin_in "$work/elsewhere" && [ -z "$(find "$work/home/.config" -name cuda-gaussian-blur -type f 2>/dev/null)" ] \
  && echo 1 || echo 0) "GIMP3_DIRECTORY names the one profile to write"

# No Flatpak GIMP: only the native profile.
rm -rf "$work/home" && mkdir -p "$work/home"
HOME=$work/home sh "$top/plugin/install-user.sh" install \
  "$build/plugin/cuda-gaussian-blur" "$build/po/locale" 3.0 >/dev/null
result $([ "$(find "$work/home" -name cuda-gaussian-blur -type f | wc -l)" = 1 ] \
  && plugin_in "$work/home/.config/GIMP/3.0" && echo 1 || echo 0) "without a Flatpak GIMP: the native profile only"

# make install-user in the build: the version it was configured for, and
# with a Flatpak GIMP (fresh_home) for a GIMP 3 build, 3.0's and 3.2's.
fresh_home
version=$(sed -n 's/^GIMP_USER_VERSION = //p' "$build/Makefile")
case $version in 3.*) wanted="3.0 3.2" ;; *) wanted=$version ;; esac
HOME=$work/home XDG_CONFIG_HOME= make -s -C "$build" install-user >"$work/make.out" 2>&1
ok=1
for v in $wanted; do
  plugin_in "$work/home/.config/GIMP/$v" && grep -q "Installed in $work/home/.config/GIMP/$v/" "$work/make.out" || ok=0
done
[ -z "$(find "$work/home/$flatpak" -name cuda-gaussian-blur -type f)" ] || ok=0
result $ok "make install-user (GIMP $version build, a Flatpak GIMP): ~/.config/GIMP/{$(echo $wanted | tr ' ' ,)}, none hidden"

# The GEGL operation: the native user folder and the Flatpak GIMP's (fresh_home has one).
if [ -f "$build/operation/cuda-gaussian-blur.so" ]; then
  result $(module_in "$work/home/.local/share" && module_in "$work/home/.var/app/org.gimp.GIMP/data" \
    && echo 1 || echo 0) "make install-user: the operation in ~/.local/share and the Flatpak GIMP's data folder"
  HOME=$work/home XDG_CONFIG_HOME= make -s -C "$build" uninstall-user >/dev/null 2>&1
  result $([ -z "$(find "$work/home" -name 'cuda-gaussian-blur*' -type f)" ] && echo 1 || echo 0) \
    "make uninstall-user removes the plug-in and the operation"
  rm -rf "$work/home" && mkdir -p "$work/home"
  HOME=$work/home XDG_DATA_HOME=$work/data sh "$top/operation/install-gegl-user.sh" install \
    "$build/operation/cuda-gaussian-blur.so" "$build/po/locale" >/dev/null
  result $(module_in "$work/data" && [ ! -e "$work/home/.var" ] && echo 1 || echo 0) \
    "without a Flatpak GIMP: the operation in \$XDG_DATA_HOME only"
fi

# A GEGL-only build (--with-gimp=no): make install-user installs the operation alone.
if [ -n "${2:-}" ]; then
  gegl_only=$(cd "$2" && pwd)
  fresh_home
  HOME=$work/home XDG_CONFIG_HOME= XDG_DATA_HOME= make -s -C "$gegl_only" install-user >"$work/make.out" 2>&1
  result $(module_in "$work/home/.local/share" && module_in "$work/home/.var/app/org.gimp.GIMP/data" \
    && [ -z "$(find "$work/home/.config" -type f 2>/dev/null)" ] && [ "$(grep -c 'Installed in' "$work/make.out")" = 2 ] \
    && echo 1 || echo 0) "GEGL-only build: make install-user installs the operation, no plug-in"
  HOME=$work/home XDG_CONFIG_HOME= XDG_DATA_HOME= make -s -C "$gegl_only" uninstall-user >/dev/null 2>&1
  result $([ -z "$(find "$work/home" -name 'cuda-gaussian-blur.*' -type f)" ] && echo 1 || echo 0) \
    "GEGL-only build: make uninstall-user removes the operation"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && rm -rf "$work"
[ $failed -eq 0 ]
