#!/usr/bin/python3
"""Soak of the warm process and of the folder procedure (tests/gimp/soak-test.sh).

  soak_test.py prepare VERSION WORK CALLS FILES  inputs, WORK/warm.scm, WORK/files.scm
  soak_test.py check VERSION WORK CALLS FILES BOUND_MIB
                                                 every output against the double-precision
                                                 reference (batch_test.expected) within 1
                                                 level; resident memory from WORK/*.rss flat
                                                 after the warm-up; "N passed, N failed"

The warm soak makes CALLS calls by name in one GIMP, on copies of three
pictures (gray 8-bit, RGBA 8-bit, RGB 16-bit), with sigmas and linear light
varied; each result is saved.  The folder soak blurs FILES small pictures in
one call of plug-in-cuda-gaussian-blur-files.  The shell samples VmRSS of
GIMP and of the plug-in's processes with the calls done so far (*.rss)."""
import glob
import os
import re
import statistics
import sys

import numpy as np

sys.dont_write_bytecode = True
import batch_test  # noqa: E402
from batch_test import expected, read, scm_call, scm_save  # noqa: E402

SIGMAS = [0.7, 1.5, 3.0, 6.0, 12.0, 25.0]
PICTURES = ["gray8", "rgba8", "rgb16"]
FILES_SIGMA = 2.0
FILE_SIZE = (24, 20)   # w, h of each small file of the folder soak


def plan(calls):
    """Per call: picture, sigma, linear light."""
    return [(PICTURES[i % 3], SIGMAS[(i // 3) % len(SIGMAS)], (i // 18) % 2 == 0) for i in range(calls)]


def warm_scheme(version, work, calls):
    load = {"3": "(car (gimp-file-load RUN-NONINTERACTIVE \"{p}\"))",
            "2": "(car (gimp-file-load RUN-NONINTERACTIVE \"{p}\" \"{p}\"))"}[version]
    layer = ("(vector-ref (car (gimp-image-get-layers img)) 0)" if version == "3"
             else "(car (gimp-image-get-active-layer img))")
    out = ["(gimp-message-set-handler CONSOLE)\n"]
    out.append("(define sources (list " + " ".join(
        load.format(p=f"{work}/{batch_test.INPUTS[p][0]}") for p in PICTURES) + "))\n")
    for i, (pic, sigma, linear) in enumerate(plan(calls)):
        out.append(f"(let* ((img (car (gimp-image-duplicate (list-ref sources {PICTURES.index(pic)}))))\n"
                   f"       (drw {layer}))\n"
                   f"  (gimp-message (if (catch #f {scm_call(version, 'img', 'drw', sigma, linear)} #t)\n"
                   f"    \"soak call {i} ok\" \"soak call {i} failed\"))\n"
                   f"  {scm_save(version, 'img', 'drw', f'{work}/warm/{i}.png')}\n"
                   f"  (gimp-image-delete img))\n")
    return "".join(out)


def files_scheme(version, work):
    return "(gimp-message-set-handler CONSOLE)\n" + batch_test.files_test.call(
        version, f"{work}/folder/*.png", f"{work}/folder-out", FILES_SIGMA) + "\n"


def small_file(i):
    """The i-th picture of the folder: one of the three kinds, cut small and
    shifted so that no two files are alike."""
    pic = PICTURES[i % 3]
    src = read_input(pic)
    w, h = FILE_SIZE
    x, y = (i * 7) % (src.shape[1] - w), (i * 3) % (src.shape[0] - h)
    return pic, src[y:y + h, x:x + w]


_inputs = {}


def read_input(pic):
    if pic not in _inputs:
        _inputs[pic] = read(f"{WORK}/{batch_test.INPUTS[pic][0]}")
    return _inputs[pic]


def prepare(version, work, calls, files):
    for d in ("warm", "folder", "folder-out"):
        os.makedirs(f"{work}/{d}", exist_ok=True)
    batch_test.write_inputs(work)
    for i in range(files):
        pic, img = small_file(i)
        batch_test.imwrite(f"{work}/folder/{i:05d}.png", img[..., [2, 1, 0, 3][:img.shape[2]]]
                           if img.shape[2] > 1 else img[..., 0])
    with open(f"{work}/warm.scm", "w") as f:
        f.write(warm_scheme(version, work, calls))
    with open(f"{work}/files.scm", "w") as f:
        f.write(files_scheme(version, work))


def worst_error(out_path, src, pic, sigma, linear, cache):
    key = (src.tobytes(), sigma, linear)
    if key not in cache:
        cache[key] = expected(src, batch_test.INPUTS[pic][1], sigma, linear)
    try:
        out = read(out_path).astype(np.float64)
    except FileNotFoundError:
        return None
    if out.shape != cache[key].shape:
        return None
    return batch_test.difference(out, cache[key]).max()


def check_outputs(name, items, record):
    """items: (path, source, picture, sigma, linear); every one within 1 level."""
    cache, worst, bad = {}, 0.0, []
    for path, src, pic, sigma, linear in items:
        err = worst_error(path, src, pic, sigma, linear, cache)
        if err is None or err > 1.0:
            bad.append(f"{os.path.basename(path)} ({'missing' if err is None else f'{err:.2f} levels'})")
        else:
            worst = max(worst, err)
    record(f"{name}: every output within 1 level of the reference", not bad and items,
           f"{len(items) - len(bad)} of {len(items)}, worst {worst:.2f} levels"
           + (f"; wrong: {', '.join(bad[:5])}" if bad else ""))
    return worst


def memory(name, path, done_total, bound, record, what="resident memory", roles=("gimp", "warm-process")):
    """Samples "calls pid role kib" (what: resident or device memory): per
    process, the median of the last quarter of the calls (a leak grows
    there; a moment's peak, such as GIMP holding a picture, does not count)
    against the warm-up's (the first quarter's) largest, or the second
    quarter's largest where that is less (a warm-up peak hides no leak; a
    largest, since GIMP's RSS moves by 10 MiB as it holds a picture).  Each of roles must
    be one process, sampled from the warm-up to the last quarter: another in
    its place (a crash, a restart) fails."""
    series = {}
    for line in open(path):
        if len(line.split()) != 4:   # a process that ended while it was read
            continue
        calls, pid, role, rss = line.split()
        series.setdefault((role, pid), []).append((int(calls), int(rss)))
    warmup = max(1, done_total // 4)
    figures = []
    for (role, pid), samples in sorted(series.items()):
        warm = [r for c, r in samples if 0 < c <= warmup]
        after = [r for c, r in samples if c > warmup]
        late = [r for c, r in samples if c > done_total - warmup] or after[-1:]
        second = [r for c, r in samples if warmup < c <= 2 * warmup]
        if not warm or not after:
            figures.append(f"{role}: too few samples ({len(warm)} in the warm-up, {len(after)} after)")
            continue
        base = min(max(warm), max(second)) if second else max(warm)
        ok = statistics.median(late) <= base + bound * 1024
        label = "RSS" if what == "resident memory" else what
        figures.append(f"{role} {pid}: {label} {max(warm) / 1024:.1f} MiB in {warmup} warm-up calls, "
                       f"{base / 1024:.1f} the base, "
                       f"{statistics.median(late) / 1024:.1f} over the last {warmup} (median), "
                       f"{after[-1] / 1024:.1f} at the end, largest after {max(after) / 1024:.1f}")
        record(f"{name}: {role}'s {what} flat after the warm-up (bound +{bound:g} MiB)", ok,
               figures[-1])
    # GIMP and the warm process live through the whole run: unsampled, nothing was checked
    for role in roles:
        pids = sorted(pid for (r, pid), s in series.items() if r == role and any(c > warmup for c, _ in s))
        whole = [pid for (r, pid), s in series.items() if r == role and any(0 < c <= warmup for c, _ in s)
                 and any(c > done_total - warmup for c, _ in s)]
        if len(whole) != 1 or len(pids) != 1:
            record(f"{name}: one {role}, its {what} sampled from the warm-up to the last quarter", False,
                   f"{len(whole)} such, {len(pids)} after the warm-up ({', '.join(pids) or 'none'})")
    return figures


def device_memory(name, rss_path, done_total, bound, record):
    """The warm process's device memory, where SOAK_DEVICE_MEMORY=1 had it sampled beside rss_path."""
    if os.environ.get("SOAK_DEVICE_MEMORY") != "1":
        return []
    return memory(name, f"{rss_path}.device", done_total, bound, record, "device memory", ("warm-process",))


def check(version, work, calls, files, bound):
    """version: 2, 3.0 or 3.2 (as the figures say it)."""
    results = []

    def record(name, ok, detail=""):
        results.append(bool(ok))
        print(f"{'PASS' if ok else 'FAIL'}: {name} — {detail}")

    for name in ("warm", "files"):
        status = read_text(f"{work}/{name}.status")
        record(f"{name}: GIMP exited 0", status == "0", f"exit status {status}")
    log = open(f"{work}/warm.log", errors="replace").read()
    ok_calls = log.count(" ok\n") if "soak call" in log else 0
    record("warm: every call succeeded", ok_calls == calls, f"{ok_calls} of {calls}")
    items = [(f"{work}/warm/{i}.png", read_input(p), p, s, lin) for i, (p, s, lin) in enumerate(plan(calls))]
    worst = check_outputs("warm", items, record)
    figs = memory("warm", f"{work}/warm.rss", calls, bound, record)
    figs += device_memory("warm", f"{work}/warm.rss", calls, bound, record)
    print(f"warm soak: {calls} calls by name in one GIMP {version} in {seconds(work, 'warm')} s, worst "
          f"{worst:.2f} levels; " + "; ".join(figs))

    items = []
    for i in range(files):
        pic, src = small_file(i)
        items.append((f"{work}/folder-out/{i:05d}.png", src, pic, FILES_SIGMA, True))
    worst = check_outputs("folder", items, record)
    said = re.findall(r"(\d+) files: (\d+) blurred, (\d+) skipped[^,]*, (\d+) failed",
                      open(f"{work}/files.log", errors="replace").read())
    record("folder: the call says every file blurred", said == [(str(files), str(files), "0", "0")],
           "; ".join(" ".join(t) for t in said) or "no summary")
    left = [f for f in glob.glob(f"{work}/folder-out/.*") if ".cgb-partial" in f]
    extra = len(os.listdir(f"{work}/folder-out")) - files
    record("folder: nothing left behind", not left and extra == 0, f"{len(left)} temporaries, {extra} extra files")
    figs = memory("folder", f"{work}/files.rss", files, bound, record)
    figs += device_memory("folder", f"{work}/files.rss", files, bound, record)
    print(f"folder soak: {files} files of {FILE_SIZE[0]}x{FILE_SIZE[1]} through {batch_test.files_test.PROC} "
          f"in GIMP {version} in {seconds(work, 'files')} s, worst {worst:.2f} levels; " + "; ".join(figs))
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    return 0 if all(results) else 1


def read_text(path):
    try:
        return open(path).read().strip()
    except OSError:
        return "?"


def seconds(work, name):
    return read_text(f"{work}/{name}.seconds")


WORK = None

if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "prepare":
        WORK = sys.argv[3]
        prepare(sys.argv[2][0], WORK, int(sys.argv[4]), int(sys.argv[5]))
        sys.exit(0)
    if len(sys.argv) == 7 and sys.argv[1] == "check":
        WORK = sys.argv[3]
        sys.exit(check(sys.argv[2], WORK, int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])))
    print(__doc__)
    sys.exit(2)
