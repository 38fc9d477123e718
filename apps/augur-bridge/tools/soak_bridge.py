#!/usr/bin/env python3
"""Runs augur-bridge for a long time on the loopback path and records its memory over time, the data behind
apps/augur-bridge/results/dds-bridge-soak.csv.

    soak_bridge.py --bin BUILD/apps/augur-bridge --source REPO --duration-min M [--rate-hz R] [--vehicles V]
                   [--grid-frames F] [--interval-s S] [--rt-priority P] [--commit HASH] [--device TEXT] [--out CSV]

bench_bridge.py's loopback run (iox-roudi, augur-bridge and augur-bridge-probe in private IPC, mount and
network namespaces, DDS on the loopback interface, reliable QoS) with M minutes of predictions at R Hz
(default 10). Every S seconds (default 30) one row (sample "memory"): the time, the seconds since the probe
started, and the bridge's VmRSS, RssAnon (its private memory: heap, stacks) and RssShmem (the iceoryx chunks
it read) from /proc/PID/status. A last row (sample "result") carries the probe's figures: its last RssAnon
sample (it samples every hundredth of the messages), DDS predictions received, lost and out of order, and
the DDS latency p50/p99. Each row is written as it is taken, so an interrupted soak keeps its samples.
Needs root (namespaces).
"""
import argparse
import csv
import datetime
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_bridge  # noqa: E402  (the sibling script: namespaces, bridge start, probe command)

FIELDS = ["date", "elapsed_s", "sample", "vmrss_kib", "rss_anon_kib", "rss_shmem_kib", "dds_received", "dds_lost",
          "dds_out_of_order", "dds_p50_us", "dds_p99_us", "device", "commit", "command"]


def memory_kib(pid):
    """VmRSS, RssAnon and RssShmem of process `pid` in KiB, or None once it is gone."""
    values = {}
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "RssAnon", "RssShmem"):
                    values[key] = int(rest.split()[0])
    except (FileNotFoundError, ProcessLookupError):
        return None
    return values


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    bench_bridge.add_common_arguments(p, rate_hz=10.0)
    p.add_argument("--duration-min", type=float, required=True)
    p.add_argument("--interval-s", type=float, default=30.0)
    p.add_argument("--out", default="apps/augur-bridge/results/dds-bridge-soak.csv")
    a = p.parse_args()
    config, command, _date, device = bench_bridge.finish_arguments(a, "soak_bridge.py")
    a.count = int(round(a.duration_min * 60 * a.rate_hz))
    script = (f'export CYCLONEDDS_URI=file://{a.source}/{bench_bridge.LOOPBACK_XML}\n' +
              bench_bridge.start_roudi_and_bridge(a, config) +
              'echo "bridge $bridge"\n' +
              bench_bridge.latency_command(a, config) +
              'kill -INT $bridge; wait $bridge; kill -INT $roudi; wait $roudi\n')
    run = subprocess.Popen(["unshare", "--net"] + bench_bridge.ISOLATE + ["sh", "-c", script],
                           stdout=subprocess.PIPE, text=True)
    first = run.stdout.readline().split()
    if len(first) != 2 or first[0] != "bridge":
        run.kill()
        raise RuntimeError(f"the bridge did not start: {first}")
    bridge = int(first[1])
    start = time.monotonic()

    with open(a.out, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        common = {"device": device, "commit": a.commit, "command": command}
        next_sample = start
        while run.poll() is None:
            memory = memory_kib(bridge)
            if memory is None:
                break
            w.writerow({"date": now_utc(), "elapsed_s": f"{time.monotonic() - start:.0f}", "sample": "memory",
                        "vmrss_kib": memory.get("VmRSS", ""), "rss_anon_kib": memory.get("RssAnon", ""),
                        "rss_shmem_kib": memory.get("RssShmem", ""), **common})
            f.flush()
            next_sample += a.interval_s
            while run.poll() is None and time.monotonic() < next_sample:
                time.sleep(min(1.0, max(0.0, next_sample - time.monotonic())))
        output = run.communicate(timeout=120)[0]
        print(output)
        result = bench_bridge.last_json(output)
        w.writerow({"date": now_utc(), "elapsed_s": f"{time.monotonic() - start:.0f}", "sample": "result",
                    "vmrss_kib": result["bridge_rss_kib_after"],
                    "rss_anon_kib": (result["bridge_anon_kib_samples"] or [""])[-1], "rss_shmem_kib": result["bridge_shmem_kib_after"],
                    "dds_received": result["dds_received"], "dds_lost": result["dds_lost"],
                    "dds_out_of_order": result["dds_out_of_order"], "dds_p50_us": result["dds_p50_us"],
                    "dds_p99_us": result["dds_p99_us"], **common})
    print(f"soak_bridge: {a.out}")
    return 0 if run.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
