#!/bin/sh
# A newcomer's first command, on any Debian that has GIMP: installs what is
# missing (apt), builds the plug-in for the system's GIMP (2.10 on Debian 12,
# 3.0 on Debian 13, 3.2 on forky) with the system's CUDA toolkit where one
# is installed, installs it into a throwaway profile and blurs the project's
# sample picture in that GIMP's batch mode, printing the backend used, why,
# and the time taken.
#   ./quickstart.sh [-v] [SIGMA]     (default 5; writes sample-blurred.png;
#                                     -v: configure's summary and every line
#                                     the plug-in and the operation printed)
# CONFIGURE_FLAGS (environment) adds configure options, e.g.
# --with-cuda-arch=75 for a quicker build.
# Works from a git clone and from the source tarball.  Needs root or sudo
# for apt-get when packages are missing.
set -eu
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
verbose=0
[ "${1:-}" = -v ] && { verbose=1; shift; }
sigma=${1:-5}

# The GIMP installed, else GIMP 3 where the distribution has its headers.
if ! command -v gimp-console-2.10 >/dev/null &&
   { ls /usr/bin/gimp-console-3* >/dev/null 2>&1 || apt-cache show libgimp-3.0-dev >/dev/null 2>&1; }; then
  major=3 gimp_dev="libgimp-3.0-dev libgimp-3.0-bin"
else
  major=2 gimp_dev=libgimp2.0-dev
fi
packages="autoconf automake pkg-config make gcc libc6-dev gettext gimp $gimp_dev liblcms2-dev libfftw3-dev"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "== installing:$missing"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $packages >/dev/null
fi

echo "== building for GIMP $major"
[ -x configure ] || ./autogen.sh >/dev/null 2>&1
mkdir -p _quickstart && cd _quickstart
[ -f Makefile ] || ../configure --with-gimp=$major ${CONFIGURE_FLAGS:-} >configure.log
[ $verbose = 0 ] || sed -n '/CUDA backend:/,/plug-in folder:/p' configure.log
make -j"$(nproc)" >make.log 2>&1 || { tail -n 30 make.log; exit 1; }
version=$(sed -n 's/^GIMP_USER_VERSION = //p' Makefile)

profile=$(mktemp -d /tmp/cgb-profile.XXXXXX)
echo "== installing into a throwaway GIMP $version profile: $profile"
export GIMP2_DIRECTORY=$profile GIMP3_DIRECTORY=$profile XDG_DATA_HOME=$profile/data
make install-user >/dev/null

echo "== blurring samples/sample.png with sigma $sigma in GIMP $version (batch mode)"
out=$top/sample-blurred.png
rm -f "$out"
in=$top/samples/sample.png
rc=0
if [ $major = 2 ]; then
  GBLUR_VERBOSE=1 gimp-console-2.10 -i -b "(let* (
      (img (car (gimp-file-load RUN-NONINTERACTIVE \"$in\" \"$in\")))
      (drw (car (gimp-image-get-active-layer img))))
    (plug-in-cuda-gaussian-blur RUN-NONINTERACTIVE img drw $sigma TRUE)
    (gimp-file-save RUN-NONINTERACTIVE img drw \"$out\" \"$out\"))" -b '(gimp-quit 0)' >gimp.log 2>&1 || rc=$?
else
  GBLUR_VERBOSE=1 gimp-console-$version -i --batch-interpreter=plug-in-script-fu-eval --quit -b "(let* (
      (img (car (gimp-file-load RUN-NONINTERACTIVE \"$in\")))
      (drw (vector-ref (car (gimp-image-get-layers img)) 0)))
    (plug-in-cuda-gaussian-blur #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector drw)
                                #:sigma $sigma #:linear TRUE)
    (gimp-file-save RUN-NONINTERACTIVE img \"$out\" -1))" >gimp.log 2>&1 || rc=$?
fi
# The backend that blurred and why, the time, and warnings; -v: all, with
# which process served the call.
shown='^cuda-gaussian-blur: (backend |.* ms \(read, blur, write\)|merged .*: [0-9.]+ ms$|the GPU failed|.* left the layer unblurred)'
hidden='\(warm process\)$'
[ $verbose = 0 ] || shown='^cuda-gaussian-blur:' hidden='^$'
grep -E "$shown" gimp.log | grep -v -E "$hidden" || true
# GIMP 2.10 exits 0 after a failed script: its log says so.
if [ $rc != 0 ] || grep -q "execution error" gimp.log || [ ! -s "$out" ]; then
  echo "The batch run failed:"; cat gimp.log; exit 1
fi
rm -rf "$profile"
echo "== done: $out"
echo "To use it in your own GIMP: cd _quickstart && make install-user, restart GIMP,"
echo "then Filters > Blur > CUDA Gaussian Blur…   All the tests: bash .ci/run"
[ $verbose = 1 ] || echo "More detail: ./quickstart.sh -v"
