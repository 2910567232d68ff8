#!/bin/bash
# Soak of the warm process and of the folder procedure (issue 54): CALLS
# calls by name in one GIMP (each result saved and checked), then FILES
# small pictures through plug-in-cuda-gaussian-blur-files in another; every
# output within 1 level of the double-precision reference, nothing left
# behind, and the resident memory of GIMP and of the plug-in's processes
# (sampled here from /proc) flat after the first quarter of the calls.
#   tests/gimp/soak-test.sh 2 BUILDDIR [CALLS [FILES [BOUND_MIB]]]
#   tests/gimp/soak-test.sh 3.0|3.2 [DIR [CALLS [FILES [BOUND_MIB]]]]   in the chroot
# Defaults: 1000 calls, 1000 files, bound 8 MiB.  SOAK_DEVICE_MEMORY=1 (on
# a GPU, with GBLUR_BACKEND=cuda) checks the warm process's device memory
# (nvidia-smi) the same way.  Ends with two figures lines (docs/testing.md)
# and "N passed, N failed".  Where Python has no numpy (the GPU machine):
# SOAK_WORK=DIR runs a folder made here by soak_test.py prepare (its path the
# same), SOAK_CHECK=0 keeps it unchecked, for soak_test.py check here.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/common.sh"
gimp_version "${1:?usage: soak-test.sh 2 BUILDDIR | 3.0|3.2 [DIR] [CALLS [FILES [BOUND_MIB]]]}"
build=${2:--} calls=${3:-1000} files=${4:-1000} bound=${5:-8}
work=${SOAK_WORK:-$(mktemp -d /tmp/cgb-soak.XXXXXX)}
profile=$work/profile
plugin=$profile/plug-ins/cuda-gaussian-blur/cuda-gaussian-blur
mkdir -p "${plugin%/*}" "$work/data/gegl-0.4/plug-ins"
if [ "$major" = 3 ]; then
  gimp3_build "$work" "$build" /build-gimp$version &&
    in_gimp3 "$work" "cp $plugin_dir/plugin/cuda-gaussian-blur $plugin &&
      cp $plugin_dir/operation/cuda-gaussian-blur.so $work/data/gegl-0.4/plug-ins/" || exit 1
else
  cp "$build/plugin/cuda-gaussian-blur" "$plugin" || exit 1
fi
gimprc_quiet "$profile"
[ -n "${SOAK_WORK:-}" ] || /usr/bin/python3 "$here/soak_test.py" prepare "$version" "$work" "$calls" "$files" || exit 1

# glibc's adaptive mmap threshold grows GIMP's heap in steps over the first
# hundred files; a fixed one keeps its RSS flat, so only a leak grows it.
# SOAK_MALLOC_ENV= (empty) soaks with glibc's defaults, as users run.
malloc_env=${SOAK_MALLOC_ENV-GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072}

# rss_of PID: VmRSS in KiB.
rss_of () { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
# device_of PID: its device memory in KiB, from nvidia-smi's LIST.
device_of () { echo "$2" | awk -F', *' -v p="$1" '$1 == p && $2 ~ /^[0-9]+$/ { print $2 * 1024 }'; }
# sample LOG PATTERN OUT: every 0.2 s while GIMP runs, the calls done (lines
# of LOG matching PATTERN) and the RSS of GIMP and of each plug-in process
# (the oldest: the warm process) into OUT; with SOAK_DEVICE_MEMORY=1 (the GPU
# machine) each plug-in process's device memory into OUT.device.
sample () {
  local pids p n role parent= list= kib
  exec 2>/dev/null   # processes end while we read them
  : >"$3.device"
  while sleep 0.2; do
    n=$(grep -c -E "$2" "$1")
    pids=$(pgrep -f "^$plugin ")
    [ -n "$pids" ] || continue
    [ "${SOAK_DEVICE_MEMORY:-0}" = 1 ] &&
      list=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits)
    role=warm-process
    for p in $(ps -o pid= --sort=start_time -p "$(echo $pids | tr ' ' ,)"); do
      echo "$n $p $role $(rss_of "$p")"
      kib=$(device_of "$p" "$list")
      [ -n "$kib" ] && echo "$n $p $role $kib" >>"$3.device"
      role=plug-in
      parent=$(awk '{ print $4 }' "/proc/$p/stat")
    done
    [ -n "$parent" ] && echo "$n $parent gimp $(rss_of "$parent")"
  done >"$3"
}
# run NAME PATTERN: GIMP runs WORK/NAME.scm, sampled; NAME.log, .rss, .seconds, .status.
run () {
  local t0 sampler
  t0=$(date +%s)
  : >"$work/$1.log"
  sample "$work/$1.log" "$2" "$work/$1.rss" &
  sampler=$!
  trap 'kill $sampler 2>/dev/null' EXIT INT TERM   # a cancelled run leaves no sampler
  if [ "$major" = 3 ]; then
    in_gimp3 "$work" "$malloc_env XDG_DATA_HOME=$work/data GBLUR_VERBOSE=1 GIMP3_DIRECTORY=$profile \
      $(gimp_binary console) -i --batch-interpreter=plug-in-script-fu-eval --quit \
      -b '(load \"$work/$1.scm\")'" >>"$work/$1.log" 2>&1
  else
    env $malloc_env GIMP2_DIRECTORY=$profile GBLUR_VERBOSE=1 timeout -k 10 "$GIMP_RUN_LIMIT" \
      ${GIMP2_CONSOLE:-gimp-console-2.10} -i -b "(load \"$work/$1.scm\")" -b '(gimp-quit 0)' \
      >>"$work/$1.log" 2>&1
  fi
  echo $? >"$work/$1.status"
  kill $sampler; wait $sampler 2>/dev/null
  trap - EXIT INT TERM
  echo $(($(date +%s) - t0)) >"$work/$1.seconds"
}
run warm "soak call [0-9]+ "
# A file done: the warm process's call for it.
run files "warm process"
[ "${SOAK_CHECK:-1}" = 0 ] && { echo "kept $work (unchecked)"; exit 0; }
/usr/bin/python3 "$here/soak_test.py" check "$version" "$work" "$calls" "$files" "$bound"
rc=$?
[ $rc = 0 ] && rm -rf "$work" || echo "kept $work"
exit $rc
