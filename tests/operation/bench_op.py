#!/usr/bin/python3
"""Times the GEGL operation cuda:gaussian-blur alone, in this process's GEGL
(no GIMP, no file I/O in the timing): a buffer-source of the picture's pixels
(R'G'B'A u8) through the operation into a fresh buffer, REPS times, each with
a new graph (std-dev-x lowered by 1e-3 a run, so nothing comes from a cache).

    GEGL_PATH=BUILDDIR/operation:$(pkg-config --variable=pluginsdir gegl-0.4) \\
        tests/operation/bench_op.py PICTURE SIGMA [REPS]

Prints the sigma and the milliseconds of each run.  Run two module builds
alternately to compare them.  Debian's python3-gi and gir1.2-gegl-0.4.
"""
import sys
import time

import gi
gi.require_version("Gegl", "0.4")
from gi.repository import Gegl  # noqa: E402


def load(path):
    graph = Gegl.Node()
    source = graph.create_child("gegl:load")
    source.set_property("path", path)
    extent = source.get_bounding_box()
    pixels = Gegl.Buffer.new("R'G'B'A u8", extent.x, extent.y, extent.width, extent.height)
    sink = graph.create_child("gegl:write-buffer")
    sink.set_property("buffer", pixels)
    source.link(sink)
    sink.process()
    return pixels, extent


def blur_ms(pixels, extent, sigma):
    graph = Gegl.Node()
    source = graph.create_child("gegl:buffer-source")
    source.set_property("buffer", pixels)
    blur = graph.create_child("cuda:gaussian-blur")
    blur.set_property("std-dev-x", sigma)
    blur.set_property("std-dev-y", sigma)
    out = Gegl.Buffer.new("R'G'B'A u8", extent.x, extent.y, extent.width, extent.height)
    sink = graph.create_child("gegl:write-buffer")
    sink.set_property("buffer", out)
    source.link(blur)
    blur.link(sink)
    start = time.perf_counter()
    sink.process()
    return (time.perf_counter() - start) * 1000


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    Gegl.init(None)
    if "cuda:gaussian-blur" not in Gegl.list_operations():
        print("cuda:gaussian-blur is not on GEGL_PATH", file=sys.stderr)
        return 1
    pixels, extent = load(sys.argv[1])
    sigma, reps = float(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) == 4 else 3
    times = [blur_ms(pixels, extent, sigma - r * 1e-3) for r in range(reps)]
    print(sigma, " ".join(f"{t:.0f}" for t in times))
    return 0


if __name__ == "__main__":
    sys.exit(main())
