#!/usr/bin/python3
"""cuda:gaussian-blur at GEGL's mipmap levels, without GIMP, through
Python's GEGL (gir1.2-gegl-0.4): GIMP renders a zoomed-out canvas (and its
previews) at level L, where the operation gets the input scaled by 2^-L and
must blur it with std-dev × 2^-L.
  gegl_mipmap_test.py MODULE_DIR [--mipmap-off]   (MODULE_DIR holds cuda-gaussian-blur.so)
With --mipmap-off GEGL renders level 0 and scales it down: the level cases
must then fail (a check that they can).
For each case the source (an R'G'B'A float buffer with hidden colour under
transparent pixels) is rendered by GEGL itself at scale 2^-L with mipmap
rendering on (level L: its own 2×2 down-scaling of the buffer), and the operation's render at level L must be the double-
precision reference blur of that input at std-dev × 2^-L, within 2e-4 (the
float tolerance of the GIMP suites: float32 sums of a few hundred taps, and
the sRGB curve's round trip, stay near 1e-5); as a control, the reference at
the full std-dev must differ from it by far more than that, or the case could
not tell the two apart.  Level 0 must be the same whether GEGL's mipmap
rendering is on or off, and match the reference at the full std-dev.  Last, a
512² layer after gegl:invert-gamma rendered in chunks at levels 1 to 3: GEGL
renders that input only where the operation asks, and every chunk's halo
at the level must be right.
Ends with "N passed, N failed"."""
import ctypes
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gimp"))
import batch_test as bt   # noqa: E402  (the reference and the test pattern)

FORMAT = "R'G'B'A float"
TOL = 2e-4
# name, std-dev-x, std-dev-y, linear, level, whether the full σ is a control
CASES = [
    ("round-l1", 4.0, 4.0, True, 1, True),
    ("wide-l1", 6.0, 2.0, True, 1, True),
    ("x-only-l1", 3.0, 0.0, True, 1, True),
    ("perceptual-l1", 5.0, 3.0, False, 1, True),
    ("round-l2", 8.0, 8.0, True, 2, True),
    # 0.075 at level 1, under the engine's one-sigma minimum of 0.1; both
    # σ blur next to nothing, so the full σ is no control here.
    ("tiny-l1", 0.15, 0.15, True, 1, False),
]
# Rendered in chunks after another operation: σ, level, chunk side (at the
# level).
CHUNKED = [(1.5, 2, 37), (1.5, 3, 37), (6.0, 2, 37), (1.5, 1, 37)]
# Colour is compared only where alpha is at least this: the 2×2 scaling
# leaves denormal alphas (2e-40) beside the transparent columns, under which
# un-premultiplied colour means nothing (and no 16-bit image could hold it).
VISIBLE = 1e-6


def main(module_dir, mipmap=True):
    os.environ["GEGL_PATH"] = module_dir + ":" + subprocess.run(
        ["pkg-config", "--variable=pluginsdir", "gegl-0.4"], capture_output=True, text=True).stdout.strip()
    import gi
    gi.require_version("Gegl", "0.4")
    from gi.repository import Gegl
    Gegl.init(None)
    if "cuda:gaussian-blur" not in Gegl.list_operations():
        print(f"FAIL: cuda:gaussian-blur not loaded from {module_dir}")
        print("0 passed, 1 failed")
        return 1

    h, w = 96, 128
    src = bt.pattern(h, w, 4)
    src[:, :9, 3] = 0.0            # transparent columns (colour hidden under them)
    src[:, -9:, 3] = 1.0
    buf = Gegl.Buffer.new(FORMAT, 0, 0, w, h)
    buf.set(Gegl.Rectangle.new(0, 0, w, h), FORMAT, list(src.astype(np.float32).tobytes()))
    graph = Gegl.Node()
    source = graph.create_child("gegl:buffer-source")
    source.set_property("buffer", buf)

    # gegl_node_blit (not introspected) through ctypes: the call GIMP's
    # canvas makes; at scale 2^-L with mipmap rendering on, GEGL renders the
    # graph at level L.  (Node.blit_buffer with a level leaves filters with
    # a cached region, gegl:gaussian-blur too, empty: not GIMP's route.)
    gegl = ctypes.CDLL("libgegl-0.4.so.0")
    babl = ctypes.CDLL("libbabl-0.1.so.0")
    babl.babl_format.restype = ctypes.c_void_p
    babl.babl_format.argtypes = [ctypes.c_char_p]
    fmt = babl.babl_format(FORMAT.encode())
    capsule = ctypes.pythonapi.PyCapsule_GetPointer
    capsule.restype, capsule.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]

    class Rect(ctypes.Structure):
        _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int), ("width", ctypes.c_int),
                    ("height", ctypes.c_int)]
    gegl.gegl_node_blit.argtypes = [ctypes.c_void_p, ctypes.c_double, ctypes.POINTER(Rect), ctypes.c_void_p,
                                    ctypes.c_void_p, ctypes.c_int, ctypes.c_int]

    def render(node, level, size=(w, h), side=None):
        """The node at scale 2^-level (a new node each time: GEGL would
        otherwise scale down what it cached at level 0), of a layer of
        `size`; in side × side chunks if given, each a request of its own
        (GIMP's canvas)."""
        lw, lh = size[0] >> level, size[1] >> level
        side = side or max(lw, lh)
        out = np.zeros((lh, lw, 4), np.float32)
        for y in range(0, lh, side):
            for x in range(0, lw, side):
                rect = Rect(x, y, min(side, lw - x), min(side, lh - y))
                gegl.gegl_node_blit(capsule(node.__gpointer__, None), 2.0 ** -level, ctypes.byref(rect), fmt,
                                    out[y:, x:].ctypes.data_as(ctypes.c_void_p), lw * 16, 0)   # GEGL_BLIT_DEFAULT
        return out.astype(np.float64)

    def blur_node(sx, sy, linear, inp=source):
        op = graph.create_child("cuda:gaussian-blur")
        op.set_property("std-dev-x", sx)
        op.set_property("std-dev-y", sy)
        op.set_property("linear", linear)
        inp.connect_to("output", op, "input")
        return op

    passed = failed = 0

    def record(name, ok, what):
        nonlocal passed, failed
        print(f"{'PASS' if ok else 'FAIL'}: {name} — {what}")
        passed, failed = passed + ok, failed + (not ok)

    Gegl.config().props.mipmap_rendering = mipmap
    def difference(out, exp):
        d = np.abs(out - exp)
        d[..., :3] = np.where((out[..., 3:] < VISIBLE) | (exp[..., 3:] < VISIBLE), 0.0, d[..., :3])
        return d

    for name, sx, sy, linear, level, control_applies in CASES:
        f = 2.0 ** -level
        inp = render(source, level)                     # GEGL's own level-L input
        out = render(blur_node(sx, sy, linear), level)
        exp = bt.expected(inp, 1.0, sx * f, linear, sigma_y=sy * f)
        err = difference(out, exp).max()
        control = difference(bt.expected(inp, 1.0, sx, linear, sigma_y=sy), exp).max()
        record(name, err <= TOL and (control > 10 * TOL or not control_applies),
               f"level {level}, {inp.shape[1]}×{inp.shape[0]}: σ {sx}×{sy} rendered as {sx * f:g}×{sy * f:g}, "
               f"max error {err:.3g} (tolerance {TOL}); the full σ would be off by {control:.3g}")

    # Level 0: the same with mipmap rendering on and off, and the reference.
    for sx, sy in ((4.0, 4.0), (6.0, 2.0)):
        on = render(blur_node(sx, sy, True), 0)
        Gegl.config().props.mipmap_rendering = False
        off = render(blur_node(sx, sy, True), 0)
        Gegl.config().props.mipmap_rendering = mipmap
        err = difference(on, bt.expected(src, 1.0, sx, True, sigma_y=sy)).max()
        same = np.array_equal(on, off)
        record(f"level0-{sx:g}x{sy:g}", same and err <= TOL,
               f"mipmap rendering on and off {'identical' if same else 'DIFFER'}; max error {err:.3g} "
               f"(tolerance {TOL})")

    # In chunks, with an operation as input: GEGL renders that input only
    # where the blur asks for it, so every chunk's halo at the level must be
    # inside what it asked for.
    big = 512
    pixels = bt.pattern(big, big, 4)
    big_buf = Gegl.Buffer.new(FORMAT, 0, 0, big, big)
    big_buf.set(Gegl.Rectangle.new(0, 0, big, big), FORMAT, list(pixels.astype(np.float32).tobytes()))
    big_source = graph.create_child("gegl:buffer-source")
    big_source.set_property("buffer", big_buf)
    gamma = graph.create_child("gegl:invert-gamma")
    big_source.connect_to("output", gamma, "input")
    for sigma, level, side in CHUNKED:
        f = 2.0 ** -level
        inp = render(gamma, level, (big, big))
        out = render(blur_node(sigma, sigma, True, gamma), level, (big, big), side)
        err = difference(out, bt.expected(inp, 1.0, sigma * f, True)).max()
        record(f"chunked-{sigma:g}-l{level}", err <= TOL,
               f"level {level}, {big >> level}² in {side}-pixel chunks after gegl:invert-gamma: σ {sigma} "
               f"rendered as {sigma * f:g}, max error {err:.3g} (tolerance {TOL})")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[2] == "--mipmap-off":   # the test failing on purpose
        sys.exit(main(sys.argv[1], mipmap=False))
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
