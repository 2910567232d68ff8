#!/bin/sh
# The operation cuda:gaussian-blur as a GIMP 3 user meets it, under Xvfb,
# driven with xdotool, on a 4000x3000 layer: open it from its menu entry,
# check the canvas shows the blur, type Size X = 5, 12, 30, 60 one after
# another and check the canvas shows a new, smoother picture each time
# (printing how long it took from the keystroke: "canvas after Size X=30:
# 0.7 s", a measurement, failed only past 60 s), OK: the layer has the filter
# as an effect (what the Layers dialog shows); undo: the effect is gone.
#   tests/operation/gui-op-test.sh 3.0|3.2 [-|DIR] [ARTIFACTS]
# DIR: a build of the plug-in and the operation in the chroot (default: build
# one).  The route to the entry (OPGUI_ROUTE): "search" types its label into
# GIMP's action search ("/") and takes the result, "menu" opens Filters by its
# mnemonic (read from GIMP's own catalogue in the test's language), walks to
# Blur with the arrow keys and takes the submenu's last entry (ours: the test's profile has
# no other extra filter there).  Default: search in 3.0 in English; menu in
# 3.2 and in other languages (3.0's search found nothing
# for the Korean label that xdotool typed).  Where no dialog opens (3.2's
# search can run the filter at once), the run is undone and the dialog
# opened by Filters ▸ Re-Show Last.  With GUI_LANG=ko (or de) GIMP
# runs in that language: the search would type the label as po/LANG.po
# translates it, and the dialog's title must begin with the translated
# title.  By hand: OPGUI_ZOOM=100 shows the layer at 100 % (the part of it
# that fits) instead of whole, OPGUI_LAYER=WxH another size.  Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/tests/gimp/common.sh"
gimp_version "${1:?usage: gui-op-test.sh 3.0|3.2 [-|DIR] [ARTIFACTS]}"
[ "$major" = 3 ] || { echo "the operation's GUI test needs GIMP 3" >&2; exit 2; }
build=${2:--}
work=$(mktemp -d /tmp/cgb-opgui$version.XXXXXX)
artifacts=${3:-$work/artifacts}
modules=$work/data/gegl-0.4/plug-ins
mkdir -p "$artifacts" "$work/profile" "$modules"
PY=/usr/bin/python3
lang=${GUI_LANG:-}
route=${OPGUI_ROUTE:-}
[ -n "$route" ] || { [ "$version" = 3.0 ] && [ -z "$lang" ] && route=search || route=menu; }
case $route in search|menu) ;; *) echo "OPGUI_ROUTE must be search or menu" >&2; exit 2 ;; esac
# The values typed into Size X, one after another.
sizes="5 12 30 60"
po_tr () { if [ -n "$lang" ]; then $PY "$top/tests/gimp/batch_test.py" translation "$lang" "$1"; else echo "$1"; fi; }
title=$(po_tr "Gaussian Blur (CUDA)") || exit 1
# What the search types: the menu label without its ellipsis.
label=$(po_tr "Gaussian Blur (CUDA)…" | sed 's/ *…$//') || exit 1
locale_env=""
[ -n "$lang" ] && locale_env="LANG=$($PY "$top/tests/gimp/batch_test.py" locale "$lang") LANGUAGE=$lang"
shot=gimp$version${lang:+-$lang}
# The mnemonic of Filters and the action search's title, in GIMP's own
# catalogue for the language.
chroot_root=${GIMP3_CHROOTS:-/var/cache/cuda-gaussian-blur}/$([ "$version" = 3.0 ] && echo trixie || echo forky)
mnemonic=$($PY - "$chroot_root" "$lang" <<'PY'
import gettext, re, sys
root, lang = sys.argv[1], sys.argv[2]
t = gettext.NullTranslations()
if lang:
    t = gettext.GNUTranslations(open(f"{root}/usr/share/locale/{lang}/LC_MESSAGES/gimp30.mo", "rb"))
print(re.search(r"_(\w)", t.pgettext("filters-action", "Filte_rs")).group(1).lower())
print(t.gettext("Search Actions"))
PY
) || { echo "no mnemonic for Filters" >&2; exit 1; }
search_title=$(echo "$mnemonic" | sed -n 2p)
mnemonic=$(echo "$mnemonic" | head -n 1)
echo "== route: $route; title '$title'; label '$label'; Filters: alt+$mnemonic"

# A large layer, 4000x3000 (OPGUI_LAYER=WxH): grey squares of 100 pixels
# (edges that every Size X moves by a different amount) and a little noise
# (any blur changes the pixels between them).
layer=${OPGUI_LAYER:-4000x3000}
$PY -c "
import sys; sys.path.insert(0, '$top/tests/gimp'); import batch_test as bt, numpy as np
h, w = ${layer#*x}, ${layer%x*}
y, x = np.ogrid[0:h, 0:w]
g = 50 + 150 * ((x // 100 + y // 100) % 2) + np.random.default_rng(1).integers(0, 24, (h, w))
bt.imwrite('$work/in.png', np.repeat(g.astype(np.uint8)[..., None], 3, axis=2))" || exit 1
# The script reports the layer's filters after OK and after Undo, then quits.
cat >"$work/opgui.scm" <<SCM
(gimp-message-set-handler CONSOLE)
(define (seen name) (pair? (car (file-glob #:pattern (string-append "$work/" name) #:filename-encoding FALSE))))
(define (wait-for name) (if (not (seen name)) (wait-for name)))
(define img (car (gimp-file-load RUN-NONINTERACTIVE "$work/in.png")))
(define drw (vector-ref (car (gimp-image-get-layers img)) 0))
(gimp-display-new img)
(wait-for "applied.marker")
(gimp-message (string-append "OPGUI AFTER-OK " (number->string (vector-length (car (gimp-drawable-get-filters drw))))))
(wait-for "undone.marker")
(gimp-message (string-append "OPGUI AFTER-UNDO " (number->string (vector-length (car (gimp-drawable-get-filters drw))))))
(gimp-quit 0)
SCM
gimprc_quiet "$work/profile"
echo "(config-version \"${release##* }\")" >>"$work/profile/gimprc"
start_xvfb "$work/xvfb.log" || exit 1
gimp3_build "$work" "$build" /build-gimp$version-gui || exit 1
in_gimp3 "$work" "
  set -e
  cp $plugin_dir/operation/cuda-gaussian-blur.so $modules/ && cp -r $plugin_dir/po/locale $modules/
  export $locale_env DISPLAY=$DISPLAY GIMP3_DIRECTORY=$work/profile XDG_DATA_HOME=$work/data
  $(gimp_binary gui) --no-splash --batch-interpreter=plug-in-script-fu-eval -b '(load \"$work/opgui.scm\")'" \
  >"$work/log" 2>&1 &
gimp=$!

passed=0 failed=0
changed () { # A B: pixels that differ (compare writes 1.3e+06 for many)
  x compare -metric AE "$1" "$2" null: 2>&1 | awk '{ printf "%d\n", $1 }'
}
# steady OUT LIMIT: the image window once it stayed the same for a second
# (the layer drawn), at most LIMIT tries.
steady () {
  local i=0
  x import -window "$image_win" "$1"
  while [ $i -lt "$2" ]; do
    sleep 1; x import -window "$image_win" "$work/cap.png"
    [ "$(changed "$1" "$work/cap.png")" -lt 50 ] && return 0
    cp "$work/cap.png" "$1"; i=$((i + 1))
  done
  return 1
}
since () { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }'; }
# settle PREV OUT LIMIT: waits until the image window differs from PREV by
# more than 2000 pixels and then stays the same for a second (a blinking
# cursor aside), at most LIMIT s from $t0; OUT: that picture; took: seconds
# from $t0 until it first showed it.
settle () {
  local seen="" at n
  while [ "$(since "$t0" | cut -d. -f1)" -lt "$3" ]; do
    x import -window "$image_win" "$work/cap.png" || { sleep 0.2; continue; }
    at=$(since "$t0")
    n=$(changed "$1" "$work/cap.png")
    if [ "${n:-0}" -le 2000 ]; then seen=""
    elif [ -n "$seen" ] && [ "$(changed "$2" "$work/cap.png")" -lt 50 ]; then
      awk -v a="$seen" -v b="$at" 'BEGIN { exit !(b - a >= 1) }' && { took=$seen; return 0; }
    else cp "$work/cap.png" "$2"; seen=$at
    fi
    sleep 0.2
  done
  return 1
}
# What was on the screen, for a failure's report.
list_windows () {
  x xdotool search --onlyvisible --name . 2>/dev/null | while read -r w; do
    echo "window: $(x xdotool getwindowname "$w")"; done >"$work/windows.txt"
}

# try_sizes: types each of $sizes into Size X (selected) and
# sets it with Tab (Size Y follows, chained): the canvas must show a new
# picture each time, and a smoother one for a larger value (the standard
# deviation where the canvas changed).  Shift+Tab selects Size X again.
try_sizes () {
  local shown="" v
  for v in $sizes; do
    # Keys that reach the image window instead would zoom (1 to 5).
    x xdotool getwindowname "$dialog" >/dev/null 2>&1 ||
      { result 0 "the canvas shows Size X=$v" "the dialog went away"; return 0; }
    x xdotool windowfocus --sync "$dialog"; x xdotool type "$v"
    t0=$(date +%s.%N); x xdotool key Tab
    if settle "$prev" "$work/size$v.png" 60; then
      result 1 "the canvas shows Size X=$v" "$(changed "$prev" "$work/size$v.png") pixels changed"
      echo "canvas after Size X=$v: $took s"
      prev=$work/size$v.png shown="$shown $work/size$v.png"
    else result 0 "the canvas shows Size X=$v" "no new picture in 60 s"
    fi
    x import -window root "$artifacts/$shot-operation-size$v.png"
    x xdotool key shift+Tab
  done
  [ "$(echo $shown | wc -w)" = "$(echo $sizes | wc -w)" ] || return 0
  stds=$($PY - "$top" $shown <<'PY'
import sys; sys.path.insert(0, sys.argv[1] + "/tests/gimp"); import batch_test as bt, numpy as np
ims = [bt.read(f)[..., :3].astype(float).mean(axis=2) for f in sys.argv[2:]]
ys, xs = np.nonzero(ims[0] != ims[-1])
s = [im[ys.min():ys.max() + 1, xs.min():xs.max() + 1].std() for im in ims]
print(" ".join("%.1f" % v for v in s))
sys.exit(0 if all(a > b for a, b in zip(s, s[1:])) else 1)
PY
  ) && result 1 "a larger Size X, a smoother canvas" "std-dev $stds" ||
    result 0 "a larger Size X, a smoother canvas" "std-dev ${stds:-not measured}"
}

# GIMP 3 names the image window "*[in] (imported)-1.0 (RGB color ...) 320x240
# – GIMP" (3.2) or "*[Untitled]-1.0 (...) – GIMP" (3.0); its start and end
# are translated ("– 김프" in Korean), not its image and display numbers.
if wait_for "the image window" 240 find_window '.-1\.0 \('; then
  image_win=$win
  x xdotool mousemove 1279 1023; steady "$work/plain.png" 60
  x xdotool windowfocus --sync "$image_win"
  if [ "${OPGUI_ZOOM:-}" = 100 ]; then
    # View ▸ Zoom 1:1 before the filter opens (with its dialog open, 3.2
    # closes the dialog on a zoom): the canvas shows part of the layer.
    x xdotool key 1; steady "$work/plain.png" 60
    x xdotool windowfocus --sync "$image_win"
  fi
  if [ $route = search ]; then
    # Its menu entry, by its label, through the action search ("/").
    x xdotool key slash
    wait_for "the action search" 20 find_window "$search_title" &&
      x xdotool windowfocus --sync "$win" && x xdotool type --delay 50 "$label"
    sleep 1; x import -window root "$artifacts/$shot-operation-search.png"
    x xdotool key Return
  else
    # Filters by its mnemonic: its first sensitive entry is selected
    # (Reset all Filters; Repeat and Re-Show are not, before a filter ran);
    # Down: Blur (by its mnemonic would only select it where another entry
    # shares the letter: Weichzeichnen and Web in German); Right opens it, and
    # Up from its first entry selects its last.
    x xdotool key "alt+$mnemonic"; sleep 1; x xdotool key Down; sleep 1
    x xdotool key Right; sleep 1; x xdotool key Up; sleep 1
    x import -window root "$artifacts/$shot-operation-menu.png"
    x xdotool key Return
  fi
  opened=$(date +%s.%N) opened_by=$route
  dialog_name="cuda:gaussian-blur"
  if ! wait_until 30 "$gimp" "the dialog" find_window "$dialog_name" 2>/dev/null; then
    # GIMP 3.2's action search runs the filter at once with its defaults, no
    # dialog anywhere (docked or on the canvas), when Return comes with the
    # pointer over its result list (seen with the pointer left in the middle
    # of the screen): undone, and its dialog opened by Filters ▸ Re-Show Last.
    list_windows; sed 's/^/no dialog yet: /' "$work/windows.txt"
    x import -window root "$artifacts/$shot-operation-no-dialog.png"
    x xdotool mousemove 1279 1023; t0=$(date +%s.%N)
    if settle "$work/plain.png" "$work/at-once.png" 30; then
      result 1 "without a dialog ($route) the filter ran at once" \
        "$(changed "$work/plain.png" "$work/at-once.png") pixels changed"
    else result 0 "the route ($route) opened no dialog and changed nothing in 30 s"
    fi
    x xdotool windowfocus --sync "$image_win"; x xdotool key ctrl+z
    steady "$work/undone.png" 30
    n=$(changed "$work/plain.png" "$work/undone.png")
    result $([ "${n:-0}" -le 2000 ] && echo 1 || echo 0) "Undo removes the filter run at once" "$n pixels differ from the layer"
    x xdotool windowfocus --sync "$image_win"; x xdotool key shift+ctrl+f
    opened=$(date +%s.%N) opened_by="$route, then Re-Show Last"
  fi
  if wait_for "the filter's dialog '$title (cuda:gaussian-blur)'" 60 find_window "$dialog_name"; then
    dialog=$win
    name=$(x xdotool getwindowname "$dialog")
    result 1 "the operation opens from its menu entry ($opened_by)" "dialog '$name'"
    case $name in
      "$title "*) result 1 "the dialog's title is the title${lang:+ in '$lang'}" "'$title'" ;;
      *) result 0 "the dialog's title is the title${lang:+ in '$lang'}" "'$name', expected '$title …'" ;;
    esac
    # The dialog beside the image window, not over its canvas, and the pointer
    # where it raises no tooltip: what is captured is then the canvas alone.
    x xdotool windowmove "$dialog" 800 0; x xdotool mousemove 1279 1023
    t0=$opened
    if settle "$work/plain.png" "$work/preview1.png" 90; then
      result 1 "the canvas shows the blur" "$(changed "$work/plain.png" "$work/preview1.png") pixels changed"
      echo "canvas with the defaults (from the entry taken): $took s"
    else result 0 "the canvas shows the blur" "no change in 90 s"
    fi
    x import -window root "$artifacts/$shot-operation-dialog.png"
    prev=$work/preview1.png
    # Size X: two Tabs from where the dialog starts, its text selected.
    x xdotool windowfocus --sync "$dialog"; x xdotool key Tab; x xdotool key Tab
    try_sizes
    x xdotool windowfocus --sync "$dialog"; x xdotool key alt+o
    gone () { ! timeout 5 xdotool search --onlyvisible --name "$dialog_name" >/dev/null 2>&1; }
    wait_for "the filter's dialog to close on OK" 30 gone && result 1 "OK closes the filter's dialog"
  fi
  list_windows
  touch "$work/applied.marker"
  wait_for "the filters reported after OK" 60 log_has "$work/log" "OPGUI AFTER-OK"
  x import -window root "$artifacts/$shot-operation-after-ok.png"
  # Edit ▸ Undo, by its shortcut.
  x xdotool windowfocus --sync "$image_win"; x xdotool key ctrl+z; sleep 2
  x import -window root "$artifacts/$shot-operation-after-undo.png"
  touch "$work/undone.marker"
  wait_for "the filters reported after Undo" 60 log_has "$work/log" "OPGUI AFTER-UNDO"
else
  list_windows; cat "$work/windows.txt"
fi
ok=$(sed -n 's/.*OPGUI AFTER-OK \([0-9]*\).*/\1/p' "$work/log" | head -n 1)
undo=$(sed -n 's/.*OPGUI AFTER-UNDO \([0-9]*\).*/\1/p' "$work/log" | head -n 1)
result $([ "${ok:-0}" = 1 ] && echo 1 || echo 0) "after OK the layer has the effect (Layers dialog)" "${ok:-no} filter(s)"
result $([ "${undo:-x}" = 0 ] && echo 1 || echo 0) "Undo removes it" "${undo:-no} filter(s) left"

wait_until 30 "" "GIMP to quit" sh -c "! kill -0 $gimp 2>/dev/null" 2>/dev/null
kill $gimp 2>/dev/null; pkill -f "$work/opgui.scm" 2>/dev/null
kill $xvfb 2>/dev/null
echo "$passed passed, $failed failed"
if [ $failed -ne 0 ]; then
  echo "log and files kept in $work"; tail -n 30 "$work/log"; exit 1
fi
rm -rf "$work"
