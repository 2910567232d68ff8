# CI steps that build the tree and run the engine's suites (.ci/steps.sh).

step_packages () {
  # Build tools, GIMP 2.10 with its headers, Debian's python3 with OpenCV
  # (the batch tests' image I/O), debootstrap (the GIMP 3 chroots), Debian's
  # own CUDA toolkit (11.8, non-free: the GIMP 2.10 package and release),
  # GNU parallel (the batch suites spread files over its jobs).
  local packages="autoconf automake pkg-config make gcc libc6-dev gettext gimp libgimp2.0-dev liblcms2-dev
    libfftw3-dev dpkg-dev debhelper python3-opencv python3-numpy debootstrap xvfb xauth xdotool imagemagick
    locales fonts-nanum valgrind clang libclang-rt-14-dev libgs-common icc-profiles-free gegl python3-gi
    gir1.2-gegl-0.4 universal-ctags nvidia-cuda-toolkit-gcc parallel"
  local nonfree=/etc/apt/sources.list.d/debian-contrib-non-free.sources missing l regen=""
  [ -f $nonfree ] || printf '%s\n' 'Types: deb' "URIs: $(tests/env/gimp3-chroot.sh --mirror)" \
    'Suites: bookworm bookworm-updates' 'Components: contrib non-free' \
    'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' >$nonfree
  missing=$(for p in $packages; do
    dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed || echo "$p"; done)
  if [ -n "$missing" ]; then
    echo "== installing:" $missing
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $packages >/dev/null \
      || { echo "!! apt-get failed"; failed=$((failed + 1)); return 1; }
  fi
  for l in ko_KR.UTF-8 de_DE.UTF-8; do
    grep -q "^$l UTF-8" /etc/locale.gen 2>/dev/null || { echo "$l UTF-8" >>/etc/locale.gen; regen=1; }
  done
  [ -z "$regen" ] || locale-gen >/dev/null
}

# The tree the GIMP 2.10 suites use.  Its CUDA backend for the oldest machine
# code nvcc 13 makes (distcheck builds the newest); no GPU here, so its
# suites skip.  The default configure's GPU targets are checked too: the
# release tarballs are built with them (make release).
step_autogen () {
  check "autogen.sh" sh -c './autogen.sh >/dev/null 2>&1 || ./autogen.sh'
}
step_build () {
  needs configure autogen || return 1
  build_tree _build --with-cuda-arch=75
  logged _ci/needed.log tests/install/check-needed.sh _build
  check "the default configure targets every architecture nvcc knows from sm_60 on" default_targets
}
default_targets () {
  local known list=""
  rm -rf _build-default && mkdir _build-default
  (cd _build-default && ../configure >configure.out 2>&1) || { tail -n 20 _build-default/configure.out; return 1; }
  known=" $(/usr/local/cuda/bin/nvcc --list-gpu-code | sed -n 's/^sm_//p' | tr '\n' ' ')"
  for a in 60 61 70 75 80 86 89 90 100 120; do case $known in *" $a "*) list="$list $a" ;; esac; done
  grep -E '^ *GPU targets:' _build-default/configure.out
  grep -qF "sm_$(echo $list | sed 's/ /, sm_/g') + PTX (compute_${list##* })" _build-default/configure.out
}

step_shape () {
  /usr/bin/python3 tests/check-shape.py >_ci/shape.log 2>&1
  grep -E '^FAIL|passed, ' _ci/shape.log
  add_counts _ci/shape.log
}

# Built as a machine without GIMP would (a batch server with the gegl tool).
step_cpu_build () {
  wait_for autogen
  build_tree _build-cpu --without-cuda --with-gimp=no || return 1
  logged _build-cpu/needed.log tests/install/check-needed.sh _build-cpu
  echo "== the GEGL operation (GEGL-only build) through the gegl tool, libfftw3f hidden"
  logged _build-cpu/gegl-cli.log tests/env/without-fftw3f.sh /usr/bin/python3 tests/operation/gegl_cli_test.py \
    _build-cpu/operation _build-cpu/gegl-cli
}

step_sanitizers () {
  build_tree _build-asan --without-cuda --with-gimp=no --without-gegl-module --enable-sanitizers
  wait_for cpu-build
  needs _build-cpu/tests/engine/test-engine cpu-build &&
    check "valgrind memcheck (CPU backend)" bash tests/engine/valgrind-check.sh _build-cpu
  check "fuzz the engine, its FFT path included (60 s)" env BUILD=_build-fuzz bash tests/engine/fuzz-run.sh 60
}

# The tarball builds and passes its own tests, with the newest machine code.
step_distcheck () {
  check "make distcheck" distcheck
}
distcheck () { # in a tree of its own: the background lane's, beside the others
  rm -rf _build-dist && mkdir _build-dist && cd _build-dist || return 1
  ../configure --without-cuda --with-gimp=no >configure.out 2>&1 \
    && make distcheck DISTCHECK_CONFIGURE_FLAGS=--with-cuda-arch=120 >distcheck.out 2>&1
  local rc=$?
  [ $rc = 0 ] || tail -n 40 distcheck.out
  cd ..; return $rc
}
