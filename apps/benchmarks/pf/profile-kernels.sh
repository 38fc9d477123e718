#!/usr/bin/env bash
# Per-kernel device time, warp instructions, issue rate and DRAM traffic of the particle filter's
# step kernels (augur-bench-pf --profile: 4 plain steps and one reduce each of K = 20,000 × 20 vehicles
# and K = 10⁶ × 1 vehicle, both layouts), read with Nsight Compute. Clocks and caches are left as they
# are (--clock-control none, --cache-control none); every kernel runs serialised and alone.
#
#   apps/benchmarks/pf/profile-kernels.sh <path to augur-bench-pf> [output folder]
set -euo pipefail
bench=$1
out=${2:-.}
mkdir -p "$out"
metrics=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active
ncu --clock-control none --cache-control none --metrics "$metrics" --print-units base \
    --print-kernel-base function --csv --log-file "$out/ncu.csv" \
    -k regex:'particleKernel|vehicleKernel|combineKernel|copyIndexKernel' "$bench" --profile > "$out/profile.log" 2>&1 || {
  echo "profile-kernels: ncu failed"; tail -20 "$out/profile.log"; exit 1; }
grep '^profiled' "$out/profile.log" || true
python3 - "$out/ncu.csv" <<'PY'
import csv, sys
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
kernels = {}
order = []
for r in csv.DictReader(lines[start:]):
    key = r["ID"]
    if key not in kernels:
        kernels[key] = {"name": r["Kernel Name"], "grid": r["Grid Size"], "block": r["Block Size"]}
        order.append(key)
    kernels[key][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
print("| # | kernel | grid × block | µs | warp instr (M) | issue % | occupancy % | DRAM MB |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for i, key in enumerate(order):
    k = kernels[key]
    print(f"| {i} | {k['name']} | {k['grid']} × {k['block']} | {k.get('gpu__time_duration.sum', 0) * 1e-3:.1f} | "
          f"{k.get('smsp__inst_executed.sum', 0) * 1e-6:.2f} | "
          f"{k.get('smsp__issue_active.avg.pct_of_peak_sustained_active', 0):.0f} | "
          f"{k.get('sm__warps_active.avg.pct_of_peak_sustained_active', 0):.0f} | "
          f"{k.get('dram__bytes.sum', 0) * 1e-6:.1f} |")
PY
