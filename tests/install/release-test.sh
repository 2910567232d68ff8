#!/bin/sh
# The release tarballs as a user gets them: their checksums; every binary's
# machine code and PTX (cuobjdump) against what the build recorded in
# BUILD-INFO, the CUDA runtime linked in, the NEEDED and glibc checks
# (tests/install/check-needed.sh); then each unpacked into fresh homes and installed
# with its install.sh: GIMP 2.10 here, 3.0 (Debian 13 chroot), 3.2 (forky),
# Flatpak layouts and, in Debian 13, --system; the batch suite on each
# installed copy; --uninstall leaves nothing; a GIMP of the other series is
# refused; both tarballs in one home keep GIMP 3's operation (the logic on
# stand-ins: install-series-test.sh).
#   tests/install/release-test.sh [DIR [GIMP...]]    (DIR: make-release.sh's _release)
# GIMP: whose cases to run (default all): 2.10 (here: the binaries' checks,
# the 2.10 tarball, the GIMP 3 one refused, both in one home), 3.0 (Debian
# 13: the GIMP 3 tarball, --system, the 2.10 one refused), 3.2 (forky: the
# GIMP 3 tarball).  Runs for different GIMPs can go side by side.
# Ends with "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(cd "${1:-$top/_release}" && pwd) || exit 1
[ $# -gt 0 ] && shift
gimps=${*:-2.10 3.0 3.2}
. "$top/tests/gimp/common.sh"   # result
passed=0 failed=0
chroots=${GIMP3_CHROOTS:-/var/cache/cuda-gaussian-blur}
# Debian 12's (11.8) reads 12.4's compressed fatbins too.
cuobjdump=$(command -v cuobjdump || command -v /usr/local/cuda/bin/cuobjdump) || { echo "FAIL: no cuobjdump"; echo "0 passed, 1 failed"; exit 1; }
work=$(mktemp -d /tmp/cgb-release-test.XXXXXX)
add_counts () { # LOG: its "N passed, N failed" into ours
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
  [ -n "$line" ] || { result 0 "$1 has no result line"; return; }
  passed=$((passed + ${line%% *})); line=${line#*, }; failed=$((failed + ${line%% *}))
}
# images FILE elf|ptx: each image's architecture, one a line (sm_75, ...).
images () { $cuobjdump --list-$2 "$1" 2>/dev/null | grep -o 'sm_[0-9]*[a-z]*' ; }

# The binaries: what the build promised, and what GIMP's processes can load.
static_checks () { # UNPACKED
  info=$1/BUILD-INFO
  (cd "$1" && sha256sum --quiet -c SHA256SUMS) >/dev/null 2>&1
  result $([ $? = 0 ] && echo 1 || echo 0) "${1##*/}: every file matches SHA256SUMS"
  want_elf=$(sed -n 's/^machine-code: *//p' "$info" | tr ' ' '\n' | sort -u | tr '\n' ' ')
  want_ptx=$(sed -n 's/^ptx: *//p' "$info" | sed 's/compute_/sm_/g' | tr ' ' '\n' | sort -u | tr '\n' ' ')
  for f in "$1/cuda-gaussian-blur" "$1/cuda-gaussian-blur.so"; do
    elf=$(images "$f" elf | sort -u | tr '\n' ' ') ptx=$(images "$f" ptx | sort -u | tr '\n' ' ')
    # Each kernel file once per architecture: as many images of each.
    counts=$(images "$f" elf | sort | uniq -c | awk '{print $1}' | sort -u | wc -l)
    result $([ -n "$elf" ] && [ "$elf" = "$want_elf" ] && [ "$ptx" = "$want_ptx" ] && [ "$counts" = 1 ] && echo 1 || echo 0) \
      "${f##*/}: machine code for ${elf:-nothing}, PTX for ${ptx:-nothing}, as promised ($want_elf+ $want_ptx)"
  done
  # Debian 13's toolkit for GIMP 3 (PTX ISA 8.4), Debian 12's for 2.10 (7.8):
  # the PTX's ISA names the toolkit whose runtime was linked in.
  runtime=$(sed -n 's/^cuda-runtime: \([0-9]*\.[0-9]*\).*/\1/p' "$info")
  case ${1##*-} in gimp3) expect=12.4 isa=8.4 ;; *) expect=11.8 isa=7.8 ;; esac
  got=$($cuobjdump -ptx "$1/cuda-gaussian-blur" 2>/dev/null | sed -n 's/^\.version //p' | sort -u | tr '\n' ' ')
  result $([ "$runtime" = $expect ] && [ "$got" = "$isa " ] && echo 1 || echo 0) \
    "${1##*-}: CUDA runtime $runtime linked in (expected $expect), PTX ISA ${got:-none}(expected $isa)"
  "$top/tests/install/check-needed.sh" "$1/cuda-gaussian-blur" "$1/cuda-gaussian-blur.so" >"$work/needed.log" 2>&1
  grep -E '^(PASS|FAIL)' "$work/needed.log"; add_counts "$work/needed.log"
  echo "== ${1##*/}: highest glibc symbol needed: GLIBC_$(readelf -V --wide "$1/cuda-gaussian-blur" "$1/cuda-gaussian-blur.so" \
    | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)"
}

# in_root SUITE_VERSION CMD: CMD with sh, here (2.10) or in that GIMP's chroot.
in_root () {
  if [ "$1" = 2.10 ]; then sh -c "$2"; else "$top/tests/env/gimp3-chroot.sh" "$1" sh -c "$2"; fi
}
# install_case VERSION TARBALL_DIR HOME LAYOUT [MODE]: a fresh home (paths as
# seen where VERSION runs) with LAYOUT's folders, install.sh, the folders it
# must name, the batch suite on the installed copy (MODE: --home or
# --flatpak-home), --uninstall, and nothing left.
install_case () {
  v=$1 pkg=$2 home=$3 layout=$4 mode=${5:---home} host=$3 label=${4:-no profile yet}
  [ $v = 2.10 ] || host=$(root_of $v)$3
  rm -rf "$host" && mkdir -p "$host"
  for d in $layout; do mkdir -p "$host/$d"; done
  app=.var/app/org.gimp.GIMP
  case $mode in
    --home) profile=.config/GIMP/$v; data=.local/share ;;
    # The host's profile, where it exists, is the Flatpak's (bind-mounted): a link here.
    --flatpak-home) data=$app/data; profile=$app/config/GIMP/$v
      [ -d "$host/.config/GIMP" ] && mkdir -p "$host/$app/config" && ln -s ../../../../.config/GIMP "$host/$app/config/GIMP" ;;
  esac
  in_root $v "HOME=$home $pkg/install.sh" >"$work/install.out" 2>&1
  rc=$? ok=1
  for f in "$host/$profile/plug-ins/cuda-gaussian-blur/cuda-gaussian-blur" \
           "$host/$profile/plug-ins/cuda-gaussian-blur/locale/ko/LC_MESSAGES/cuda-gaussian-blur.mo" \
           "$host/$data/gegl-0.4/plug-ins/cuda-gaussian-blur.so"; do [ -f "$f" ] || ok=0; done
  grep -q "Installed in $home/.*gegl-0.4/plug-ins" "$work/install.out" && grep -q "Installed in $home/.*plug-ins/cuda-gaussian-blur" "$work/install.out" || ok=0
  result $([ $rc = 0 ] && [ $ok = 1 ] && echo 1 || echo 0) "GIMP $v, $label: install.sh puts the plug-in in $profile, the operation in $data" \
    "$(grep -o "$home/[^ ]*" "$work/install.out" | sed "s|$home/|~/|" | tr '\n' ' ')"
  [ $rc = 0 ] || cat "$work/install.out"
  gv=$v; [ $v = 2.10 ] && gv=2
  "$top/tests/gimp/run-batch-tests.sh" $gv "$mode=$home" >"$work/batch.log" 2>&1
  sed -n 's/^\(FAIL.*\|[0-9]* passed, .*\)/  batch suite: \1/p' "$work/batch.log"; add_counts "$work/batch.log"
  in_root $v "HOME=$home $pkg/install.sh --uninstall" >"$work/uninstall.out" 2>&1
  rc=$?
  left=$(find "$host" -name 'cuda-gaussian-blur*' -o -path '*gegl-0.4/plug-ins/locale*' | sed "s|$host/|~/|")
  result $([ $rc = 0 ] && [ -z "$left" ] && echo 1 || echo 0) "GIMP $v, $label: --uninstall leaves nothing" "$left"
}
root_of () { case $1 in 3.0) echo "$chroots/trixie" ;; 3.2) echo "$chroots/forky" ;; esac; }

# unpack SERIES: the tarball of that series unpacked in $work/SERIES; sets
# name and pkg (its folder).
unpack () {
  pkg="" name=""
  for tarball in "$dir"/cuda-gaussian-blur-*-linux-x86_64-$1.tar.xz; do
    [ -f "$tarball" ] || { result 0 "no $1 release tarball in $dir"; return 1; }
    name=$(basename "$tarball" .tar.xz) pkg=$work/$1/$name
    rm -rf "${work:?}/$1" && mkdir -p "$work/$1" && tar -xJf "$tarball" -C "$work/$1" || { result 0 "$name unpacks"; return 1; }
  done
}

gimp_2_10 () {
  unpack gimp3 && echo "== $name: $(wc -c <"$tarball") bytes" && static_checks "$pkg"
  if unpack gimp2.10; then
    echo "== $name: $(wc -c <"$tarball") bytes"
    static_checks "$pkg"
    install_case 2.10 "$pkg" "$work/home" ""
    install_case 2.10 "$pkg" "$work/home" ".var/app/org.gimp.GIMP/config/GIMP/2.10" --flatpak-home
  fi
  # The GIMP 3 tarball where only GIMP 2.10 is (this machine): refused, nothing written.
  if unpack gimp3; then
    out=$(HOME=$work/home3 "$pkg/install.sh" 2>&1)
    result $([ $? != 0 ] && echo "$out" | grep -q 'found no GIMP 3' && [ ! -e "$work/home3" ] && echo 1 || echo 0) \
      "the GIMP 3 tarball on Debian 12 (GIMP 2.10 only): refused" "$(echo "$out" | head -n 1)"
  fi
  set -- "$dir"/cuda-gaussian-blur-*-linux-x86_64-gimp3.tar.xz "$dir"/cuda-gaussian-blur-*-linux-x86_64-gimp2.10.tar.xz
  [ -f "$1" ] && [ -f "$2" ] && both_series "$1" "$2"
  "$top/tests/install/install-series-test.sh" >"$work/install-series.log" 2>&1
  grep -E '^(PASS|FAIL)' "$work/install-series.log"; add_counts "$work/install-series.log"
}

# A distribution's GIMP, never started (no profile yet); a Flatpak GIMP
# with its own profile (3.2) or reading the host's (3.0).
gimp3_cases () { # VERSION
  root=$(root_of $1)
  unpack gimp3 || return
  rm -rf "$root/tmp/cgb-release" && cp -r "$pkg" "$root/tmp/cgb-release"
  install_case $1 /tmp/cgb-release /tmp/cgb-release-home ""
  case $1 in
    3.2) install_case $1 /tmp/cgb-release /tmp/cgb-release-home ".var/app/org.gimp.GIMP/config/GIMP/3.2" --flatpak-home ;;
    3.0) install_case $1 /tmp/cgb-release /tmp/cgb-release-home ".config/GIMP/3.0 .var/app/org.gimp.GIMP" --flatpak-home ;;
  esac
}

gimp_3_0 () {
  gimp3_cases 3.0
  # --system in Debian 13: GIMP's and GEGL's own folders, the suite on that copy, then removed.
  sys=/usr/lib/x86_64-linux-gnu
  in_root 3.0 "/tmp/cgb-release/install.sh --system" >"$work/system.out" 2>&1
  result $([ $? = 0 ] && [ -x "$(root_of 3.0)$sys/gimp/3.0/plug-ins/cuda-gaussian-blur/cuda-gaussian-blur" ] \
    && [ -f "$(root_of 3.0)$sys/gegl-0.4/cuda-gaussian-blur.so" ] && echo 1 || echo 0) "GIMP 3.0: install.sh --system" \
    "$(grep -o "$sys[^ ]*" "$work/system.out" | tr '\n' ' ')"
  "$top/tests/gimp/run-batch-tests.sh" 3.0 --installed >"$work/batch.log" 2>&1
  sed -n 's/^\(FAIL.*\|[0-9]* passed, .*\)/  batch suite: \1/p' "$work/batch.log"; add_counts "$work/batch.log"
  in_root 3.0 "/tmp/cgb-release/install.sh --system --uninstall" >/dev/null 2>&1
  left=$(find "$(root_of 3.0)$sys/gimp/3.0/plug-ins" "$(root_of 3.0)$sys/gegl-0.4" -name 'cuda-gaussian-blur*')
  result $([ -z "$left" ] && echo 1 || echo 0) "GIMP 3.0: --system --uninstall leaves nothing" "$left"
  rm -rf "$(root_of 3.0)"/tmp/cgb-release*
  # The 2.10 tarball where only GIMP 3 is: refused, nothing written.
  unpack gimp2.10 || return
  cp -r "$pkg" "$(root_of 3.0)/tmp/cgb-release"
  out=$(in_root 3.0 "HOME=/tmp/cgb-release/home /tmp/cgb-release/install.sh" 2>&1)
  result $([ $? != 0 ] && echo "$out" | grep -q 'found no GIMP 2.10' && [ ! -e "$(root_of 3.0)/tmp/cgb-release/home" ] && echo 1 || echo 0) \
    "the GIMP 2.10 tarball in Debian 13 (GIMP 3 only): refused" "$(echo "$out" | head -n 1)"
  rm -rf "$(root_of 3.0)/tmp/cgb-release"
}

gimp_3_2 () {
  gimp3_cases 3.2
  rm -rf "$(root_of 3.2)"/tmp/cgb-release*
}

# Both series in one home, GIMP 3's first: the GIMP 2.10 tarball keeps GIMP
# 3's operation in GEGL's shared folder, and its --uninstall leaves it.
both_series () { # GIMP3_TARBALL GIMP2.10_TARBALL
  home=$work/both-home gegl=$work/both-home/.local/share/gegl-0.4/plug-ins
  rm -rf "$home" "$work/both" && mkdir -p "$home/.config/GIMP/3.0" "$home/.config/GIMP/2.10" "$work/both"
  tar -xJf "$1" -C "$work/both" && tar -xJf "$2" -C "$work/both" || { result 0 "both tarballs unpack"; return; }
  three=$work/both/$(basename "$1" .tar.xz) two=$work/both/$(basename "$2" .tar.xz)
  out=$(HOME=$home "$three/install.sh" 2>&1 && HOME=$home "$two/install.sh" 2>&1)
  result $([ $? = 0 ] && cmp -s "$three/cuda-gaussian-blur.so" "$gegl/cuda-gaussian-blur.so" \
    && echo "$out" | grep -q "^Kept GIMP 3's cuda:gaussian-blur" && echo 1 || echo 0) \
    "the GIMP 2.10 tarball after GIMP 3's: GIMP 3's operation kept, saying so" "$(echo "$out" | grep '^Kept')"
  out=$(HOME=$home "$two/install.sh" --uninstall 2>&1)
  result $([ $? = 0 ] && cmp -s "$three/cuda-gaussian-blur.so" "$gegl/cuda-gaussian-blur.so" \
    && [ ! -e "$home/.config/GIMP/2.10/plug-ins/cuda-gaussian-blur" ] && echo 1 || echo 0) \
    "the GIMP 2.10 tarball's --uninstall: GIMP 3's operation stays" "$(echo "$out" | grep '^Kept')"
  HOME=$home "$three/install.sh" --uninstall >/dev/null 2>&1
  rc=$?
  left=$(find "$home" -name 'cuda-gaussian-blur*' -o -path '*gegl-0.4/plug-ins/locale*' | sed "s|$home/|~/|")
  result $([ $rc = 0 ] && [ -z "$left" ] && echo 1 || echo 0) "both series: --uninstall of each leaves nothing" "$left"
}
for g in $gimps; do
  case $g in
    2.10|3.0|3.2) "gimp_$(echo $g | tr . _)" ;;
    *) echo "release-test: 2.10, 3.0 or 3.2, not '$g'" >&2; exit 2 ;;
  esac
done

echo "$passed passed, $failed failed"
[ $failed = 0 ] && rm -rf "$work"
[ $failed = 0 ]
