#!/usr/bin/python3
"""plug-in-cuda-gaussian-blur-files under faults, in real GIMP (2.10 or 3.x),
run by files-faults-test.sh: odd names (spaces, quotes, non-ASCII, glob
characters) in files and folders, through the procedure and through
batch/blur-files.sh; the output folder equal to the input folder; links
among the inputs; a full disk (a small tmpfs); the plug-in and the whole
GIMP killed while a file is written, then run again.

  files_faults.py prepare VERSION WORK    inputs, WORK/cases.scm, rerun.scm, kill.scm
  files_faults.py check VERSION WORK LOG  prints PASS/FAIL lines, "N passed, N failed"

Every output must be within 1 level of the double-precision reference
(batch_test.expected), sigma 3, linear light."""
import glob
import hashlib
import os
import re
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True
import batch_test  # noqa: E402

SIGMA = 3.0
ODD_DIR = "odd in 'q' \"d\" é日本 *?[x]"
ODD_FILES = ["sp ace.png", "qu'ote.png", "dq\"uote.png", "é日本.png", "st*ar.png", "q?.png", "br[a].png"]
ODD_OUT = "out odd 'q' é日本 [y]"
KILL_FILES = ["k1.png", "k2.png"]
KILL_SIZE = (400, 520)    # big enough that GIMP's PNG export takes a while (level 9)
FILL_FILES = {"a.png": "small", "b.png": "big", "c.png": "small"}
OWNER = (1234, 2345)      # a replaced input's owner and group (root only)


def scm_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def glob_escaped(s):
    """A literal name in a glob pattern: * ? [ ] and backslash escaped."""
    return re.sub(r"([][*?\\])", r"\\\1", s)


def call(version, pattern, folder, overwrite=False, fmt=""):
    ow = "TRUE" if overwrite else "FALSE"
    p, f, x = scm_string(pattern), scm_string(folder), scm_string(fmt)
    if version == "3":
        return (f"(plug-in-cuda-gaussian-blur-files #:run-mode RUN-NONINTERACTIVE #:pattern {p} "
                f"#:sigma {SIGMA} #:linear TRUE #:output-folder {f} #:format {x} #:overwrite {ow})")
    return f"(plug-in-cuda-gaussian-blur-files RUN-NONINTERACTIVE {p} {SIGMA} TRUE {f} {x} FALSE {ow})"


def case(name, body):
    """A call that reports itself and its error's message (GIMP 3.2 prints
    no caught error)."""
    return (f"(set! cgb-last-error \"\")\n"
            f"(gimp-message (if (catch #f {body} #t) \"CASE {name} CALL-SUCCEEDED\" "
            f"\"CASE {name} CALL-FAILED\"))\n"
            f"(gimp-message (string-append \"CASE {name} ERROR-MESSAGE \" cgb-last-error))\n")


def noise(shape, seed):
    return (np.random.default_rng(seed).random(shape) * 255).round().astype(np.uint8)


def prepare(version, work):
    src = batch_test.pattern(batch_test.H, batch_test.W, 3)
    small = np.round(src * 255).astype(np.uint8)
    batch_test.imwrite(f"{work}/small.png", small[..., ::-1])
    dirs = [ODD_DIR, ODD_OUT, "lit", "out-lit", "own", "links", "real dir", "out-links", "out-linkdir",
            "out-lnk", "fill", "full", "exact", "b-size", "exact-tif", "b-size-tif", "killin", "kill1", "kill2", "out-script",
            "tmp [z]*"]
    for d in dirs:
        os.makedirs(f"{work}/{d}", exist_ok=True)
    for name in ODD_FILES:
        shutil.copy(f"{work}/small.png", f"{work}/{ODD_DIR}/{name}")
    for name in ("br[a].png", "bra.png", "real.png"):
        shutil.copy(f"{work}/small.png", f"{work}/lit/{name}")
    for name in ("a.png", "b.png"):
        shutil.copy(f"{work}/small.png", f"{work}/own/{name}")
    shutil.copy(f"{work}/small.png", f"{work}/real dir/r.png")
    os.symlink("../lit/real.png", f"{work}/links/ln.png")
    os.symlink("real dir", f"{work}/linkdir")
    os.symlink("../lit/real.png", f"{work}/out-lnk/z.png")
    os.symlink("own", f"{work}/own-alias")
    os.link(f"{work}/own/a.png", f"{work}/own-a-link.png")   # a second name of own/a.png
    os.chmod(f"{work}/own/a.png", 0o640)
    if os.geteuid() == 0:
        os.chown(f"{work}/own/a.png", *OWNER)
    for name, kind in FILL_FILES.items():
        img = small if kind == "small" else noise((600, 800, 3), 7)
        batch_test.imwrite(f"{work}/fill/{name}", img[..., ::-1])
    for i, name in enumerate(KILL_FILES):
        batch_test.imwrite(f"{work}/killin/{name}", noise(KILL_SIZE + (3,), 10 + i)[..., ::-1])
    with open(f"{work}/odd-dir", "w", encoding="utf-8") as f:
        f.write(ODD_DIR)
    write_scheme(version, work)


def write_scheme(version, work):
    w = work
    odd = f"{glob_escaped(f'{w}/{ODD_DIR}')}/*"
    cases = [
        case("odd", call(version, odd, f"{w}/{ODD_OUT}")),
        case("escaped", call(version, glob_escaped(f"{w}/lit/br[a].png"), f"{w}/out-lit")),
        case("own-refused", call(version, f"{w}/own/*.png", f"{w}/own")),
        case("own-alias-refused", call(version, f"{w}/own/*.png", f"{w}/own-alias")),
        case("own-link-refused", call(version, f"{w}/out-lnk/*", f"{w}/out-lnk")),
        case("own-overwrite", call(version, f"{w}/own/a.png", f"{w}/own", overwrite=True)),
        case("link-file", call(version, f"{w}/links/*", f"{w}/out-links")),
        case("link-folder", call(version, f"{w}/linkdir/*", f"{w}/out-linkdir")),
        case("full", call(version, f"{w}/fill/*.png", f"{w}/full")),
        case("b-size", call(version, f"{w}/fill/b.png", f"{w}/b-size")),
        case("b-size-tif", call(version, f"{w}/fill/b.png", f"{w}/b-size-tif", fmt="tif")),
        # The watcher kills this call's plug-in as it writes (files-faults-run.sh).
        case("kill1", call(version, f"{w}/killin/*.png", f"{w}/kill1")),
        case("kill1-rerun", call(version, f"{w}/killin/*.png", f"{w}/kill1")),
    ]
    scripts = {"cases.scm": cases,
               "kill.scm": [case("kill2", call(version, f"{w}/killin/*.png", f"{w}/kill2"))],
               "rerun.scm": [case("kill2-rerun", call(version, f"{w}/killin/*.png", f"{w}/kill2")),
                             case("exact", call(version, f"{w}/fill/b.png", f"{w}/exact")),
                             case("exact-tif", call(version, f"{w}/fill/b.png", f"{w}/exact-tif", fmt="tif"))]}
    for name, lines in scripts.items():
        with open(f"{work}/{name}", "w", encoding="utf-8") as f:
            f.write("(gimp-message-set-handler CONSOLE)\n" + batch_test.SCM_KEEP_ERROR)
            f.writelines(lines)


# ------------------------------------------------------------------ check
_refs = {}


def reference(path):
    """The reference blur of the input at path (unrounded, stored units)."""
    key = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if key not in _refs:
        _refs[key] = batch_test.expected(batch_test.read(path), 255.0, SIGMA, True)
    return _refs[key]


def error_of(out, inp):
    """Max difference in levels of the output at out from inp's reference (None: unreadable)."""
    try:
        got = batch_test.read(out).astype(np.float64)
    except FileNotFoundError:
        return None
    ref = reference(inp)
    if got.shape != ref.shape:
        return None
    return float(abs(got - ref).max())


def right(out, inp):
    e = error_of(out, inp)
    return e is not None and e <= 1.0


def listed(work, name):
    """The lines files-faults-run.sh wrote for a folder it listed ("" if none)."""
    path = f"{work}/{name}.list"
    return open(path, encoding="utf-8").read().split("\n") if os.path.exists(path) else None


def check(version, work, log):
    passed = failed = 0

    def record(name, ok, detail=""):
        nonlocal passed, failed
        print(f"{'PASS' if ok else 'FAIL'}: files-faults-{name} — {detail}")
        passed, failed = passed + bool(ok), failed + (not ok)

    def called(name):
        m = re.findall(rf"CASE {name} (CALL-SUCCEEDED|CALL-FAILED)", log)
        return m[-1] if m else "MISSING"

    def message(name):
        m = re.findall(rf"CASE {name} ERROR-MESSAGE ([^\n]*)", log)
        return m[-1] if m else ""

    def skipped(name):
        m = re.search(rf"^{name} skipped: (.*)$", log, re.M)
        if m:
            print(f"SKIP: files-faults-{name} — {m.group(1)}")
        return m is not None

    w = work
    bad = [n for n in ODD_FILES if not right(f"{w}/{ODD_OUT}/{n}", f"{w}/{ODD_DIR}/{n}")]
    record("odd-names", called("odd") == "CALL-SUCCEEDED" and not bad,
           f"{called('odd')}; {len(ODD_FILES)} names with spaces, quotes, é日本, * ? [ ], in a folder so named "
           f"(its glob characters escaped in the pattern), into a folder so named; wrong or missing: {bad}")
    outs = sorted(os.listdir(f"{w}/out-lit"))
    record("escaped-name", called("escaped") == "CALL-SUCCEEDED" and outs == ["br[a].png"]
           and right(f"{w}/out-lit/br[a].png", f"{w}/lit/br[a].png"),
           f"pattern lit/br\\[a\\].png beside bra.png: outputs {outs}")
    check_own(w, called, message, record)
    for name, out, inp in (("link-file", "out-links/ln.png", "lit/real.png"),
                           ("link-folder", "out-linkdir/r.png", "real dir/r.png")):
        record(name, called(name) == "CALL-SUCCEEDED" and right(f"{w}/{out}", f"{w}/{inp}"),
               f"{called(name)}: {out} {error_of(f'{w}/{out}', f'{w}/{inp}')} levels from the reference")
    if not skipped("full"):
        check_full(w, log, called, message, record)
    check_killed(w, log, called, record)
    bad = [n for n in ODD_FILES if not right(f"{w}/out-script/{n}", f"{w}/{ODD_DIR}/{n}")]
    record("script-odd-names", "script exit 0" in log and not bad,
           f"batch/blur-files.sh -g 2, TMPDIR 'tmp [z]*', the odd names: wrong or missing {bad}")
    print(f"{passed} passed, {failed} failed")
    return failed == 0


def check_own(w, called, message, record):
    """Output folder = input folder: refused, however spelled, unless overwrite;
    with overwrite a.png replaced, keeping its mode and owner; its other
    hard link keeps the original."""
    small = hashlib.sha256(open(f"{w}/small.png", "rb").read()).hexdigest()
    b_kept = hashlib.sha256(open(f"{w}/own/b.png", "rb").read()).hexdigest() == small
    for name in ("own-refused", "own-alias-refused", "own-link-refused"):
        record(name, called(name) == "CALL-FAILED" and "holds the input" in message(name) and b_kept,
               f"{called(name)}: {message(name)[-120:]!r}; own/b.png untouched: {b_kept}")
    st = os.stat(f"{w}/own/a.png")
    link_kept = hashlib.sha256(open(f"{w}/own-a-link.png", "rb").read()).hexdigest() == small
    owner = (st.st_uid, st.st_gid) == OWNER if os.geteuid() == 0 else True
    record("own-overwrite", called("own-overwrite") == "CALL-SUCCEEDED"
           and right(f"{w}/own/a.png", f"{w}/small.png") and (st.st_mode & 0o7777) == 0o640 and owner
           and st.st_nlink == 1 and link_kept,
           f"a.png blurred in place of itself: mode {st.st_mode & 0o7777:o}, owner {st.st_uid}:{st.st_gid}, "
           f"links {st.st_nlink}; its other hard link holds the original: {link_kept}")


def check_full(w, log, called, message, record):
    """A 64 KiB tmpfs: b.png does not fit, a.png and c.png do.  Cut short: a
    tmpfs of b's output's whole pages, its last part not fitting."""
    names = [line for line in (listed(w, "full") or ["?"]) if line]
    named = re.search(r"files failed \(the others are done\):.*fill/b\.png", message("full")) is not None
    done = all(right(f"{w}/full-copy/{n}", f"{w}/fill/{n}") for n in ("a.png", "c.png"))
    record("full-disk", called("full") == "CALL-FAILED" and named and sorted(names) == ["a.png", "c.png"]
           and done, f"{called('full')}, b.png named: {named}; left on the disk: {names}; a, c right: {done}")
    exact = [line for line in (listed(w, "exact") or ["?"]) if line]
    said = re.findall(r"fill/b\.png: (FAILED[^\n]*)", log)
    record("full-disk-cut-short", called("exact") == "CALL-FAILED" and exact == [],
           f"{called('exact')}: a tmpfs of b's output's whole pages: left {exact}; "
           f"said: {said[-1][:150] if said else None}")
    check_tiff(w, called, message, record)


def check_tiff(w, called, message, record):
    """A TIFF (no ending to check: loaded back) whole in b-size-tif, kept;
    cut short on a tmpfs of its whole pages, refused."""
    whole = right(f"{w}/b-size-tif/b.tif", f"{w}/fill/b.png")
    record("tiff-whole", called("b-size-tif") == "CALL-SUCCEEDED" and whole,
           f"{called('b-size-tif')}: b.png as TIFF kept and right: {whole}")
    exact = [line for line in (listed(w, "exact-tif") or ["?"]) if line]
    said = "cut short" in message("exact-tif")
    record("tiff-cut-short", called("exact-tif") == "CALL-FAILED" and exact == [] and said,
           f"{called('exact-tif')}: a tmpfs of b.tif's whole pages: left {exact}; "
           f"said: {message('exact-tif')[-150:]!r}")


def check_killed(w, log, called, record):
    for name, how in (("kill1", "the plug-in writing killed (kill -9 of its pid)"),
                      ("kill2", "GIMP killed (kill -9 of its process group)")):
        m = re.search(rf"^{name} killed: (.*)$", log, re.M)
        at = m.group(1) if m else "never (no temporary file seen)"
        left = at.split(" left: ")[-1]
        bad = [n for n in KILL_FILES if not right(f"{w}/{name}/{n}", f"{w}/killin/{n}")]
        temps = glob.glob(f"{w}/{name}/.cgb-partial-*")
        record(name, m is not None and ".cgb-partial-" in left and called(f"{name}-rerun") == "CALL-SUCCEEDED"
               and not bad and not temps,
               f"{how} while writing {at}; after the rerun ({called(name + '-rerun')}): wrong or missing "
               f"{bad}, temporary files {temps}")


def main():
    what, version, work = sys.argv[1:4]
    if what == "prepare":
        prepare(version, work)
        return 0
    with open(sys.argv[4], encoding="utf-8", errors="replace") as f:
        log = f.read()
    return 0 if check(version, work, log) else 1


if __name__ == "__main__":
    sys.exit(main())
