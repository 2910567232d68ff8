#!/bin/sh
# Why a CUDA build blurs on the CPU, as a user reads it: with no NVIDIA
# driver (in the Debian forky chroot, which has none), and with the driver
# library this machine has (too old for the build's runtime, or present
# without a GPU).  The expected CUDA version comes from the build's
# nvcc, the driver branches from NVIDIA's compatibility table.
#   tests/install/driver-messages.sh BUILD   (as root; BUILD is a CUDA build
#                                             with tests/benchmarks/bench,
#                                             inside this tree)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: driver-messages.sh BUILD}" && pwd)
passed=0 failed=0
check () { # name, the reason bench printed, an extended regular expression
  if printf '%s\n' "$2" | grep -q -E "$3"; then
    echo "PASS: $1: $2"; passed=$((passed + 1))
  else
    echo "FAIL: $1: '$2' does not match '$3'"; failed=$((failed + 1))
  fi
}
reason () { # bench's reason for not using CUDA
  "$build/tests/benchmarks/bench" --backend cuda --size 64 --reps 1 2>&1 \
    | sed -n 's/^cuda: skipped: CUDA backend requested but unusable: //p'
}
nvcc=$(sed -n 's/^NVCC = //p' "$build/Makefile")
[ -n "$nvcc" ] || { echo "FAIL: $build is not a CUDA build"; echo "0 passed, 1 failed"; exit 1; }
runtime=$(PATH="$(dirname "$nvcc"):$PATH" "$nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
major=${runtime%%.*}
case $major in 11) branch=450 ;; 12) branch=525 ;; *) branch=580 ;; esac
needs="this build's CUDA $runtime runtime \(needs NVIDIA driver R$branch\+\)"

# The driver library here, if any: its CUDA version.
driver=$(/usr/bin/python3 -c 'import ctypes; v = ctypes.c_int(); ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(v)); print(v.value // 1000, v.value % 1000 // 10, sep=".")' 2>/dev/null)
if [ -z "$driver" ]; then
  echo "(no libcuda.so.1 here: the too-old case is not reached)"
elif [ "${driver%%.*}" -lt "$major" ]; then
  check "a driver too old" "$(reason)" "^NVIDIA driver ([0-9.]+ )?\(CUDA $driver\) is too old for $needs$"
elif [ ! -e /proc/driver/nvidia/version ]; then
  check "a driver library without its kernel module" "$(reason)" "^no CUDA device: "
fi

# No driver at all: Debian forky's chroot (tests/env/gimp3-chroot.sh) has no
# NVIDIA library; the build, inside this tree, is seen there under /src.
case $build in
  "$top"/*) ;;
  *) echo "FAIL: $build is not inside $top, which the chroot sees"; echo "0 passed, 1 failed"; exit 1 ;;
esac
in_forky () { "$top/tests/env/gimp3-chroot.sh" 3.2 "$@"; }
if in_forky sh -c 'ldconfig -p | grep -q "libcuda\.so\.1 "'; then
  echo "FAIL: the forky chroot has a libcuda.so.1"; failed=$((failed + 1))
fi
hidden=$(in_forky "/src/${build#"$top"/}/tests/benchmarks/bench" --backend cuda --size 64 --reps 1 2>&1 \
  | sed -n 's/^cuda: skipped: CUDA backend requested but unusable: //p')
check "no driver" "$hidden" "^no NVIDIA driver \(libcuda\.so\.1 not found\); $needs$"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
