#!/bin/sh
# Every installed binary needs only libraries that GIMP itself has, in every
# GIMP users run (the Flatpak's GNOME 50 runtime included: no libfftw3f),
# and no glibc symbol newer than that runtime's glibc 2.42.  A GEGL module
# (a .so) exports GEGL's two entry points and nothing else into the process
# that loads it.
#   tests/install/check-needed.sh BUILDDIR     (make install into a scratch folder, then check)
#   tests/install/check-needed.sh FILE...      (check these ELF files)
# Ends with "N passed, N failed".
set -u
max_glibc=2.42
# Library names without their ".so.N": GIMP's and GEGL's own, GLib, the GTK 3
# stack (GTK 2's for a GIMP 2.10 plug-in), lcms2, double FFTW, the C and C++ runtimes.
allowed='^(libgimp[a-z]*-[23]\.0|libgegl-0\.4|libgegl-npd-0\.4|libbabl-0\.1|libglib-2\.0|libgobject-2\.0|libgio-2\.0|libgmodule-2\.0|libgthread-2\.0|libgtk-3|libgdk-3|libgtk-x11-2\.0|libgdk-x11-2\.0|libgdk_pixbuf-2\.0|libpango-1\.0|libpangocairo-1\.0|libpangoft2-1\.0|libcairo|libcairo-gobject|libatk-1\.0|libharfbuzz|libfontconfig|libfreetype|liblcms2|libfftw3|libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|ld-linux-x86-64|ld-linux-aarch64)$'

if [ $# = 1 ] && [ -d "$1" ]; then
  dest=$(mktemp -d /tmp/cgb-needed.XXXXXX)
  make -s -C "$1" install DESTDIR="$dest" >"$dest.log" 2>&1 || { cat "$dest.log"; echo "0 passed, 1 failed"; exit 1; }
  set -- $(find "$dest" -type f -exec sh -c 'head -c 4 "$1" | grep -q ELF' _ {} \; -print)
  [ $# -gt 0 ] || { echo "FAIL: make install put no binary in $dest"; echo "0 passed, 1 failed"; exit 1; }
fi
passed=0 failed=0
for f in "$@"; do
  if ! [ -f "$f" ] || ! head -c 4 "$f" | grep -q ELF; then
    failed=$((failed + 1)); echo "FAIL: $f is not an ELF file"; continue
  fi
  bad=$(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sed 's/\.so\(\.[0-9]*\)*$//' | grep -v -E "$allowed")
  glibc=$(readelf -V --wide "$f" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
  newer=$(printf '%s\n%s\n' "$glibc" "$max_glibc" | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
  if [ -z "$bad" ] && [ "$newer" = "$max_glibc" ]; then
    passed=$((passed + 1)); echo "PASS: ${f##*/}: needs only what GIMP has, glibc up to $glibc"
  else
    failed=$((failed + 1)); echo "FAIL: ${f##*/}: needs ${bad:-nothing more}; glibc up to $glibc (at most $max_glibc)"
  fi
  case $f in *.so)
    exported=$(nm -D --defined-only "$f" | awk '{print $3}' | sort | tr '\n' ' ')
    if [ "$exported" = "gegl_module_query gegl_module_register " ]; then
      passed=$((passed + 1)); echo "PASS: ${f##*/}: exports only GEGL's entry points"
    else
      failed=$((failed + 1)); echo "FAIL: ${f##*/}: exports $exported"
    fi ;;
  esac
done
[ -n "${dest:-}" ] && rm -rf "$dest" "$dest.log"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
