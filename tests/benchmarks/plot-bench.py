#!/usr/bin/python3
"""Plots Gpix/s against sigma from tables written by tests/benchmarks/bench (one line per
backend and format, for one image size), so the GPU rows can be read at a glance.

    /usr/bin/python3 tests/benchmarks/plot-bench.py --size 8192 --out docs/gpix-vs-sigma-h200.png TABLE.md...

Needs python3-matplotlib."""
import argparse, re

import matplotlib
matplotlib.use ("Agg")
import matplotlib.pyplot as plt

ap = argparse.ArgumentParser ()
ap.add_argument ("--size", type=int, default=8192)
ap.add_argument ("--out", required=True)
ap.add_argument ("--title", default="")
ap.add_argument ("tables", nargs="+")
args = ap.parse_args ()

series = {}
for path in args.tables:
    for line in open (path, encoding="utf-8"):
        cells = [c.strip () for c in line.strip ().strip ("|").split ("|")]
        if len (cells) < 7 or cells[3] != "%d²" % args.size:
            continue
        try:
            sigma, gpix = float (cells[4]), float (cells[6])
        except ValueError:
            continue   # header, "not timed" or "error" rows
        label = "%s %s" % ("NPP" if cells[0] == "npp" else "engine " + cells[0], cells[2])
        series.setdefault (label, []).append ((sigma, gpix))

fig, ax = plt.subplots (figsize=(8, 5))
for label, points in sorted (series.items ()):
    points.sort ()
    ax.plot ([p[0] for p in points], [p[1] for p in points], marker="o",
             linestyle="--" if label.startswith ("NPP") else "-", label=label)
ax.set_xscale ("log")
ax.set_yscale ("log")
ax.set_xlabel ("sigma (pixels)")
ax.set_ylabel ("Gpix/s (higher is better)")
ax.set_title (args.title or "%d² images, median of warm runs" % args.size)
ax.grid (True, which="both", alpha=0.3)
ax.legend ()
fig.tight_layout ()
fig.savefig (args.out, dpi=110)
print ("wrote", args.out)
