#!/bin/sh
# The plug-in's speed inside GIMP, against its floor and GIMP's own blur.
#
#   tests/gimp/perf-in-gimp.sh 2 BUILDDIR   GIMP 2.10 on this machine, with the plug-in
#                                           and its copy-only twin built in BUILDDIR
#                                           (configured for GIMP 2; made here if missing)
#   tests/gimp/perf-in-gimp.sh 3.0|3.2      GIMP 3.0 or 3.2 in its Debian chroot
#                                           (tests/env/gimp3-chroot.sh), built there
#
# For each format (8-bit gray, 8-bit RGBA; a photo-like SIZE² picture loaded
# once per GIMP process) and each sigma, it times these applied to the same
# layer, interleaved, REPS times each, in one GIMP process:
#   floor       plug-in-cuda-gaussian-blur-copy-only: the plug-in's own pixel path
#               (read with the halo, write through the shadow buffer, merge: one
#               undo step) with the engine call left out — no plug-in can be faster;
#   pixel path  (GIMP 3) plug-in-cuda-gaussian-blur-pixel-path: the procedure
#               through its own pixel path (a twin that never merges the operation);
#   procedure   plug-in-cuda-gaussian-blur, linear light (GIMP 3: through the
#               operation cuda:gaussian-blur, installed for this GIMP);
#   operation   (GIMP 3) cuda:gaussian-blur merged directly, no plug-in process;
#   built-in    GIMP's Gaussian Blur: 2.10 plug-in-gauss (std-dev = 0.32 x radius),
#               3.x gegl:gaussian-blur (filter auto) via gimp-drawable-merge-new-filter.
# The backend is the CPU's (GBLUR_BACKEND=cpu) unless PERF_BACKEND says otherwise.
# Only the procedure call is timed (script-fu's gettimeofday around it): GIMP's
# start-up, loading and saving are outside, and nothing is encoded.  Each
# process first runs every procedure once untimed.  The table gives medians
# over all RUNS processes x REPS applications, and the ratios.
#
# Not part of .ci/run: it takes several minutes (sigma 100 on the CPU is slow).
# Settings (environment): PERF_SIZE (4096), PERF_SIGMAS ("2 10 30 100"),
# PERF_REPS (3), PERF_RUNS (2 GIMP processes per format), PERF_FORMATS ("gray rgba"),
# PERF_ENV (VAR=value ... for GIMP and the plug-ins, e.g. "GBLUR_OVERLAP=0
# GBLUR_GEGL_MODULES=1" for the plug-in's pixel path before it overlapped
# reading, blurring and writing and skipped GEGL's modules).  The logs are kept
# in the folder printed at the end.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/common.sh"
gimp_version "${1:?usage: perf-in-gimp.sh 2 BUILDDIR | 3.0|3.2}" >&2
size=${PERF_SIZE:-4096}
sigmas=${PERF_SIGMAS:-2 10 30 100}
reps=${PERF_REPS:-3}
runs=${PERF_RUNS:-2}
formats=${PERF_FORMATS:-gray rgba}
extra_env=${PERF_ENV:-}
work=$(mktemp -d /tmp/cgb-perf$version.XXXXXX)
profile=$work/profile
PY=/usr/bin/python3   # Debian's, which has python3-opencv
export GBLUR_BACKEND=${PERF_BACKEND:-cpu}
modules=$work/data/gegl-0.4/plug-ins
mkdir -p "$profile/plug-ins/cuda-gaussian-blur" "$profile/plug-ins/cuda-gaussian-blur-copy-only" \
  "$profile/plug-ins/cuda-gaussian-blur-pixel-path" "$modules"

for fmt in $formats; do
  $PY "$here/perf_in_gimp.py" prepare "$major" "$work" "$size" "$fmt" "$sigmas" "$reps" || exit 1
done

case $version in
  2)
    build=${2:?BUILDDIR needed for GIMP 2}
    build=$(cd "$build" && pwd) || exit 1
    make -C "$build" -s plugin/cuda-gaussian-blur tests/gimp/cuda-gaussian-blur-copy-only || exit 1
    cp "$build/plugin/cuda-gaussian-blur" "$profile/plug-ins/cuda-gaussian-blur/" || exit 1
    cp "$build/tests/gimp/cuda-gaussian-blur-copy-only" "$profile/plug-ins/cuda-gaussian-blur-copy-only/" || exit 1
    run_gimp () { # script log
      env $extra_env GIMP2_DIRECTORY=$profile gimp-console-2.10 -i -b "(load \"$1\")" -b '(gimp-quit 0)' >"$2" 2>&1
    }
    ;;
  *)
    build3=/build-gimp$version-perf
    in_gimp3 "$work" "
      set -e
      rm -rf $build3 && mkdir -p $build3 && cd $build3
      /src/configure --with-gimp=3 --without-cuda >configure.out
      make -j\$(nproc) plugin/cuda-gaussian-blur operation/cuda-gaussian-blur.so tests/gimp/cuda-gaussian-blur-copy-only \
        tests/gimp/cuda-gaussian-blur-pixel-path >make.out 2>&1 || { tail -n 30 make.out; exit 1; }
      cp plugin/cuda-gaussian-blur $profile/plug-ins/cuda-gaussian-blur/
      cp operation/cuda-gaussian-blur.so $modules/
      cp tests/gimp/cuda-gaussian-blur-pixel-path $profile/plug-ins/cuda-gaussian-blur-pixel-path/
      cp tests/gimp/cuda-gaussian-blur-copy-only $profile/plug-ins/cuda-gaussian-blur-copy-only/" \
      >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
    run_gimp () { # script log
      in_gimp3 "$work" "env $extra_env XDG_DATA_HOME=$work/data GIMP3_DIRECTORY=$profile \
        $(gimp_binary console) -i --batch-interpreter=plug-in-script-fu-eval --quit -b '(load \"$1\")'" \
        >"$2" 2>&1
    }
    ;;
esac

logs=""
for run in $(seq "$runs"); do
  for fmt in $formats; do
    log=$work/perf-$fmt-run$run.log
    echo "perf-in-gimp: GIMP $version, $fmt, run $run of $runs" >&2
    run_gimp "$work/perf-$fmt.scm" "$log"
    logs="$logs $log"
  done
done

$PY "$here/perf_in_gimp.py" table "$major" $logs
rc=$?
echo "(logs in $work)"
exit $rc
