#!/bin/sh
# GIMP 2.10's warm process (plugin/gimp2-procedure.c): the extension GIMP
# starts with itself serves every call by name, in one process with one
# engine; where it cannot make its engine, the one-shot procedure serves
# the calls and says why.
#   tests/gimp/warm-process-test.sh 2 BUILDDIR
# Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/common.sh"
gimp_version "${1:?usage: warm-process-test.sh 2 BUILDDIR}"
[ "$major" = 2 ] || { echo "the warm process is GIMP 2.10's" >&2; exit 2; }
build=${2:?BUILDDIR needed}
work=$(mktemp -d /tmp/cgb-warm.XXXXXX)
profile=$work/profile
mkdir -p "$profile/plug-ins/cuda-gaussian-blur"
cp "$build/plugin/cuda-gaussian-blur" "$profile/plug-ins/cuda-gaussian-blur/" || exit 1
passed=0 failed=0

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
  env "$@" GIMP2_DIRECTORY="$profile" CUDA_GBLUR_VERBOSE=1 timeout -k 10 "$GIMP_RUN_LIMIT" \
    ${GIMP2_CONSOLE:-gimp-console-2.10} -i -b "(load \"$work/calls.scm\")" -b '(gimp-quit 0)' >"$log" 2>&1
}
count () { grep -c -E "$2" "$1"; }
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
