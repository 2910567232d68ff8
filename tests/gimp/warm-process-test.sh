#!/bin/sh
# The warm process (plugin/gimp2-procedure.c, plugin/gimp3-procedure.c): the
# extension GIMP starts with itself serves every call by name, in one
# process.  GIMP 2.10: with one engine; where it cannot make its engine, the
# one-shot procedure serves the calls and says why.  GIMP 3: through the
# operation where it is installed, else on the pixel path with one engine;
# a bad engine setting fails each call and leaves the layer alone.
#   tests/gimp/warm-process-test.sh 2 BUILDDIR
#   tests/gimp/warm-process-test.sh 3.0|3.2 [DIR]   in the chroot; DIR: where an
#                                                 earlier suite built it there
# Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/common.sh"
gimp_version "${1:?usage: warm-process-test.sh 2 BUILDDIR | 3.0|3.2 [DIR]}"
work=$(mktemp -d /tmp/cgb-warm.XXXXXX)
profile=$work/profile
mkdir -p "$profile/plug-ins/cuda-gaussian-blur"
passed=0 failed=0
count () { grep -c -E "$2" "$1"; }

if [ "$major" = 3 ]; then
  modules=$work/data/gegl-0.4/plug-ins
  mkdir -p "$modules" "$work/empty"
  gimp3_build "$work" "${2:--}" /build-gimp$version &&
    in_gimp3 "$work" "cp $plugin_dir/plugin/cuda-gaussian-blur $profile/plug-ins/cuda-gaussian-blur/ &&
      cp $plugin_dir/operation/cuda-gaussian-blur.so $modules/" || exit 1
  /usr/bin/python3 -c "import numpy as np, cv2
cv2.imwrite('$work/ramp.png', np.tile(np.linspace(0, 255, 300).round().astype(np.uint8), (200, 1)))" || exit 1
  # Three calls by name on a gray ramp, whether each succeeded; the result saved.
  run3 () { # name data-home [VAR=value...]
    name=$1 data=$2; shift 2
    # GIMP 3.2's Script-Fu prints no message for a caught error: keep it
    # (batch_test.py's hook, which sets cgb-last-error).
    cat >"$work/$name.scm" <<EOF
(gimp-message-set-handler CONSOLE)
$(cd "$here" && /usr/bin/python3 -c "import batch_test; print(batch_test.SCM_KEEP_ERROR)")
(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE "$work/ramp.png")))
       (drw (vector-ref (car (gimp-image-get-layers img)) 0)))
  (for-each
    (lambda (sigma)
      (gimp-message (string-append "call " (number->string sigma)
        (if (catch #f (plug-in-cuda-gaussian-blur #:run-mode RUN-NONINTERACTIVE #:image img
                        #:drawables (vector drw) #:sigma sigma #:linear TRUE) #t)
            " succeeded" (string-append " failed: " cgb-last-error)))))
    '(2 5 9))
  (gimp-file-save RUN-NONINTERACTIVE img "$work/$name.png" -1))
EOF
    in_gimp3 "$work" "env $* XDG_DATA_HOME=$data GBLUR_VERBOSE=1 GIMP3_DIRECTORY=$profile \
      $(gimp_binary console) -i --batch-interpreter=plug-in-script-fu-eval --quit \
      -b '(load \"$work/$name.scm\")'" >"$work/$name.log" 2>&1
  }
  # The largest difference between two pictures ("none": one is missing).
  largest_difference () { /usr/bin/python3 -c "import sys, cv2, numpy as np
a, b = (cv2.imread(f, cv2.IMREAD_UNCHANGED) for f in sys.argv[1:])
print('none' if a is None or b is None or a.shape != b.shape else np.abs(a.astype(int) - b).max())" "$@"; }
  run3 op "$work/data"
  run3 pixel-path "$work/empty"
  run3 bad "$work/empty" GBLUR_BACKEND=fastest
  for name in op pixel-path; do
    warm=$(count "$work/$name.log" "a call in the warm process$")
    ok=$(count "$work/$name.log" "call [0-9]+ succeeded")
    result "$([ "$warm" = 3 ] && [ "$ok" = 3 ] && echo 1)" "$name: three calls, one warm process" \
      "$warm of 3 calls in the warm process, $ok succeeded"
  done
  merged=$(count "$work/op.log" "merged cuda:gaussian-blur")
  result "$([ "$merged" = 3 ] && echo 1)" "op: the warm process merged the operation" "$merged of 3 calls"
  engines=$(count "$work/pixel-path.log" "cuda-gaussian-blur: backend ")
  result "$([ "$engines" = 1 ] && [ "$(count "$work/pixel-path.log" "merged ")" = 0 ] && echo 1)" \
    "pixel-path: the warm process made its engine once" "$engines engines made"
  lifted=$(largest_difference "$work/op.png" "$work/ramp.png")
  same=$(largest_difference "$work/op.png" "$work/pixel-path.png")
  result "$([ "$lifted" != none ] && [ "$lifted" -gt 0 ] && [ "$same" != none ] && [ "$same" -le 1 ] && echo 1)" \
    "the warm calls blurred the ramp, the same on both paths" \
    "largest change $lifted levels; the two paths differ by at most $same"
  failed_calls=$(count "$work/bad.log" "call [0-9]+ failed")
  said=$(count "$work/bad.log" "The blur engine could not start")
  untouched=$(largest_difference "$work/bad.png" "$work/ramp.png")
  result "$([ "$failed_calls" = 3 ] && [ "$said" -ge 1 ] && [ "$untouched" = 0 ] && echo 1)" \
    "a bad engine setting: each call fails, the layer is untouched" \
    "$failed_calls of 3 calls failed, the reason given $said times, largest change $untouched"
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ] && rm -rf "$work"
  [ "$failed" = 0 ]
  exit
fi
build=${2:?BUILDDIR needed}
cp "$build/plugin/cuda-gaussian-blur" "$profile/plug-ins/cuda-gaussian-blur/" || exit 1

# Three calls on a gray ramp: whether each succeeded, and the ramp's dark
# corner before and after (clamped edges: a blur lifts it).
cat >"$work/calls.scm" <<'EOF'
(let* ((img (car (gimp-image-new 300 200 GRAY)))
       (layer (car (gimp-layer-new img 300 200 GRAY-IMAGE "ramp" 100 NORMAL-MODE))))
  (gimp-image-insert-layer img layer 0 0)
  (gimp-context-set-gradient-fg-bg-rgb)
  (gimp-context-set-foreground '(0 0 0))
  (gimp-context-set-background '(255 255 255))
  (gimp-drawable-edit-gradient-fill layer GRADIENT-LINEAR 0 FALSE 1 0 TRUE 0 0 300 0)
  (gimp-message (string-append "before "
    (number->string (vector-ref (cadr (gimp-drawable-get-pixel layer 0 0)) 0))))
  (for-each
    (lambda (sigma)
      (let ((ok (catch #f (plug-in-cuda-gaussian-blur RUN-NONINTERACTIVE img layer sigma TRUE) #t)))
        (gimp-message (string-append "call " (number->string sigma) (if ok " succeeded" " failed")))))
    '(2 5 9))
  (gimp-message (string-append "corner "
    (number->string (vector-ref (cadr (gimp-drawable-get-pixel layer 0 0)) 0)))))
EOF
run () { # log [VAR=value...]
  log=$1; shift
  env "$@" GIMP2_DIRECTORY="$profile" GBLUR_VERBOSE=1 timeout -k 10 "$GIMP_RUN_LIMIT" \
    ${GIMP2_CONSOLE:-gimp-console-2.10} -i -b "(load \"$work/calls.scm\")" -b '(gimp-quit 0)' >"$log" 2>&1
}
corner () { sed -n "s/.*$2 \([0-9]*\).*/\1/p" "$1" | tail -n 1; }

run "$work/warm.log"
warm=$(count "$work/warm.log" "\(warm process\)")
ok=$(count "$work/warm.log" "call [0-9]+ succeeded")
started=$(count "$work/warm.log" "cuda-gaussian-blur: backend ")
result "$([ "$warm" = 3 ] && [ "$ok" = 3 ] && echo 1)" "three calls, one warm process" \
  "$warm of 3 calls in the warm process, $ok succeeded, $((started - warm)) engines started"
result "$([ "$started" = 4 ] && echo 1)" "the warm process made its engine once" \
  "$started backend lines: the extension's and one per call"
before=$(corner "$work/warm.log" before) after=$(corner "$work/warm.log" corner)
result "$([ -n "$after" ] && [ "$after" != "$before" ] && echo 1)" "the warm calls blurred the layer" \
  "dark corner ${before:-none} before, ${after:-none} after sigma 2, 5, 9"

# A malformed variable: the extension cannot make its engine and installs
# nothing; each call goes to the one-shot procedure, which says why.
run "$work/bad.log" GBLUR_BACKEND=fastest
failed_calls=$(count "$work/bad.log" "call [0-9]+ failed")
said=$(count "$work/bad.log" "The blur engine could not start")
result "$([ "$failed_calls" = 3 ] && [ "$said" -ge 3 ] && [ "$(count "$work/bad.log" "\(warm process\)")" = 0 ] && echo 1)" \
  "no engine in the extension: the one-shot procedure answers" \
  "$failed_calls of 3 calls failed, the reason given $said times"
before=$(corner "$work/bad.log" before) after=$(corner "$work/bad.log" corner)
result "$([ -n "$after" ] && [ "$after" = "$before" ] && echo 1)" "the failed calls left the layer alone" \
  "dark corner ${before:-none} before, ${after:-none} after"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && rm -rf "$work"
[ "$failed" = 0 ]
