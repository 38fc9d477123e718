#!/usr/bin/env python3
"""augur-bridge's link in the runtime's health: iox-roudi, augur-runtime and augur-bridge (role target) with
config/default.yaml, and a DDS publisher of object lists (augur-dds-listener publish-objects, a remote
perception) that is killed with SIGKILL; the runtime's own health on iceoryx must carry link_lost (the bridge
publishes its link status on transport.link_status, the runtime's link thread takes it and publishes a link
update at once, and every cycle's Health carries it). augur-bridge-probe link-loss does the kills and times
them. Then a DDS reader of predictions (augur-dds-listener predictions, a
remote planner) is killed the same way and the bridge must count the reader lost (augur-bridge-probe
reader-loss): within the reader participant's lease, Discovery/LeaseDuration of config/cyclonedds-loopback.xml.

    link_health_test.py BRIDGE_BIN_DIR RUNTIME SOURCE_DIR OUT_DIR [REPEATS]

Runs in private IPC, mount and network namespaces (its own RouDi, /tmp, /dev/shm and loopback interface),
Cyclone DDS on loopback with unicast discovery; skipped (exit 77) where the machine allows no such
namespaces. No timing is asserted: the figures are printed and written to OUT_DIR/link_loss.json
(docs/benchmarks.md has the measured ones).
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
    bindir, runtime, source, out = (os.path.abspath(x) for x in sys.argv[1:5])
    repeats = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    prefix = hil_suite.namespace_prefix(network=True)
    if prefix is None:
        print("link_health_test: no private IPC, mount and network namespaces on this machine: skipped")
        return SKIPPED
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    config = os.path.join(source, "config", "default.yaml")
    script = f'''
cd "{source}"
export CYCLONEDDS_URI=file://{source}/config/cyclonedds-loopback.xml
iox-roudi >"{out}/roudi.log" 2>&1 & roudi=$!
i=0; while [ ! -S /tmp/roudi ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
"{runtime}" --config "{config}" >"{out}/runtime.log" 2>&1 & runtime=$!
"{bindir}/augur-bridge" --config "{config}" >"{out}/bridge.log" 2>&1 & bridge=$!
"{bindir}/augur-bridge-probe" link-loss --config "{config}" --listener "{bindir}/augur-dds-listener" \
    --repeat {repeats} --out "{out}/link_loss.json" >"{out}/probe.log" 2>&1
echo "link-loss status $?"
"{bindir}/augur-bridge-probe" reader-loss --config "{config}" --listener "{bindir}/augur-dds-listener" \
    --repeat {repeats} --out "{out}/reader_loss.json" >>"{out}/probe.log" 2>&1
echo "reader-loss status $?"
kill -INT $bridge; wait $bridge; echo "bridge status $?"
kill -INT $runtime; wait $runtime; echo "runtime status $?"
kill -INT $roudi; wait $roudi
'''
    result = subprocess.run(prefix + ["sh", "-c", script], capture_output=True, text=True, timeout=60 + 20 * repeats)
    print(result.stdout, result.stderr, sep="\n")
    for name in ("probe.log", "bridge.log", "runtime.log"):
        path = os.path.join(out, name)
        if os.path.exists(path):
            print(f"--- {name}\n" + "\n".join(l for l in open(path, encoding="utf-8").read().splitlines()
                                            if "[ Debug ]" not in l and "[Verbose]" not in l))
    assert "link-loss status 0" in result.stdout, "a killed DDS publisher did not reach the runtime's health"
    assert "bridge status 0" in result.stdout
    assert "runtime status 0" in result.stdout
    loss = json.load(open(os.path.join(out, "link_loss.json"), encoding="utf-8"))
    assert loss["detected"] == loss["repeats"] == repeats, loss
    assert "reader-loss status 0" in result.stdout, "a killed DDS reader was not counted lost by the bridge"
    readers = json.load(open(os.path.join(out, "reader_loss.json"), encoding="utf-8"))
    assert readers["detected"] == readers["repeats"] == repeats, readers
    print(f"link_health_test: PASS (link_lost in the runtime's health {loss['detect_p50_ms']} ms after the kill "
          f"at the median, {loss['detect_max_ms']} ms at most; a killed reader counted lost after "
          f"{readers['detect_max_ms']} ms at most, {readers['false_losses']} false losses)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
