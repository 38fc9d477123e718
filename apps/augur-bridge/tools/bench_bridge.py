#!/usr/bin/env python3
"""Measures augur-bridge and writes docs/results/dds-bridge.csv (metric, target, device, value, date, commit,
command), the data behind the DDS rows of docs/benchmarks.md.

    bench_bridge.py --bin BUILD/apps/augur-bridge --source REPO [--count N] [--rate-hz R] [--vehicles V]
                    [--grid-frames F] [--repeat K] [--rt-priority P] [--commit HASH] [--device TEXT] [--out CSV]

1. loopback: iox-roudi, augur-bridge (target) and augur-bridge-probe in private IPC, mount and network
   namespaces; the probe publishes N predictions of V vehicles over iceoryx at R Hz and receives each both
   from iceoryx and, through the bridge, from DDS on the loopback interface (reliable QoS), each with F
   occupancy frames of 128 x 128 cells (default 0: none): latency p50/p99
   of both paths, lost messages, the bridge's private memory (RssAnon) after a tenth of the messages and
   the largest of its samples (every hundredth of the messages) from there on, and the shared-memory
   pages it touched (RssShmem: the iceoryx chunks it read, bounded by RouDi's pools).
2. veth: the same publisher and bridge in one network namespace, `augur-bridge-probe receive` in another,
   joined by a veth pair (two hosts sharing one clock).
3. peer loss: a DDS publisher of object lists killed with SIGKILL, K times; the time until the bridge status
   reports it lost.
With each run the share of CPU time the hypervisor withheld from this machine (steal in /proc/stat), and
during the loopback run how late a 1 ms timer thread of this script's wakes at the same priority: on a
virtual machine a latency tail under load follows these, whatever the scheduling policy (docs/dds.md).
soak_bridge.py reuses the loopback run for hours of memory samples.
Needs root (namespaces). Each step prints the probe's JSON.
"""
import argparse
import csv
import datetime
import json
import os
import shlex
import subprocess
import sys
import threading
import time

ISOLATE = ["unshare", "--ipc", "--mount", "--propagation", "private", "sh", "-c",
           'mount -t tmpfs tmpfs /tmp && mount -t tmpfs tmpfs /dev/shm && ip link set lo up && exec "$@"', "ns"]
SUBNET = "10.213.9"
LOOPBACK_XML = "config/cyclonedds-loopback.xml"


def veth_xml(interface, peer):
    return ("<CycloneDDS><Domain Id=\"any\"><General><Interfaces>"
            f"<NetworkInterface name=\"{interface}\"/></Interfaces><AllowMulticast>false</AllowMulticast>"
            "<MaxMessageSize>65500B</MaxMessageSize><FragmentSize>65000B</FragmentSize>"
            "</General><Internal><SocketReceiveBufferSize min=\"4MB\"/></Internal>"
            "<Discovery><ParticipantIndex>auto</ParticipantIndex>"
            f"<Peers><Peer Address=\"{peer}\"/></Peers></Discovery></Domain></CycloneDDS>")


def last_json(text):
    lines = [l for l in text.splitlines() if l.startswith("{")]
    if not lines:
        raise RuntimeError("no result from the probe:\n" + text)
    return json.loads(lines[-1].replace("nan", "NaN"))  # the probe prints an empty path's percentiles as nan


def start_roudi_and_bridge(a, config):
    return (f'iox-roudi >/dev/null 2>&1 & roudi=$!\n'
            f'i=0; while [ ! -S /tmp/roudi ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done\n'
            f'{a.rt}"{a.bin}/augur-bridge" --config "{config}" --quiet >/dev/null 2>&1 & bridge=$!\nsleep 0.5\n')


def cpu_ticks():
    """(steal, total) clock ticks of all CPUs from /proc/stat: steal is the time the hypervisor ran something
    else while this machine's virtual CPUs were ready to run."""
    with open("/proc/stat", encoding="utf-8") as f:
        fields = [int(x) for x in f.readline().split()[1:9]]
    return fields[7], sum(fields)


def steal_percent(before, after):
    total = after[1] - before[1]
    return round(100.0 * (after[0] - before[0]) / total, 2) if total > 0 else 0.0


class WakeupReference(threading.Thread):
    """A thread of this script's, under the bench's SCHED_FIFO priority, that sleeps to a 1 ms grid and
    records how late it wakes: the host's own wake-up tail during a run, with no DDS and no iceoryx in it."""

    def __init__(self, priority):
        super().__init__(daemon=True)
        self.priority, self.late_us, self.done = priority, [], threading.Event()

    def run(self):
        if self.priority > 0:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(self.priority))  # this thread only
        due = time.monotonic()
        while not self.done.is_set():
            due += 0.001
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            now = time.monotonic()
            self.late_us.append((now - due) * 1e6)
            due = max(due, now - 0.001)  # after a long stall, one late wake-up, not a burst of catching up

    def finish(self):
        """(p99, max) of the lateness in µs."""
        self.done.set()
        self.join()
        late = sorted(self.late_us) or [float("nan")]
        return round(late[int(0.99 * (len(late) - 1))], 1), round(late[-1], 1)


def latency_command(a, config, extra=""):
    """The probe's latency run against the bridge started by start_roudi_and_bridge ($bridge)."""
    return (f'{a.rt}"{a.bin}/augur-bridge-probe" latency --config "{config}" --count {a.count} --rate-hz {a.rate_hz} '
            f'--vehicles {a.vehicles} --grid-frames {a.grid_frames} --bridge-pid $bridge{extra}\n')


def loopback(a, config):
    script = (f'export CYCLONEDDS_URI=file://{a.source}/{LOOPBACK_XML}\n' + start_roudi_and_bridge(a, config) +
              latency_command(a, config) +
              f'"{a.bin}/augur-bridge-probe" peer-loss --config "{config}" --listener "{a.bin}/augur-dds-listener" '
              f'--repeat {a.repeat}\n'
              'kill -INT $bridge; wait $bridge; kill -INT $roudi; wait $roudi\n')
    result = subprocess.run(["unshare", "--net"] + ISOLATE + ["sh", "-c", script], capture_output=True, text=True,
                            timeout=3600)
    print(result.stdout)
    lines = [l for l in result.stdout.splitlines() if l.startswith("{")]
    if len(lines) != 2:
        raise RuntimeError("loopback run failed:\n" + result.stdout + result.stderr)
    return last_json(lines[0]), last_json(lines[1])


def veth(a, config):
    tag = str(os.getpid())
    target_ns, bench_ns = f"augur-target-{tag}", f"augur-bench-{tag}"
    target_if, bench_if = f"augt{tag}"[:15], f"augb{tag}"[:15]
    go = os.path.join(a.work, "bench-bridge-go")
    if os.path.exists(go):
        os.remove(go)
    try:
        for step in (["ip", "netns", "add", target_ns], ["ip", "netns", "add", bench_ns],
                     ["ip", "link", "add", target_if, "type", "veth", "peer", "name", bench_if],
                     ["ip", "link", "set", target_if, "netns", target_ns], ["ip", "link", "set", bench_if, "netns", bench_ns],
                     ["ip", "-n", target_ns, "addr", "add", f"{SUBNET}.1/30", "dev", target_if],
                     ["ip", "-n", bench_ns, "addr", "add", f"{SUBNET}.2/30", "dev", bench_if],
                     ["ip", "-n", target_ns, "link", "set", target_if, "up"],
                     ["ip", "-n", bench_ns, "link", "set", bench_if, "up"]):
            subprocess.run(step, check=True)
        target_script = (f"export CYCLONEDDS_URI='{veth_xml(target_if, SUBNET + '.2')}'\n" +
                         start_roudi_and_bridge(a, config) +
                         f'i=0; while [ ! -e "{go}" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n' +
                         latency_command(a, config, " --no-dds") +
                         'sleep 2; kill -INT $bridge; wait $bridge; kill -INT $roudi; wait $roudi\n')
        bench_script = (f"export CYCLONEDDS_URI='{veth_xml(bench_if, SUBNET + '.1')}'\n"
                        f'{a.rt}"{a.bin}/augur-bridge-probe" receive --config "{config}" --count {a.count} '
                        f'--timeout-s {a.count / a.rate_hz + 60}\n')
        target = subprocess.Popen(["ip", "netns", "exec", target_ns] + ISOLATE + ["sh", "-c", target_script],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(1.0)
        bench = subprocess.Popen(["ip", "netns", "exec", bench_ns] + ISOLATE + ["sh", "-c", bench_script],
                                 stdout=subprocess.PIPE, text=True)
        first = bench.stdout.readline()
        if first.strip() != "ready":
            raise RuntimeError(f"receiver not ready: {first}")
        open(go, "w").close()
        received = bench.communicate(timeout=a.count / a.rate_hz + 120)[0]
        os.remove(go)
        published = target.communicate(timeout=120)[0]
        print(published, received)
        return last_json(published), last_json(received)
    finally:
        subprocess.run(["ip", "netns", "del", target_ns], stderr=subprocess.DEVNULL)
        subprocess.run(["ip", "netns", "del", bench_ns], stderr=subprocess.DEVNULL)


def add_common_arguments(p, rate_hz):
    """The options bench_bridge.py shares with soak_bridge.py."""
    p.add_argument("--bin", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--rate-hz", type=float, default=rate_hz)
    p.add_argument("--vehicles", type=int, default=64)
    p.add_argument("--grid-frames", type=int, default=0, help="occupancy frames of 128 x 128 cells per prediction")
    p.add_argument("--commit", default="")
    p.add_argument("--device", default="")
    p.add_argument("--rt-priority", type=int, default=0,
                   help="run the bridge and the probes under SCHED_FIFO at this priority (chrt); 0: no")


def finish_arguments(a, script):
    """Absolute paths, the chrt prefix; returns (deployment file, command line, date, device) for the CSV."""
    a.rt = f"chrt -f {a.rt_priority} " if a.rt_priority > 0 else ""
    a.bin, a.source = os.path.abspath(a.bin), os.path.abspath(a.source)
    config = os.path.join(a.source, "config", "default.yaml")
    command = f"apps/augur-bridge/tools/{script} " + " ".join(shlex.quote(x) for x in sys.argv[1:])
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return config, command, date, a.device or "unknown host"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_arguments(p, rate_hz=100.0)
    p.add_argument("--count", type=int, default=10000)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--out", default="docs/results/dds-bridge.csv")
    a = p.parse_args()
    config, command, date, device = finish_arguments(a, "bench_bridge.py")
    a.work = a.bin  # the veth run's start signal: a file both namespaces see (each has a private /tmp)
    start, reference = cpu_ticks(), WakeupReference(a.rt_priority)
    reference.start()
    lo, loss = loopback(a, config)
    middle, (wakeup_p99, wakeup_max) = cpu_ticks(), reference.finish()
    pub, rx = veth(a, config)
    lo_steal, veth_steal = steal_percent(start, middle), steal_percent(middle, cpu_ticks())
    n = f"{a.count} x {a.vehicles} vehicles at {a.rate_hz:g} Hz"
    rows = [
        ("iceoryx_p50_us", "", lo["iceoryx_p50_us"], f"loopback run, {n}"),
        ("iceoryx_p99_us", "", lo["iceoryx_p99_us"], ""),
        ("dds_loopback_p50_us", "", lo["dds_p50_us"], "iceoryx -> bridge -> DDS on lo"),
        ("dds_loopback_p99_us", "", lo["dds_p99_us"], ""),
        ("dds_loopback_max_us", "", lo["dds_max_us"], ""),
        ("dds_loopback_added_p99_us", "<= 1000", lo["added_p99_us"], "DDS p99 - iceoryx p99"),
        ("dds_loopback_lost", "0", lo["dds_lost"], "reliable QoS"),
        ("dds_loopback_out_of_order", "0", lo["dds_out_of_order"], ""),
        ("bridge_anon_kib_warm", "", lo["bridge_anon_kib_warm"],
         "RssAnon (private memory) of augur-bridge after a tenth of the messages"),
        ("bridge_anon_kib_max_after_warm", "", lo["bridge_anon_kib_max_after_warm"],
         "largest of the samples every hundredth of the messages, from the tenth on"),
        ("bridge_shmem_kib_after", "", lo["bridge_shmem_kib_after"], "RssShmem: iceoryx chunks read (RouDi's pools)"),
        ("iceoryx_veth_run_p99_us", "", pub["iceoryx_p99_us"], "publisher side of the veth run"),
        ("dds_veth_p50_us", "", rx["dds_p50_us"], "receiver in another network namespace, veth pair"),
        ("dds_veth_p99_us", "", rx["dds_p99_us"], ""),
        ("dds_veth_max_us", "", rx["dds_max_us"], ""),
        ("dds_veth_lost", "0", rx["dds_lost"], "reliable QoS"),
        ("bridge_anon_kib_warm_veth", "", pub["bridge_anon_kib_warm"], ""),
        ("bridge_anon_kib_max_after_warm_veth", "", pub["bridge_anon_kib_max_after_warm"], ""),
        ("peer_loss_detect_p50_ms", "", loss["detect_p50_ms"], f"{loss['repeats']} SIGKILLed publishers, "
                                                               f"lease {loss['liveliness_lease_ms']} ms"),
        ("peer_loss_detect_max_ms", "<= 200", loss["detect_max_ms"], f"detected {loss['detected']}"),
        ("host_steal_percent_loopback", "", lo_steal, "CPU time the hypervisor withheld during the loopback run"),
        ("host_steal_percent_veth", "", veth_steal, "the same during the veth run"),
        ("wakeup_reference_p99_us", "", wakeup_p99, "lateness of a 1 ms timer thread at the bench's priority, "
                                                     "loopback run"),
        ("wakeup_reference_max_us", "", wakeup_max, ""),
    ]
    with open(a.out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["metric", "target", "device", "value", "date", "commit", "command"])
        for metric, target, value, _note in rows:
            w.writerow([metric, target, device, value, date, a.commit, command])
    print(f"bench_bridge: {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
