#!/usr/bin/env python3
"""augur-bridge live: iox-roudi, augur-bridge (role target, config/default.yaml), augur-bridge-probe standing in
for the runtime (64-vehicle predictions over iceoryx), and augur-dds-listener, a plain C program built only
from the generated IDL types, which must receive the predictions over DDS. Then a DDS publisher of object
lists is killed with SIGKILL and the bridge must report the peer lost on rt/augur/bridge_status.

    bridge_live_test.py BRIDGE_BIN_DIR SOURCE_DIR OUT_DIR

Runs in private IPC, mount and network namespaces (its own RouDi, /tmp, /dev/shm and loopback interface),
Cyclone DDS on loopback with unicast discovery (config/cyclonedds-loopback.xml); skipped (exit 77) where the
machine allows no such namespaces. No timing is asserted: the figures are printed (docs/benchmarks.md has
the measured ones).
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "apps", "augur-hil", "tools"))
import hil_suite  # noqa: E402

SKIPPED = 77


def main():
    bindir, source, out = (os.path.abspath(x) for x in sys.argv[1:4])
    prefix = hil_suite.namespace_prefix(network=True)
    if prefix is None:
        print("bridge_live_test: no private IPC, mount and network namespaces on this machine: skipped")
        return SKIPPED
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    config = os.path.join(source, "config", "default.yaml")
    script = f'''
export CYCLONEDDS_URI=file://{source}/config/cyclonedds-loopback.xml
iox-roudi >"{out}/roudi.log" 2>&1 & roudi=$!
i=0; while [ ! -S /tmp/roudi ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
"{bindir}/augur-bridge" --config "{config}" >"{out}/bridge.log" 2>&1 & bridge=$!
"{bindir}/augur-dds-listener" predictions 20 60 64 >"{out}/listener.log" 2>&1 & listener=$!
i=0; while ! grep -q matched "{out}/listener.log" && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
"{bindir}/augur-bridge-probe" latency --config "{config}" --count 60 --rate-hz 20 --bridge-pid $bridge \
    --out "{out}/latency.json" >"{out}/probe.log" 2>&1
echo "probe status $?"
wait $listener; echo "listener status $?"
"{bindir}/augur-bridge-probe" peer-loss --config "{config}" --listener "{bindir}/augur-dds-listener" --repeat 2 \
    --out "{out}/peer_loss.json" >>"{out}/probe.log" 2>&1
echo "peer-loss status $?"
kill -INT $bridge; wait $bridge; echo "bridge status $?"
kill -INT $roudi; wait $roudi
'''
    result = subprocess.run(prefix + ["sh", "-c", script], capture_output=True, text=True, timeout=100)
    print(result.stdout, result.stderr, sep="\n")
    for name in ("listener.log", "probe.log", "bridge.log"):
        path = os.path.join(out, name)
        if os.path.exists(path):
            print(f"--- {name}\n" + "\n".join(l for l in open(path, encoding="utf-8").read().splitlines()
                                            if "[ Debug ]" not in l and "[Verbose]" not in l))
    assert "probe status 0" in result.stdout, "the probe could not publish or receive"
    assert "listener status 0" in result.stdout, "the plain C listener did not receive 20 predictions of 64 vehicles"
    assert "peer-loss status 0" in result.stdout, "a killed DDS publisher was not reported lost"
    assert "bridge status 0" in result.stdout
    latency = json.load(open(os.path.join(out, "latency.json"), encoding="utf-8"))
    assert latency["dds_lost"] == 0 and latency["dds_out_of_order"] == 0, latency
    peer = json.load(open(os.path.join(out, "peer_loss.json"), encoding="utf-8"))
    assert peer["detected"] == peer["repeats"], peer
    print(f"bridge_live_test: PASS (DDS p99 {latency['dds_p99_us']} us, iceoryx p99 {latency['iceoryx_p99_us']} us, "
          f"peer loss noticed after {peer['detect_max_ms']} ms at most)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
