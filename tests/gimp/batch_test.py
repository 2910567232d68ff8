#!/usr/bin/python3
"""Batch tests of plug-in-cuda-gaussian-blur in real GIMP (2.10 or 3.x).

  batch_test.py prepare VERSION WORKDIR   writes inputs and WORKDIR/cases.scm
  batch_test.py check VERSION WORKDIR LOG compares outputs; prints
                                          "N passed, N failed"
  batch_test.py gui-prepare|gui-check ... the same for tests/gimp/gui-test.sh

Expected results come from a double-precision evaluation of the blur's
definition (numpy), written here independently of the engine.  Tolerances:
8/16-bit within 1 LSB; float within 2e-4 (GIMP's float<->float conversions
add a little); GIMP's own Gaussian Blur within the bounds stated in
BUILTIN_TOLERANCE.
"""
import math
import os
import re
import sys

import numpy as np

sys.dont_write_bytecode = True   # no __pycache__ in the source tree (it may be read-only: distcheck)
import files_test  # noqa: E402
try:
    import cv2
except ImportError:   # the GPU machine has Pillow, not OpenCV: 8-bit images only
    cv2 = None

W, H = 96, 80
RNG = np.random.default_rng(20261129)

# Our blur against GIMP's built-in one: max |difference| and mean, in 8-bit
# levels, over the pixels at least `border` away from the image's edges.
# 3.0: gegl:gaussian-blur with the FIR filter, in linear light like ours (its
# kernel reaches ~3.25 sigma, ours 3 sigma).  2.10: plug-in-gauss (IIR,
# std-dev = 0.32 x radius) on the stored values, ours with linear off; its IIR
# treats the image's edges its own way (up to ~20 levels off in the outer
# 3 sigma), so the comparison leaves out that band.
BUILTIN_TOLERANCE = {"3": (2.0, 0.25, 0), "2": (2.0, 0.5, 10)}
BUILTIN_SIGMA = 3.0


# ---------------------------------------------------------------- images
def pattern(h, w, c):
    """Noise on top of hard-edged blocks: the worst case for rounding."""
    yy, xx = np.mgrid[0:h, 0:w]
    blocks = (((xx // 7) + (yy // 5)) % 2).astype(np.float64)
    out = np.empty((h, w, c))
    for ch in range(c):
        out[..., ch] = np.clip(0.6 * np.roll(blocks, ch * 3, axis=1) + 0.4 * RNG.random((h, w)), 0, 1)
    return out


def write_inputs(work):
    g = pattern(H, W, 1)
    imwrite(f"{work}/gray8.png", np.round(g[..., 0] * 255).astype(np.uint8))
    rgba = pattern(H, W, 4)
    a = rgba[..., 3]
    a[:, :12] = 0.0            # fully transparent columns with hidden colour
    a[:, -12:] = 1.0           # and opaque ones
    rgba8 = np.round(rgba * 255).astype(np.uint8)
    imwrite(f"{work}/rgba8.png", rgba8[..., [2, 1, 0, 3]])
    rgb16 = np.round(pattern(H, W, 3) * 65535).astype(np.uint16)
    imwrite(f"{work}/rgb16.png", rgb16[..., ::-1])
    imwrite(f"{work}/grayf.tif", pattern(H, W, 1)[..., 0].astype(np.float32))
    imwrite(f"{work}/rgb1x1.png", np.array([[[40, 160, 220]]], np.uint8))
    imwrite(f"{work}/gray16.png", np.round(pattern(H, W, 1)[..., 0] * 65535).astype(np.uint16))


def imwrite(path, img):
    """Writes img, given in OpenCV's channel order (BGR, BGRA)."""
    if cv2 is not None:
        cv2.imwrite(path, img)
        return
    from PIL import Image
    rgb = img if img.ndim == 2 else img[..., [2, 1, 0, 3][:img.shape[2]]]
    Image.fromarray(np.ascontiguousarray(rgb)).save(path)


def read(path):
    """The image at path as H x W x C, channels in RGB(A) order."""
    if cv2 is None:
        from PIL import Image
        if not os.path.exists(path):
            raise FileNotFoundError(path)
        img = np.array(Image.open(path))
        return img[..., None] if img.ndim == 2 else img
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img is None:
        raise FileNotFoundError(path)
    if img.ndim == 2:
        img = img[..., None]
    elif img.shape[2] == 3:
        img = img[..., ::-1]
    elif img.shape[2] == 4:
        img = img[..., [2, 1, 0, 3]]
    return img


# ---------------------------------------------------------- colour spaces
# Pictures with an ICC profile (assigned in GIMP, the pixels unchanged): in
# GIMP 3 "linear light" means linear in the profile's own space, so the
# reference decodes with the profile's curve.  GIMP 2.10 does not apply
# profiles in its filters: there the sRGB curve stays (the same pixels, the
# profile ignored).
# ICC_PROFILE_DIRS (folders, ':' between them) are searched first: the GPU
# machine has no ICC profiles of its own (tests/gpu/gpu-check.sh brings them).
PROFILE_DIRS = [d for d in os.environ.get("ICC_PROFILE_DIRS", "").split(":") if d] + [
    "/usr/share/color/icc/ghostscript", "/usr/share/color/icc"]
PROFILES = {              # name: file (Debian: libgs-common, icc-profiles-free)
    "romm": "rommrgb.icc",        # ProPhoto / ROMM RGB, gamma 1.8
    "linear": "scrgb.icc",        # scRGB: sRGB primaries, linear curve
    "lstar": "LStar-RGB.icc",     # L* curve, a 256-entry table
    "gray18": "sgray.icc",        # gray, gamma 1.8
    "graylinear": "Gray.icc",     # gray, linear
}


def profile_path(name):
    for d in PROFILE_DIRS:
        if os.path.exists(f"{d}/{PROFILES[name]}"):
            return f"{d}/{PROFILES[name]}"
    raise FileNotFoundError(PROFILES[name])


def profile_curve(path):
    """(decode, encode) of the profile's tone curve (rTRC or kTRC), as numpy
    functions on [0, 1]: a gamma, the identity, or a table (interpolated)."""
    import struct
    data = open(path, "rb").read()
    count = struct.unpack(">I", data[128:132])[0]
    tags = {}
    for i in range(count):
        sig, off, size = struct.unpack(">4sII", data[132 + 12 * i:144 + 12 * i])
        tags[sig] = data[off:off + size]
    trc = tags.get(b"rTRC") or tags[b"kTRC"]
    assert trc[:4] == b"curv", "parametric curves are not used here"
    n = struct.unpack(">I", trc[8:12])[0]
    if n == 0:
        return (lambda v: v), (lambda l: np.clip(l, 0, 1))
    if n == 1:
        g = struct.unpack(">H", trc[12:14])[0] / 256.0
        return (lambda v: v ** g), (lambda l: np.clip(l, 0, 1) ** (1 / g))
    table = np.array(struct.unpack(f">{n}H", trc[12:12 + 2 * n])) / 65535.0
    grid = np.linspace(0, 1, n)
    return (lambda v: np.interp(v, grid, table)), (lambda l: np.interp(l, table, grid))


# ------------------------------------------------------------- reference
def to_linear(v):
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def from_linear(l):
    l = np.clip(l, 0, None)
    return np.where(l <= 0.0031308, 12.92 * l, 1.055 * l ** (1 / 2.4) - 0.055)


def weights(sigma):
    """The engine's kernel: sampled, normalised, radius ceil(3 sigma); sigma 0
    is the identity."""
    r = math.ceil(3 * sigma)
    k = np.arange(-r, r + 1)
    w = np.exp(-k * k / (2 * sigma * sigma)) if sigma > 0 else np.ones(1)
    return k, w / w.sum()


def blur(a, sigma, sigma_y=None, outside=None, grow=False):
    """Vertical then horizontal, in double.  Outside the image: the edge
    (outside None) or a constant pixel; grow: the result grows by the reach."""
    sigma_y = sigma if sigma_y is None else sigma_y
    kx, wx = weights(sigma)
    ky, wy = weights(sigma_y)
    rx, ry = kx[-1], ky[-1]
    px, py = rx * (2 if grow else 1), ry * (2 if grow else 1)
    if outside is None:
        a = np.pad(a, ((py, py), (px, px), (0, 0)), mode="edge")
    else:
        padded = np.empty((a.shape[0] + 2 * py, a.shape[1] + 2 * px, a.shape[2]))
        padded[...] = outside
        padded[py:py + a.shape[0], px:px + a.shape[1]] = a
        a = padded
    h, wd = a.shape[0] - 2 * ry, a.shape[1] - 2 * rx
    out = np.zeros((h, a.shape[1], a.shape[2]))
    for i, wk in enumerate(wy):                     # vertical
        out += wk * a[i:i + h]
    res = np.zeros((h, wd, a.shape[2]))
    for i, wk in enumerate(wx):                     # horizontal
        res += wk * out[:, i:i + wd]
    return res


def expected(stored, scale, sigma, linear, float_stored_linear=False, curve=None,
             sigma_y=None, outside=None, grow=False):
    """What the plug-in must produce, in the stored units (unrounded); curve:
    the (decode, encode) pair of the image's space, default sRGB's; sigma_y,
    outside (a constant pixel, straight, in stored units / scale) and grow as
    for blur()."""
    decode, encode = curve or (to_linear, from_linear)
    if outside is not None:
        outside = np.array(outside, np.float64)[None, None, :].copy()
    x = stored.astype(np.float64) / scale
    c = x.shape[2]
    alpha = c in (2, 4)
    colors = slice(0, c - 1) if alpha else slice(0, c)
    if scale == 1.0:  # float image
        # The plug-in blurs linear values when linear is on, perceptual
        # (sRGB-encoded) ones when off; GIMP converts from/to what is stored.
        if float_stored_linear and not linear:
            x[..., colors] = encode(x[..., colors])
        elif not float_stored_linear and linear:
            x[..., colors] = decode(x[..., colors])
    elif linear:
        x[..., colors] = decode(x[..., colors])
        if outside is not None:
            outside[..., colors] = decode(outside[..., colors])
    if alpha:
        x[..., colors] *= x[..., -1:]
        if outside is not None:
            outside[..., colors] *= outside[..., -1:]
    y = blur(x, sigma, sigma_y, outside, grow)
    if alpha:
        a = y[..., -1:]
        y[..., colors] = np.where(a > 0, y[..., colors] / np.where(a > 0, a, 1), 0)
    if scale == 1.0:
        if float_stored_linear and not linear:
            y[..., colors] = decode(y[..., colors])
        elif not float_stored_linear and linear:
            y[..., colors] = encode(y[..., colors])
        return y
    y = np.clip(y, 0, 1)
    if linear:
        y[..., colors] = encode(y[..., colors])
    return y * scale


# ------------------------------------------------------------------ cases
INPUTS = {"gray8": ("gray8.png", 255.0), "rgba8": ("rgba8.png", 255.0),
          "rgb16": ("rgb16.png", 65535.0), "grayf": ("grayf.tif", 1.0),
          "rgb1x1": ("rgb1x1.png", 255.0), "gray16": ("gray16.png", 65535.0)}

# name, input, sigma, linear, selection
BLUR_CASES = [
    ("gray8-small-linear", "gray8", 1.5, True, None),
    ("gray8-large-perceptual", "gray8", 30.0, False, None),
    ("rgba8-linear", "rgba8", 3.0, True, None),
    ("rgba8-perceptual-large", "rgba8", 20.0, False, None),
    ("rgb16-linear", "rgb16", 2.0, True, None),
    ("rgb16-perceptual-large", "rgb16", 25.0, False, None),
    ("grayf-linear", "grayf", 2.0, True, None),
    ("grayf-perceptual", "grayf", 8.0, False, None),
    ("gray8-rect-selection", "gray8", 4.0, True, ("rect", 20, 15, 40, 30)),
    ("rgba8-rect-selection", "rgba8", 6.0, False, ("rect", 50, 30, 30, 40)),
    ("rgb16-feathered-ellipse", "rgb16", 4.0, True, ("ellipse", 18, 10, 60, 56, 10)),
    ("gray8-feathered-ellipse", "gray8", 10.0, False, ("ellipse", 10, 12, 70, 50, 8)),
    ("gray8-empty-selection", "gray8", 5.0, True, ("empty",)),
    ("rgb-1x1-image", "rgb1x1", 50.0, True, None),
]
# name, input, profile, sigma: linear light in the profile's space (GIMP 3);
# "-float" converts the image to float first.
CM_CASES = [
    ("cm-rgba8-romm", "rgba8", "romm", 4.0),
    ("cm-rgba8-linear", "rgba8", "linear", 4.0),
    ("cm-rgba8-lstar", "rgba8", "lstar", 3.0),
    ("cm-rgb16-romm", "rgb16", "romm", 4.0),
    ("cm-rgb16-linear", "rgb16", "linear", 2.5),
    ("cm-rgb16-lstar", "rgb16", "lstar", 3.0),
    ("cm-gray16-gamma18", "gray16", "gray18", 4.0),
    ("cm-rgb16-romm-float", "rgb16", "romm", 4.0),
    ("cm-gray8-gamma18", "gray8", "gray18", 4.0),
    ("cm-gray8-linear", "gray8", "graylinear", 3.0),
    ("cm-grayf-gamma18", "grayf", "gray18", 4.0),
]
# Also against GIMP's own FIR blur on the same picture: within 2 levels.
CM_BUILTIN = ["cm-rgba8-romm", "cm-rgb16-romm", "cm-gray8-gamma18"]
# GIMP 2.10: the profile changes nothing (sRGB's curve, as its own blur).
CM_CASES_2 = [("cm-rgba8-romm", "rgba8", "romm", 4.0)]

# name, input, how it goes wrong
ERROR_CASES = [
    ("error-sigma-zero", "gray8", "sigma 0"),
    ("error-sigma-above-1500", "rgba8", "sigma 1600"),
    ("error-sigma-negative", "gray8", "sigma -3"),
    ("error-sigma-nan", "gray8", "sigma (/ 0. 0.)"),
    ("error-layer-group", "gray8", "group"),
    ("error-indexed", "rgba8", "indexed"),
    ("error-missing-drawable", "gray8", "no drawable"),
]


def scheme_bool(b):
    return "TRUE" if b else "FALSE"


def scm_call(version, img, drw, sigma, linear, proc="plug-in-cuda-gaussian-blur"):
    """The call of `proc` (the plug-in, or its copy-only twin for perf_in_gimp.py)."""
    if version == "3":
        return (f"({proc} #:run-mode RUN-NONINTERACTIVE #:image {img} "
                f"#:drawables (vector {drw}) #:sigma {sigma} #:linear {scheme_bool(linear)})")
    return f"({proc} RUN-NONINTERACTIVE {img} {drw} {sigma} {scheme_bool(linear)})"


def scm_load(version, path):
    if version == "3":
        return (f"(img (car (gimp-file-load RUN-NONINTERACTIVE \"{path}\")))\n"
                f"       (drw (vector-ref (car (gimp-image-get-layers img)) 0))")
    return (f"(img (car (gimp-file-load RUN-NONINTERACTIVE \"{path}\" \"{path}\")))\n"
            f"       (drw (car (gimp-image-get-active-layer img)))")


def scm_save(version, img, drw, path):
    if version == "3":
        return f"(gimp-file-save RUN-NONINTERACTIVE {img} \"{path}\" -1)"
    return f"(gimp-file-save RUN-NONINTERACTIVE {img} {drw} \"{path}\" \"{path}\")"


# The message of the last error a script caught: GIMP 3.2's Script-Fu no
# longer prints a failed call's message when `catch` handles it, so the
# cases print it themselves (what a script's author would see).
SCM_KEEP_ERROR = """(define cgb-last-error "")
(define cgb-error-hook *error-hook*)
(set! *error-hook*
  (lambda args
    (set! cgb-last-error (if (and (pair? args) (string? (car args))) (car args) "(no message)"))
    (apply cgb-error-hook args)))
"""


def scm_case(version, name, body):
    # Each case reports itself; an error inside is caught so the others run.
    return f"(gimp-message (if (catch #f {body} #t) \"CASE {name} OK\" \"CASE {name} ERROR\"))\n"


def cm_out(name, inp):
    return f"out-{name}.{'tif' if inp == 'grayf' or '-float' in name else 'png'}"


def cm_scheme(version, work):
    """The colour-managed cases: the profile assigned (pixels unchanged),
    then the blur in linear light; GIMP's own FIR blur on some, alone."""
    import shutil
    out = []
    cases = [(n, i, p, sg, False) for n, i, p, sg in (CM_CASES if version == "3" else CM_CASES_2)]
    if version == "3":
        cases += [(n + "-gimp", i, p, sg, True) for n, i, p, sg in CM_CASES if n in CM_BUILTIN]
    for name, inp, prof, sigma, builtin in cases:
        icc = f"{work}/{PROFILES[prof]}"
        shutil.copy(profile_path(prof), icc)
        to_float = ("\n  (gimp-image-convert-precision img PRECISION-FLOAT-NON-LINEAR)"
                    if name.endswith("-float") else "")
        call = (f"(gimp-drawable-merge-new-filter drw \"gegl:gaussian-blur\" 0 LAYER-MODE-REPLACE 1.0 "
                f"\"std-dev-x\" {sigma} \"std-dev-y\" {sigma} \"filter\" \"fir\")" if builtin
                else scm_call(version, 'img', 'drw', sigma, True))
        where = icc if version == "3" else f"file://{icc}"   # 2.10 takes a URI
        body = (f"(let* ({scm_load(version, f'{work}/{INPUTS[inp][0]}')})\n"
                f"  (gimp-image-set-color-profile-from-file img \"{where}\"){to_float}\n"
                f"  {call}\n  {scm_save(version, 'img', 'drw', f'{work}/{cm_out(name, inp)}')})")
        out.append(scm_case(version, name, body))
    return out


def write_scheme(version, work):
    out = []
    for name, inp, sigma, linear, sel in BLUR_CASES:
        path = f"{work}/{INPUTS[inp][0]}"
        ext = "tif" if inp == "grayf" else "png"
        select = ""
        if sel and sel[0] == "rect":
            select = f"(gimp-image-select-rectangle img CHANNEL-OP-REPLACE {sel[1]} {sel[2]} {sel[3]} {sel[4]})"
        elif sel and sel[0] == "empty":   # a selection with nothing in it
            select = ("(gimp-image-select-rectangle img CHANNEL-OP-REPLACE 10 10 20 20) "
                      "(gimp-image-select-rectangle img CHANNEL-OP-SUBTRACT 10 10 20 20)")
        elif sel:
            select = (f"(gimp-context-set-feather TRUE) (gimp-context-set-feather-radius {sel[5]} {sel[5]}) "
                      f"(gimp-image-select-ellipse img CHANNEL-OP-REPLACE {sel[1]} {sel[2]} {sel[3]} {sel[4]}) "
                      f"(gimp-context-set-feather FALSE)")
        body = (f"(let* ({scm_load(version, path)})\n"
                f"  (gimp-message (string-append \"CASE {name} PRECISION \" "
                f"(number->string (car (gimp-image-get-precision img)))))\n"
                f"  {select}\n  {scm_call(version, 'img', 'drw', sigma, linear)}\n"
                f"  {scm_save(version, 'img', 'drw', f'{work}/out-{name}.{ext}')})")
        out.append(scm_case(version, name, body))

    # GIMP 3 takes several drawables: each is blurred (one undo group).
    if version == "3":
        body = (f"(let* ({scm_load(version, f'{work}/gray8.png')}\n"
                f"       (top (car (gimp-layer-copy drw))))\n"
                f"  (gimp-image-insert-layer img top 0 0)\n"
                f"  (plug-in-cuda-gaussian-blur #:run-mode RUN-NONINTERACTIVE #:image img "
                f"#:drawables (vector drw top) #:sigma 3 #:linear TRUE)\n"
                f"  {scm_save(version, 'img', 'top', f'{work}/out-multi-top.png')}\n"
                f"  (gimp-item-set-visible top FALSE)\n"
                f"  {scm_save(version, 'img', 'drw', f'{work}/out-multi-bottom.png')})")
        out.append(scm_case(version, "multiple-drawables", body))

    out += cm_scheme(version, work)

    # GIMP's own Gaussian Blur on the same image.
    path = f"{work}/gray8.png"
    if version == "3":
        builtin = (f"(gimp-drawable-merge-new-filter drw \"gegl:gaussian-blur\" 0 LAYER-MODE-REPLACE 1.0 "
                   f"\"std-dev-x\" {BUILTIN_SIGMA} \"std-dev-y\" {BUILTIN_SIGMA} \"filter\" \"fir\")")
    else:
        radius = BUILTIN_SIGMA / 0.32
        builtin = f"(plug-in-gauss RUN-NONINTERACTIVE img drw {radius} {radius} 0)"
    for name, call in (("builtin-gimp", builtin),
                       ("builtin-ours", scm_call(version, "img", "drw", BUILTIN_SIGMA, version == "3"))):
        body = (f"(let* ({scm_load(version, path)})\n  {call}\n"
                f"  {scm_save(version, 'img', 'drw', f'{work}/out-{name}.png')})")
        out.append(scm_case(version, name, body))

    # Bad input: the call must fail and leave the pixels as they were.
    for name, inp, how in ERROR_CASES:
        path = f"{work}/{INPUTS[inp][0]}"
        target, setup = "drw", ""
        sigma = 2.0
        if how.startswith("sigma"):
            sigma = how.split(" ", 1)[1]   # a Scheme expression: (/ 0. 0.) is NaN
        elif how == "group":
            if version == "3":
                setup = ("(grp (car (gimp-group-layer-new img \"group\")))\n"
                         "       (ins (gimp-image-insert-layer img grp 0 -1))")
            else:
                setup = ("(grp (car (gimp-layer-group-new img)))\n"
                         "       (ins (gimp-image-insert-layer img grp 0 -1))")
            target = "grp"
        elif how == "no drawable":
            target = "" if version == "3" else "-1"   # an empty array / an invalid id
        elif how == "indexed":
            setup = ("(cnv (gimp-image-convert-indexed img CONVERT-DITHER-NONE "
                     "CONVERT-PALETTE-GENERATE 255 FALSE FALSE \"\"))")
        bind = f"{scm_load(version, path)}" + (f"\n       {setup}" if setup else "")
        body = (f"(let* ({bind})\n"
                f"  {scm_save(version, 'img', 'drw', f'{work}/before-{name}.png')}\n"
                f"  (gimp-message (if (catch #f {scm_call(version, 'img', target, sigma, True)} #t) "
                f"\"CASE {name} CALL-SUCCEEDED\" \"CASE {name} CALL-FAILED\"))\n"
                f"  (gimp-message (string-append \"CASE {name} ERROR-MESSAGE \" cgb-last-error))\n"
                f"  {scm_save(version, 'img', 'drw', f'{work}/out-{name}.png')})")
        out.append(scm_case(version, name, body))
    files_test.prepare(work, read)
    out += files_test.scheme(version, work, scm_load, scm_call, scm_save)
    with open(f"{work}/cases.scm", "w") as f:
        f.write("(gimp-message-set-handler CONSOLE)\n" + SCM_KEEP_ERROR + "\n".join(out))


# ------------------------------------------------------------------ check
def difference(out, ref):
    """|out - ref| per sample, ignoring the colour of pixels whose alpha is 0
    in `out`: GIMP does not keep (or export) the colour of transparent pixels."""
    d = np.abs(out - ref)
    if out.shape[2] in (2, 4):
        d[..., :-1] = np.where(out[..., -1:] == 0, 0, d[..., :-1])
    return d


def check_cm(version, work, status, record):
    """The colour-managed cases against the reference decoded with the
    profile's curve (GIMP 3) or sRGB's (2.10); and GIMP's own FIR blur."""
    for name, inp, prof, sigma in (CM_CASES if version == "3" else CM_CASES_2):
        if status(name) != "OK":
            record(name, False, f"script status {status(name)}")
            continue
        src = read(f"{work}/{INPUTS[inp][0]}")
        out = read(f"{work}/{cm_out(name, inp)}").astype(np.float64)
        scale = INPUTS[inp][1]
        curve = profile_curve(profile_path(prof)) if version == "3" else None
        exp = expected(src, scale, sigma, True, curve=curve)
        tol = 1.0
        if cm_out(name, inp).endswith(".tif"):   # float: stored in [0, 1]
            exp, tol = exp / scale, 2e-4
        if out.shape[2] != exp.shape[2]:
            record(name, False, f"{out.shape[2]} channels back, {exp.shape[2]} expected")
            continue
        err = difference(out, exp).max()
        srgb_err = difference(out, expected(src, scale, sigma, True) / (scale if tol < 1 else 1)).max()
        srgb_err = f"{srgb_err:.3g}" if version == "3" else "the same"
        record(name, err <= tol, f"{PROFILES[prof]}: max error {err:.3g} (tolerance {tol}); "
                                 f"against sRGB's curve it would be {srgb_err}")
        if version == "3" and name in CM_BUILTIN:
            gimp = f"{name}-gimp"
            if status(gimp) != "OK":
                record(gimp, False, f"script status {status(gimp)}")
                continue
            theirs = read(f"{work}/{cm_out(gimp, inp)}").astype(np.float64)
            if inp == "rgba8":   # premultiplied: what shows of a pixel's colour
                theirs[..., :3] *= theirs[..., 3:] / 255.0
                ours = out.copy()
                ours[..., :3] *= ours[..., 3:] / 255.0
            else:
                ours = out
            d = np.abs(theirs - ours) * 255.0 / scale   # in 8-bit levels
            record(gimp, d.max() <= 2.0, f"against GIMP's own FIR blur: max {d.max():.3g}, "
                                         f"mean {d.mean():.3f} 8-bit levels (tolerance 2)")


def check(version, work, log_path):
    log = open(log_path, errors="replace").read()
    results = []

    def record(name, ok, detail=""):
        results.append((name, ok))
        print(f"{'PASS' if ok else 'FAIL'}: {name}{' — ' + detail if detail else ''}")

    def status(name):
        m = re.findall(rf"CASE {re.escape(name)} (OK|ERROR)$", log, re.M)
        return m[-1] if m else "MISSING"

    for name, inp, sigma, linear, sel in BLUR_CASES:
        st = status(name)
        ext = "tif" if inp == "grayf" else "png"
        if st != "OK":
            record(name, False, f"script status {st}")
            continue
        src = read(f"{work}/{INPUTS[inp][0]}")
        out = read(f"{work}/out-{name}.{ext}").astype(np.float64)
        scale = INPUTS[inp][1]
        prec = re.findall(rf"CASE {re.escape(name)} PRECISION (\d+)$", log, re.M)
        stored_linear = bool(prec) and int(prec[-1]) == 600  # GIMP_PRECISION_FLOAT_LINEAR
        exp = expected(src, scale, sigma, linear, stored_linear)
        tol = 2e-4 if scale == 1.0 else 1.0
        orig = src.astype(np.float64)
        if sel is None:
            err = difference(out, exp).max()
            record(name, err <= tol, f"max error {err:.3g} (tolerance {tol})")
        elif sel[0] == "empty":
            # GIMP's convention: an empty selection selects everything.
            err = difference(out, exp).max()
            record(name, err <= tol, f"whole drawable blurred, max error {err:.3g} (tolerance {tol})")
        elif sel[0] == "rect":
            x, y, w, h = sel[1:]
            inside = np.zeros(out.shape[:2], bool)
            inside[y:y + h, x:x + w] = True
            err_in = difference(out, exp)[inside].max()
            err_out = difference(out, orig)[~inside].max()
            record(name, err_in <= tol and err_out == 0,
                   f"inside max error {err_in:.3g} (tolerance {tol}), outside changed by {err_out:.3g}")
        else:
            x, y, w, h, feather = sel[1:]
            yy, xx = np.mgrid[0:out.shape[0], 0:out.shape[1]] + 0.5
            cx, cy, rx, ry = x + w / 2, y + h / 2, w / 2, h / 2
            def within(margin):
                return ((xx - cx) / (rx + margin)) ** 2 + ((yy - cy) / (ry + margin)) ** 2 <= 1
            # The feathered mask's tails reach ~2 feather radii; GIMP blends
            # through it in float, so allow half an 8-bit level there.
            core, outside = within(-2 * feather), ~within(2 * feather)
            tol = max(tol, 0.5 * scale / 255)
            lo, hi = np.minimum(orig, exp) - tol, np.maximum(orig, exp) + tol
            err_core = difference(out, exp)[core].max()
            err_out = difference(out, orig)[outside].max()
            between = ((out >= lo) & (out <= hi)).all()
            record(name, err_core <= tol and err_out <= tol and between,
                   f"core max error {err_core:.3g}, outside changed by {err_out:.3g}, "
                   f"feathered band between original and blurred: {between}")

    if version == "3":
        st = status("multiple-drawables")
        try:
            exp = expected(read(f"{work}/gray8.png"), 255.0, 3.0, True)
            # The export of a two-layer image carries alpha; OpenCV reads gray
            # with alpha as BGRA: compare the gray values.
            errs = [np.abs(read(f"{work}/out-multi-{w}.png")[..., :1].astype(np.float64) - exp).max()
                    for w in ("top", "bottom")]
            record("multiple-drawables", st == "OK" and max(errs) <= 1.0,
                   f"both layers blurred, max errors {errs[0]:.3g} / {errs[1]:.3g}")
        except FileNotFoundError:
            record("multiple-drawables", False, f"script status {st}")

    if status("builtin-gimp") == "OK" and status("builtin-ours") == "OK":
        a = read(f"{work}/out-builtin-gimp.png").astype(np.float64)
        b = read(f"{work}/out-builtin-ours.png").astype(np.float64)
        max_tol, mean_tol, border = BUILTIN_TOLERANCE[version]
        d = np.abs(a - b)[border:a.shape[0] - border, border:a.shape[1] - border]
        record("builtin-comparison", d.max() <= max_tol and d.mean() <= mean_tol,
               f"vs GIMP's own Gaussian Blur at sigma {BUILTIN_SIGMA}, {border} px from the edges: "
               f"max {d.max():.0f}, mean {d.mean():.3f} levels (tolerance {max_tol}, {mean_tol})")
    else:
        record("builtin-comparison", False,
               f"script status {status('builtin-gimp')}/{status('builtin-ours')}")

    check_cm(version, work, status, record)

    for name, inp, how in ERROR_CASES:
        failed = re.search(rf"CASE {re.escape(name)} CALL-FAILED$", log, re.M)
        st = status(name)
        try:
            # Exported twice, an indexed image with alpha may name its
            # transparent pixels' hidden colour differently: compare what shows.
            same = difference(read(f"{work}/out-{name}.png").astype(np.float64),
                              read(f"{work}/before-{name}.png").astype(np.float64)).max() == 0
        except FileNotFoundError:
            same = False
        record(name, bool(failed) and st == "OK" and same,
               f"call failed: {bool(failed)}, pixels unchanged: {same}, script status {st}")

    # Our messages must reach the user.
    # The README's one-liner (gray8.png, sigma 2.5, linear TRUE).
    try:
        out = read(f"{work}/out-readme-oneliner.png").astype(np.float64)
        err = np.abs(out - expected(read(f"{work}/gray8.png"), 255.0, 2.5, True)).max()
        record("readme-oneliner", err <= 1.0, f"max error {err:.3g}")
    except FileNotFoundError:
        record("readme-oneliner", False, "no output")

    texts = ["Cannot blur a layer group", "Cannot blur an indexed image", "No valid drawable was given"]
    if version == "2":
        # 2.10 does not range-check FLOAT arguments: we do.  (GIMP 3 checks
        # the declared range itself, and its message stays inside `catch`.)
        texts += ["Sigma must be between 0.1 and 1500 pixels (got 1600)"]
    for text in texts:
        record(f"message '{text}'", text in log)

    files_test.check(version, work, log, read, record, expected)

    passed = sum(ok for _, ok in results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


# ------------------------------------------------------------- GUI tests
GUI_SIGMA_TYPED = 8.0
LOCALES = {"ko": "ko_KR.UTF-8", "de": "de_DE.UTF-8"}


def dialog_title(lang):
    """The dialog's title in `lang`, from our own catalogue."""
    return translation(lang, "CUDA Gaussian Blur") if lang else "CUDA Gaussian Blur"


def translation(lang, msgid):
    """msgstr of `msgid` in our po/LANG.po."""
    po = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "po", f"{lang}.po"),
              encoding="utf-8").read()
    m = re.search(r'^msgid "%s"\nmsgstr "(.+)"$' % re.escape(msgid), po, re.M)
    if not m:
        raise SystemExit(f"no translation of {msgid!r} in po/{lang}.po")
    return m.group(1)


def write_gui_scheme(version, work):
    imwrite(f"{work}/in.png", np.round(pattern(240, 320, 3) * 255).astype(np.uint8))
    path = f"{work}/in.png"
    if version == "3":
        call = ("(catch #f (plug-in-cuda-gaussian-blur #:run-mode RUN-INTERACTIVE #:image img "
                "#:drawables (vector drw) #:sigma 2 #:linear TRUE))")
        found = f'(pair? (car (file-glob #:pattern "{work}/undone.marker" #:filename-encoding FALSE)))'
        image = "(img (vector-ref (car (gimp-get-images)) 0)) (drw (vector-ref (car (gimp-image-get-layers img)) 0))"
    else:
        call = "(catch #f (plug-in-cuda-gaussian-blur RUN-INTERACTIVE img drw 2 TRUE))"
        found = f'(> (car (file-glob "{work}/undone.marker" 0)) 0)'
        image = "(img (vector-ref (cadr (gimp-image-list)) 0)) (drw (car (gimp-image-get-active-layer img)))"
    with open(f"{work}/gui1.scm", "w") as f:
        f.write(f"(gimp-message-set-handler CONSOLE)\n"
                f"(let* ({scm_load(version, path)})\n"
                f"  (gimp-display-new img)\n"
                f"  {call}\n  {scm_save(version, 'img', 'drw', f'{work}/cancelled.png')}\n"
                f"  {call}\n  {scm_save(version, 'img', 'drw', f'{work}/after.png')})\n")
    with open(f"{work}/gui2.scm", "w") as f:
        f.write(f"(define (wait-for-undo) (if (not {found}) (wait-for-undo)))\n"
                f"(wait-for-undo)\n"
                f"(let* ({image})\n  {scm_save(version, 'img', 'drw', f'{work}/undone.png')})\n"
                f"(gimp-quit 0)\n")


def gui_check(version, work, log_path):
    src = read(f"{work}/in.png")
    results = []

    def record(name, ok, detail=""):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'}: {name}{' — ' + detail if detail else ''}")

    def load(name):
        try:
            return read(f"{work}/{name}")
        except FileNotFoundError:
            return None

    cancelled, after, undone = load("cancelled.png"), load("after.png"), load("undone.png")
    record("Cancel leaves the image untouched", cancelled is not None and np.array_equal(cancelled, src))
    if after is not None:
        err = np.abs(after.astype(np.float64) - expected(src, 255.0, GUI_SIGMA_TYPED, True)).max()
        record(f"OK applies sigma {GUI_SIGMA_TYPED:g} as typed", err <= 1.0, f"max error {err:.3g}")
    else:
        record(f"OK applies sigma {GUI_SIGMA_TYPED:g} as typed", False, "no output")
    record("Ctrl+Z restores the original pixels", undone is not None and np.array_equal(undone, src))
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    return 0 if all(results) else 1


# ------------------------------------------------------ robustness tests
# Each scenario runs in its own GIMP process (faults come from GBLUR_FAULT in
# the environment, read when the plug-in's engine starts).
FAULT_SCENARIOS = {          # name: (GBLUR_FAULT, call must succeed)
    "fault-cpu-stripe": ("cpu-stripe:2", False),
    "fault-cpu-alloc": ("cpu-alloc", False),
    "fault-host-alloc": ("host-alloc", False),
    "fault-cuda-init": ("cuda-init", True),
}
# The kill and the Cancel act where the plug-in stalls (GBLUR_FAULT=stall:N):
# after the first progress step, so the blur has begun and not finished.
STALL_FAULT = "stall:2"
HUGE = 10000                 # the huge image's side
HUGE_RECT = (3000, 3000, 4000, 4000)
HUGE_CROP = (2900, 2900, 200, 200)
HUGE_SIGMA = 3.0


def write_robust_scheme(version, work, scenario):
    body = ""
    if scenario == "cancel":   # GUI: Cancel pressed while the plug-in stalls in mid-blur
        big = RNG.integers(0, 256, (1500, 2000, 4), dtype=np.uint8)
        imwrite(f"{work}/big.png", big)
        body = (f"(let* ({scm_load(version, f'{work}/big.png')})\n"
                f"  (gimp-display-new img)\n"
                f"  {scm_save(version, 'img', 'drw', f'{work}/before.png')}\n"
                f"  (catch #f {scm_call(version, 'img', 'drw', 5, True)})\n"
                f"  {scm_save(version, 'img', 'drw', f'{work}/after.png')})\n"
                f"(gimp-quit TRUE)")   # the image is dirty: no question asked
    elif scenario in FAULT_SCENARIOS or scenario == "kill":
        big = pattern(1500, 2000, 4 if scenario == "kill" else 1)
        name = "big.png"
        imwrite(f"{work}/{name}", np.round(big[..., [2, 1, 0, 3]] * 255).astype(np.uint8)
                    if scenario == "kill" else np.round(big[..., 0] * 255).astype(np.uint8))
        sigma = 5 if scenario == "kill" else 2
        body = (f"(let* ({scm_load(version, f'{work}/{name}')})\n"
                f"  {scm_save(version, 'img', 'drw', f'{work}/before.png')}\n"
                f"  (gimp-message (if (catch #f {scm_call(version, 'img', 'drw', sigma, True)} #t) "
                f"\"CASE {scenario} CALL-SUCCEEDED\" \"CASE {scenario} CALL-FAILED\"))\n"
                f"  {scm_save(version, 'img', 'drw', f'{work}/after.png')})")
    elif scenario == "huge":
        x, y, w, h = HUGE_RECT
        cx, cy, cw, ch = HUGE_CROP
        if version == "3":
            new_layer = f"(car (gimp-layer-new img \"big\" {HUGE} {HUGE} GRAY-IMAGE 100 LAYER-MODE-NORMAL))"
        else:
            new_layer = f"(car (gimp-layer-new img {HUGE} {HUGE} GRAY-IMAGE \"big\" 100 LAYER-MODE-NORMAL))"
        body = (f"(let* ((img (car (gimp-image-new {HUGE} {HUGE} GRAY)))\n"
                f"       (drw {new_layer}))\n"
                f"  (gimp-image-insert-layer img drw 0 0)\n"
                f"  (gimp-context-set-default-colors)\n"
                f"  (gimp-drawable-fill drw FILL-WHITE)\n"
                f"  (gimp-image-select-rectangle img CHANNEL-OP-REPLACE {x} {y} {w} {h})\n"
                f"  (gimp-drawable-edit-fill drw FILL-FOREGROUND)\n"
                f"  (gimp-selection-none img)\n"
                f"  (gimp-message (if (catch #f {scm_call(version, 'img', 'drw', HUGE_SIGMA, True)} #t) "
                f"\"CASE huge CALL-SUCCEEDED\" \"CASE huge CALL-FAILED\"))\n"
                f"  (gimp-image-crop img {cw} {ch} {cx} {cy})\n"
                f"  {scm_save(version, 'img', 'drw', f'{work}/after.png')})")
    with open(f"{work}/robust.scm", "w") as f:
        f.write("(gimp-message-set-handler CONSOLE)\n" + body + "\n")


def robust_check(version, work, scenario, log_path):
    log = open(log_path, errors="replace").read()
    called = re.findall(rf"CASE {scenario} (CALL-SUCCEEDED|CALL-FAILED)", log)
    ok_call = bool(called) and called[-1] == "CALL-SUCCEEDED"
    try:
        after = read(f"{work}/after.png").astype(np.float64)
    except FileNotFoundError:
        after = None
    if scenario == "cancel":
        before = read(f"{work}/before.png").astype(np.float64)
        finished = "ms (read, blur, write)" in log
        unchanged = after is not None and difference(after, before).max() == 0
        pressed = os.path.exists(f"{work}/cancel.marker")
        ok = pressed and not finished and unchanged
        detail = (f"Cancel pressed in the progress window during the blur {pressed}: blur finished {finished}, "
                  f"pixels unchanged {unchanged}")
    elif scenario in FAULT_SCENARIOS or scenario == "kill":
        fault, must_succeed = FAULT_SCENARIOS.get(scenario, ("killed mid-blur", False))
        before = read(f"{work}/before.png").astype(np.float64)
        if must_succeed:
            err = None if after is None else np.abs(after - expected(read(f"{work}/big.png"), 255.0, 2.0, True)).max()
            ok = ok_call and err is not None and err <= 1.0
            detail = f"{fault}: call succeeded {ok_call}, max error {err}"
        else:
            unchanged = after is not None and difference(after, before).max() == 0
            ok = bool(called) and not ok_call and unchanged
            detail = f"{fault}: call failed {bool(called) and not ok_call}, pixels unchanged {unchanged}"
    else:  # huge
        x, y, w, h = HUGE_RECT
        cx, cy, cw, ch = HUGE_CROP
        r = math.ceil(3 * HUGE_SIGMA)
        area = np.full((ch + 2 * r, cw + 2 * r, 1), 255.0)
        yy, xx = np.mgrid[cy - r:cy + ch + r, cx - r:cx + cw + r]
        area[((xx >= x) & (xx < x + w) & (yy >= y) & (yy < y + h))] = 0.0
        exp = expected(area, 255.0, HUGE_SIGMA, True)[r:r + ch, r:r + cw]
        err = None if after is None else np.abs(after[..., :1] - exp).max()
        steps = re.findall(r"cuda-gaussian-blur: (\d+) progress steps", log)
        ok = ok_call and err is not None and err <= 1.0 and bool(steps) and int(steps[-1]) > 1
        detail = (f"{HUGE}×{HUGE} gray: call succeeded {ok_call}, crop max error {err}, "
                  f"progress steps {steps[-1] if steps else 0}")
    print(f"{'PASS' if ok else 'FAIL'}: {scenario} — {detail}")
    return 0 if ok else 1


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "prepare":
        write_inputs(sys.argv[3])
        write_scheme(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "check":
        return check(sys.argv[2], sys.argv[3], sys.argv[4])
    if len(sys.argv) == 5 and sys.argv[1] == "robust-prepare":
        write_robust_scheme(sys.argv[2], sys.argv[3], sys.argv[4])
        return 0
    if len(sys.argv) == 6 and sys.argv[1] == "robust-check":
        return robust_check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    if len(sys.argv) == 3 and sys.argv[1] == "fault-of":
        name = sys.argv[2]
        print(FAULT_SCENARIOS[name][0] if name in FAULT_SCENARIOS else
              STALL_FAULT if name in ("kill", "cancel") else "")
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "gui-prepare":
        write_gui_scheme(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "gui-check":
        return gui_check(sys.argv[2], sys.argv[3], sys.argv[4])
    if len(sys.argv) == 3 and sys.argv[1] == "dialog-title":
        print(dialog_title(sys.argv[2]))
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "translation":
        print(translation(sys.argv[2], sys.argv[3]))
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "locale":
        print(LOCALES[sys.argv[2]])
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
