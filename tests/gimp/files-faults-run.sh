#!/bin/sh
# The GIMP side of files-faults-test.sh, run where GIMP runs (this machine
# for 2.10, the chroot for 3.x, as root): mounts the small tmpfs, runs
# WORK/cases.scm while a watcher kills the plug-in that writes into kill1,
# kills a whole GIMP while it writes into kill2 and runs it again, mounts a
# tmpfs that holds all but the end of b.png's output, and runs
# batch/blur-files.sh on the odd names.  Folders it checks are listed in
# WORK/NAME.list before their tmpfs goes.
#   files-faults-run.sh 2|3 WORK GIMP-CONSOLE BLUR-FILES-SH
#   files-faults-run.sh --gimp 2|3 WORK GIMP-CONSOLE SCRIPT   (one GIMP run)
set -u
self=$0
[ "$1" = --gimp ] && { shift; gimp_only=$4; }
major=$1 work=$2 console=$3
if [ "$major" = 2 ]; then GIMP2_DIRECTORY=$work/profile; export GIMP2_DIRECTORY
else GIMP3_DIRECTORY=$work/profile; export GIMP3_DIRECTORY; fi

gimp_run () { # SCRIPT: WORK/SCRIPT in one GIMP
  if [ "$major" = 2 ]; then "$console" -i -b "(load \"$work/$1\")" -b '(gimp-quit 0)'
  else "$console" -i --batch-interpreter=plug-in-script-fu-eval --quit -b "(load \"$work/$1\")"; fi
}
[ -n "${gimp_only:-}" ] && { gimp_run "$gimp_only"; exit; }
blur=$4
# The tmpfs mounts go however this script ends (a timeout's TERM too).
mounted=
unmount_all () { for m in $mounted; do umount -l "$work/$m" || echo "$m: umount failed"; done; mounted=; }
trap unmount_all EXIT
trap 'exit 124' INT TERM HUP
small_disk () { # NAME BYTES: a tmpfs of BYTES at WORK/NAME, or a line saying why not
  mount -t tmpfs -o "size=$2" tmpfs "$work/$1" 2>"$work/mount.err" && { mounted="$mounted $1"; return 0; }
  echo "$1 skipped: cannot mount a tmpfs here ($(cat "$work/mount.err"))"; return 1
}
list_disk () { # NAME: its files listed (and copied) before it is unmounted
  ls -A "$work/$1" >"$work/$1.list"
  mkdir -p "$work/$1-copy" && cp -a "$work/$1/." "$work/$1-copy/"
  umount "$work/$1" || echo "$1: umount failed"
  mounted=$(for m in $mounted; do [ "$m" = "$1" ] || printf '%s ' "$m"; done)
}
exact_disk () { # NAME OUTPUT: a tmpfs at WORK/NAME of OUTPUT's whole pages, its last part left out
  size=$(stat -c %s "$work/$2" 2>/dev/null || echo 0)
  [ "$size" -gt "$page" ] && small_disk "$1" $(( (size - 1) / page * page ))
}
# watch_kill NAME [GROUP]: when a temporary file shows in WORK/NAME, kill -9
# its writer (the pid in its name) or GROUP; says what was left.
watch_kill () {
  tries=0
  while [ $tries -lt 3000 ]; do
    t=$(ls -A "$work/$1" | grep '^\.cgb-partial-' | head -n 1)
    if [ -n "$t" ]; then
      pid=$(echo "$t" | sed 's/^\.cgb-partial-\([0-9]*\)-.*/\1/')
      kill -9 "${2:+-}${2:-$pid}"
      # Listed at once: a rerun may remove the dead writer's file soon after.
      left=$(ls -A "$work/$1" | tr '\n' ' ')
      sleep 0.5
      echo "$1 killed: ${2:+group }${2:-pid $pid} as it wrote $t; left: $left"
      return 0
    fi
    sleep 0.02; tries=$((tries + 1))
  done
  echo "$1 never killed: no temporary file in 60 s"
}

echo "== the plug-in killed as it writes; odd names; output = input; links; a full disk"
small_disk full 64k && full=1
watch_kill kill1 &
watcher=$!
gimp_run cases.scm
kill $watcher 2>/dev/null; wait $watcher 2>/dev/null
[ -n "${full:-}" ] && list_disk full

echo "== GIMP killed as it writes, then run again; an output cut short"
# Its own session: the kill reaches GIMP and every plug-in it started.
setsid sh "$self" --gimp "$major" "$work" "$console" kill.scm &
group=$!
watch_kill kill2 $group
wait $group 2>/dev/null
page=$(getconf PAGESIZE)
# All of b.png's output (PNG, TIFF) but its last part (at most a page: what
# an exporter writes when it closes the file) fits.
exact_disk exact b-size/b.png && exact=1
exact_disk exact-tif b-size-tif/b.tif && exact_tif=1
gimp_run rerun.scm
[ -n "${exact:-}" ] && list_disk exact
[ -n "${exact_tif:-}" ] && list_disk exact-tif

echo "== batch/blur-files.sh, 2 processes: the odd names, TMPDIR with glob characters"
odd=$(cat "$work/odd-dir")
TMPDIR="$work/tmp [z]*" sh "$blur" -G "$console" -s 3 -g 2 -o "$work/out-script" "$work/$odd"/*
echo "script exit $?"
