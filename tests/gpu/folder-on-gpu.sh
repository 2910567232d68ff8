#!/bin/sh
# On the GPU machine: a folder through GIMP 2.10 at each export cost
# (tests/benchmarks/folder-cost-bench.sh: the old one-process level-9 run,
# batch/blur-files.sh's default of a process per core sharing the GPU at
# levels 9 and 6 and to JPEG, a GIMP per file), the CUDA backend forced
# (GBLUR_BACKEND chooses).
#   tests/gpu/folder-on-gpu.sh BUNDLE PLUGIN [N W H]...
# BUNDLE: ../shared/tools/gimp-gpu/make-gimp210-bundle.sh -P .../file-jpeg;
# PLUGIN: cuda-gaussian-blur built --with-gimp=2 --with-cuda-arch=90,
# stripped.  Each N W H is one table (default: 16 1920 1080, 3 6000 4000).
set -u
here=$(cd "$(dirname "$0")" && pwd)
bundle=${1:?usage: folder-on-gpu.sh BUNDLE PLUGIN [N W H]...}
plugin=${2:?PLUGIN}
shift 2
[ $# -gt 0 ] || set -- 16 1920 1080 3 6000 4000
[ -x /opt/gimp210/run-gimp.sh ] || tar -xJf "$bundle" -C /opt || exit 1
bin=/tmp/cgb-folder-gpu/bin
mkdir -p "$bin/build/plugin" && cp "$plugin" "$bin/build/plugin/cuda-gaussian-blur" || exit 1   # the bench's BUILDDIR
# The benchmark names gimp-console-2.10 and makes its own profile: give
# that profile the bundle's JPEG exporter.
cat >"$bin/gimp-console-2.10" <<'EOF'
#!/bin/sh
p=${GIMP2_DIRECTORY:-/nonexistent}/plug-ins
[ -d "$p/file-jpeg" ] || [ ! -d "$p" ] || cp -r /opt/gimp210/profile/plug-ins/file-jpeg "$p/"
exec /opt/gimp210/run-gimp.sh "$@"
EOF
chmod +x "$bin/gimp-console-2.10"
export PYTHON=${PYTHON:-python3} PATH=$bin:$PATH GBLUR_BACKEND=${GBLUR_BACKEND:-cuda} LANG=C.UTF-8
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "cores $(nproc), memory $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
status=0
while [ $# -ge 3 ]; do
  echo "== $1 × $2×$3 $(date +%T)"
  sh "$here/../benchmarks/folder-cost-bench.sh" "$bin/build" "$1" "$2" "$3" || status=1
  shift 3
done
exit $status
