# Sourced by the GIMP test scripts: which GIMP to test, how to run it, and
# waits that always end.  Needs $top (the source tree).  GIMP 3 runs in its
# Debian chroot, or, with GIMP3_CONSOLE set (the GPU machine's relocatable
# bundle: its run-gimp.sh), that program on this machine.

# gimp_version ARG: sets version (2, 3.0 or 3.2), major (2 or 3) and release
# (what GIMP says of itself).  GIMP 2.10
# is this machine's; GIMP 3.x runs in a Debian chroot (tests/env/gimp3-chroot.sh).
gimp_version () {
  case $1 in
    2|2.10) version=2; major=2 ;;
    3|3.0) version=3.0; major=3 ;;
    3.2) version=3.2; major=3 ;;
    *) echo "GIMP version must be 2, 3.0 or 3.2, not '$1'" >&2; exit 2 ;;
  esac
  release=$(gimp_release)
  echo "== GIMP $version: $release ($(gimp_binary console) $(gimp_where))"
}

# The release that runs, as GIMP says it ("GNU Image Manipulation Program version 3.2.6").
gimp_release () {
  if [ "$major" = 2 ]; then timeout 60 ${GIMP2_CONSOLE:-gimp-console-2.10} --version 2>/dev/null
  elif [ -n "${GIMP3_CONSOLE:-}" ]; then timeout 60 "$GIMP3_CONSOLE" --version 2>/dev/null
  else GIMP3_CHROOT_BIND= timeout 600 "$top/tests/env/gimp3-chroot.sh" "$version" "$(gimp_binary console)" --version
  fi | tail -n 1
}

# gimp_binary console|gui: the program's name for $version.
gimp_binary () {
  case $version in
    2) [ "$1" = console ] && echo gimp-console-2.10 || echo gimp-2.10 ;;
    *) if [ "$1" = console ] && [ -n "${GIMP3_CONSOLE:-}" ]; then echo "$GIMP3_CONSOLE"
       elif [ "$1" = console ]; then echo "gimp-console-$version"
       else echo "gimp-$version"; fi ;;
  esac
}

gimp_where () {
  if [ "$major" = 2 ] || [ -n "${GIMP3_CONSOLE:-}" ]; then echo "on this machine"
  else echo "in the chroot of tests/env/gimp3-chroot.sh $version"; fi
}

# gimprc_quiet PROFILE: no tips, no restored session, no welcome window
# (GIMP 2.10 refuses the whole file for an option it does not know).
gimprc_quiet () {
  printf '(show-tips no)\n(restore-session no)\n' >"$1/gimprc"
  [ "$major" = 3 ] && echo '(show-welcome-dialog no)' >>"$1/gimprc"
  return 0
}

# Longest a whole GIMP run may take before it counts as hung.
GIMP_RUN_LIMIT=${GIMP_RUN_LIMIT:-900}

# in_gimp3 BIND SCRIPT: runs SCRIPT with sh in the GIMP 3 chroot, with BIND
# (a folder of this machine) visible at the same path (with GIMP3_CONSOLE:
# here); bounded by GIMP_RUN_LIMIT (timeout signals the whole process group:
# GIMP and its plug-ins too).
in_gimp3 () {
  if [ -n "${GIMP3_CONSOLE:-}" ]; then timeout -k 10 "$GIMP_RUN_LIMIT" sh -c "$2"
  else GIMP3_CHROOT_BIND=$1 timeout -k 10 "$GIMP_RUN_LIMIT" "$top/tests/env/gimp3-chroot.sh" "$version" sh -c "$2"
  fi
}

# gimp3_build BIND WHERE DEFAULT: the plug-in built for GIMP $version, in a
# folder of the chroot: WHERE "-" builds it afresh in DEFAULT (configure and
# make; the CUDA backend for one GPU architecture, to save time), another
# WHERE is a folder where an earlier suite built it.  Sets plugin_dir.
gimp3_build () {
  if [ -n "${GIMP3_CONSOLE:-}" ]; then   # it would build on this machine, in /
    echo "FAIL: no plug-in build for GIMP3_CONSOLE (give the suite a BUILDDIR)"; return 1
  fi
  plugin_dir=$2
  if [ "$2" != - ]; then
    in_gimp3 "$1" "test -x $2/plugin/cuda-gaussian-blur" && return 0
    echo "FAIL: no plug-in built in $2 (chroot of GIMP $version)"; return 1
  fi
  plugin_dir=$3
  echo "== building the plug-in for GIMP $version in $plugin_dir (chroot)"
  in_gimp3 "$1" "
    set -e
    rm -rf $plugin_dir && mkdir -p $plugin_dir && cd $plugin_dir
    /src/configure --with-gimp=3 --with-cuda-arch=75 >configure.out || { tail -n 20 configure.out; exit 1; }
    grep -E '^ *(CUDA backend|GIMP plug-in):' configure.out
    make -j\$(nproc) plugin/cuda-gaussian-blur operation/cuda-gaussian-blur.so po-catalogs >make.out 2>&1 \
      || { tail -n 30 make.out; exit 1; }" \
    || { echo "FAIL: the plug-in did not build for GIMP $version"; return 1; }
}

# wait_until SECONDS PID WHAT COMMAND...: runs COMMAND every 0.2 s until it
# succeeds.  Fails at once, naming WHAT, when PID (GIMP; empty: none) has
# exited or SECONDS have passed.
wait_until () {
  local limit=$1 pid=$2 what=$3 tries=0
  shift 3
  while ! "$@"; do
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      echo "gave up waiting for $what: GIMP has exited" >&2; return 1
    fi
    if [ $tries -ge $((limit * 5)) ]; then
      echo "gave up waiting for $what: not there after $limit s" >&2; return 1
    fi
    sleep 0.2; tries=$((tries + 1))
  done
}

# result OK NAME [DETAIL]: one check of a suite, counted in $passed or
# $failed (the suite sets both to 0) and printed as PASS or FAIL.
result () {
  if [ "$1" = 1 ]; then passed=$((passed + 1)); echo "PASS: $2${3:+ — $3}"
  else failed=$((failed + 1)); echo "FAIL: $2${3:+ — $3}"; fi
}

# wait_for WHAT SECONDS COMMAND...: wait_until, bounded by SECONDS and by the
# life of GIMP ($gimp, its pid); a wait that fails is a failed check (result)
# that names what was awaited.  Needs $work.
wait_for () {
  local what=$1 limit=$2
  shift 2
  wait_until "$limit" "$gimp" "$what" "$@" 2>"$work/why" && return 0
  result 0 "$(cat "$work/why")"
  return 1
}

# log_has FILE TEXT: FILE has a line containing TEXT.
log_has () { grep -q -F "$2" "$1" 2>/dev/null; }

# start_xvfb LOG: an X server of our own, on a display it finds free (so that
# suites can run side by side); sets xvfb (its pid) and DISPLAY, and waits
# until it answers.  -noreset: by default an X server resets when its last
# client leaves, and that closes connections it has just accepted, so GIMP
# connecting as our probe leaves would fail ("Cannot open display").  A
# server is ours only if it still runs once the display answers; else
# another try.
start_xvfb () {
  for try in 1 2 3 4 5; do
    rm -f "$1.display"
    Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp -noreset 3>"$1.display" >"$1" 2>&1 &
    xvfb=$!
    if wait_until 30 $xvfb "the X server to choose a display" test -s "$1.display" 2>/dev/null; then
      export DISPLAY=:$(head -n 1 "$1.display")
      wait_until 30 $xvfb "the X server $DISPLAY" x_answers 2>/dev/null && sleep 1 \
        && kill -0 $xvfb 2>/dev/null && return 0
    fi
    kill $xvfb 2>/dev/null; wait $xvfb 2>/dev/null
    sleep $try
  done
  echo "no X server of our own after 5 tries: $(tail -n 2 "$1")" >&2
  return 1
}
x_answers () { timeout 5 xdotool getdisplaygeometry >/dev/null 2>&1; }

# find_window TITLE: sets win to a visible window whose name matches TITLE.
find_window () {
  win=$(timeout 5 xdotool search --onlyvisible --name "$1" 2>/dev/null | head -n 1)
  [ -n "$win" ]
}

# Every X tool call, bounded: a window that went away must not block it.
x () { timeout 20 "$@"; }
