#!/usr/bin/env python3
"""The product code's shape: no file over MAX_FILE lines, no function over
MAX_FUNCTION lines, no cycle of #includes or of calls between files, and
none of #includes between folders (a layer's folders include one way).

    tests/check-shape.py [FOLDER...]   (default: the product folders)

Functions and their ends come from universal-ctags; a call is a use of a
name that another file defines without `static`.  Ends with
"N passed, N failed" and exits non-zero on any failure."""
import json
import os
import re
import subprocess
import sys

MAX_FILE = 700
MAX_FUNCTION = 80
FOLDERS = ["kernels", "pixels", "plugin", "operation", "ui"]
SOURCE = re.compile(r"\.(c|h|cu|cuh)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT_OR_STRING = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', re.S)
WORD = re.compile(r"[A-Za-z_]\w*")

passed = failed = 0


def check(ok, message):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + message)


def sources(folders):
    found = []
    for folder in folders:
        for root, _, names in os.walk(folder):
            found += [os.path.join(root, n) for n in sorted(names) if SOURCE.search(n)]
    return sorted(found)


def functions(files):
    """(file, name, first line, last line, static) of each function definition."""
    out = subprocess.run(["ctags", "--langmap=CUDA:+.cuh", "--kinds-C=f", "--kinds-CUDA=f",
                          "--fields=+ne", "--output-format=json", "-o", "-"] + files,
                         check=True, capture_output=True, text=True).stdout
    tags = []
    for line in out.splitlines():
        t = json.loads(line)
        if t.get("kind") == "function" and "end" in t:
            static = t.get("file", False)
            tags.append((t["path"], t["name"], t["line"], t["end"], static))
    return tags


def cycles(graph):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def include_graph(files):
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    graph = {}
    for f in files:
        here = os.path.dirname(f)
        for inc in INCLUDE.findall(open(f, encoding="utf-8").read()):
            near = os.path.normpath(os.path.join(here, inc))
            targets = [near] if near in files else by_name.get(os.path.basename(inc), [])
            graph.setdefault(f, set()).update(t for t in targets if t != f)
    return graph


def folder_graph(graph):
    """The include graph between the files' folders."""
    folders = {}
    for f, targets in graph.items():
        folders.setdefault(os.path.dirname(f), set()).update(
            os.path.dirname(t) for t in targets if os.path.dirname(t) != os.path.dirname(f))
    return folders


def call_graph(files, tags):
    defined = {}
    for path, name, _, _, static in tags:
        if not static and path.endswith((".c", ".cu")) and name != "main":
            defined.setdefault(name, set()).add(path)
    graph = {}
    for f in files:
        if not f.endswith((".c", ".cu")):
            continue
        words = set(WORD.findall(COMMENT_OR_STRING.sub(" ", open(f, encoding="utf-8").read())))
        # A name this file defines itself (an alternative build's twin) is its own.
        graph[f] = {g for w in words if f not in defined.get(w, ()) for g in defined.get(w, ())}
    return graph


def main():
    folders = [f for f in (sys.argv[1:] or FOLDERS) if os.path.isdir(f)]
    files = sources(folders)
    for f in files:
        n = sum(1 for _ in open(f, encoding="utf-8"))
        check(n <= MAX_FILE, "%s has %d lines (at most %d)" % (f, n, MAX_FILE))
    tags = functions(files)
    for path, name, first, last, _ in tags:
        n = last - first + 1
        check(n <= MAX_FUNCTION, "%s:%d: %s has %d lines (at most %d)" % (path, first, name, n, MAX_FUNCTION))
    includes = include_graph(files)
    for kind, graph in (("#include", includes), ("call", call_graph(files, tags)),
                        ("folder #include", folder_graph(includes))):
        found = cycles(graph)
        for part in found:
            check(False, "a %s cycle between %s" % (kind, ", ".join(part)))
        if not found:
            check(True, "")
    print("%d files, %d functions in %s" % (len(files), len(tags), " ".join(folders)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
