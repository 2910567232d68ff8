#!/bin/sh
# Builds the release tarballs, which need no CUDA toolkit and no build, with
# Debian's own toolkits (their runtimes run on the oldest drivers): for GIMP 3
# in the Debian 13 chroot (CUDA 12.4, g++-13), for GIMP 2.10 on this Debian 12
# machine (CUDA 11.8, g++-11).  GPU architectures: configure's default.
#   release/make-release.sh [gimp3] [gimp2.10]     (default: both)
# Writes _release/cuda-gaussian-blur-VERSION-linux-x86_64-SERIES.tar.xz (each
# with its BUILD-INFO, also beside it) and prints their sizes.
# RELEASE_CONFIGURE_FLAGS: more configure options, shell-quoted
# (--with-cuda-arch=75 to try; --with-cuda-arch='75 90').
# Inside (the chroot or here): make-release.sh --build SERIES BUILDDIR STAGEDIR.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$top/configure.ac")

# --build: configure, make, strip and stage one series with the toolkit in /usr.
if [ "${1:-}" = --build ]; then
  series=$2 build=$3 stage=$4
  case $series in gimp3) gimp=3 cxx=/usr/bin/g++-13 ;; gimp2.10) gimp=2 cxx=/usr/bin/g++-11 ;; esac
  rm -rf "$build" "$stage" && mkdir -p "$build" "$stage/scripts" "$stage/licenses"
  cd "$build"
  eval "\"\$top/configure\" --with-gimp=$gimp --with-cuda=/usr --with-cuda-host-compiler=$cxx \
    ${RELEASE_CONFIGURE_FLAGS:-}" >configure.out 2>&1 || { tail -n 20 configure.out; exit 1; }
  grep -A7 '^ *cuda-gaussian-blur ' configure.out
  # configure compresses every image in the fatbins (-Xfatbin=-compress-all).
  make -j"$(nproc)" \
    plugin/cuda-gaussian-blur operation/cuda-gaussian-blur.so po-catalogs >make.out 2>&1 \
    || { grep -m 20 -E 'error|Error' make.out; tail -n 5 make.out; exit 1; }
  strip -o "$stage/cuda-gaussian-blur" plugin/cuda-gaussian-blur
  strip --strip-unneeded -o "$stage/cuda-gaussian-blur.so" operation/cuda-gaussian-blur.so
  cp -r po/locale "$stage/locale"
  cp "$top/release/install.sh" "$stage/"
  cp "$top/plugin/install-user.sh" "$top/operation/install-gegl-user.sh" "$stage/scripts/"
  cp "$top/README.md" "$stage/"
  # Licences: ours, FFTW's (linked in) and NVIDIA's for the runtime (linked in),
  # as the Debian packages that hold those archives state them.
  cp "$top/COPYING" "$stage/licenses/COPYING"
  fftw=$(sed -n 's/^FFTW_LIBS = \([^ ]*\.a\).*/\1/p' Makefile)
  cudart=$(ls /usr/lib/x86_64-linux-gnu/libcudart_static.a)
  cp "/usr/share/doc/$(dpkg -S "$(readlink -f "$fftw")" | cut -d: -f1)/copyright" "$stage/licenses/FFTW"
  cp "/usr/share/doc/$(dpkg -S "$(readlink -f "$cudart")" | cut -d: -f1)/copyright" "$stage/licenses/NVIDIA-CUDA-runtime"
  # What was built, for the tests: the machine code and PTX configure asked nvcc for.
  arch=$(sed -n 's/^NVCC_ARCH_FLAGS = //p' Makefile)
  {
    echo "version: $version"
    echo "gimp-series: ${series#gimp}"
    echo "machine-code:$(echo "$arch" | grep -o 'code=sm_[0-9a-z]*' | sed 's/code=/ /' | tr -d '\n')"
    echo "ptx:$(echo "$arch" | grep -o 'code=compute_[0-9a-z]*' | sed 's/code=/ /' | tr -d '\n')"
    echo "cuda-runtime: $(/usr/bin/nvcc --version | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p') (static, Debian $(dpkg -S "$cudart" | cut -d: -f1) $(dpkg-query -W -f='${Version}' "$(dpkg -S "$cudart" | cut -d: -f1 | sed 's/:.*//')"))"
    echo "host-compiler: $($cxx --version | head -n 1)"
    echo "built-on: $(. /etc/os-release && echo "$PRETTY_NAME"), glibc $(ldd --version | head -n 1 | sed 's/.* //')"
    echo "configure: --with-gimp=$gimp --with-cuda=/usr --with-cuda-host-compiler=$cxx ${RELEASE_CONFIGURE_FLAGS:-}"
  } >"$stage/BUILD-INFO"
  (cd "$stage" && find . -type f ! -name SHA256SUMS | sort | sed 's|^\./||' | xargs sha256sum >SHA256SUMS)
  exit 0
fi

[ "$(id -u)" = 0 ] || { echo "make-release: needs root (the chroot)" >&2; exit 1; }
# configure and Makefile.in made here: the chroots' automake is another version.
[ -x "$top/configure" ] && [ -f "$top/Makefile.in" ] &&
  [ -z "$(find "$top/configure.ac" "$top/Makefile.am" -newer "$top/Makefile.in")" ] || (cd "$top" && ./autogen.sh >/dev/null)
out=$top/_release
mkdir -p "$out"
for series in ${*:-gimp3 gimp2.10}; do
  name=cuda-gaussian-blur-$version-linux-x86_64-$series
  echo "== $name"
  case $series in
    gimp3) "$top/tests/env/gimp3-chroot.sh" 3.0 env ${RELEASE_CONFIGURE_FLAGS:+RELEASE_CONFIGURE_FLAGS="$RELEASE_CONFIGURE_FLAGS"} \
             sh /src/release/make-release.sh --build gimp3 /build-release-gimp3 "/src/_release/$name" ;;
    # Debian's toolkit even where NVIDIA's is installed too (configure then
    # points nvcc at Debian's headers, the Makefile at its ptxas).
    gimp2.10) env PATH=/usr/sbin:/usr/bin:/sbin:/bin sh "$top/release/make-release.sh" --build gimp2.10 \
             /tmp/cgb-release-gimp2.10 "$out/$name" ;;
    *) echo "make-release: gimp3 or gimp2.10, not '$series'" >&2; exit 2 ;;
  esac
  cp "$out/$name/BUILD-INFO" "$out/$name.BUILD-INFO"
  tar -C "$out" --owner=0 --group=0 --sort=name -cf - "$name" | xz -9e -T1 >"$out/$name.tar.xz"
  rm -rf "${out:?}/$name"
  echo "$(du -b "$out/$name.tar.xz" | cut -f1) bytes: $out/$name.tar.xz"
done
