#!/bin/sh
# The operation cuda:gaussian-blur in GIMP 2.10 (this machine's), which has
# no menu entry for it: installed by `make install-user` into a fake home
# ($XDG_DATA_HOME/gegl-0.4/plug-ins), found in Tools ▸ GEGL Operation under
# Xvfb, applied with its defaults (std-dev 1.5, linear light) and the pixels
# compared with the reference.
#   tests/operation/gimp2-gegl-tool-test.sh [2] BUILDDIR [ARTIFACTS]
# BUILDDIR: a configured host build (the module is built there if needed).
# The tool lists operations in a combo box sorted by title, with no search:
# the test steps through it with Down, preview on, until the operation's
# first render shows in GIMP's output (GBLUR_VERBOSE=1), at most 300
# entries, each left to render before the next (GIMP idle).  GIMP is
# driven through its Script-Fu server.  Checks: the module is loaded (GIMP
# opens it), the tool reaches it, OK blurs the image within 1 level of the
# reference.  Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/tests/gimp/common.sh"
[ "${1:-}" = 2 ] && shift   # the version, as .ci/run's gimp_suite passes it
build=$(cd "${1:?usage: gimp2-gegl-tool-test.sh BUILDDIR [ARTIFACTS]}" && pwd) || exit 2
version=2 major=2
work=$(mktemp -d /tmp/cgb-op2tool.XXXXXX)
artifacts=${2:-$work/artifacts}
home=$work/home
mkdir -p "$artifacts" "$home/.config/GIMP/2.10"
PY=/usr/bin/python3
export HOME=$home XDG_DATA_HOME=$home/.local/share XDG_CONFIG_HOME=$home/.config \
  GIMP2_DIRECTORY=$home/.config/GIMP/2.10 GBLUR_VERBOSE=1

passed=0 failed=0

(cd "$build" && make install-user) >"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
module=$XDG_DATA_HOME/gegl-0.4/plug-ins/cuda-gaussian-blur.so
result $([ -f "$module" ] && echo 1 || echo 0) "make install-user puts the module in \$XDG_DATA_HOME" "$module"
gimprc_quiet "$GIMP2_DIRECTORY"

$PY -c "
import sys; sys.path.insert(0, '$top/tests/gimp'); import batch_test as bt, numpy as np
bt.imwrite('$work/in.png', np.round(bt.pattern(240, 320, 3) * 255).astype(np.uint8))" || exit 1
start_xvfb "$work/xvfb.log" || exit 1
# GIMP is driven through its Script-Fu server: a Script-Fu loop waiting for
# the test would keep GIMP's main loop busy and starve its rendering.
sfs="$PY $top/tests/gimp/script_fu_server.py"
port=$($sfs port)
sf () { $sfs send "$port" "$1"; }
sf_up () { sf "(gimp-version)" >/dev/null 2>&1; }
# strace shows GIMP opening the module (without it, the tool's list tells).
trace=""
command -v strace >/dev/null 2>&1 && trace="strace -f -e trace=openat -o $work/strace.txt"
timeout -k 10 "$GIMP_RUN_LIMIT" $trace gimp-2.10 --no-splash \
  -b "(plug-in-script-fu-server RUN-NONINTERACTIVE \"127.0.0.1\" $port \"$work/server.log\")" >"$work/log" 2>&1 &
gimp=$!
# The operation's render (not the plug-in's warm process, which GIMP 2.10
# starts with itself and which names its engine at once).
rendered () { grep -q -E "cuda-gaussian-blur: [0-9]+ progress steps" "$work/log" 2>/dev/null; }
# settle SECONDS: until GIMP (timeout's process group: GIMP, its plug-ins)
# has used no CPU for half a second, at most SECONDS.
settle () {
  local last=-1 now quiet=0 tries=0
  while [ $tries -lt $(($1 * 4)) ]; do
    now=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v g=$gimp '$5 == g { t += $14 + $15 } END { print t + 0 }')
    if [ "$now" = "$last" ]; then quiet=$((quiet + 1)); [ $quiet -ge 2 ] && return 0; else quiet=0; fi
    last=$now; tries=$((tries + 1)); sleep 0.25
  done
}
save () {
  sf "(gimp-file-save RUN-NONINTERACTIVE img (car (gimp-image-get-active-layer img)) \"$work/out.png\" \"out.png\")" >/dev/null
}

if wait_for "GIMP's Script-Fu server" 240 sf_up \
   && sf "(define img (car (gimp-file-load RUN-NONINTERACTIVE \"$work/in.png\" \"in.png\")))" >/dev/null \
   && sf "(gimp-display-new img)" >/dev/null \
   && wait_for "the image window" 120 find_window '.-1\.0 \('; then
  # GIMP 2.10 names the image window "*in.png-1.0 (RGB color 8-bit gamma integer, ...) – GIMP".
  image_win=$win
  if [ -n "$trace" ]; then
    result $(grep -q "openat(.*$module\", .* = [0-9]" "$work/strace.txt" && echo 1 || echo 0) \
      "GIMP 2.10 loads the module from \$XDG_DATA_HOME/gegl-0.4/plug-ins"
  fi
  settle 30; x xdotool windowfocus --sync "$image_win"; x xdotool key alt+t; sleep 1; x xdotool key g
  if wait_for "the GEGL Operation tool" 30 find_window "^GEGL Operation\$"; then
    tool=$win
    x xdotool windowfocus --sync "$tool"; x xdotool key Home; settle 30
    n=0
    # Each entry's preview renders before the next: one skipped would be missed.
    while ! rendered && [ $n -lt 300 ] && kill -0 $gimp 2>/dev/null; do
      x xdotool windowfocus --sync "$tool"; x xdotool key Down; settle 30; n=$((n + 1))
    done
    x import -window root "$artifacts/gimp2-gegl-tool.png"
    if rendered; then
      result 1 "Tools ▸ GEGL Operation lists the operation" "entry $((n + 1)) of its list"
      x xdotool windowfocus --sync "$tool"; x xdotool key alt+o
      gone () { ! timeout 5 xdotool search --onlyvisible --name "^GEGL Operation\$" >/dev/null 2>&1; }
      wait_for "the tool's dialog to close on OK" 30 gone && settle 120 && save
    else
      result 0 "Tools ▸ GEGL Operation lists the operation" "not rendered after $n entries"
    fi
  fi
  sf "(gimp-quit 0)" >/dev/null 2>&1
fi
wait_until 30 "" "GIMP to quit" sh -c "! kill -0 $gimp 2>/dev/null" 2>/dev/null
kill $gimp 2>/dev/null
kill $xvfb 2>/dev/null

if [ -f "$work/out.png" ]; then
  $PY - "$top" "$work" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/tests/gimp")
import batch_test as bt
work = sys.argv[2]
src = bt.read(f"{work}/in.png")
err = bt.difference(bt.read(f"{work}/out.png").astype(float), bt.expected(src, 255.0, 1.5, True)).max()
print(f"{'PASS' if err <= 1.0 else 'FAIL'}: OK applies it with its defaults — std-dev 1.5, linear: "
      f"max error {err:.3g} (tolerance 1)")
PY
else
  echo "FAIL: OK applies it with its defaults — no image saved"
fi >"$work/pixels.txt"
cat "$work/pixels.txt"
grep -q '^PASS' "$work/pixels.txt" && passed=$((passed + 1)) || failed=$((failed + 1))
echo "$passed passed, $failed failed"
if [ $failed -ne 0 ]; then
  echo "log and files kept in $work"; grep -v '^$' "$work/log" | tail -n 20; exit 1
fi
rm -rf "$work"
