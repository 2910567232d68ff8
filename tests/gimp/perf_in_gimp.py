#!/usr/bin/python3
"""Helper of tests/gimp/perf-in-gimp.sh (see its header for what is measured).

  perf_in_gimp.py prepare VERSION WORKDIR SIZE FORMAT SIGMAS REPS
        writes WORKDIR/FORMAT.png (a SIZE x SIZE photo-like picture: the
        project's sample scaled up, with grain; RGBA with varying alpha) and
        WORKDIR/perf-FORMAT.scm, the script one GIMP process runs
  perf_in_gimp.py table VERSION WORKDIR LOG...
        reads the "PERF" lines of the GIMP logs and prints the markdown table
        (medians over every timed application in every log)
"""
import os
import re
import statistics
import sys

import numpy as np

import batch_test   # the batch suite's Script-Fu helpers (same folder)

# What is timed: the copy-only floor, the procedure, GIMP's own blur; in
# GIMP 3 also the procedure's own pixel path (its twin that never merges the
# operation) and the operation merged directly (no plug-in process).
METHODS_2 = ("copy", "plugin", "builtin")
METHODS_3 = ("copy", "pixelpath", "plugin", "op", "builtin")
COLUMNS = {"copy": "floor", "pixelpath": "pixel path", "plugin": "procedure", "op": "operation",
           "builtin": "built-in"}


def methods(version):
    return METHODS_3 if version == "3" else METHODS_2


def photo(size, rgba):
    """samples/sample.png enlarged, with film grain; BGR(A), OpenCV's order.
    With OpenCV, or Pillow where there is none (the GPU machine)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "sample.png")
    if batch_test.cv2 is not None:
        img = batch_test.cv2.resize(batch_test.cv2.imread(path, batch_test.cv2.IMREAD_COLOR), (size, size),
                                    interpolation=batch_test.cv2.INTER_CUBIC).astype(np.float64)
    else:
        from PIL import Image
        img = np.asarray(Image.open(path).convert("RGB").resize((size, size), Image.BICUBIC),
                         np.float64)[..., ::-1]
    rng = np.random.default_rng(4096)
    img = img + rng.normal(0, 6, img.shape[:2])[..., None]      # film grain
    img = np.clip(np.round(img), 0, 255).astype(np.uint8)
    if not rgba:
        gray = 0.114 * img[..., 0] + 0.587 * img[..., 1] + 0.299 * img[..., 2]
        return np.round(gray).astype(np.uint8)
    yy, xx = np.mgrid[0:size, 0:size] / size
    alpha = np.clip(1.6 - 2.2 * np.hypot(xx - 0.5, yy - 0.5), 0, 1)   # a vignette to transparent
    alpha[:, : size // 16] = 0
    return np.dstack([img, np.round(alpha * 255).astype(np.uint8)])


def scm_call(version, method, sigma):
    if method == "builtin":
        if version == "3":
            return (f"(gimp-drawable-merge-new-filter drw \"gegl:gaussian-blur\" 0 LAYER-MODE-REPLACE 1.0 "
                    f"\"std-dev-x\" {sigma} \"std-dev-y\" {sigma} \"filter\" \"auto\")")
        radius = sigma / 0.32          # plug-in-gauss: std-dev = 0.32 x radius
        return f"(plug-in-gauss RUN-NONINTERACTIVE img drw {radius} {radius} 0)"
    if method == "op":
        return (f"(gimp-drawable-merge-new-filter drw \"cuda:gaussian-blur\" 0 LAYER-MODE-REPLACE 1.0 "
                f"\"std-dev-x\" {sigma} \"std-dev-y\" {sigma})")
    proc = "plug-in-cuda-gaussian-blur" + {"copy": "-copy-only", "pixelpath": "-pixel-path"}.get(method, "")
    return batch_test.scm_call(version, "img", "drw", sigma, True, proc)


def write_scheme(version, work, fmt, sigmas, reps):
    path = f"{work}/{fmt}.png"
    if version == "3":
        load = (f"(define img (car (gimp-file-load RUN-NONINTERACTIVE \"{path}\")))\n"
                f"(define drw (vector-ref (car (gimp-image-get-layers img)) 0))\n")
    else:
        load = (f"(define img (car (gimp-file-load RUN-NONINTERACTIVE \"{path}\" \"{path}\")))\n"
                f"(define drw (car (gimp-image-get-active-layer img)))\n")
    get = "gimp-drawable-get-" if version == "3" else "gimp-drawable-"
    out = ["(gimp-message-set-handler CONSOLE)",
           # Milliseconds since the script started (gettimeofday: seconds, microseconds).
           "(define perf-t0 (car (gettimeofday)))",
           "(define (perf-now) (let ((t (gettimeofday))) "
           "(+ (* 1000.0 (- (car t) perf-t0)) (/ (cadr t) 1000.0))))",
           "(define (perf-time label thunk) (let* ((t0 (perf-now)) (ok (catch #f (thunk) #t)) (t1 (perf-now)))"
           " (gimp-message (string-append (if ok \"PERF \" \"PERF-ERROR \") label \" \""
           " (number->string (- t1 t0))))))",
           load.rstrip(),
           f"(gimp-message (string-append \"PERF-IMAGE \" (number->string (car ({get}width drw))) \" \""
           f" (number->string (car ({get}height drw))) \" bpp \""
           f" (number->string (car ({get}bpp drw)))))"]
    # One untimed application of each first: the first run of a plug-in in a
    # GIMP process pays for loading it from disk.
    for m in methods(version):
        out.append(f"(perf-time \"warmup {m} 2\" (lambda () {scm_call(version, m, 2)}))")
    # Interleaved, so that a noisy neighbour hurts all three alike.
    for s in sigmas:
        for r in range(reps):
            for m in methods(version):
                out.append(f"(perf-time \"{m} {s}\" (lambda () {scm_call(version, m, s)}))")
    out.append("(gimp-message \"PERF-DONE\")")
    with open(f"{work}/perf-{fmt}.scm", "w") as f:
        f.write("\n".join(out) + "\n")


def prepare(version, work, size, fmt, sigmas, reps):
    if not os.path.exists(f"{work}/{fmt}.png"):
        batch_test.imwrite(f"{work}/{fmt}.png", photo(size, fmt == "rgba"))
    write_scheme(version, work, fmt, sigmas, reps)


def table(version, logs):
    samples = {}        # (fmt, method, sigma) -> [ms]
    errors = []
    sizes = {}
    for log in logs:
        fmt = re.search(r"perf-(\w+)-run\d+\.log$", log).group(1)
        text = open(log, errors="replace").read()
        if "PERF-DONE" not in text:
            errors.append(f"{log}: the script did not finish")
        for m in re.finditer(r"PERF-IMAGE (\d+) (\d+) bpp (\d+)", text):
            sizes[fmt] = f"{m.group(1)}×{m.group(2)}, {m.group(3)} B/px"
        for m in re.finditer(r"PERF(-ERROR)? (\w+) ([\d.]+) ([\d.]+)", text):
            if m.group(1):
                errors.append(f"{log}: {m.group(2)} sigma {m.group(3)} failed")
            elif m.group(2) in methods(version):
                samples.setdefault((fmt, m.group(2), float(m.group(3))), []).append(float(m.group(4)))
    gimp = {"2": "2.10", "3": "3.x"}[version]
    ms = methods(version)
    ratios = [m for m in ms if m not in ("copy", "builtin")]
    print("| GIMP | format | sigma | " + " | ".join(f"{COLUMNS[m]} ms" for m in ms) + " | "
          + " | ".join(f"{COLUMNS[m]}/built-in" for m in ratios) + " |")
    print("|" + " --- |" * (3 + len(ms) + len(ratios)))
    fmts = sorted({k[0] for k in samples}, key=lambda f: (f != "gray", f))
    for fmt in fmts:
        for sigma in sorted({k[2] for k in samples if k[0] == fmt}):
            med = {m: statistics.median(samples[(fmt, m, sigma)]) if (fmt, m, sigma) in samples else None
                   for m in ms}
            cell = lambda v: f"{v:.0f}" if v is not None else "—"
            ratio = lambda a, b: f"{a / b:.2f}" if a is not None and b else "—"
            label = {"gray": "gray u8", "rgba": "RGBA u8"}.get(fmt, fmt)
            print(f"| {gimp} | {label} | {sigma:g} | " + " | ".join(cell(med[m]) for m in ms) + " | "
                  + " | ".join(ratio(med[m], med["builtin"]) for m in ratios) + " |")
    n = sorted({len(v) for v in samples.values()})
    print(f"\nMedians of {'/'.join(map(str, n))} timed applications each "
          f"({len(logs)} GIMP processes; images: " + "; ".join(f"{k} {v}" for k, v in sizes.items()) + ").")
    for e in errors:
        print(f"ERROR: {e}")
    return 1 if errors or not samples else 0


def main():
    if len(sys.argv) >= 8 and sys.argv[1] == "prepare":
        version, work, size, fmt, sigmas, reps = sys.argv[2:8]
        prepare(version, work, int(size), fmt, [float(s) for s in sigmas.split()], int(reps))
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "table":
        return table(sys.argv[2], sys.argv[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
