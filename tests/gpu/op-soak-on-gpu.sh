#!/bin/sh
# On the GPU machine: the operation's soak (tests/operation/op-soak.c)
# inside the GIMP 3 bundle's GEGL, with CUDA: slider steps in one process,
# every step within 1 level of a one-request render, resident and device
# memory (nvidia-smi) flat after the warm-up.
#   tests/gpu/op-soak-on-gpu.sh BUNDLE SOAK MODULE_DIR [STEPS [SECONDS]]
# BUNDLE: the GIMP 3 bundle (../shared/tools/gimp-gpu/make-gimp3-bundle.sh);
# SOAK: tests/operation/op-soak and MODULE_DIR's cuda-gaussian-blur.so built
# in that bundle's chroot as for canvas-on-gpu.sh.  Defaults: 2000 steps,
# 480 s (one 9-minute call).  Output in $OUT (default /tmp/out)/op-soak.log.
set -u
bundle=${1:?usage: op-soak-on-gpu.sh BUNDLE SOAK MODULE_DIR [STEPS [SECONDS]]}
soak=${2:?SOAK}
dir=$(cd "${3:?MODULE_DIR}" && pwd) || exit 1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
[ -x /opt/gimp3/run-gimp.sh ] || tar -xJf "$bundle" -C /opt || exit 1
# The bundle's own copy of the operation would shadow the one soaked.
rm -f /opt/gimp3/lib/gegl-0.4/cuda-gaussian-blur.so
cp "$soak" /tmp/op-soak && /opt/gimp3/patch-plugin.sh /tmp/op-soak >/dev/null || exit 1
export BABL_PATH=/opt/gimp3/lib/babl-0.1 GCONV_PATH=/opt/gimp3/lib/gconv
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
GBLUR_BACKEND=cuda GEGL_PATH=$dir:/opt/gimp3/lib/gegl-0.4 /tmp/op-soak --steps "${4:-2000}" \
  --seconds "${5:-480}" >"$OUT/op-soak.log" 2>&1
rc=$?
grep -E '^(op-soak: [0-9]+ steps \(|PASS|FAIL|SKIP)|passed, ' "$OUT/op-soak.log"
exit $rc
