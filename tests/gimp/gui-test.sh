#!/bin/sh
# The dialog in real GIMP under Xvfb, driven with xdotool:
#   open a test image, open the dialog, check its window exists, Cancel (the
#   image must be untouched), open it again, change sigma on the spin button,
#   check that the preview changed, press OK, check the pixels, undo (Ctrl+Z),
#   check they are back.  Screenshots are kept in ARTIFACTS.
#   tests/gimp/gui-test.sh 2 BUILDDIR [ARTIFACTS]   GIMP 2.10 on this machine
#   tests/gimp/gui-test.sh 3 - [ARTIFACTS]          GIMP 3.0 in the Debian 13 chroot
# With GUI_LANG=ko (or de) it runs in that language and checks the dialog's
# title is translated.  Ends with "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
version=${1:?usage: gui-test.sh 2 BUILDDIR [ARTIFACTS] | 3 - [ARTIFACTS]}
build=${2:--}
work=$(mktemp -d /tmp/cgb-gui$version.XXXXXX)
artifacts=${3:-$work/artifacts}
mkdir -p "$artifacts" "$work/profile/plug-ins/cuda-gaussian-blur"
PY=/usr/bin/python3
chroot_root=${GIMP3_CHROOT:-/var/cache/cuda-gaussian-blur/trixie}
lang=${GUI_LANG:-}
title=$($PY "$here/batch_test.py" dialog-title "$lang") || exit 1
suffix=${lang:+-$lang}

$PY "$here/batch_test.py" gui-prepare "$version" "$work" || exit 1
printf '(show-tips no)\n(restore-session no)\n(show-welcome-dialog no)\n' >"$work/profile/gimprc"

# A display of our own.
display=:$((70 + version))
Xvfb $display -screen 0 1280x1024x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb=$!
export DISPLAY=$display
sleep 1

locale_env=""
[ -n "$lang" ] && locale_env="LANG=$($PY "$here/batch_test.py" locale "$lang") LANGUAGE=$lang"
case $version in
  2)
    cp "$build/plugin/cuda-gaussian-blur" "$work/profile/plug-ins/cuda-gaussian-blur/" || exit 1
    [ -d "$build/po/locale" ] && cp -r "$build/po/locale" "$work/profile/plug-ins/cuda-gaussian-blur/"
    env $locale_env GIMP2_DIRECTORY="$work/profile" CUDA_GBLUR_VERBOSE=1 \
      gimp-2.10 --no-splash -b "(load \"$work/gui1.scm\")" -b "(load \"$work/gui2.scm\")" \
      >"$work/log" 2>&1 &
    ;;
  3)
    GIMP3_CHROOT_BIND=$work "$top/tests/gimp3-chroot.sh" sh -c "
      set -e
      rm -rf /build-gimp3-gui && mkdir -p /build-gimp3-gui && cd /build-gimp3-gui
      /src/configure --with-gimp=3 --with-cuda-arch=75 >configure.out
      make -j\$(nproc) plugin/cuda-gaussian-blur po-catalogs >make.out 2>&1 || { tail -n 30 make.out; exit 1; }
      cp plugin/cuda-gaussian-blur $work/profile/plug-ins/cuda-gaussian-blur/
      [ -d po/locale ] && cp -r po/locale $work/profile/plug-ins/cuda-gaussian-blur/
      export $locale_env DISPLAY=$display GIMP3_DIRECTORY=$work/profile CUDA_GBLUR_VERBOSE=1
      gimp-3.0 --no-splash --batch-interpreter=plug-in-script-fu-eval \
        -b '(load \"$work/gui1.scm\")' -b '(load \"$work/gui2.scm\")'" >"$work/log" 2>&1 &
    ;;
esac
gimp=$!

passed=0 failed=0
result () { # ok name detail
  if [ "$1" = 1 ]; then passed=$((passed + 1)); echo "PASS: $2${3:+ — $3}"
  else failed=$((failed + 1)); echo "FAIL: $2${3:+ — $3}"; fi
}
wait_for_window () { # title seconds -> prints the window id
  xdotool search --sync --onlyvisible --name "$1" 2>/dev/null | head -n 1 &
  local finder=$! i=0
  while kill -0 $finder 2>/dev/null && [ $i -lt "$2" ]; do sleep 1; i=$((i + 1)); done
  kill $finder 2>/dev/null
  wait $finder 2>/dev/null
}
wait_for_file () { # path seconds
  local i=0
  while [ ! -s "$1" ] && [ $i -lt "$2" ]; do sleep 1; i=$((i + 1)); done
  [ -s "$1" ]
}
wait_gone () { # window id
  local i=0
  while xdotool getwindowname "$1" >/dev/null 2>&1 && [ $i -lt 20 ]; do sleep 0.5; i=$((i + 1)); done
}

# 1. The dialog opens; Cancel leaves the image untouched.
win=$(wait_for_window "$title" 240)
result $([ -n "$win" ] && echo 1 || echo 0) "dialog window '$title' appears"
if [ -n "$win" ]; then
  sleep 2
  import -window root "$artifacts/gimp$version$suffix-dialog.png"
  xdotool windowfocus --sync "$win"; xdotool key Escape
  wait_gone "$win"
fi
wait_for_file "$work/cancelled.png" 60

# 2. Open again, change sigma on the spin button, watch the preview, OK.
win=$(wait_for_window "$title" 120)
if [ -n "$win" ]; then
  sleep 2
  import -window "$win" "$work/before-change.png"
  xdotool windowfocus --sync "$win"
  xdotool key alt+i; sleep 0.3; xdotool key ctrl+a; xdotool type "8"; xdotool key Tab
  sleep 2
  import -window "$win" "$work/after-change.png"
  cp "$work/after-change.png" "$artifacts/gimp$version$suffix-dialog-window.png"
  import -window root "$artifacts/gimp$version$suffix-dialog-sigma8.png"
  changed=$(compare -metric AE "$work/before-change.png" "$work/after-change.png" null: 2>&1 | cut -d' ' -f1)
  result $([ "${changed%.*}" -gt 2000 ] 2>/dev/null && echo 1 || echo 0) \
    "preview changes when sigma changes" "$changed pixels of the dialog changed"
  xdotool windowfocus --sync "$win"; xdotool key alt+o
  wait_gone "$win"
fi
wait_for_file "$work/after.png" 60
import -window root "$artifacts/gimp$version$suffix-after-ok.png"

# 3. Undo in the image window.
image_win=$(xdotool search --onlyvisible --name "in.png|in-\[" 2>/dev/null | head -n 1)
[ -n "$image_win" ] || image_win=$(xdotool search --onlyvisible --class "gimp" 2>/dev/null | tail -n 1)
if [ -n "$image_win" ]; then
  xdotool windowfocus --sync "$image_win"; sleep 0.5; xdotool key ctrl+z; sleep 1
fi
touch "$work/undone.marker"
wait_for_file "$work/undone.png" 60
import -window root "$artifacts/gimp$version$suffix-after-undo.png"

# GIMP quits by itself (gui2.scm); do not wait for ever.
i=0; while kill -0 $gimp 2>/dev/null && [ $i -lt 30 ]; do sleep 1; i=$((i + 1)); done
kill $gimp 2>/dev/null; pkill -f "gimp-$version" 2>/dev/null
kill $xvfb 2>/dev/null

# The menu label in the test's language, as GIMP shows it: GIMP 3 keeps the
# label the plug-in registered (translated by our catalogue) in pluginrc;
# GIMP 2.10 keeps the msgid and the domain's folder, and translates with
# gettext when it builds the menu.
if [ -n "$lang" ]; then
  label=$($PY "$here/batch_test.py" translation "$lang" "CUDA Gaussian Blur…")
  rc=$work/profile/pluginrc
  case $version in
    3) got=$(grep -o "\"$label\"" "$rc" | head -n 1 | tr -d '"') ;;
    2) dir=$(sed -n 's/.*(locale-def "cuda-gaussian-blur" "\(.*\)"))*$/\1/p' "$rc" | head -n 1 \
             | sed "s|\${gimp_dir}|$work/profile|")
       got=$(LANG=$($PY "$here/batch_test.py" locale "$lang") LANGUAGE=$lang TEXTDOMAINDIR=$dir \
             gettext -d cuda-gaussian-blur "CUDA Gaussian Blur…") ;;
  esac
  result $([ "$got" = "$label" ] && echo 1 || echo 0) "menu label in '$lang'" "'$got'"
fi

out=$($PY "$here/batch_test.py" gui-check "$version" "$work" "$work/log")
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
