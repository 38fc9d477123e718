#!/usr/bin/env bash
# Per-kernel device times of one FlockFinder::findOnDevice call at 2,000 entities × 1,000 steps
# (augur-bench-flock --profile: resident input, direct launches), read with Nsight Compute: the
# kernels of the last call in launch order, then summed by name, and their total against the call's
# event-timed device time. Needs `ncu` on the PATH, python3 and a GPU. Clocks and caches are left as
# they are (--clock-control none, --cache-control none), so times are those of a warm pipeline, but
# every kernel runs serialised and alone.
#
#   apps/benchmarks/flock/profile-kernels.sh <path to augur-bench-flock> [output folder]
set -euo pipefail
bench=$1
out=${2:-.}
mkdir -p "$out"
ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --print-units base \
    --print-kernel-base function --csv --log-file "$out/ncu.csv" "$bench" --profile > "$out/profile.log" 2>&1 || {
  echo "profile-kernels: ncu failed"; tail -20 "$out/profile.log"; exit 1; }
grep '^profile:' "$out/profile.log" || true
python3 - "$out/ncu.csv" <<'PY'
import csv, sys
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
rows = [r for r in csv.DictReader(lines[start:]) if r.get("Metric Name") == "gpu__time_duration.sum"]
names = [r["Kernel Name"] for r in rows]
first = max(i for i, n in enumerate(names) if n.startswith("stepsInSharedKernel"))
last = rows[first:]
print(f"kernels of the last call: {len(last)}")
print("| # | kernel | grid × block | µs |")
print("| --- | --- | --- | --- |")
for i, r in enumerate(last):
    us = float(r["Metric Value"].replace(",", "")) * 1e-3
    print(f"| {i} | {r['Kernel Name']} | {r['Grid Size']} × {r['Block Size']} | {us:.1f} |")
total = {}
count = {}
for r in last:
    n = r["Kernel Name"]
    total[n] = total.get(n, 0.0) + float(r["Metric Value"].replace(",", "")) * 1e-3
    count[n] = count.get(n, 0) + 1
print()
print("| kernel | launches | µs | share |")
print("| --- | --- | --- | --- |")
s = sum(total.values())
for n, v in sorted(total.items(), key=lambda kv: -kv[1]):
    print(f"| {n} | {count[n]} | {v:.1f} | {100 * v / s:.0f} % |")
print(f"| all | {len(last)} | {s:.1f} | 100 % |")
PY
