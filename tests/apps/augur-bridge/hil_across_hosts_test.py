#!/usr/bin/env python3
"""The HIL bench across hosts: augur-runtime and augur-bridge (role target) on one "host", augur-hil run and
augur-bridge (role bench) on the other, linked only by Cyclone DDS over a veth pair. Each host is a network
namespace (ip netns) with its own IPC, mount, /tmp and /dev/shm, so each has its own RouDi and nothing but
the veth link in common. The target's "host" also has its own monotonic clock, a day ahead of the bench's
(a time namespace), as a host that booted a day earlier: the stamps cross as the wire clock
(bridge.wire_clock, realtime), so the runtime's input age checks still hold. Checks that the replayed
object lists reached the runtime and its outputs came back to the bench, every cycle.

    hil_across_hosts_test.py BRIDGE_BIN_DIR AUGUR_RUNTIME AUGUR_HIL SOURCE_DIR OUT_DIR

Skipped (exit 77) where network namespaces cannot be made (not root). The predictions arrive with their
occupancy grid and the platoon lists come back too: the run scores occupancy and records platoons.
"""
import csv
import os
import re
import shutil
import subprocess
import sys
import time

SKIPPED = 77
START_S = 20.0
DURATION_S = 5.0
STEP_S = 0.1
CYCLE_S = 0.2
SUBNET = "10.213.7"
MONOTONIC_AHEAD_S = 86400
ISOLATE = ["unshare", "--ipc", "--mount", "--propagation", "private", "sh", "-c",
           'mount -t tmpfs tmpfs /tmp && mount -t tmpfs tmpfs /dev/shm && ip link set lo up && exec "$@"', "ns"]
OWN_CLOCK = ["unshare", "--time", "--monotonic", str(MONOTONIC_AHEAD_S), "--boottime", str(MONOTONIC_AHEAD_S)]


def cyclone_config(interface, peer):
    return ("<CycloneDDS><Domain Id=\"any\"><General><Interfaces>"
            f"<NetworkInterface name=\"{interface}\"/></Interfaces><AllowMulticast>false</AllowMulticast>"
            "</General><Discovery><ParticipantIndex>auto</ParticipantIndex>"
            f"<Peers><Peer Address=\"{peer}\"/></Peers></Discovery></Domain></CycloneDDS>")


def sh(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=30)


def read_rows(path):
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def main():
    bindir, runtime, hil, source, out = (os.path.abspath(x) for x in sys.argv[1:6])
    tag = str(os.getpid())
    target_ns, bench_ns = f"augur-target-{tag}", f"augur-bench-{tag}"
    target_if, bench_if = f"augt{tag}"[:15], f"augb{tag}"[:15]
    if sh("ip", "netns", "add", target_ns).returncode != 0:
        print("hil_across_hosts_test: ip netns is not allowed here: skipped")
        return SKIPPED
    try:
        sh("ip", "netns", "add", bench_ns)
        steps = [("ip", "link", "add", target_if, "type", "veth", "peer", "name", bench_if),
                 ("ip", "link", "set", target_if, "netns", target_ns),
                 ("ip", "link", "set", bench_if, "netns", bench_ns),
                 ("ip", "-n", target_ns, "addr", "add", f"{SUBNET}.1/30", "dev", target_if),
                 ("ip", "-n", bench_ns, "addr", "add", f"{SUBNET}.2/30", "dev", bench_if),
                 ("ip", "-n", target_ns, "link", "set", target_if, "up"),
                 ("ip", "-n", bench_ns, "link", "set", bench_if, "up")]
        for step in steps:
            result = sh(*step)
            if result.returncode != 0:
                print(f"hil_across_hosts_test: {' '.join(step)}: {result.stderr.strip()}: skipped")
                return SKIPPED
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        # The shipped deployment, lighter (256 particles) and with the ladder held nominal: the test is of
        # the link, and on a loaded host late cycles would step the runtime down to constant velocity,
        # which publishes no grid.
        shipped = open(os.path.join(source, "config", "default.yaml"), encoding="utf-8").read()
        held = re.sub(r"(?m)^(\s*misses_to_degrade:\s*)\d+", r"\g<1>1000000", shipped)
        held = re.sub(r"(?m)^(  particles:\s*)\d+", r"\g<1>256", held)
        assert held.count("1000000") >= 1 and "particles: 256" in held, "config/default.yaml changed its keys"
        config = os.path.join(out, "deployment.yaml")
        with open(config, "w", encoding="utf-8") as f:
            # Paths in the file are relative to its folder: the map's becomes absolute.
            f.write(held.replace("path: ../data/", "path: " + os.path.join(os.path.abspath(source), "data") + "/"))
        stop = os.path.join(out, "stop")
        target_script = f'''
export CYCLONEDDS_URI='{cyclone_config(target_if, SUBNET + ".2")}'
iox-roudi >"{out}/target-roudi.log" 2>&1 & roudi=$!
i=0; while [ ! -S /tmp/roudi ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
"{runtime}" --config "{config}" >"{out}/runtime.log" 2>&1 & runtime=$!
"{bindir}/augur-bridge" --config "{config}" --role target >"{out}/bridge-target.log" 2>&1 & bridge=$!
i=0; while [ ! -e "{stop}" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done
kill -INT $bridge $runtime; wait $bridge $runtime; kill -INT $roudi; wait $roudi
'''
        bench_script = f'''
export CYCLONEDDS_URI='{cyclone_config(bench_if, SUBNET + ".1")}'
iox-roudi >"{out}/bench-roudi.log" 2>&1 & roudi=$!
i=0; while [ ! -S /tmp/roudi ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
"{bindir}/augur-bridge" --config "{config}" --role bench >"{out}/bridge-bench.log" 2>&1 & bridge=$!
"{hil}" run --config "{config}" --out "{out}/run" --start-s {START_S} --duration-s {DURATION_S} --no-report \
    --no-acceptance --quiet >"{out}/hil.log" 2>&1
echo "hil status $?"
kill -INT $bridge; wait $bridge; echo "bench bridge status $?"; kill -INT $roudi; wait $roudi
'''
        own_clock = OWN_CLOCK if sh(*OWN_CLOCK, "true").returncode == 0 else []
        if not own_clock:
            print("hil_across_hosts_test: no time namespaces here: both hosts share the monotonic clock")
        target = subprocess.Popen(["ip", "netns", "exec", target_ns] + own_clock + ISOLATE + ["sh", "-c", target_script])
        time.sleep(1.0)
        bench = subprocess.run(["ip", "netns", "exec", bench_ns] + ISOLATE + ["sh", "-c", bench_script],
                               capture_output=True, text=True, timeout=180)
        open(stop, "w").close()
        target.wait(timeout=60)
        print(bench.stdout, bench.stderr, sep="\n")
        for name in ("hil.log", "bridge-bench.log", "bridge-target.log"):
            path = os.path.join(out, name)
            if os.path.exists(path):
                print(f"--- {name}\n" + "\n".join(l for l in open(path, encoding="utf-8").read().splitlines()
                                                if "[ Debug ]" not in l and "[Verbose]" not in l))
        assert "hil status 0" in bench.stdout, "augur-hil run failed across the link"
        assert "bench bridge status 0" in bench.stdout
        metrics = {r["name"]: float(r["value"]) for r in read_rows(os.path.join(out, "run", "metrics.csv"))}
        lists = round(DURATION_S / STEP_S)
        assert metrics["lists_published"] == lists, metrics["lists_published"]
        stale = metrics.get("rejected_stale", 0)
        assert metrics["accepted_inputs"] + stale == lists and metrics["accepted_inputs"] >= lists / 2, \
            f"the runtime accepted {metrics['accepted_inputs']} of {lists} lists ({stale} stale)"
        min_cycles = round(DURATION_S / CYCLE_S / 2)
        for name in ("recorded_health", "recorded_track_lists", "recorded_intention_lists", "recorded_predictions"):
            assert metrics[name] >= min_cycles, f"{name} = {metrics[name]}, expected at least {min_cycles}"
        assert 0.0 < metrics["position_rmse"] < 1.0, metrics["position_rmse"]
        assert metrics["occupancy_scored"] > 0, "no occupancy grid came back across the link"
        assert metrics["recorded_platoon_lists"] > 0, "no platoon list came back across the link"
        print(f"hil_across_hosts_test: PASS ({metrics['accepted_inputs']:.0f} of {lists} lists accepted, "
              f"{metrics['recorded_predictions']:.0f} predictions recorded across the veth link)")
        return 0
    finally:
        sh("ip", "netns", "del", target_ns)
        sh("ip", "netns", "del", bench_ns)


if __name__ == "__main__":
    sys.exit(main())
