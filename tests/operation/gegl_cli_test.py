#!/usr/bin/python3
"""The operation cuda:gaussian-blur through the gegl command line, on every
property combination, against the double-precision reference (the batch
suite's), within 1 level.
  gegl_cli_test.py MODULE_DIR WORK   (MODULE_DIR holds cuda-gaussian-blur.so)"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gimp"))
import batch_test as bt   # noqa: E402  (the reference and the test pictures)

# name, input, std-dev-x, std-dev-y, abyss, clip-extent, linear
CASES = [
    ("rgba8-round", "rgba8", 2.5, 2.5, "clamp", True, True),
    ("rgba8-wide", "rgba8", 4.0, 1.5, "clamp", True, True),
    ("rgba8-tall-perceptual", "rgba8", 1.0, 6.0, "clamp", True, False),
    ("rgba8-x-only", "rgba8", 3.0, 0.0, "clamp", True, True),
    ("rgba8-y-only", "rgba8", 0.0, 3.0, "clamp", True, True),
    ("rgba8-tiny", "rgba8", 0.05, 0.05, "clamp", True, True),   # below the procedure's 0.1
    ("rgba8-none", "rgba8", 3.0, 3.0, "none", True, True),
    ("rgba8-black", "rgba8", 3.0, 2.0, "black", True, True),
    ("rgba8-white", "rgba8", 2.0, 3.0, "white", True, True),
    ("rgba8-grow-none", "rgba8", 2.0, 3.5, "none", False, True),
    ("rgba8-grow-clamp", "rgba8", 3.0, 2.0, "clamp", False, True),
    ("gray8-white-grow", "gray8", 2.5, 4.0, "white", False, True),
    ("gray8-perceptual", "gray8", 5.0, 5.0, "clamp", True, False),
    ("rgb16-wide", "rgb16", 6.0, 2.0, "black", True, True),
    ("gray16-large", "gray16", 20.0, 12.0, "clamp", True, True),
    # The CPU's FFT path (single precision linked in: no libfftw3f needed).
    ("rgba8-fft", "rgba8", 40.0, 40.0, "clamp", True, True),
    ("gray16-fft", "gray16", 40.0, 25.0, "clamp", True, False),
    # Tall enough (1200 rows, GEGL's tiles are 64 high) that the operation
    # reads and writes in several bands at once (pixels/pixel-path.c).
    ("rgba8-bands", "rgba8-tall", 3.0, 7.0, "clamp", True, True),
    ("rgba8-bands-black-grow", "rgba8-tall", 2.0, 9.5, "black", False, True),
    ("gray8-bands-white", "gray8-tall", 4.0, 2.0, "white", True, False),
]
# The inputs of batch_test.py and the tall ones above.
INPUTS = dict(bt.INPUTS, **{"rgba8-tall": ("rgba8-tall.png", 255.0),
                            "gray8-tall": ("gray8-tall.png", 255.0)})


def write_tall_inputs(work):
    rgba = np.round(bt.pattern(1200, 150, 4) * 255).astype(np.uint8)
    rgba[:, :10, 3] = 0
    bt.imwrite(f"{work}/rgba8-tall.png", rgba[..., [2, 1, 0, 3]])
    bt.imwrite(f"{work}/gray8-tall.png", np.round(bt.pattern(1300, 90, 1)[..., 0] * 255).astype(np.uint8))
# The pixel outside the image, straight, in [0, 1] (GEGL's abyss colours).
OUTSIDE = {"none": 0.0, "black": (0.0, 1.0), "white": 1.0}


def outside(abyss, channels):
    if abyss == "clamp":
        return None
    if abyss == "black":
        return [0.0] * (channels - 1) + [1.0] if channels in (2, 4) else [0.0] * channels
    return [OUTSIDE[abyss]] * channels


def run(module_dir, work):
    env = dict(os.environ, GEGL_PATH=module_dir + ":" + subprocess.run(
        ["pkg-config", "--variable=pluginsdir", "gegl-0.4"], capture_output=True,
        text=True).stdout.strip())
    os.makedirs(work, exist_ok=True)
    bt.write_inputs(work)
    write_tall_inputs(work)
    passed = failed = 0
    for name, inp, sx, sy, abyss, clip, linear in CASES:
        path, scale = f"{work}/{INPUTS[inp][0]}", INPUTS[inp][1]
        out_path = f"{work}/out-{name}.png"
        cmd = ["gegl", path, "-o", out_path, "--", "cuda:gaussian-blur", f"std-dev-x={sx}",
               f"std-dev-y={sy}", f"abyss-policy={abyss}",
               f"clip-extent={'true' if clip else 'false'}", f"linear={'true' if linear else 'false'}"]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        if r.returncode != 0 or not os.path.exists(out_path):
            print(f"FAIL: {name} — gegl exited {r.returncode}: {r.stderr.strip()[-300:]}")
            failed += 1
            continue
        if "cuda:gaussian-blur: " in r.stderr:   # operation_blur could not blur, or retried
            print(f"FAIL: {name} — the operation did not blur: {r.stderr.strip()[-300:]}")
            failed += 1
            continue
        src = bt.read(path)
        out = bt.read(out_path).astype(np.float64)
        if scale == 255.0 and out.max() > 255:   # png-save writes 16 bits by default
            out /= 257.0
        exp = bt.expected(src, scale, sx, linear, sigma_y=sy,
                          outside=outside(abyss, src.shape[2]), grow=not clip)
        if out.shape != exp.shape:
            print(f"FAIL: {name} — {out.shape} back, {exp.shape} expected")
            failed += 1
            continue
        err = bt.difference(out, exp).max()
        ok = err <= 1.0
        print(f"{'PASS' if ok else 'FAIL'}: {name} — σ {sx}×{sy}, abyss {abyss}, "
              f"clip {clip}, linear {linear}, {out.shape[1]}×{out.shape[0]}: max error {err:.3g} "
              f"(tolerance 1)")
        passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(run(sys.argv[1], sys.argv[2]))
