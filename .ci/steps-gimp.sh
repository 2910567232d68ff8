# CI steps that run the plug-in and the operation in real GIMPs and GEGL
# (.ci/steps.sh).  GIMP 2.10 uses the build step's _build; GIMP 3.0 and 3.2
# the builds that gimp3-batch makes in their chroots (/build-gimp3.x).

# The batch suite, then GIMP 2.10's warm process: the extension serves calls
# by name, with one engine; without an engine there, the one-shot procedure.
step_gimp2_batch () {
  needs _build/plugin/cuda-gaussian-blur build || return 1
  gimp_suite run-batch-tests.sh 2 _build/gimp2.log _build
  gimp_suite warm-process-test.sh 2 _build/gimp2-warm.log _build
}

# The operation without GIMP 3: at GEGL's mipmap levels (std-dev scaled by
# 2^-level); on the canvas as GIMP renders it (level 0 at every zoom, the
# view first, then GIMP's chunks), every pixel within 1 level of a
# one-request render; in GIMP 2.10's Tools ▸ GEGL Operation under Xvfb.
step_operation () {
  needs _build/operation/cuda-gaussian-blur.so build || return 1
  echo "== the GEGL operation at mipmap levels"
  logged _build/gegl-mipmap.log /usr/bin/python3 tests/operation/gegl_mipmap_test.py _build/operation
  echo "== the operation on the canvas"
  local d at log
  for d in 8 16; do
    for at in centre --corner; do
      log=_build/canvas$d-$(echo "$at" | tr -dc 'a-z0-9').log
      GBLUR_BACKEND=cpu GEGL_PATH=_build/operation:$(pkg-config --variable=pluginsdir gegl-0.4) \
        _build/tests/operation/canvas-bench --size 4000x3000 --steps 2 --check ${at#centre} --depth $d \
        --op cuda:gaussian-blur --ref cuda:gaussian-blur --sigma 3 --sigma 30 --sigma 100 >"$log" 2>&1
      grep -E '^\| cuda|passed, ' "$log"
      add_counts "$log"
    done
  done
  gimp_suite tests/operation/gimp2-gegl-tool-test.sh 2 _build/op-gimp2-tool.log _build _build/gui-artifacts
}

# No driver (the forky chroot has none), and the driver library Debian's
# toolkit brought here (too old for the build's CUDA 13 runtime).
step_driver_messages () {
  needs _build/tests/bench build && wait_chroots || return 1
  logged _build/driver-messages.log tests/driver-messages.sh _build
}

# The batch suite builds the plug-in in each chroot; the warm process and
# the later GIMP 3 steps reuse that build.
step_gimp3_batch () {
  wait_chroots || return 1
  local v
  for v in 3.0 3.2; do
    gimp_suite run-batch-tests.sh $v _build/gimp$v.log
    gimp_suite warm-process-test.sh $v _build/gimp$v-warm.log /build-gimp$v
  done
}

# Merged, appended and saved in XCF, reopened; the procedure through it
# and without it; single-precision FFTW hidden, as in the Flatpak GIMP.
step_gimp3_operation () {
  local v
  for v in 3.0 3.2; do
    WRAP=tests/without-fftw3f.sh gimp_suite tests/operation/run-gimp-op-tests.sh $v _build/operation$v.log /build-gimp$v
  done
}

step_needed () {
  needs _build/plugin/cuda-gaussian-blur build || return 1
  logged _build/needed.log tests/check-needed.sh _build
  local v
  for v in 3.0 3.2; do
    logged _build/needed$v.log tests/gimp3-chroot.sh $v /src/tests/check-needed.sh \
      /build-gimp$v/plugin/cuda-gaussian-blur /build-gimp$v/operation/cuda-gaussian-blur.so
  done
}

# CPU-only to save the time: the other steps build CUDA in each Debian.
step_quickstart () {
  local v
  for v in 2 3.0 3.2; do
    CONFIGURE_FLAGS=--without-cuda gimp_suite tests/quickstart-test.sh $v _build/quickstart$v.log
  done
}

# Screenshots in _build/gui-artifacts.
step_gui () {
  mkdir -p _build/gui-artifacts
  gimp_suite gui-test.sh 2 _build/gui2.log _build _build/gui-artifacts
  GUI_LANG=ko gimp_suite gui-test.sh 2 _build/gui2-ko.log _build _build/gui-artifacts
  local v
  for v in 3.0 3.2; do
    gimp_suite gui-test.sh $v _build/gui$v.log /build-gimp$v _build/gui-artifacts
    GUI_LANG=ko gimp_suite gui-test.sh $v _build/gui$v-ko.log /build-gimp$v _build/gui-artifacts
  done
}

# On a 4000x3000 layer: the canvas follows Size X through four values, OK
# leaves a layer effect, Undo removes it; in Korean and German the dialog's
# title must be our translation.
step_gui_operation () {
  mkdir -p _build/gui-artifacts
  local v l
  for v in 3.0 3.2; do
    gimp_suite tests/operation/gui-op-test.sh $v _build/opgui$v.log /build-gimp$v _build/gui-artifacts
    for l in ko de; do
      GUI_LANG=$l gimp_suite tests/operation/gui-op-test.sh $v _build/opgui$v-$l.log /build-gimp$v _build/gui-artifacts
    done
  done
}

step_robustness () {
  gimp_suite robustness-test.sh 2 _build/robust2.log _build
  local v
  for v in 3.0 3.2; do
    gimp_suite robustness-test.sh $v _build/robust$v.log /build-gimp$v
  done
}
