#!/usr/bin/python3
"""cuda:gaussian-blur inside real GIMP 3, and the procedure through it.
  gimp_op_test.py prepare WORK          writes the pictures and the scripts
  gimp_op_test.py check WORK LOG...     compares, prints "N passed, N failed"
Scripts: merge.scm (with the operation installed: merged into layers and a
selection, appended as a layer effect and saved in XCF, the procedure on
three layers), reopen.scm (a new GIMP: the XCF opened and exported),
fallback.scm (the operation not installed: the same procedure calls).
edit.py and edit-reopen.py (python-fu: libgimp's filter config) append the
operation as a layer effect, change its std-devs, save and reopen the XCF.
Each compares with the double-precision reference of the batch suite."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gimp"))
import batch_test as bt   # noqa: E402

# name, input, std-dev-x, std-dev-y, linear, selection (x, y, w, h) or None
MERGE_CASES = [
    ("op-gray8", "gray8", 2.5, 2.5, True, None),
    ("op-rgba8", "rgba8", 3.0, 3.0, True, None),
    ("op-rgba8-wide", "rgba8", 5.0, 1.5, True, None),
    ("op-rgb16", "rgb16", 2.0, 2.0, True, None),
    ("op-rgb16-perceptual", "rgb16", 4.0, 4.0, False, None),
    ("op-grayf", "grayf", 2.0, 3.0, True, None),
    ("op-rgba8-fft", "rgba8", 40.0, 40.0, True, None),   # the CPU's FFT path
    ("op-gray8-selection", "gray8", 4.0, 4.0, True, (20, 15, 40, 30)),
]
# The procedure, through the operation (merge.scm) and without it (fallback.scm).
PROC_CASES = [("proc-gray8", "gray8", 2.0), ("proc-rgba8", "rgba8", 3.5), ("proc-rgb16", "rgb16", 1.5),
              ("proc-rgba8-fft", "rgba8", 40.0)]
# With a selection the procedure keeps to its pixel path (it reads around the
# selection; a filter would not): blurred as the whole image, inside it.
PROC_SELECTION = ("proc-gray8-selection", "gray8", 3.0, (20, 15, 40, 30))
XCF_CASE = ("op-xcf", "rgba8", 3.0, 2.0)
# "Editable later" (edit.py, edit-reopen.py; Python, for libgimp's filter
# config): appended as a layer effect at the first std-devs, exported; its
# std-devs changed through gimp_drawable_filter_get_config + update, exported
# again, saved in XCF; a new GIMP reopens it, reads the std-devs back and
# exports it.  name, input, first (x, y), edited (x, y)
EDIT_CASE = ("edit", "rgba8", (3.0, 3.0), (1.5, 5.0))
# fault.scm runs in a GIMP whose process has GBLUR_FAULT=cuda-init or
# cuda-launch: the operation's engine falls back to the CPU, GIMP stays up.
FAULT_CASES = [("fault-gray8", "gray8", 3.0, 3.0, True, None), ("fault-rgba8", "rgba8", 2.0, 2.0, True, None)]
# No false success (truth-TAG.scm, run with the fault in GIMP's process and so
# in the plug-in's): the procedure either fails, naming the cause, with the
# image untouched, or leaves the blur; the filter merged directly leaves the
# blur or the untouched layer, saying which in GIMP's messages.
TRUTH_FAULTS = {"cpu-alloc": "GBLUR_FAULT=cpu-alloc", "cpu-stripe": "GBLUR_FAULT=cpu-stripe:2",
                "cuda-forced": "GBLUR_BACKEND=cuda",
                "gimp-only": "GBLUR_FAULT=cpu-alloc in GIMP's process only"}
# There the procedure must find the layer untouched and blur it itself.
TRUTH_REDO = "gimp-only"
TRUTH_PROC = ("rgba8", 3.0)
TRUTH_MERGE = ("gray8", 3.0)


def ext(inp):
    return "tif" if inp == "grayf" else "png"


def prop_bool(b):
    return "TRUE" if b else "FALSE"


def merge_call(sx, sy, linear, append=False):
    how = "append" if append else "merge"
    return (f"(gimp-drawable-{how}-new-filter drw \"cuda:gaussian-blur\" \"\" LAYER-MODE-REPLACE 1.0 "
            f"\"std-dev-x\" {sx} \"std-dev-y\" {sy} \"linear\" {prop_bool(linear)})")


def case(name, body):
    return bt.scm_case("3", name, body)


def prepare(work):
    bt.write_inputs(work)
    merge, fallback, fault = [], [], []
    for name, inp, sx, sy, linear, sel in MERGE_CASES + FAULT_CASES:
        select = (f"(gimp-image-select-rectangle img CHANNEL-OP-REPLACE {sel[0]} {sel[1]} {sel[2]} {sel[3]})"
                  if sel else "")
        body = (f"(let* ({bt.scm_load('3', f'{work}/{bt.INPUTS[inp][0]}')})\n  {select}\n"
                f"  (gimp-message (string-append \"CASE {name} PRECISION \" "
                f"(number->string (car (gimp-image-get-precision img)))))\n"
                f"  {merge_call(sx, sy, linear)}\n"
                f"  {bt.scm_save('3', 'img', 'drw', f'{work}/out-{name}.{ext(inp)}')})")
        (fault if name.startswith("fault-") else merge).append(case(name, body))
    name, inp, sx, sy = XCF_CASE
    body = (f"(let* ({bt.scm_load('3', f'{work}/{bt.INPUTS[inp][0]}')})\n"
            f"  {merge_call(sx, sy, True, append=True)}\n"
            f"  (gimp-file-save RUN-NONINTERACTIVE img \"{work}/{name}.xcf\" -1))")
    merge.append(case(name + "-save", body))
    reopen = case(name, f"(let* ((img (car (gimp-file-load RUN-NONINTERACTIVE \"{work}/{name}.xcf\")))\n"
                        f"       (drw (vector-ref (car (gimp-image-get-layers img)) 0)))\n"
                        f"  (gimp-message (string-append \"CASE {name} FILTERS \" (number->string "
                        f"(vector-length (car (gimp-drawable-get-filters drw))))))\n"
                        f"  {bt.scm_save('3', 'img', 'drw', f'{work}/out-{name}.png')})")
    for name, inp, sigma in PROC_CASES:
        for suffix, scripts in (("op", merge), ("path", fallback)):
            body = (f"(let* ({bt.scm_load('3', f'{work}/{bt.INPUTS[inp][0]}')})\n"
                    f"  {bt.scm_call('3', 'img', 'drw', sigma, True)}\n"
                    f"  {bt.scm_save('3', 'img', 'drw', f'{work}/out-{name}-{suffix}.png')})")
            scripts.append(case(f"{name}-{suffix}", body))
    name, inp, sigma, sel = PROC_SELECTION
    body = (f"(let* ({bt.scm_load('3', f'{work}/{bt.INPUTS[inp][0]}')})\n"
            f"  (gimp-image-select-rectangle img CHANNEL-OP-REPLACE {sel[0]} {sel[1]} {sel[2]} {sel[3]})\n"
            f"  {bt.scm_call('3', 'img', 'drw', sigma, True)}\n"
            f"  {bt.scm_save('3', 'img', 'drw', f'{work}/out-{name}.png')})")
    merge.append(case(name, body))
    name, inp, (sx0, sy0), (sx1, sy1) = EDIT_CASE
    with open(f"{work}/edit.py", "w") as f:
        f.write(EDIT_PY.format(work=work, name=name, src=f"{work}/{bt.INPUTS[inp][0]}", sx0=sx0, sy0=sy0,
                               sx1=sx1, sy1=sy1))
    with open(f"{work}/edit-reopen.py", "w") as f:
        f.write(EDIT_REOPEN_PY.format(work=work, name=name))
    for tag in TRUTH_FAULTS:
        with open(f"{work}/truth-{tag}.scm", "w") as f:
            f.write("(gimp-message-set-handler CONSOLE)\n" + bt.SCM_KEEP_ERROR + truth_cases(work, tag))
    for script, cases in (("merge", merge), ("reopen", [reopen]), ("fallback", fallback),
                          ("fault", fault)):
        with open(f"{work}/{script}.scm", "w") as f:
            f.write("(gimp-message-set-handler CONSOLE)\n" + bt.SCM_KEEP_ERROR + "".join(cases))


def truth_cases(work, tag):
    """The procedure and a direct merge; each image saved whatever happened."""
    inp, sigma = TRUTH_PROC
    proc = (f"(let* ({bt.scm_load('3', f'{work}/{bt.INPUTS[inp][0]}')})\n"
            f"  (gimp-message (if (catch #f {bt.scm_call('3', 'img', 'drw', sigma, True)} #t)\n"
            f"                    \"CASE truth-proc-{tag} OK\"\n"
            f"                    (string-append \"CASE truth-proc-{tag} ERROR \" cgb-last-error)))\n"
            f"  {bt.scm_save('3', 'img', 'drw', f'{work}/out-truth-proc-{tag}.png')})\n")
    inp, sigma = TRUTH_MERGE
    merge = case(f"truth-merge-{tag}",
                 f"(let* ({bt.scm_load('3', f'{work}/{bt.INPUTS[inp][0]}')})\n"
                 f"  {merge_call(sigma, sigma, True)}\n"
                 f"  {bt.scm_save('3', 'img', 'drw', f'{work}/out-truth-merge-{tag}.png')})")
    return proc + merge


def check_truth(work, log_of, record):
    """Each fault: blurred, or untouched and said why."""
    import re
    for tag in TRUTH_FAULTS:
        log = open(log_of(tag), errors="replace").read()
        for what, (inp, sigma) in (("proc", TRUTH_PROC), ("merge", TRUTH_MERGE)):
            name = f"truth-{what}-{tag}"
            m = re.search(rf"CASE {name} (OK|ERROR)(.*)", log)
            src = bt.read(f"{work}/{bt.INPUTS[inp][0]}").astype(np.float64)
            try:
                out = bt.read(f"{work}/out-{name}.png").astype(np.float64)
            except Exception as e:   # noqa: BLE001  (no image saved)
                record(name, False, f"no output image: {e}")
                continue
            err = bt.difference(out, bt.expected(src, 255.0, sigma, True)).max()
            untouched = out.size == src.size and bt.difference(out, src.reshape(out.shape)).max() == 0
            said = (m and m.group(1) == "ERROR" and len(m.group(2).strip()) > 10) if what == "proc" else \
                "cuda:gaussian-blur: nothing could blur" in log
            ok = bool(m) and ((err <= 1.0 and (what == "merge" or m.group(1) == "OK"))
                              or (untouched and said))
            if tag == TRUTH_REDO and what == "proc":
                ok = ok and err <= 1.0 and "blurring on the plug-in's own pixel path" in log
            how = (f"blurred (max error {err:.3g})" if err <= 1.0 else
                   "untouched" if untouched else f"neither blurred nor untouched (max error {err:.3g})")
            why = (m.group(2).strip()[:160] if m and m.group(1) == "ERROR" else
                   ("said so" if "cuda:gaussian-blur: " in log else "no message"))
            record(name, ok, f"{TRUTH_FAULTS[tag]}: status {m.group(1) if m else 'none'}, {how}; {why}")


# Run by python-fu-eval; each step prints "CASE name OK|ERROR ...".
EDIT_PY = """
import sys, traceback
import gi
gi.require_version("Gimp", "3.0")
from gi.repository import Gimp, Gio
def save(img, path):
    return Gimp.file_save(Gimp.RunMode.NONINTERACTIVE, img, Gio.File.new_for_path(path), None)
def step(name, fn):
    try:
        fn()
        print("CASE %s OK" % name, flush=True)
    except Exception:
        traceback.print_exc()
        print("CASE %s ERROR" % name, flush=True)
img = Gimp.file_load(Gimp.RunMode.NONINTERACTIVE, Gio.File.new_for_path("{src}"))
layer = img.get_layers()[0]
state = {{}}
def append():
    f = Gimp.DrawableFilter.new(layer, "cuda:gaussian-blur", "")
    c = f.get_config()
    c.set_property("std-dev-x", {sx0})
    c.set_property("std-dev-y", {sy0})
    f.update()
    layer.append_filter(f)
    state["filter"] = f
    save(img, "{work}/out-{name}-first.png")
def edit():
    f = layer.get_filters()[0]
    assert f.get_operation_name() == "cuda:gaussian-blur", f.get_operation_name()
    c = f.get_config()
    c.set_property("std-dev-x", {sx1})
    c.set_property("std-dev-y", {sy1})
    f.update()
    print("CASE {name}-edited FILTERS %d" % len(layer.get_filters()), flush=True)
    save(img, "{work}/out-{name}-edited.png")
    save(img, "{work}/{name}.xcf")
step("{name}-first", append)
step("{name}-edited", edit)
"""
EDIT_REOPEN_PY = """
import traceback
import gi
gi.require_version("Gimp", "3.0")
from gi.repository import Gimp, Gio
try:
    img = Gimp.file_load(Gimp.RunMode.NONINTERACTIVE, Gio.File.new_for_path("{work}/{name}.xcf"))
    layer = img.get_layers()[0]
    fs = layer.get_filters()
    print("CASE {name}-reopened FILTERS %d" % len(fs), flush=True)
    c = fs[0].get_config()
    print("CASE {name}-reopened STD-DEV %r %r" % (c.get_property("std-dev-x"), c.get_property("std-dev-y")),
          flush=True)
    Gimp.file_save(Gimp.RunMode.NONINTERACTIVE, img, Gio.File.new_for_path("{work}/out-{name}-reopened.png"), None)
    print("CASE {name}-reopened OK", flush=True)
except Exception:
    traceback.print_exc()
    print("CASE {name}-reopened ERROR", flush=True)
"""


def check(work, logs):
    import re
    log = "".join(open(p, errors="replace").read() for p in logs)
    status = {m.group(1): m.group(2) for m in re.finditer(r"CASE (\S+) (OK|ERROR)", log)}
    passed = failed = 0

    def record(name, ok, what):
        nonlocal passed, failed
        print(f"{'PASS' if ok else 'FAIL'}: {name} — {what}")
        passed, failed = passed + ok, failed + (not ok)

    def compare(name, inp, sx, sy, linear, out_path, sel=None):
        if status.get(name) != "OK":
            record(name, False, f"script status {status.get(name)}")
            return None
        src = bt.read(f"{work}/{bt.INPUTS[inp][0]}")
        out = bt.read(out_path).astype(np.float64)
        scale = bt.INPUTS[inp][1]
        prec = re.findall(rf"CASE {re.escape(name)} PRECISION (\d+)", log)
        stored_linear = bool(prec) and int(prec[-1]) == 600  # GIMP_PRECISION_FLOAT_LINEAR
        tol = 2e-4 if scale == 1.0 else 1.0
        if sel:
            # A filter reads only the selection's bounds (GIMP's way): the
            # blur of that rectangle alone, clamped at its sides, inside it.
            x, y, w, h = sel
            exp = src.astype(np.float64).reshape(src.shape[0], src.shape[1], -1).copy()
            exp[y:y + h, x:x + w] = bt.expected(src[y:y + h, x:x + w], scale, sx, linear,
                                                stored_linear, sigma_y=sy)
        else:
            exp = bt.expected(src, scale, sx, linear, stored_linear, sigma_y=sy)
        err = bt.difference(out, exp).max()
        record(name, err <= tol, f"σ {sx}×{sy}, linear {linear}: max error {err:.3g} (tolerance {tol})")
        return out

    for name, inp, sx, sy, linear, sel in MERGE_CASES + FAULT_CASES:
        compare(name, inp, sx, sy, linear, f"{work}/out-{name}.{ext(inp)}", sel)
    name, inp, sx, sy = XCF_CASE
    record(name + "-save", status.get(name + "-save") == "OK", "appended as a layer effect, saved in XCF")
    m = re.search(rf"CASE {name} FILTERS (\d+)", log)
    record(name + "-effect", bool(m) and int(m.group(1)) == 1,
           f"the reopened layer has {m.group(1) if m else 'no'} filter(s), 1 expected")
    compare(name, inp, sx, sy, True, f"{work}/out-{name}.png")
    for name, inp, sigma in PROC_CASES:
        outs = [compare(f"{name}-{s}", inp, sigma, sigma, True, f"{work}/out-{name}-{s}.png")
                for s in ("op", "path")]
        if all(o is not None for o in outs):
            d = np.abs(outs[0] - outs[1]).max()
            record(f"{name}-same", d <= 1.0, f"through the operation and the pixel path: differ by {d:.3g} "
                                             "at most (tolerance 1)")
    name, inp, sigma, (x, y, w, h) = PROC_SELECTION
    if status.get(name) == "OK":
        src = bt.read(f"{work}/{bt.INPUTS[inp][0]}").astype(np.float64)
        out = bt.read(f"{work}/out-{name}.png").astype(np.float64)
        exp = src.copy()
        exp[y:y + h, x:x + w] = bt.expected(src, 255.0, sigma, True)[y:y + h, x:x + w]
        err = bt.difference(out, exp).max()
        record(name, err <= 1.0, f"blurred as the whole image inside, unchanged outside: max error "
                                 f"{err:.3g} (tolerance 1)")
    else:
        record(name, False, f"script status {status.get(name)}")
    name, inp, (sx0, sy0), (sx1, sy1) = EDIT_CASE
    compare(f"{name}-first", inp, sx0, sy0, True, f"{work}/out-{name}-first.png")
    compare(f"{name}-edited", inp, sx1, sy1, True, f"{work}/out-{name}-edited.png")
    m = re.search(rf"CASE {name}-edited FILTERS (\d+)", log)
    record(f"{name}-one-effect", bool(m) and int(m.group(1)) == 1,
           f"after the edit the layer has {m.group(1) if m else 'no'} filter(s), 1 expected (edited, not added)")
    m = re.search(rf"CASE {name}-reopened FILTERS (\d+)", log)
    record(f"{name}-reopened-effect", bool(m) and int(m.group(1)) == 1,
           f"the reopened XCF's layer has {m.group(1) if m else 'no'} filter(s), 1 expected")
    m = re.search(rf"CASE {name}-reopened STD-DEV (\S+) (\S+)", log)
    kept = bool(m) and abs(float(m.group(1)) - sx1) < 1e-9 and abs(float(m.group(2)) - sy1) < 1e-9
    record(f"{name}-reopened-std-dev", kept, f"std-devs read back after reopening: "
           f"{(m.group(1) + ' × ' + m.group(2)) if m else 'none'}, {sx1} × {sy1} expected")
    compare(f"{name}-reopened", inp, sx1, sy1, True, f"{work}/out-{name}-reopened.png")
    check_truth(work, lambda tag: f"{work}/truth-{tag}.log", record)
    merged = log.count("merged cuda:gaussian-blur into the drawable")
    record("proc-through-operation", merged == len(PROC_CASES),
           f"{merged} procedure calls merged the operation, {len(PROC_CASES)} expected (the others: "
           "none, the operation missing)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "prepare":
        prepare(sys.argv[2])
        sys.exit(0)
    if len(sys.argv) >= 4 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3:]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
