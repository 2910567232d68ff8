#!/bin/sh
# On the GPU machine: the operation's soak (tests/operation/op-soak.c)
# inside the GIMP 3 bundle's GEGL, with CUDA: slider steps in one process,
# every step within 1 level of a one-request render and no CPU retry,
# resident and device memory (nvidia-smi, required) flat after the warm-up.
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
. "$(dirname "$0")/gimp3-bundle.sh"
gimp3_bundle "$bundle" "$soak" op-soak || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
GBLUR_BACKEND=cuda GEGL_PATH=$dir:/opt/gimp3/lib/gegl-0.4 /tmp/op-soak --device required --steps "${4:-2000}" \
  --seconds "${5:-480}" >"$OUT/op-soak.log" 2>&1
rc=$?
grep -E '^(op-soak: [0-9]+ steps \(|PASS|FAIL|SKIP)|passed, ' "$OUT/op-soak.log"
exit $rc
