#!/bin/sh
# On the GPU machine: the speed inside real GIMP (a relocatable bundle,
# ../shared/tools/gimp-gpu/make-gimp3-bundle.sh or make-gimp210-bundle.sh),
# side by side in one GIMP process per format, on each backend.  GIMP 3: the
# copy-only floor, the procedure's own pixel path, the procedure (through the
# operation), the operation cuda:gaussian-blur merged directly, and GIMP's
# own gegl:gaussian-blur.  GIMP 2.10: the copy-only floor, the procedure and
# GIMP's own plug-in-gauss.
#   tests/gpu/perf-on-gpu.sh BUNDLE BINDIR OUTDIR
# BINDIR holds, stripped, built for the bundle's GIMP with --with-cuda-arch=90
# (GIMP 3: in the bundle's chroot, --with-gimp=3): cuda-gaussian-blur,
# cuda-gaussian-blur-copy-only and, for GIMP 3, cuda-gaussian-blur.so and
# cuda-gaussian-blur-pixel-path.  Settings as tests/gimp/perf-in-gimp.sh
# (whose helper, perf_in_gimp.py, this runs too): PERF_SIZE, PERF_SIGMAS,
# PERF_REPS, PERF_BACKENDS ("cuda cpu").
set -u
here=$(cd "$(dirname "$0")" && pwd)
bundle=${1:?usage: perf-on-gpu.sh BUNDLE BINDIR OUTDIR}
bin=${2:?BINDIR}
out=${3:?OUTDIR}
size=${PERF_SIZE:-4096}
sigmas=${PERF_SIGMAS:-2 10 30 100}
reps=${PERF_REPS:-3}
backends=${PERF_BACKENDS:-cuda cpu}
work=/tmp/cgb-perf-gpu
profile=$work/profile
mkdir -p "$out" "$work"
top_dir=$(tar -tJf "$bundle" | head -n 1 | cut -d/ -f1)
tar -xJf "$bundle" -C /opt || exit 1
case $top_dir in
  gimp210) major=2; plugins="cuda-gaussian-blur cuda-gaussian-blur-copy-only" ;;
  *)       major=3; plugins="cuda-gaussian-blur cuda-gaussian-blur-pixel-path cuda-gaussian-blur-copy-only"
           # The bundle's GEGL_PATH replaces the user folder: the operation goes in its own.
           cp "$bin/cuda-gaussian-blur.so" /opt/gimp3/lib/gegl-0.4/ || exit 1 ;;
esac
for p in $plugins; do
  mkdir -p "$profile/plug-ins/$p" && cp "$bin/$p" "$profile/plug-ins/$p/" || exit 1
  [ $major = 2 ] || /opt/gimp3/patch-plugin.sh "$profile/plug-ins/$p/$p" >/dev/null || exit 1
done
for fmt in gray rgba; do
  python3 "$here/../gimp/perf_in_gimp.py" prepare $major "$work" "$size" "$fmt" "$sigmas" "$reps" || exit 1
done
run_gimp () { # backend script log
  if [ $major = 2 ]; then
    LANG=C.UTF-8 HOME=$work GIMP2_DIRECTORY=$profile GBLUR_BACKEND=$1 GBLUR_VERBOSE=1 \
      timeout 500 /opt/gimp210/run-gimp.sh -i -d -f -b "(load \"$2\")" -b '(gimp-quit 0)' >"$3" 2>&1
  else
    LANG=C.UTF-8 HOME=$work GIMP3_DIRECTORY=$profile GBLUR_BACKEND=$1 GBLUR_VERBOSE=1 \
      timeout 500 /opt/gimp3/run-gimp.sh -i --batch-interpreter=plug-in-script-fu-eval --quit \
      -b "(load \"$2\")" >"$3" 2>&1
  fi
}
rc=0
for backend in $backends; do
  logs=""
  for fmt in gray rgba; do
    log=$out/perf-$fmt-$backend.log
    run_gimp "$backend" "$work/perf-$fmt.scm" "$log"
    # perf_in_gimp.py names a log perf-FORMAT-runN.log
    cp "$log" "$work/perf-$fmt-run1.log"
    logs="$logs $work/perf-$fmt-run1.log"
  done
  # where the pixel paths' blurs ran (the copy-only twin's left out), and how often
  ran=$(grep -h -o '(read, blur, write) on [^,]*' "$out"/perf-*-"$backend".log | grep -v 'copy only' \
    | sed 's/.* on //' | sort | uniq -c | awk '{n = $1; $1 = ""; printf "%s%s x%d", sep, substr($0, 2), n; sep = ", "}')
  echo "== GIMP $major, backend $backend (pixel path blurs on: ${ran:-none logged})"
  python3 "$here/../gimp/perf_in_gimp.py" table $major $logs | tee "$out/table-$backend.md" || rc=1
done
exit $rc
