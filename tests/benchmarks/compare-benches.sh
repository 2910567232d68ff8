#!/bin/sh
# Two builds of tests/benchmarks/bench side by side: every row run by each in
# turn, ROUNDS times (3 unless set), so that load on the machine falls on
# both; prints each row's medians over the rounds and new / old.
#   tests/benchmarks/compare-benches.sh OLD_BENCH NEW_BENCH BENCH_ARGS...
# e.g. OLD_BENCH from a worktree of the commit before, built with
# `../configure --without-cuda && make tests/benchmarks/bench`.
set -u
old=${1:?usage: compare-benches.sh OLD_BENCH NEW_BENCH BENCH_ARGS...}
new=${2:?usage: compare-benches.sh OLD_BENCH NEW_BENCH BENCH_ARGS...}
shift 2
rounds=${ROUNDS:-3}
out=$(mktemp -d /tmp/compare-benches.XXXXXX)
trap 'rm -rf "$out"' EXIT

for r in $(seq "$rounds"); do
  "$old" "$@" | grep '^| cpu\|^| cuda' >>"$out/old" || exit 1
  "$new" "$@" | grep '^| cpu\|^| cuda' >>"$out/new" || exit 1
done
# Rows are "| backend | device | format | size | sigma | ms | ...": keyed by
# backend, format, size and sigma.
python3 - "$out/old" "$out/new" <<'PY'
import statistics, sys
def rows(path):
    got = {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        key = (cells[0], cells[2], cells[3], cells[4])
        got.setdefault(key, []).append(float(cells[5].split()[0]))
    return got
old, new = rows(sys.argv[1]), rows(sys.argv[2])
print("| backend | format | size | sigma | old ms (median) | new ms (median) | new / old |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for key in old:
    o, n = statistics.median(old[key]), statistics.median(new.get(key, [float("nan")]))
    print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {o:.0f} | {n:.0f} | {n / o:.2f} |")
PY
