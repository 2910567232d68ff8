#!/bin/sh
# On the GPU machine: a 4096² RGBA render through the gegl tool, side by side
# in one run, each a fresh process: no operation, cuda:gaussian-blur (CUDA),
# gegl:gaussian-blur, sigma 30; then how far the two blurs' results differ.
#   tests/gpu/gegl-tool-on-gpu.sh BUNDLE GEGLDIR MODULE
# BUNDLE: the GIMP 3 bundle (../shared/tools/gimp-gpu/make-gimp3-bundle.sh),
# whose libraries the tool runs with; GEGLDIR: Debian 13's /usr/bin/gegl and
# the one library the bundle lacks (libspiro.so.1), copied from the bundle's
# chroot; MODULE: cuda-gaussian-blur.so built in that chroot.
set -u
bundle=${1:?usage: gegl-tool-on-gpu.sh BUNDLE GEGLDIR MODULE}
tool=${2:?GEGLDIR}
module=${3:?MODULE}
W=/tmp/gt; mkdir -p $W
[ -x /opt/gimp3/run-gimp.sh ] || tar -xJf "$bundle" -C /opt || exit 1
cp "$tool/gegl" /opt/gimp3/bin/ && cp "$tool/libspiro.so.1" /opt/gimp3/lib/ &&
  /opt/gimp3/patch-plugin.sh /opt/gimp3/bin/gegl >/dev/null || exit 1
cp "$module" /opt/gimp3/lib/gegl-0.4/ || exit 1
python3 - <<'PY' || exit 1
import numpy as np
from PIL import Image
rng = np.random.default_rng(7)
h = w = 4096
y, x = np.mgrid[0:h, 0:w] / 4096.0
img = np.zeros((h, w, 4))
for c in range(3):
    img[..., c] = 0.5 + 0.3 * np.sin(6.3 * (x * (c + 1) + y * (3 - c))) + 0.2 * np.cos(17 * x * y + c)
img[..., 3] = 0.6 + 0.4 * np.sin(4 * x + 2 * y)
img += rng.normal(0, 0.01, img.shape)
Image.fromarray(np.clip(np.round(img * 255), 0, 255).astype(np.uint8), "RGBA").save("/tmp/gt/in.png", compress_level=1)
PY
python3 - <<'PY'
import os, subprocess, time, statistics
env = dict(os.environ, GEGL_PATH="/opt/gimp3/lib/gegl-0.4", BABL_PATH="/opt/gimp3/lib/babl-0.1",
           GBLUR_BACKEND="cuda", GBLUR_VERBOSE="1", HOME="/tmp/gt")
runs = {"none": [], "cuda:gaussian-blur": [], "gegl:gaussian-blur": []}
args = {"none": [], "cuda:gaussian-blur": ["--", "cuda:gaussian-blur", "std-dev-x=30", "std-dev-y=30"],
        "gegl:gaussian-blur": ["--", "gegl:gaussian-blur", "std-dev-x=30", "std-dev-y=30"]}
for rep in range(4):
    for name in runs:
        # rep 0 writes a PNG to compare; the timed ones a .npy (no compression to time)
        out = "/tmp/gt/out-%s.%s" % (name.split(":")[0], "png" if rep == 0 else "npy")
        t = time.time()
        p = subprocess.run(["/opt/gimp3/bin/gegl", "/tmp/gt/in.png", "-o", out] + args[name], env=env,
                           capture_output=True, text=True)
        if rep > 0:
            runs[name].append(time.time() - t)
        if rep == 0:
            print(name, "rc", p.returncode, (p.stdout + p.stderr).strip()[-400:])
for name, ts in runs.items():
    print("| %s | %s | %.0f |" % (name, " / ".join("%.0f" % (1000 * t) for t in ts), 1000 * statistics.median(ts)))
import numpy as np
from PIL import Image
a = np.asarray(Image.open("/tmp/gt/out-cuda.png")).astype(float)
b = np.asarray(Image.open("/tmp/gt/out-gegl.png")).astype(float)
i = np.asarray(Image.open("/tmp/gt/in.png")).astype(float)
print("sizes", a.shape, b.shape, "cuda vs gegl max |diff| (inner, 100 px in)", np.abs(a - b)[100:-100, 100:-100].max(),
      "mean", np.abs(a - b)[100:-100, 100:-100].mean(), "; cuda vs input mean |diff|", np.abs(a - i).mean())
PY
