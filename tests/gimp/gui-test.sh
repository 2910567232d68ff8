#!/bin/sh
# The dialog in real GIMP under Xvfb, driven with xdotool:
#   open a test image, open the dialog, check its window exists, Cancel (the
#   image must be untouched), open it again, change sigma on the spin button,
#   check that the preview changed, press OK, check the pixels, undo (Ctrl+Z),
#   check they are back.  Screenshots are kept in ARTIFACTS.
#   tests/gimp/gui-test.sh 2 BUILDDIR [ARTIFACTS]   GIMP 2.10 on this machine
#   tests/gimp/gui-test.sh 3.0|3.2 -|DIR [ARTIFACTS]   GIMP 3.x in its Debian chroot, with
#                                                 the plug-in built (-) or already built
#                                                 in DIR there
# With GUI_LANG=ko (or de) it runs in that language and checks the dialog's
# title is translated.  Every wait is bounded and ends at once when GIMP has
# exited: a broken GIMP fails the test in seconds, never hangs it.  Ends with
# "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/common.sh"
gimp_version "${1:?usage: gui-test.sh 2 BUILDDIR [ARTIFACTS] | 3.0|3.2 - [ARTIFACTS]}"
build=${2:--}
work=$(mktemp -d /tmp/cgb-gui$version.XXXXXX)
artifacts=${3:-$work/artifacts}
mkdir -p "$artifacts" "$work/profile/plug-ins/cuda-gaussian-blur"
PY=/usr/bin/python3
lang=${GUI_LANG:-}
title=$($PY "$here/batch_test.py" dialog-title "$lang") || exit 1
suffix=${lang:+-$lang}
shot=gimp$version$suffix

$PY "$here/batch_test.py" gui-prepare "$major" "$work" || exit 1
gimprc_quiet "$work/profile"
# GIMP 3 also welcomes a profile that an older version (or none) wrote: say
# this one wrote it, or the welcome window takes the dialog's keys.
if [ "$major" = 3 ]; then
  echo "(config-version \"${release##* }\")" >>"$work/profile/gimprc"
fi

# A display of our own.
start_xvfb "$work/xvfb.log" || exit 1

locale_env=""
[ -n "$lang" ] && locale_env="LANG=$($PY "$here/batch_test.py" locale "$lang") LANGUAGE=$lang"
if [ "$major" = 3 ]; then
  gimp3_build "$work" "$build" /build-gimp$version-gui || exit 1
  build=$plugin_dir
fi
case $version in
  2)
    cp "$build/plugin/cuda-gaussian-blur" "$work/profile/plug-ins/cuda-gaussian-blur/" || exit 1
    [ -d "$build/po/locale" ] && cp -r "$build/po/locale" "$work/profile/plug-ins/cuda-gaussian-blur/"
    env $locale_env GIMP2_DIRECTORY="$work/profile" GBLUR_VERBOSE=1 timeout -k 10 "$GIMP_RUN_LIMIT" \
      gimp-2.10 --no-splash -b "(load \"$work/gui1.scm\")" -b "(load \"$work/gui2.scm\")" \
      >"$work/log" 2>&1 &
    ;;
  *)
    in_gimp3 "$work" "
      set -e
      cp $build/plugin/cuda-gaussian-blur $work/profile/plug-ins/cuda-gaussian-blur/
      [ -d $build/po/locale ] && cp -r $build/po/locale $work/profile/plug-ins/cuda-gaussian-blur/
      export $locale_env DISPLAY=$DISPLAY GIMP3_DIRECTORY=$work/profile GBLUR_VERBOSE=1
      $(gimp_binary gui) --no-splash --batch-interpreter=plug-in-script-fu-eval \
        -b '(load \"$work/gui1.scm\")' -b '(load \"$work/gui2.scm\")'" >"$work/log" 2>&1 &
    ;;
esac
gimp=$!

passed=0 failed=0
file_written () { [ -s "$1" ]; }
# The preview draws what the plug-in reports ("cuda-gaussian-blur: preview
# WxH sigma S: T ms", GBLUR_VERBOSE): wait for reports, not for time.
previews () { grep -c "cuda-gaussian-blur: preview " "$work/log" 2>/dev/null; }
previews_more_than () { [ "$(previews)" -gt "$1" ]; }
settle () { sleep 0.5; }   # a reported preview is queued for drawing: let GTK paint it

# 1. The dialog opens; Cancel leaves the image untouched.
if wait_for "the dialog window '$title'" 240 find_window "$title" &&
   wait_for "the dialog's first preview" 60 previews_more_than 0; then
  result 1 "dialog window '$title' appears"
  settle
  x import -window root "$artifacts/$shot-dialog.png"
  x xdotool windowfocus --sync "$win"; x xdotool key Escape
fi
wait_for "the image saved after Cancel" 60 file_written "$work/cancelled.png"

# 2. Open again, change sigma on the spin button, watch the preview, OK.
seen=$(previews)
if wait_for "the dialog window '$title', opened again" 120 find_window "$title" &&
   wait_for "the second dialog's first preview" 60 previews_more_than "$seen"; then
  settle
  x import -window "$win" "$work/before-change.png"
  x xdotool windowfocus --sync "$win"
  x xdotool key alt+i; x xdotool key ctrl+a; x xdotool type "8"; x xdotool key Tab
  wait_for "the preview at the typed sigma" 60 log_has "$work/log" "sigma 8:" && settle
  x import -window "$win" "$work/after-change.png"
  cp "$work/after-change.png" "$artifacts/$shot-dialog-window.png"
  x import -window root "$artifacts/$shot-dialog-sigma8.png"
  changed=$(x compare -metric AE "$work/before-change.png" "$work/after-change.png" null: 2>&1 | cut -d' ' -f1)
  result $([ "${changed%.*}" -gt 2000 ] 2>/dev/null && echo 1 || echo 0) \
    "preview changes when sigma changes" "$changed pixels of the dialog changed"
  x xdotool windowfocus --sync "$win"; x xdotool key alt+o
fi
wait_for "the image saved after OK" 60 file_written "$work/after.png"
x import -window root "$artifacts/$shot-after-ok.png"

# 3. Undo in the image window.
image_win=$(x xdotool search --onlyvisible --name "in.png|in-\[" 2>/dev/null | head -n 1)
[ -n "$image_win" ] || image_win=$(x xdotool search --onlyvisible --class "gimp" 2>/dev/null | tail -n 1)
if [ -n "$image_win" ]; then
  x xdotool windowfocus --sync "$image_win"; sleep 0.5; x xdotool key ctrl+z; sleep 1
fi
touch "$work/undone.marker"
wait_for "the image saved after Undo" 60 file_written "$work/undone.png"
x import -window root "$artifacts/$shot-after-undo.png"

# GIMP quits by itself (gui2.scm); do not wait for ever.
wait_until 30 "" "GIMP to quit" sh -c "! kill -0 $gimp 2>/dev/null" 2>/dev/null
# This test's GIMP only: its command line names this test's scripts.
kill $gimp 2>/dev/null; pkill -f "$work/gui1.scm" 2>/dev/null
kill $xvfb 2>/dev/null

# The menu label in the test's language, as GIMP shows it: GIMP 3 keeps the
# label the plug-in registered (translated by our catalogue) in pluginrc;
# GIMP 2.10 keeps the msgid and the domain's folder, and translates with
# gettext when it builds the menu.
if [ -n "$lang" ]; then
  label=$($PY "$here/batch_test.py" translation "$lang" "CUDA Gaussian Blur…")
  rc=$work/profile/pluginrc
  case $major in
    3) got=$(grep -o "\"$label\"" "$rc" | head -n 1 | tr -d '"') ;;
    2) dir=$(sed -n 's/.*(locale-def "cuda-gaussian-blur" "\(.*\)"))*$/\1/p' "$rc" | head -n 1 \
             | sed "s|\${gimp_dir}|$work/profile|")
       got=$(LANG=$($PY "$here/batch_test.py" locale "$lang") LANGUAGE=$lang TEXTDOMAINDIR=$dir \
             gettext -d cuda-gaussian-blur "CUDA Gaussian Blur…") ;;
  esac
  result $([ "$got" = "$label" ] && echo 1 || echo 0) "menu label in '$lang'" "'$got'"
fi

out=$($PY "$here/batch_test.py" gui-check "$major" "$work" "$work/log")
echo "$out" | grep -E '^(PASS|FAIL)'
p=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
f=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
passed=$((passed + ${p:-0})); failed=$((failed + ${f:-1}))
grep "preview [0-9]*x[0-9]* sigma" "$work/log" | head -n 5
echo "$passed passed, $failed failed"
if [ $failed -ne 0 ]; then
  echo "log and files kept in $work"; tail -n 30 "$work/log"; exit 1
fi
rm -rf "$work"
