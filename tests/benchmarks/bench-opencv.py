#!/usr/bin/python3
"""Times OpenCV's cv2.GaussianBlur on the matrix tests/benchmarks/bench uses for the CPU
(u8 gray, BORDER_REPLICATE, ksize 2*ceil(3 sigma)+1), so the engine's CPU
times can be read as ratios measured side by side on the same machine.

    /usr/bin/python3 tests/benchmarks/bench-opencv.py [--size N] [--threads N] [--engine PATH] [sigma ...]

With --engine PATH (the tests/benchmarks/bench binary) each sigma is timed with both, one
after the other, and the ratio engine / OpenCV is printed."""
import argparse, math, re, subprocess, time

import cv2
import numpy as np

ap = argparse.ArgumentParser ()
ap.add_argument ("--size", type=int, default=4096)
ap.add_argument ("--threads", type=int, default=0, help="OpenCV threads (0: its default)")
ap.add_argument ("--reps", type=int, default=5)
ap.add_argument ("--engine", help="path of tests/benchmarks/bench, to time the engine beside OpenCV")
ap.add_argument ("sigmas", nargs="*", type=float, default=[1, 2, 5, 10, 20, 50])
args = ap.parse_args ()
if args.threads:
    cv2.setNumThreads (args.threads)

rng = np.random.default_rng (1)
img = rng.integers (1, 256, (args.size, args.size), dtype=np.uint8)   # never zeros

def opencv_ms (sigma):
    k = 2 * math.ceil (3 * sigma) + 1
    blur = lambda: cv2.GaussianBlur (img, (k, k), sigma, borderType=cv2.BORDER_REPLICATE)
    blur ()
    times = []
    for _ in range (args.reps if sigma < 50 else max (3, args.reps // 2)):
        t0 = time.perf_counter ()
        blur ()
        times.append ((time.perf_counter () - t0) * 1e3)
    return sorted (times)[len (times) // 2]

def engine_ms (sigma):
    out = subprocess.run ([args.engine, "--backend", "cpu", "--size", str (args.size), "--format", "gray",
                           "--sigma", str (sigma), "--reps", str (args.reps)],
                          check=True, capture_output=True, text=True).stdout
    row = [l for l in out.splitlines () if "gray8" in l][-1]
    return float (re.split (r"\s*\|\s*", row)[6])

print ("| sigma | OpenCV %s ms | engine ms | engine / OpenCV |" % cv2.__version__)
print ("| --- | --- | --- | --- |")
for s in args.sigmas:
    cv = opencv_ms (s)
    if args.engine:
        en = engine_ms (s)
        print ("| %g | %.1f | %.1f | %.2f |" % (s, cv, en, en / cv), flush=True)
    else:
        print ("| %g | %.1f | | |" % (s, cv), flush=True)
