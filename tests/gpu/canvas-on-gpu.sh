#!/bin/sh
# On the GPU machine: the canvas benchmark inside the GIMP 3 bundle's GEGL,
# the operation as built here beside older builds, in one run.
#   tests/gpu/canvas-on-gpu.sh [--profile|--quick|--tables] BUNDLE BENCH NEW_DIR [NAME=OLD_DIR]...
# BUNDLE: the GIMP 3 bundle (../shared/tools/gimp-gpu/make-gimp3-bundle.sh);
# BENCH: tests/operation/canvas-bench and each DIR's cuda-gaussian-blur.so
# built in that bundle's chroot (tests/env/gimp3-chroot.sh 3.0, configure
# --with-gimp=no --with-cuda-arch=90).  Tables go to $OUT (default
# /tmp/out): u8 and u16 rendered as GIMP's canvas does (level 0, the
# viewport first, then the rest of the layer, in GIMP's chunks), no filter
# and gegl:gaussian-blur beside ours, each canvas checked against a
# whole-layer render; each older build's rows; then merges and one-request
# renders, new and old alternately.  --profile: first each build's slider
# steps with GBLUR_PROFILE, raw (tests/operation/canvas_profile.py makes the
# timeline of profile-*.log); --quick: the profiles and the u8 table only;
# --tables: each build's u8 and u16 tables only.
set -u
mode=full
case ${1:-} in --profile|--quick|--tables) mode=${1#--}; shift ;; esac
bundle=${1:?usage: canvas-on-gpu.sh [--profile|--quick|--tables] BUNDLE BENCH NEW_DIR [NAME=OLD_DIR]...}
bench=${2:?BENCH}
new=$(cd "${3:?NEW_DIR}" && pwd) || exit 1
shift 3
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
. "$(dirname "$0")/gimp3-bundle.sh"
gimp3_bundle "$bundle" "$bench" canvas-bench || exit 1
G=/opt/gimp3/lib/gegl-0.4
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
failed=0
run () { # NAME MODULE_DIR ARGS...: one table
  name=$1 dir=$2; shift 2
  echo "== $name $(date +%T)"
  GEGL_PATH=$dir:$G /tmp/canvas-bench "$@" >"$OUT/$name.md" 2>"$OUT/$name.err" || failed=$((failed + 1))
  grep -E 'passed, ' "$OUT/$name.md"
}
profile () { # NAME MODULE_DIR ARGS...: one build's steps, profiled
  name=$1 dir=$2; shift 2
  echo "== profile-$name $(date +%T)"
  GEGL_PATH=$dir:$G /tmp/canvas-bench --profile --steps 3 --op none --op cuda:gaussian-blur \
    --ref none "$@" >"$OUT/profile-$name.md" 2>"$OUT/profile-$name.log" || failed=$((failed + 1))
}
if [ "$mode" = profile ] || [ "$mode" = quick ]; then
  profile new-u8 "$new"
  profile new-u16 "$new" --depth 16
  for o in "$@"; do profile "${o%%=*}-u8" "${o#*=}"; done
fi
run new-u8 "$new" --check
if [ "$mode" != quick ]; then
  run new-u16 "$new" --check --depth 16
  [ "$mode" = tables ] ||
    run new-u8-corner "$new" --check --corner --op cuda:gaussian-blur --ref cuda:gaussian-blur --zoom 1
fi
for o in "$@"; do
  run "${o%%=*}-u8" "${o#*=}" --op cuda:gaussian-blur --ref cuda:gaussian-blur
  [ "$mode" = quick ] || run "${o%%=*}-u16" "${o#*=}" --op cuda:gaussian-blur --ref cuda:gaussian-blur --depth 16
done
if [ "$mode" = full ] || [ "$mode" = profile ]; then
  for r in 1 2; do
    run merge-new-$r "$new" --merge --steps 3 --op cuda:gaussian-blur
    for o in "$@"; do run "merge-${o%%=*}-$r" "${o#*=}" --merge --steps 3 --op cuda:gaussian-blur; done
  done
fi
for f in "$OUT"/*.md; do echo "### ${f##*/}"; cat "$f"; done
echo "$failed tables failed"
[ "$failed" -eq 0 ]
