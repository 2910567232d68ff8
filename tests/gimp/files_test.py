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
import socket
import subprocess
import time

SIGMA = 3.0
INPUTS = {"f1.png": "gray8.png", "f2.png": "rgba8.png", "f3.png": "rgb16.png"}
LAYER_RECT = (20, 16, 40, 30)   # x, y, w, h of the top layer
SENTINEL = b"an output that exists: kept\n"
PROC = "plug-in-cuda-gaussian-blur-files"
PROC2 = PROC + "2"   # GIMP 2.10: the eight arguments, then png-compression and jpeg-quality
# name, pattern (under WORK), output folder (None: a missing one), sigma, the message expected
# (GIMP 3 checks the declared range of sigma itself, 2.10 leaves it to us), other arguments.
# Each is refused before any file: its output folder stays as prepare() left it.
ERROR_CASES = [
    ("files-error-sigma", "files/f*.png", "files-err", 0,
     {"2": "Sigma must be between 0.1 and 1500 pixels (got 0)", "3": "out of range: 0.100000 to 1500.000000"}, {}),
    ("files-error-folder", "files/f*.png", None, SIGMA, "does not exist", {}),
    ("files-error-no-match", "files/*.nothing", "files-err", SIGMA, "matches no file", {}),
    ("files-error-png-level", "files/f*.png", "files-err", SIGMA,
     {"2": "PNG compression level must be between 0 and 9", "3": "out of range"}, {"png": 10}),
    ("files-error-jpeg-quality", "files/f*.png", "files-err", SIGMA,
     {"2": "JPEG quality must be between 0 and 100", "3": "out of range"}, {"jpeg": 101}),
    ("files-error-clash", "files-clash/*/a.png", "files-err", SIGMA, "files-clash/d2/a.png", {}),
    ("files-error-clash-case", "files-clash/d1/*", "files-err", SIGMA, "files-clash/d1/a.PNG", {}),
    ("files-error-own-folder", "files-own/*.png", "files-own/.", SIGMA, "holds the input", {}),
]


def host_hash():
    """GLib's g_str_hash of the host's name and pid namespace: the writer's mark in temporary names."""
    h = 5381
    try:
        ns = os.readlink("/proc/self/ns/pid")
    except OSError:
        ns = ""
    for c in f"{socket.gethostname()} {ns}".encode():
        h = (h * 33 + (c - 256 if c > 127 else c)) & 0xFFFFFFFF
    return h


def temporary(pid, name):
    return f".cgb-partial-{pid}-0-{host_hash():08x}-{name}"


def hold_zombie(work):
    """The pid of a process that died and stays unreaped (a zombie: dead to the
    plug-in, and its pid not reused by other processes meanwhile) until
    release_zombie; its holder's pid in WORK/zombie-holder."""
    holder = subprocess.Popen(["sh", "-c", "true & exec sleep 1800"], start_new_session=True,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(f"{work}/zombie-holder", "w") as f:
        f.write(str(holder.pid))
    for _ in range(500):
        try:
            with open(f"/proc/{holder.pid}/task/{holder.pid}/children") as f:
                kids = f.read().split()
            if kids and open(f"/proc/{kids[0]}/stat").read().split(") ")[1].startswith("Z"):
                return int(kids[0])
        except OSError:
            pass
        time.sleep(0.01)
    raise RuntimeError("no zombie to hold")


def release_zombie(work):
    try:
        with open(f"{work}/zombie-holder") as f:
            os.kill(int(f.read()), 9)
    except (OSError, ValueError):
        pass


def prepare(work, read_write):
    """Inputs: three pictures and a file that is no picture; an output that
    exists (kept unless overwrite) and a stale temporary file (a killed run's)."""
    os.makedirs(f"{work}/files", exist_ok=True)
    for name, src in INPUTS.items():
        shutil.copy(f"{work}/{src}", f"{work}/files/{name}")
    with open(f"{work}/files/bad.png", "w") as f:
        f.write("not a PNG\n")
    for d in ("files-out", "files-single", "files-tif", "files-err", "files-split", "files-parallel",
              "files-layers", "files-every", "files-merged", "files/sub.png", "files-clash/d1", "files-clash/d2",
              "files-own", "files-dot", "files-dot-out", "files-xcf-upper", "files-xcf-gz", "files-level0",
              "files-jpeg-default", "files-jpeg-low", "files2-default", "files-hidden", "files-merged-hidden",
              "files-none-visible", "files-merged-none-visible"):
        os.makedirs(f"{work}/{d}", exist_ok=True)
    for d in ("files-clash/d1/a.png", "files-clash/d1/a.PNG", "files-clash/d2/a.png", "files-own/a.png",
              "files-dot/.hidden.png"):
        shutil.copy(f"{work}/gray8.png", f"{work}/{d}")
    with open(f"{work}/files-out/f2.png", "wb") as f:
        f.write(SENTINEL)
    # A killed run's temporary file (its writer dead) and a running one's (pid 1 lives).
    for pid, name in ((hold_zombie(work), "f3.png"), (1, "f9.png")):
        with open(f"{work}/files-out/{temporary(pid, name)}", "wb") as f:
            f.write(b"half-written")


def call(version, pattern, folder, sigma, fmt="", overwrite=False, every_layer=False, png=-1, jpeg=-1,
         second=False):
    """GIMP 3: one procedure, named arguments.  GIMP 2.10: the eight arguments
    scripts have always passed, or PROC2 with the export's two (second)."""
    ow, ev = ("TRUE" if b else "FALSE" for b in (overwrite, every_layer))
    if version == "3":
        return (f"({PROC} #:run-mode RUN-NONINTERACTIVE #:pattern \"{pattern}\" #:sigma {sigma} "
                f"#:linear TRUE #:output-folder \"{folder}\" #:format \"{fmt}\" #:every-layer {ev} "
                f"#:overwrite {ow} #:png-compression {png} #:jpeg-quality {jpeg})")
    args = f"RUN-NONINTERACTIVE \"{pattern}\" {sigma} TRUE \"{folder}\" \"{fmt}\" {ev} {ow}"
    if second or (png, jpeg) != (-1, -1):
        return f"({PROC2} {args} {png} {jpeg})"
    return f"({PROC} {args})"


def layer_count(version, path, name):
    """A message with the number of layers of the XCF at path."""
    load = (f"(gimp-file-load RUN-NONINTERACTIVE \"{path}\")" if version == "3"
            else f"(gimp-file-load RUN-NONINTERACTIVE \"{path}\" \"{path}\")")
    count = "(vector-length (car (gimp-image-get-layers img)))" if version == "3" \
        else "(car (gimp-image-get-layers img))"
    return (f"(catch #f (let* ((img (car {load}))) (gimp-message (string-append \"CASE {name} LAYERS \" "
            f"(number->string {count})))))\n")


def scheme(version, work, scm_load, scm_call, scm_save):
    """The one-file references, then the files procedure's calls, in order."""
    out = []
    for name in INPUTS:
        out.append(f"(let* ({scm_load(version, f'{work}/files/{name}')})\n"
                   f"  {scm_call(version, 'img', 'drw', SIGMA, True)}\n"
                   f"  {scm_save(version, 'img', 'drw', f'{work}/files-single/{name}')})\n")

    # Two layers: gray8, and over it a copy, changed by `steps`, saved to `path`.
    copy = "(gimp-layer-copy drw)" if version == "3" else "(gimp-layer-copy drw FALSE)"

    def two_layers(path, *steps):
        out.append(f"(let* ({scm_load(version, f'{work}/gray8.png')}\n"
                   f"       (top (car {copy})))\n"
                   f"  (gimp-image-insert-layer img top 0 0)\n"
                   + "".join(f"  {step}\n" for step in steps)
                   + f"  {scm_save(version, 'img', 'top', f'{work}/{path}')})\n")
    x, y, w, h = LAYER_RECT
    two_layers("files-layers/two.xcf", f"(gimp-layer-resize top {w} {h} {-x} {-y})")   # opaque, cropped
    # The top layer hidden: a merge leaves it, unblurred; both hidden: nothing to merge.
    two_layers("files-hidden/hidden.xcf", "(gimp-item-set-visible top FALSE)")
    two_layers("files-none-visible/none.xcf", "(gimp-item-set-visible top FALSE)", "(gimp-item-set-visible drw FALSE)")

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
    # Every layer kept in XCF outputs however the extension is spelled.
    for name, fmt, out_name in (("files-xcf-upper", "XCF", "two.XCF"), ("files-xcf-gz", "xcf.gz", "two.xcf.gz")):
        case(name, call(version, f"{work}/files-layers/*.xcf", f"{work}/{name}", SIGMA, fmt, every_layer=True))
        out.append(layer_count(version, f"{work}/{name}/{out_name}", name))
    case("files-merged-hidden", call(version, f"{work}/files-hidden/*.xcf", f"{work}/files-merged-hidden",
                                     SIGMA, "xcf"))
    out.append(layer_count(version, f"{work}/files-merged-hidden/hidden.xcf", "files-merged-hidden"))
    case("files-merged-none-visible", call(version, f"{work}/files-none-visible/*.xcf",
                                           f"{work}/files-merged-none-visible", SIGMA, "xcf"))
    case("files-dot", call(version, f"{work}/files-dot/*", f"{work}/files-dot-out", SIGMA))
    case("files-level0", call(version, f"{work}/files/f2.png", f"{work}/files-level0", SIGMA, png=0))
    if version == "2":   # PROC2 with -1 -1 is PROC
        case("files2-default", call(version, f"{work}/files/f2.png", f"{work}/files2-default", SIGMA, second=True))
    case("files-jpeg-default", call(version, f"{work}/files/f1.png", f"{work}/files-jpeg-default", SIGMA, "jpg"))
    case("files-jpeg-low", call(version, f"{work}/files/f1.png", f"{work}/files-jpeg-low", SIGMA, "jpg", jpeg=20))
    for name, pattern, folder, sigma, _, extra in ERROR_CASES:
        case(name, call(version, f"{work}/{pattern}", f"{work}/{folder or 'no-such-folder'}", sigma, **extra))
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


def check_export(version, work, log, read, record, called):
    """Dot-files, XCF outputs' layers, and the export's cost."""
    def layers(name):
        m = re.findall(rf"CASE {name} LAYERS (\d+)", log)
        return int(m[-1]) if m else None
    record("files-dot", called("files-dot") == "CALL-SUCCEEDED"
           and pixels(read, f"{work}/files-dot-out/.hidden.png") == pixels(read, f"{work}/files-single/f1.png"),
           f"{called('files-dot')}: .hidden.png blurred as the one-file procedure blurs it")
    for name in ("files-xcf-upper", "files-xcf-gz"):
        record(name, called(name) == "CALL-SUCCEEDED" and layers(name) == 2,
               f"{called(name)}, layers in the output: {layers(name)} (2 expected)")
    name = "files-merged-none-visible"
    written = os.listdir(f"{work}/{name}")
    named = re.search(r"none\.xcf: FAILED, none of its layers is visible", log) is not None
    record(name, called(name) == "CALL-FAILED" and named and not written,
           f"{called(name)}, the file named with the reason: {named}, written: {written}")
    name = "files-merged-hidden"
    record(name, called(name) == "CALL-SUCCEEDED" and layers(name) == 1,
           f"{called(name)}, layers in the merged output: {layers(name)} (1 expected: no hidden one unblurred)")

    def size(path):
        return os.path.getsize(path) if os.path.exists(path) else 0
    level0, level9 = size(f"{work}/files-level0/f2.png"), size(f"{work}/files-single/f2.png")
    record("files-png-level0", called("files-level0") == "CALL-SUCCEEDED" and level0 > level9 > 0
           and not same_as_single(work, read, "files-level0", ["f2.png"]),
           f"level 0: {level0} bytes, GIMP's own: {level9}, the same pixels")
    q90, q20 = size(f"{work}/files-jpeg-default/f1.jpg"), size(f"{work}/files-jpeg-low/f1.jpg")
    record("files-jpeg-quality", called("files-jpeg-low") == "CALL-SUCCEEDED" and 0 < q20 < q90,
           f"quality 20: {q20} bytes, GIMP's own: {q90}")
    if version != "2":
        return
    # GIMP 2.10: its own export (gimp-file-save, files-single) writes what the eight-argument form
    # writes, and what PROC2 with -1 -1 writes: the same chunks and image data (metadata holds times).
    plain, own = png_layout(f"{work}/files-out/f1.png"), png_layout(f"{work}/files-single/f1.png")
    record("files-gimp-defaults", called("files-first") == "CALL-SUCCEEDED" and plain == own != ([], ""),
           f"without cost arguments: chunks {plain[0]}, GIMP's own export: {own[0]}, image data "
           f"{'the same' if plain[1] == own[1] else 'differs'}")
    default2, own = png_layout(f"{work}/files2-default/f2.png"), png_layout(f"{work}/files-single/f2.png")
    record("files2-default", called("files2-default") == "CALL-SUCCEEDED" and default2 == own != ([], ""),
           f"-1 -1: chunks {default2[0]}, GIMP's own export: {own[0]}, image data "
           f"{'the same' if default2[1] == own[1] else 'differs'}")


def png_layout(path):
    """A PNG's chunk types and its image data's hash (([], "") when missing)."""
    if not os.path.exists(path):
        return [], ""
    with open(path, "rb") as f:
        data = f.read()
    kinds, idat, i = [], hashlib.sha256(), 8
    while i + 8 <= len(data):
        n, kind = int.from_bytes(data[i:i + 4], "big"), data[i + 4:i + 8].decode("latin-1")
        kinds.append(kind)
        if kind == "IDAT":
            idat.update(data[i + 8:i + 8 + n])
        i += 12 + n
    return kinds, idat.hexdigest()

def check_killed(work, log, read, record):
    """blur-files.sh killed once it had written something, then run again."""
    skipped = re.search(r"killed skipped: (.*)$", log, re.M)
    if skipped:
        print(f"SKIP: files-killed-rerun — {skipped.group(1)}")
        return
    left = re.search(r"^killed left: (.*)$", log, re.M)
    left = left.group(1).split() if left else []
    done = [f for f in left if not f.startswith(".cgb-partial-")]
    bad = same_as_single(work, read, "files-killed", list(INPUTS))
    temps = glob.glob(f"{work}/files-killed/.cgb-partial-*")
    record("files-killed-rerun", "killed rerun ran" in log and 0 < len(left) and len(done) < len(INPUTS)
           and not bad and not temps,
           f"left by the kill: {left}; after the rerun, differing from the one-file procedure: {bad}, "
           f"temporary files: {temps}")


def check(version, work, log, read, record, expected):
    release_zombie(work)
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
    live = f"{work}/files-out/{temporary(1, 'f9.png')}"
    left = [f for f in glob.glob(f"{work}/files-*/.cgb-partial-*") if f != live]
    record("files-no-temporary-left", not left and "1 temporary files of runs that died removed" in log,
           f"left: {left}")
    record("files-live-temporary-kept", os.path.exists(live), "a running writer's (pid 1) temporary file")
    record("files-folder-counted", "1 folders the pattern matched left out" in log,
           "files/sub.png, a folder, counted")
    record("files-format", called("files-format") == "CALL-SUCCEEDED"
           and not same_as_single(work, read, "files-tif", ["f1.png"], "tif"),
           "format tif: f1.tif, the one-file procedure's pixels")
    for name, _, folder, _, text, _ in ERROR_CASES:
        text = text[version] if isinstance(text, dict) else text
        as_left = sorted(os.listdir(f"{work}/{folder}")) == (["a.png"] if folder == "files-own/." else []) \
            if folder else True
        record(name, called(name) == "CALL-FAILED" and text in message(name) and as_left,
               f"{called(name)}, message: {message(name)[:160]!r}, nothing written: {as_left}")
    check_export(version, work, log, read, record, called)
    check_layers(work, read, record, expected)
    check_killed(work, log, read, record)
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
