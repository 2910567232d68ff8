#!/usr/bin/env python3
"""Where a slider step's time goes, from `canvas-bench --profile`'s stderr.

    canvas_profile.py LOG [--timeline]

LOG holds the bench's step, chunk and iteration lines and the operation's
`profile` lines (GBLUR_PROFILE): one per engine run, printed inside the chunk
whose request made it.  Prints a Markdown table per case (operation, zoom,
sigma) for its last step: the step's milliseconds, its iterations, chunks and
engine runs, and the runs' parts summed (allocation, GEGL read with its
conversion, the engine with its device upload, kernel and download times, GEGL
write, free), the rest of the step (GEGL's own work: the caches, the display's
reads), and the halo's share of the pixels read.  The `none` rows are the floor:
GIMP's own traffic.  --timeline adds each chunk of that step, in order."""
import re
import sys

STEP = re.compile(r'^step (\d+) (\S+) zoom (\S+) sigma (\S+)$')
CHUNK = re.compile(r'^(view|rest) (-?\d+),(-?\d+) (\d+)x(\d+) ([\d.]+) ms$')
ITER = re.compile(r'^iteration ends ([\d.]+) ms$')
RUN = re.compile(r'^cuda-gaussian-blur: profile (-?\d+),(-?\d+) (\d+)x(\d+) halo (\d+)% alloc ([\d.]+) '
                 r'read ([\d.]+) engine ([\d.]+) \(upload ([\d.]+) kernel ([\d.]+) download ([\d.]+)\) '
                 r'write ([\d.]+) free ([\d.]+) ms$')
PARTS = ('alloc', 'read', 'engine', 'upload', 'kernel', 'download', 'write', 'free')


def parse(lines):
    """Steps as dicts: case, step, chunks (each with its runs), iteration ends."""
    steps, runs = [], []
    for line in lines:
        line = line.rstrip('\n')
        m = STEP.match(line)
        if m:
            case = (m[2], float(m[3]), float(m[4]))
            if int(m[1]) > 0 and steps:   # a case is named by its first step's sigma
                case = steps[-1]['case']
            steps.append({'case': case, 'step': int(m[1]), 'chunks': [], 'ends': []})
            runs = []
            continue
        if not steps:
            continue
        m = RUN.match(line)
        if m:
            w, h, halo = int(m[3]), int(m[4]), int(m[5])
            runs.append(dict(zip(PARTS, map(float, m.groups()[5:]))) | {
                'rect': f'{m[1]},{m[2]} {w}x{h}', 'pixels': w * h, 'halo': halo})
            continue
        m = CHUNK.match(line)
        if m:
            steps[-1]['chunks'].append({'kind': m[1], 'rect': f'{m[2]},{m[3]} {m[4]}x{m[5]}',
                                        'ms': float(m[6]), 'runs': runs})
            runs = []
            continue
        m = ITER.match(line)
        if m:
            steps[-1]['ends'].append(float(m[1]))
    return steps


def summary_row(step):
    runs = [r for c in step['chunks'] for r in c['runs']]
    total = step['ends'][-1] if step['ends'] else 0.0
    sums = {p: sum(r[p] for r in runs) for p in PARTS}
    ours = sums['alloc'] + sums['read'] + sums['engine'] + sums['write'] + sums['free']
    read_px = sum(r['pixels'] / (1 - r['halo'] / 100) for r in runs if r['halo'] < 100)
    halo = 1 - sum(r['pixels'] for r in runs) / read_px if read_px else 0.0
    op, zoom, sigma = step['case']
    return (f"| {op} | {zoom * 100:g} % | {sigma:.3g} | {total:.1f} | {len(step['ends'])} | "
            f"{len(step['chunks'])} | {len(runs)} | {sums['alloc']:.1f} | {sums['read']:.1f} | "
            f"{sums['engine']:.1f} ({sums['upload']:.1f} / {sums['kernel']:.1f} / {sums['download']:.1f}) | "
            f"{sums['write']:.1f} | {sums['free']:.1f} | {total - ours:.1f} | {100 * halo:.0f} % |")


def timeline(step):
    print(f"\n{step['case'][0]}, zoom {step['case'][1] * 100:g} %, sigma {step['case'][2]:.3g}, "
          f"step {step['step']}; iterations end at {', '.join(f'{t:.0f}' for t in step['ends'])} ms\n")
    print('| chunk | ms | run | halo | alloc | read | engine (up / kernel / down) | write |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- |')
    for c in step['chunks']:
        print(f"| {c['kind']} {c['rect']} | {c['ms']:.1f} | | | | | | |")
        for r in c['runs']:
            print(f"| | | {r['rect']} | {r['halo']} % | {r['alloc']:.1f} | {r['read']:.1f} | "
                  f"{r['engine']:.1f} ({r['upload']:.1f} / {r['kernel']:.1f} / {r['download']:.1f}) | "
                  f"{r['write']:.1f} |")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding='utf-8', errors='replace') as f:
        steps = parse(f)
    last = {}
    for s in steps:
        last[s['case']] = s
    print('| operation | zoom | σ | step ms | iterations | chunks | runs | alloc | read | '
          'engine (upload / kernel / download) | write | free | rest (GEGL) | halo |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for s in last.values():
        print(summary_row(s))
    if '--timeline' in sys.argv:
        for s in last.values():
            if s['case'][0] != 'none':
                timeline(s)
    return 0


if __name__ == '__main__':
    sys.exit(main())
