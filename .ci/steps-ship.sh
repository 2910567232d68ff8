# CI steps for what users install: quickstart, make install-user, the Debian
# packages, the release tarballs (.ci/steps.sh).

# GIMP 2.10 here: ./quickstart.sh as a newcomer runs it (CPU-only to save
# time: the build step builds CUDA); make install-user into fake homes (a
# Flatpak GIMP's among them) from the 2.10 and GEGL-only builds; the Debian
# 12 package and the 2.10 release tarball, installed and tested; both
# tarballs' binaries checked.
step_gimp2_installs () {
  CONFIGURE_FLAGS=--without-cuda gimp_suite tests/install/quickstart-test.sh 2 _ci/quickstart2.log
  wait_for cpu-build
  needs _build/Makefile build && needs _build-cpu/Makefile cpu-build &&
    logged _ci/install-user.log tests/install/install-user-test.sh _build _build-cpu
  wait_for debian-build
  check "Debian 12 package (GIMP 2.10): installed, batch tests on the installed copy" debian_test_12
  release_test 2.10
}
# GIMP 3.0 in Debian 13: the same, its Debian package, the GIMP 3 tarball
# (--system too).
step_gimp3_0_installs () {
  CONFIGURE_FLAGS=--without-cuda gimp_suite tests/install/quickstart-test.sh 3.0 _ci/quickstart3.0.log
  logged _ci/install-user3.0.log tests/env/gimp3-chroot.sh 3.0 /src/tests/install/install-user-test.sh /build-gimp3.0
  wait_for debian-build
  check "Debian 13 package (GIMP 3.0): installed, batch tests on the installed copy" debian_test_13
  release_test 3.0
}
# GIMP 3.2 in forky: quickstart and the GIMP 3 tarball.
step_gimp3_2_installs () {
  CONFIGURE_FLAGS=--without-cuda gimp_suite tests/install/quickstart-test.sh 3.2 _ci/quickstart3.2.log
  release_test 3.2
}

# GIMP 2.10's package (Debian 12, here) and GIMP 3.0's (Debian 13, in its
# chroot), each with Debian's toolkit, from a copy of this tree.
step_debian_build () {
  wait_for autogen
  check "Debian 12 package (GIMP 2.10) builds with CUDA 11.8" debian_build_12
  check "Debian 13 package (GIMP 3.0) builds with CUDA 12.4" debian_build_13
}
deb_copy () { # folder: this tree, without build outputs
  rm -rf "$1" && mkdir -p "$1/src"
  tar --exclude='./_build*' --exclude=./_quickstart --exclude=./_release --exclude=./_ci -cf - . | tar -xf - -C "$1/src"
}
deb13=${GIMP3_CHROOTS:-/var/cache/cuda-gaussian-blur}/trixie/tmp/cgb-deb
debian_build_12 () {
  deb_copy /tmp/cgb-deb
  # nocheck: its make check is the build step's (this machine, this tree).
  (cd /tmp/cgb-deb/src && CONFIGURE_FLAGS=--with-cuda-arch=60 DEB_BUILD_OPTIONS=nocheck \
     dpkg-buildpackage -b -us -uc >../build.log 2>&1) \
    || { tail -n 40 /tmp/cgb-deb/build.log; return 1; }
  grep -E "^ *CUDA backend: +yes \(/usr/bin/nvcc, CUDA 11\.8 " /tmp/cgb-deb/build.log && ls /tmp/cgb-deb/*.deb
}
debian_build_13 () {
  deb_copy "$deb13"
  tests/env/gimp3-chroot.sh 3.0 sh -c 'cd /tmp/cgb-deb/src && CONFIGURE_FLAGS=--with-cuda-arch=60 \
      dpkg-buildpackage -b -us -uc >../build.log 2>&1 || { tail -n 40 ../build.log; exit 1; }
    grep -E "^ *CUDA backend: +yes \(/usr/bin/nvcc, CUDA 12\.4 " ../build.log && ls /tmp/cgb-deb/*.deb'
}
# Installed, the batch suite run on the installed copy, removed again.
debian_test_12 () {
  needs "$(ls /tmp/cgb-deb/gimp-cuda-gaussian-blur_*.deb 2>/dev/null | head -n 1)" debian-build || return 1
  dpkg -i /tmp/cgb-deb/gimp-cuda-gaussian-blur_*.deb >/dev/null || return 1
  dpkg -L gimp-cuda-gaussian-blur | grep -E 'plug-ins/cuda-gaussian-blur/(cuda-gaussian-blur|locale/ko/.*\.mo)$'
  local rc=0
  tests/install/check-needed.sh $(dpkg -L gimp-cuda-gaussian-blur | grep -E '/cuda-gaussian-blur(\.so)?$' \
    | while read -r f; do [ -f "$f" ] && echo "$f"; done) || rc=1
  tests/gimp/run-batch-tests.sh 2 --installed >_ci/gimp2-deb.log 2>&1 || rc=1
  grep -E '^(PASS|FAIL)|passed, ' _ci/gimp2-deb.log
  add_counts _ci/gimp2-deb.log
  dpkg -r gimp-cuda-gaussian-blur >/dev/null
  return $rc
}
debian_test_13 () {
  needs "$(ls "$deb13"/gimp-cuda-gaussian-blur_*.deb 2>/dev/null | head -n 1)" debian-build || return 1
  local rc=0
  tests/env/gimp3-chroot.sh 3.0 sh -c 'dpkg -i /tmp/cgb-deb/gimp-cuda-gaussian-blur_*.deb >/dev/null &&
    dpkg -L gimp-cuda-gaussian-blur | grep -E "gimp/3.0/plug-ins/cuda-gaussian-blur/(cuda-gaussian-blur|locale/ko/.*\.mo)$" &&
    /src/tests/install/check-needed.sh $(dpkg -L gimp-cuda-gaussian-blur | grep -E "/cuda-gaussian-blur(\.so)?$" |
      while read -r f; do [ -f "$f" ] && echo "$f"; done)' || rc=1
  tests/gimp/run-batch-tests.sh 3.0 --installed >_ci/gimp3.0-deb.log 2>&1 || rc=1
  grep -E '^(PASS|FAIL)|passed, ' _ci/gimp3.0-deb.log
  add_counts _ci/gimp3.0-deb.log
  tests/env/gimp3-chroot.sh 3.0 dpkg -r gimp-cuda-gaussian-blur >/dev/null
  return $rc
}

# As a release is made (release/make-release.sh: Debian 13's CUDA 12.4 in
# its chroot, Debian 12's 11.8 here) but with the oldest and newest machine
# code only: the same scripts and guards as the release's eight
# architectures, which `make release` builds and tests before publishing.
CI_RELEASE_ARCHS="60 90"
step_release_build () {
  wait_for autogen
  check "release tarballs: release/make-release.sh (sm_${CI_RELEASE_ARCHS// /, sm_} + PTX)" release_tarballs
}
release_tarballs () { # both series at once: each build is mostly one long nvcc unit
  local series pids="" rc=0
  rm -rf _release
  for series in gimp3 gimp2.10; do
    RELEASE_CONFIGURE_FLAGS="--with-cuda-arch='$CI_RELEASE_ARCHS'" release/make-release.sh $series \
      >"_ci/release-$series.log" 2>&1 &
    pids="$pids $!"
  done
  for p in $pids; do wait $p || rc=1; done
  for series in gimp3 gimp2.10; do
    grep -h 'bytes:' "_ci/release-$series.log" || { tail -n 30 "_ci/release-$series.log"; rc=1; }
  done
  return $rc
}
# The tarballs as a user gets them, where GIMP VERSION runs
# (tests/install/release-test.sh).
release_test () { # VERSION
  wait_for release-build
  needs "$(ls _release/*-gimp3.tar.xz 2>/dev/null | head -n 1)" release-build || return 1
  echo "== the release tarballs as a user gets them, GIMP $1"
  logged "_ci/release-test$1.log" tests/install/release-test.sh _release "$1"
}
