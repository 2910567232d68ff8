"""Cases of plug-in-cuda-gaussian-blur-files (a folder in one GIMP process),
run by batch_test.py in the batch suite's GIMP, and of batch/blur-files.sh
(the files over two processes, and over GNU parallel's jobs), which
run-batch-tests.sh runs after it.

Every output must hold the very pixels of the one-file procedure's output
for the same file (sigma 3, linear light), which the same script makes."""
import glob
import hashlib
import os
import re
import shutil

SIGMA = 3.0
INPUTS = {"f1.png": "gray8.png", "f2.png": "rgba8.png", "f3.png": "rgb16.png"}
LAYER_RECT = (20, 16, 40, 30)   # x, y, w, h of the top layer
SENTINEL = b"an output that exists: kept\n"
PROC = "plug-in-cuda-gaussian-blur-files"
# name, pattern (under WORK), output folder (None: a missing one), sigma, the message expected
# (GIMP 3 checks the declared range of sigma itself, 2.10 leaves it to us)
ERROR_CASES = [
    ("files-error-sigma", "files/f*.png", "files-err", 0,
     {"2": "Sigma must be between 0.1 and 1500 pixels (got 0)", "3": "out of range: 0.100000 to 1500.000000"}),
    ("files-error-folder", "files/f*.png", None, SIGMA, "does not exist"),
    ("files-error-no-match", "files/*.nothing", "files-err", SIGMA, "matches no file"),
]


def prepare(work, read_write):
    """Inputs: three pictures and a file that is no picture; an output that
    exists (kept unless overwrite) and a stale temporary file (a killed run's)."""
    os.makedirs(f"{work}/files", exist_ok=True)
    for name, src in INPUTS.items():
        shutil.copy(f"{work}/{src}", f"{work}/files/{name}")
    with open(f"{work}/files/bad.png", "w") as f:
        f.write("not a PNG\n")
    for d in ("files-out", "files-single", "files-tif", "files-err", "files-split", "files-parallel",
              "files-layers", "files-every", "files-merged"):
        os.makedirs(f"{work}/{d}", exist_ok=True)
    with open(f"{work}/files-out/f2.png", "wb") as f:
        f.write(SENTINEL)
    with open(f"{work}/files-out/.cgb-partial-f3.png", "wb") as f:
        f.write(b"half-written")


def call(version, pattern, folder, sigma, fmt="", overwrite=False, every_layer=False):
    ow, ev = ("TRUE" if b else "FALSE" for b in (overwrite, every_layer))
    if version == "3":
        return (f"({PROC} #:run-mode RUN-NONINTERACTIVE #:pattern \"{pattern}\" #:sigma {sigma} "
                f"#:linear TRUE #:output-folder \"{folder}\" #:format \"{fmt}\" #:every-layer {ev} "
                f"#:overwrite {ow})")
    return f"({PROC} RUN-NONINTERACTIVE \"{pattern}\" {sigma} TRUE \"{folder}\" \"{fmt}\" {ev} {ow})"


def scheme(version, work, scm_load, scm_call, scm_save):
    """The one-file references, then the files procedure's calls, in order."""
    out = []
    for name in INPUTS:
        out.append(f"(let* ({scm_load(version, f'{work}/files/{name}')})\n"
                   f"  {scm_call(version, 'img', 'drw', SIGMA, True)}\n"
                   f"  {scm_save(version, 'img', 'drw', f'{work}/files-single/{name}')})\n")

    # Two layers: gray8, and over it an opaque copy cropped to LAYER_RECT.
    copy = "(gimp-layer-copy drw)" if version == "3" else "(gimp-layer-copy drw FALSE)"
    x, y, w, h = LAYER_RECT
    out.append(f"(let* ({scm_load(version, f'{work}/gray8.png')}\n"
               f"       (top (car {copy})))\n"
               f"  (gimp-image-insert-layer img top 0 0)\n"
               f"  (gimp-layer-resize top {w} {h} {-x} {-y})\n"
               f"  {scm_save(version, 'img', 'top', f'{work}/files-layers/two.xcf')})\n")

    def case(name, body):
        out.append(f"(gimp-message (if (catch #f {body} #t) \"CASE {name} CALL-SUCCEEDED\" "
                   f"\"CASE {name} CALL-FAILED\"))\n"
                   f"(gimp-message (string-append \"CASE {name} ERROR-MESSAGE \" cgb-last-error))\n")
    case("files-first", call(version, f"{work}/files/f1.png", f"{work}/files-out", SIGMA))
    case("files-all", call(version, f"{work}/files/*.png", f"{work}/files-out", SIGMA))
    case("files-overwrite", call(version, f"{work}/files/f2.png", f"{work}/files-out", SIGMA,
                                 overwrite=True))
    case("files-format", call(version, f"{work}/files/f1.png", f"{work}/files-tif", SIGMA, "tif"))
    for name, every in (("files-every", True), ("files-merged", False)):
        case(name, call(version, f"{work}/files-layers/*.xcf", f"{work}/{name}", SIGMA, "png",
                        every_layer=every))
    for name, pattern, folder, sigma, _ in ERROR_CASES:
        case(name, call(version, f"{work}/{pattern}", f"{work}/{folder or 'no-such-folder'}", sigma))
    return out


def pixels(read, path):
    try:
        return hashlib.sha256(read(path).tobytes()).hexdigest()
    except FileNotFoundError:
        return None


def same_as_single(work, read, folder, names, ext=None):
    """The names whose output in folder differs from the one-file procedure's."""
    bad = []
    for name in names:
        out = f"{work}/{folder}/{name if not ext else os.path.splitext(name)[0] + '.' + ext}"
        ref = pixels(read, f"{work}/files-single/{name}")
        if ref is None or pixels(read, out) != ref:
            bad.append(name)
    return bad


def check_layers(work, read, record, expected):
    """every-layer: each layer blurred on its own (the top one's edges its own),
    then merged; merged: the picture blurred as one layer."""
    src = read(f"{work}/gray8.png")
    x, y, w, h = LAYER_RECT
    merged_exp = expected(src, 255.0, SIGMA, True)
    every_exp = merged_exp.copy()
    every_exp[y:y + h, x:x + w] = expected(src[y:y + h, x:x + w], 255.0, SIGMA, True)
    outs = {}
    for name, exp in (("files-every", every_exp), ("files-merged", merged_exp)):
        try:
            outs[name] = read(f"{work}/{name}/two.png")[..., :1].astype(float)
            err = abs(outs[name] - exp).max()
        except FileNotFoundError:
            err = None
        record(f"{name}-layer", err is not None and err <= 1.0, f"two layers, max error {err}")
    if len(outs) == 2:
        d = abs(outs["files-every"] - outs["files-merged"]).max()
        record("files-every-differs-from-merged", d > 3, f"max difference {d:.0f} levels")


def check(version, work, log, read, record, expected):
    def called(name):
        m = re.findall(rf"CASE {name} (CALL-SUCCEEDED|CALL-FAILED)$", log, re.M)
        return m[-1] if m else "MISSING"

    def message(name):
        m = re.findall(rf"CASE {name} ERROR-MESSAGE (.*)$", log, re.M)
        return m[-1] if m else ""

    record("files-first", called("files-first") == "CALL-SUCCEEDED"
           and not same_as_single(work, read, "files-out", ["f1.png"]),
           f"one file: {called('files-first')}, pixels of the one-file procedure")

    def line(f, what):
        return re.search(rf"\] {re.escape(work)}/files/{f}: {what}", log) is not None
    record("files-bad-file-named", called("files-all") == "CALL-FAILED" and "bad.png" in message("files-all")
           and line("bad.png", "FAILED, cannot read it"),
           f"call {called('files-all')}, message names bad.png: {'bad.png' in message('files-all')}")
    record("files-rerun-does-only-the-missing",
           line("f1.png", "skipped") and line("f3.png", "blurred into")
           and not same_as_single(work, read, "files-out", ["f3.png"]),
           "f1 (done by the first call) skipped, f3 blurred, the same pixels as the one-file procedure")
    record("files-no-overwrite", line("f2.png", "skipped"),
           "an existing output is kept without overwrite")
    record("files-overwrite", called("files-overwrite") == "CALL-SUCCEEDED"
           and not same_as_single(work, read, "files-out", ["f2.png"]),
           "with overwrite the output is replaced by the blur")
    left = glob.glob(f"{work}/files-*/.cgb-partial-*")
    record("files-no-temporary-left", not left, f"left: {left}")
    record("files-format", called("files-format") == "CALL-SUCCEEDED"
           and not same_as_single(work, read, "files-tif", ["f1.png"], "tif"),
           "format tif: f1.tif, the one-file procedure's pixels")
    for name, _, _, _, text in ERROR_CASES:
        text = text[version] if isinstance(text, dict) else text
        record(name, called(name) == "CALL-FAILED" and text in message(name) and not os.listdir(f"{work}/files-err"),
               f"{called(name)}, message: {message(name)[:80]!r}")
    check_layers(work, read, record, expected)
    for how in ("split", "parallel"):
        # not anchored: GIMP's last message before it may lack its newline
        skipped = re.search(rf"{how} skipped: (.*)$", log, re.M)
        if skipped:
            print(f"SKIP: files-{how} — {skipped.group(1)}")
            continue
        bad = same_as_single(work, read, f"files-{how}", list(INPUTS))
        ran = f"{how} ran" in log
        record(f"files-{how}", ran and not bad,
               f"batch/blur-files.sh ({'2 processes' if how == 'split' else 'GNU parallel, 2 jobs'}): "
               f"ran {ran}, differing from the one-file procedure: {bad}")
