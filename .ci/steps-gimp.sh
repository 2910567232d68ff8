# CI steps that run the plug-in and the operation in real GIMPs and GEGL
# (.ci/steps.sh).  GIMP 2.10 uses the build step's _build; GIMP 3.0 and 3.2
# the build that gimp3.x-batch makes in their chroots (/build-gimp3.x).

# ---- GIMP 2.10, this machine --------------------------------------------
# The batch suite, then the warm process: the extension serves calls by
# name, with one engine; without an engine there, the one-shot procedure.
step_gimp2_batch () {
  needs _build/plugin/cuda-gaussian-blur build || return 1
  gimp_suite run-batch-tests.sh 2 _ci/gimp2.log _build
  gimp_suite warm-process-test.sh 2 _ci/gimp2-warm.log _build
}

# The operation at GEGL's mipmap levels (std-dev scaled by 2^-level); on the
# canvas as GIMP renders it (level 0 at every zoom, the view first, then
# GIMP's chunks), every pixel within 1 level of a one-request render; a
# short soak (240 random slider steps, memory flat); in GIMP 2.10's
# Tools ▸ GEGL Operation under Xvfb.
step_gimp2_operation () {
  needs _build/operation/cuda-gaussian-blur.so build || return 1
  echo "== the GEGL operation at mipmap levels"
  logged _ci/gegl-mipmap.log /usr/bin/python3 tests/operation/gegl_mipmap_test.py _build/operation
  echo "== the operation on the canvas"
  local d at log
  for d in 8 16; do
    for at in centre --corner; do
      log=_ci/canvas$d-$(echo "$at" | tr -dc 'a-z0-9').log
      GBLUR_BACKEND=cpu GEGL_PATH=_build/operation:$(pkg-config --variable=pluginsdir gegl-0.4) \
        _build/tests/operation/canvas-bench --size 4000x3000 --steps 2 --check ${at#centre} --depth $d \
        --op cuda:gaussian-blur --ref cuda:gaussian-blur --sigma 3 --sigma 30 --sigma 100 >"$log" 2>&1
      grep -E '^\| cuda|passed, ' "$log"
      add_counts "$log"
    done
  done
  echo "== the operation soaked: slider steps in one process, memory flat"
  GBLUR_BACKEND=cpu GEGL_PATH=_build/operation:$(pkg-config --variable=pluginsdir gegl-0.4) \
    timeout -k 10 360 _build/tests/operation/op-soak --steps 240 --seconds 300 >_ci/op-soak.log 2>&1
  grep -E '^(op-soak: [0-9]+ steps \(|FAIL)|passed, ' _ci/op-soak.log
  add_counts _ci/op-soak.log
  mkdir -p _ci/gui-artifacts
  gimp_suite tests/operation/gimp2-gegl-tool-test.sh 2 _ci/op-gimp2-tool.log _build _ci/gui-artifacts
}

# Screenshots in _ci/gui-artifacts.
step_gimp2_gui () {
  mkdir -p _ci/gui-artifacts
  gimp_suite gui-test.sh 2 _ci/gui2.log _build _ci/gui-artifacts
  GUI_LANG=ko gimp_suite gui-test.sh 2 _ci/gui2-ko.log _build _ci/gui-artifacts
}

# Then the folder procedure under faults: odd names, its own folder, links,
# a full disk (tmpfs), killed as it writes (tests/gimp/files-faults-test.sh).
step_gimp2_robustness () {
  gimp_suite robustness-test.sh 2 _ci/robust2.log _build
  gimp_suite files-faults-test.sh 2 _ci/files-faults2.log _build
}

# ---- GIMP 3.0 and 3.2, each in its chroot --------------------------------
gimp3_chroot () { # VERSION: made once, then reused
  tests/env/gimp3-chroot.sh "$1" true >"_ci/chroot$1.log" 2>&1 || { cat "_ci/chroot$1.log"; return 1; }
  tests/env/gimp3-chroot.sh "$1"
}
step_gimp3_0_chroot () { check "the GIMP 3.0 chroot" gimp3_chroot 3.0; }
step_gimp3_2_chroot () { check "the GIMP 3.2 chroot" gimp3_chroot 3.2; }

# The batch suite builds the plug-in in the chroot (from the tree the build
# step configured); the later GIMP 3 steps reuse that build.
gimp3_batch () { # VERSION
  wait_for autogen
  gimp_suite run-batch-tests.sh "$1" "_ci/gimp$1.log"
  gimp_suite warm-process-test.sh "$1" "_ci/gimp$1-warm.log" "/build-gimp$1"
  logged "_ci/needed$1.log" tests/env/gimp3-chroot.sh "$1" /src/tests/install/check-needed.sh \
    "/build-gimp$1/plugin/cuda-gaussian-blur" "/build-gimp$1/operation/cuda-gaussian-blur.so"
}
step_gimp3_0_batch () { gimp3_batch 3.0; }
# The lane with slack also soaks: 40 calls by name, 40 files (about 1 min).
step_gimp3_2_batch () {
  gimp3_batch 3.2
  gimp_suite soak-test.sh 3.2 _ci/soak3.2.log /build-gimp3.2 40 40
}

# Merged, appended and saved in XCF, reopened; the procedure through it
# and without it; single-precision FFTW hidden, as in the Flatpak GIMP.
gimp3_operation () { # VERSION
  WRAP=tests/env/without-fftw3f.sh gimp_suite tests/operation/run-gimp-op-tests.sh "$1" "_ci/operation$1.log" \
    "/build-gimp$1"
}
step_gimp3_0_operation () { gimp3_operation 3.0; }
step_gimp3_2_operation () { gimp3_operation 3.2; }

# The dialog in English and Korean; the operation from its menu entry on a
# 4000x3000 layer (the canvas follows Size X through four values, OK leaves
# a layer effect, Undo removes it), in Korean and German with our title.
gimp3_gui () { # VERSION
  mkdir -p _ci/gui-artifacts
  gimp_suite gui-test.sh "$1" "_ci/gui$1.log" "/build-gimp$1" _ci/gui-artifacts
  GUI_LANG=ko gimp_suite gui-test.sh "$1" "_ci/gui$1-ko.log" "/build-gimp$1" _ci/gui-artifacts
  gimp_suite tests/operation/gui-op-test.sh "$1" "_ci/opgui$1.log" "/build-gimp$1" _ci/gui-artifacts
  local l
  for l in ko de; do
    GUI_LANG=$l gimp_suite tests/operation/gui-op-test.sh "$1" "_ci/opgui$1-$l.log" "/build-gimp$1" \
      _ci/gui-artifacts
  done
}
step_gimp3_0_gui () { gimp3_gui 3.0; }
step_gimp3_2_gui () { gimp3_gui 3.2; }

gimp3_robustness () { # VERSION
  gimp_suite robustness-test.sh "$1" "_ci/robust$1.log" "/build-gimp$1"
  gimp_suite files-faults-test.sh "$1" "_ci/files-faults$1.log" "/build-gimp$1"
}
step_gimp3_0_robustness () { gimp3_robustness 3.0; }
step_gimp3_2_robustness () { gimp3_robustness 3.2; }

# A configure that names no host compiler, where nvcc refuses the system's
# (forky: gcc 16), still builds: CUDA through an older g++, or CPU-only
# with the reason in its summary.  gimp3.2-batch's build is such a
# configure: its summary, the rest of its targets, make check.
step_forky_default () {
  check "Debian forky: the default configure builds and passes make check" forky_default_build
}
forky_default_build () {
  tests/env/gimp3-chroot.sh 3.2 sh -c '
    cd /build-gimp3.2 || { echo "no /build-gimp3.2: run .ci/run gimp3.2-batch first"; exit 1; }
    grep -E "^ *CUDA backend:" configure.out
    grep -q -E "^ *CUDA backend: +(yes|no: .+)" configure.out || { echo "summary gives no reason"; exit 1; }
    make -j$(nproc) >make.out 2>&1 || { tail -n 30 make.out; exit 1; }
    make -j$(nproc) check >check.out 2>&1 || { tail -n 30 check.out; exit 1; }
    grep -E "^# (PASS|FAIL)" check.out'
}

# No driver (the forky chroot has none), and the driver library Debian's
# toolkit brought here (too old for the build's CUDA 13 runtime).
step_driver_messages () {
  wait_for build
  needs _build/tests/benchmarks/bench build || return 1
  logged _ci/driver-messages.log tests/install/driver-messages.sh _build
}
