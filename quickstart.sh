#!/bin/sh
# A newcomer's first command, on a fresh Debian 12 machine: installs what is
# missing (apt), builds the plug-in, installs it into a throwaway GIMP 2.10
# profile and blurs the project's sample picture in GIMP batch mode, printing
# the backend used and the time taken.
#   ./quickstart.sh [SIGMA]          (default 5; writes sample-blurred.png)
# Works from a git clone and from the release tarball.  Needs root or sudo
# for apt-get when packages are missing.
set -eu
top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
sigma=${1:-5}

packages="autoconf automake pkg-config make gcc libc6-dev gettext gimp libgimp2.0-dev libfftw3-dev"
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

echo "== building"
[ -x configure ] || ./autogen.sh >/dev/null 2>&1
mkdir -p _quickstart && cd _quickstart
[ -f Makefile ] || ../configure --with-gimp=2 >configure.log
sed -n '/CUDA backend:/,/plug-in folder:/p' configure.log
make -j"$(nproc)" >make.log 2>&1 || { tail -n 30 make.log; exit 1; }

profile=$(mktemp -d /tmp/cgb-profile.XXXXXX)
echo "== installing into a throwaway GIMP profile: $profile"
GIMP2_DIRECTORY=$profile make install-user >/dev/null

echo "== blurring samples/sample.png with sigma $sigma in GIMP 2.10 (batch mode)"
out=$top/sample-blurred.png
rm -f "$out"
GIMP2_DIRECTORY=$profile CUDA_GBLUR_VERBOSE=1 gimp-console-2.10 -i -b "(let* (
    (img (car (gimp-file-load RUN-NONINTERACTIVE \"$top/samples/sample.png\" \"sample.png\")))
    (drw (car (gimp-image-get-active-layer img))))
  (plug-in-cuda-gaussian-blur RUN-NONINTERACTIVE img drw $sigma TRUE)
  (gimp-file-save RUN-NONINTERACTIVE img drw \"$out\" \"$out\"))" -b '(gimp-quit 0)' >gimp.log 2>&1 || true
grep '^cuda-gaussian-blur:' gimp.log || true
if grep -q "execution error" gimp.log || [ ! -s "$out" ]; then
  echo "The batch run failed:"; cat gimp.log; exit 1
fi
rm -rf "$profile"
echo "== done: $out"
echo "To use it in your own GIMP: cd _quickstart && make install-user, restart GIMP,"
echo "then Filters > Blur > CUDA Gaussian Blur…   All the tests: bash .ci/run"
