#!/bin/sh
# release/install.sh of both series into one home, on stand-in tarballs
# (this tree's scripts, files that name their series): GIMP 2.10 and 3
# share GEGL's folders, so the GIMP 2.10 tarball keeps GIMP 3's operation
# (or one of unknown build) unless --force, the GIMP 3 tarball replaces
# GIMP 2.10's, each says so, --uninstall removes only its own, and nothing
# is left at the end.  Needs no GIMP and no build.
#   tests/install/install-series-test.sh
# Ends with "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/cgb-install-series.XXXXXX)
passed=0 failed=0
result () { # OK NAME [DETAIL]
  if [ "$1" = 1 ]; then echo "PASS: $2"; passed=$((passed + 1))
  else echo "FAIL: $2${3:+ ($3)}"; failed=$((failed + 1)); fi
}

tarball () { # SERIES: a stand-in for that series' unpacked tarball, in $work/SERIES
  t=$work/$1
  mkdir -p "$t/scripts" "$t/locale/ko/LC_MESSAGES"
  printf 'version: 9.9\ngimp-series: %s\n' "$1" >"$t/BUILD-INFO"
  echo "plug-in for GIMP $1" >"$t/cuda-gaussian-blur"
  echo "operation for GIMP $1" >"$t/cuda-gaussian-blur.so"
  echo "catalogue" >"$t/locale/ko/LC_MESSAGES/cuda-gaussian-blur.mo"
  cp "$top/release/install.sh" "$t/"
  cp "$top/plugin/install-user.sh" "$top/operation/install-gegl-user.sh" "$t/scripts/"
  (cd "$t" && find . -type f ! -name SHA256SUMS | sort | sed 's|^\./||' | xargs sha256sum >SHA256SUMS)
}
tarball 3
tarball 2.10
home=$work/home
gegl=$home/.local/share/gegl-0.4/plug-ins
flatpak=$home/.var/app/org.gimp.GIMP/data/gegl-0.4/plug-ins
mkdir -p "$home/.config/GIMP/3.0" "$home/.config/GIMP/2.10" "$home/.var/app/org.gimp.GIMP"
install () { # SERIES ARGS...: install.sh's output in $work/out, its status in rc
  s=$1; shift
  HOME=$home XDG_CONFIG_HOME= XDG_DATA_HOME= "$work/$s/install.sh" "$@" >"$work/out" 2>&1
  rc=$?
}
# operation_is SERIES: both GEGL folders hold that series' operation.
operation_is () {
  for d in "$gegl" "$flatpak"; do
    grep -q "for GIMP $1\$" "$d/cuda-gaussian-blur.so" 2>/dev/null || return 1
    grep -q "^gimp-series: $1\$" "$d/cuda-gaussian-blur.BUILD-INFO" || return 1
  done
}
said () { grep -q -- "$1" "$work/out"; }

install 3
result "$([ $rc = 0 ] && operation_is 3 && echo 1)" "GIMP 3's tarball: the operation in both GEGL folders" "$(cat "$work/out")"
install 2.10
result "$([ $rc = 0 ] && operation_is 3 && [ -f "$home/.config/GIMP/2.10/plug-ins/cuda-gaussian-blur/cuda-gaussian-blur" ] \
  && [ "$(grep -c "^Kept GIMP 3's cuda:gaussian-blur 9.9 in .*--force replaces it" "$work/out")" = 2 ] && echo 1)" \
  "GIMP 2.10's tarball after GIMP 3's: its plug-in installed, GIMP 3's operation kept, said twice" "$(cat "$work/out")"
install 2.10 --force
result "$([ $rc = 0 ] && operation_is 2.10 && said "^Replacing GIMP 3's cuda:gaussian-blur 9.9 in $gegl" && echo 1)" \
  "GIMP 2.10's tarball with --force: replaces GIMP 3's operation, saying so" "$(cat "$work/out")"
install 3
result "$([ $rc = 0 ] && operation_is 3 && said "^Replacing GIMP 2.10's cuda:gaussian-blur 9.9 in $flatpak" && echo 1)" \
  "GIMP 3's tarball over GIMP 2.10's: replaces its operation, saying so" "$(cat "$work/out")"
install 2.10 --uninstall
result "$([ $rc = 0 ] && operation_is 3 && [ ! -e "$home/.config/GIMP/2.10/plug-ins/cuda-gaussian-blur" ] \
  && said "^Kept GIMP 3's cuda:gaussian-blur 9.9 in $gegl: this tarball did not install it" && echo 1)" \
  "GIMP 2.10's --uninstall: its plug-in removed, GIMP 3's operation kept" "$(cat "$work/out")"
install 3 --uninstall
left=$(find "$home" -name 'cuda-gaussian-blur*' -o -path '*gegl-0.4/plug-ins/locale*')
result "$([ $rc = 0 ] && [ -z "$left" ] && echo 1)" "GIMP 3's --uninstall leaves nothing" "$left"

# An operation without BUILD-INFO: `make install-user`'s, or an earlier release's.
HOME=$home XDG_DATA_HOME= sh "$top/operation/install-gegl-user.sh" install "$work/3/cuda-gaussian-blur.so" "$work/3/locale" >/dev/null
install 2.10
result "$([ $rc = 0 ] && grep -q "for GIMP 3" "$gegl/cuda-gaussian-blur.so" && [ ! -e "$gegl/cuda-gaussian-blur.BUILD-INFO" ] \
  && said "^Kept the cuda:gaussian-blur in $gegl (a source build's or an earlier release's, maybe GIMP 3's)" && echo 1)" \
  "GIMP 2.10's tarball keeps an operation of unknown build" "$(cat "$work/out")"
install 2.10 --uninstall
left=$(find "$home" -name 'cuda-gaussian-blur*' -o -path '*gegl-0.4/plug-ins/locale*')
result "$([ $rc = 0 ] && [ -z "$left" ] && echo 1)" "GIMP 2.10's --uninstall removes one of unknown build too" "$left"
install 2.10 --help
result "$(said "--force replaces" && echo 1)" "install.sh --help names --force"

echo "$passed passed, $failed failed"
[ $failed = 0 ] && rm -rf "$work"
[ $failed = 0 ]
