#!/bin/sh
# The warm process's and the folder procedure's soak (tests/gimp/soak-test.sh)
# with CUDA in the relocatable GIMP 2.10 on the GPU machine: every result
# within 1 level, nothing left behind, and resident and device memory
# (nvidia-smi) flat after the warm-up.  That machine's Python has no numpy,
# so the pictures are made and checked here, and GIMP runs there:
#   tests/gpu/soak-on-gpu.sh prepare CALLS FILES TAR     here
#   tests/gpu/soak-on-gpu.sh run BUNDLE PLUGIN TAR       there: $OUT/soak-work.tgz
#   tests/gpu/soak-on-gpu.sh check TGZ                   here
# Two GIMPs side by side to fit one call: CALLS calls (and 40 files), and 144
# calls (a warm-up of 36: every picture, sigma and light once, so that CUDA's
# modules, loaded on first use, load in it) with FILES files.  BUNDLE:
# ../shared/tools/gimp-gpu/make-gimp210-bundle.sh; PLUGIN: cuda-gaussian-blur
# built --with-gimp=2 --with-cuda-arch=90, stripped.
set -u
here=$(cd "$(dirname "$0")" && pwd)
soak=/tmp/gpu-soak   # soak_test.py's scripts name their folder: the same path on both machines
usage="usage: soak-on-gpu.sh prepare CALLS FILES TAR | run BUNDLE PLUGIN TAR | check TGZ"

prepare () { # CALLS FILES TAR
  rm -rf $soak && mkdir -p $soak/calls $soak/files || exit 1
  printf '%s %s\n' "$1" 40 >$soak/calls/size && printf '%s %s\n' 144 "$2" >$soak/files/size
  for s in calls files; do
    /usr/bin/python3 "$here/../gimp/soak_test.py" prepare 2 $soak/$s $(cat $soak/$s/size) || exit 1
  done
  tar -cJf "$3" -C / "${soak#/}"
}

run () { # BUNDLE PLUGIN TAR
  OUT=${OUT:-/tmp/out}
  rm -rf $soak && tar -xJf "$3" -C / && mkdir -p "$OUT" $soak/plugin/plugin || exit 1
  [ -x /opt/gimp210/run-gimp.sh ] || tar -xJf "$1" -C /opt || exit 1
  cp "$2" $soak/plugin/plugin/cuda-gaussian-blur || exit 1   # soak-test.sh's BUILDDIR
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  export GIMP2_CONSOLE=/opt/gimp210/run-gimp.sh GBLUR_BACKEND=${GBLUR_BACKEND:-cuda} SOAK_DEVICE_MEMORY=1 SOAK_CHECK=0 LANG=C.UTF-8
  SOAK_WORK=$soak/calls "$here/../gimp/soak-test.sh" 2 $soak/plugin $(cat $soak/calls/size) >$soak/calls.log 2>&1 &
  SOAK_WORK=$soak/files "$here/../gimp/soak-test.sh" 2 $soak/plugin $(cat $soak/files/size) >$soak/files.log 2>&1
  wait
  tail -n 2 $soak/calls.log $soak/files.log
  rm -rf $soak/*/profile $soak/plugin
  tar -czf "$OUT/soak-work.tgz" -C / "${soak#/}"
}

check () { # TGZ
  rm -rf $soak && tar -xzf "$1" -C / || exit 1
  rc=0
  for s in calls files; do
    echo "== soak-$s"
    SOAK_DEVICE_MEMORY=${SOAK_DEVICE_MEMORY:-1} /usr/bin/python3 "$here/../gimp/soak_test.py" check 2 $soak/$s $(cat $soak/$s/size) 8 || rc=1
  done
  return $rc
}

case ${1:-} in
  prepare) [ $# = 4 ] || { echo "$usage" >&2; exit 2; }; prepare "$2" "$3" "$4" ;;
  run) [ $# = 4 ] || { echo "$usage" >&2; exit 2; }; run "$2" "$3" "$4" ;;
  check) [ $# = 2 ] || { echo "$usage" >&2; exit 2; }; check "$2" ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
