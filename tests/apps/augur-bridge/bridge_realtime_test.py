#!/usr/bin/env python3
"""augur-bridge takes the deployment's real-time policy itself (runtime.rt_priority, runtime.lock_memory,
runtime.on_rt_setup_failure; docs/dds.md, "Real-time policy"):

1. With runtime.rt_priority 40, every thread of a running bridge, Cyclone DDS's (recv, tev, dq.user, gc, ...)
   and iceoryx's included, is SCHED_FIFO 40, without chrt. iox-roudi and the bridge run in private IPC,
   mount and network namespaces.
2. With runtime.on_rt_setup_failure fail and the priority refused (no CAP_SYS_NICE, RLIMIT_RTPRIO 0), the
   bridge names the step and exits 3 before it touches iceoryx or DDS.

    bridge_realtime_test.py BRIDGE_BIN_DIR SOURCE_DIR OUT_DIR

Skipped (exit 77) where this machine allows no SCHED_FIFO or no such namespaces.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "apps", "augur-hil", "tools"))
import hil_suite  # noqa: E402

SKIPPED = 77
PRIORITY = 40
SCHED_FIFO = 1


def write_config(source, target, **runtime_keys):
    """config/default.yaml with the given runtime keys replaced and the map path made absolute."""
    with open(os.path.join(source, "config", "default.yaml"), encoding="utf-8") as f:
        text = f.read()
    for key, value in runtime_keys.items():
        text, n = re.subn(rf"^(  {key}:\s*)\S+", rf"\g<1>{value}", text, count=1, flags=re.M)
        assert n == 1, f"runtime.{key} not found in config/default.yaml"
    text = re.sub(r"^(\s+path:\s*)\.\./", rf"\g<1>{source}/", text, flags=re.M)
    with open(target, "w", encoding="utf-8") as f:
        f.write(text)


def threads_policy(out):
    """(name, policy, rt priority) of each thread the bridge listed in threads.txt (/proc/PID/task/*/stat)."""
    rows = []
    with open(os.path.join(out, "threads.txt"), encoding="utf-8") as f:
        for line in f:
            # pid (comm) state ... : fields after the comm's closing parenthesis, rt_priority 40th, policy 41st
            name = line[line.index("(") + 1:line.rindex(")")]
            fields = line[line.rindex(")") + 2:].split()
            rows.append((name, int(fields[38]), int(fields[37])))
    return rows


def main():
    bindir, source, out = (os.path.abspath(x) for x in sys.argv[1:4])
    if subprocess.run(["chrt", "-f", "1", "true"], stderr=subprocess.DEVNULL).returncode != 0:
        print("bridge_realtime_test: SCHED_FIFO not permitted here: skipped")
        return SKIPPED
    prefix = hil_suite.namespace_prefix(network=True)
    if prefix is None:
        print("bridge_realtime_test: no private IPC, mount and network namespaces on this machine: skipped")
        return SKIPPED
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)

    config = os.path.join(out, "fifo40.yaml")
    write_config(source, config, rt_priority=PRIORITY)
    script = f'''
export CYCLONEDDS_URI=file://{source}/config/cyclonedds-loopback.xml
iox-roudi >"{out}/roudi.log" 2>&1 & roudi=$!
i=0; while [ ! -S /tmp/roudi ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
"{bindir}/augur-bridge" --config "{config}" --duration-s 3 >"{out}/bridge.log" 2>&1 & bridge=$!
sleep 2
cat /proc/$bridge/task/*/stat >"{out}/threads.txt"
wait $bridge; echo "bridge status $?"
kill -INT $roudi; wait $roudi
'''
    result = subprocess.run(prefix + ["sh", "-c", script], capture_output=True, text=True, timeout=60)
    print(result.stdout, open(os.path.join(out, "bridge.log"), encoding="utf-8").read(), sep="\n")
    assert "bridge status 0" in result.stdout, "the bridge did not run"
    threads = threads_policy(out)
    for name, policy, priority in threads:
        print(f"  {name:16} policy {policy} priority {priority}")
    names = {name for name, _, _ in threads}
    assert {"recv", "tev", "dq.user"} <= names, f"Cyclone DDS's threads missing: {sorted(names)}"
    wrong = [t for t in threads if t[1:] != (SCHED_FIFO, PRIORITY)]
    assert not wrong, f"threads not SCHED_FIFO {PRIORITY}: {wrong}"

    if not (shutil.which("setpriv") and shutil.which("prlimit")):
        print("bridge_realtime_test: PASS (a refused priority not checked: no setpriv or prlimit here)")
        return 0
    refused = os.path.join(out, "fifo40-fail.yaml")
    write_config(source, refused, rt_priority=PRIORITY, on_rt_setup_failure="fail")
    result = subprocess.run(["setpriv", "--bounding-set", "-sys_nice", "--inh-caps", "-sys_nice",
                             "prlimit", "--rtprio=0", f"{bindir}/augur-bridge", "--config", refused],
                            capture_output=True, text=True, timeout=30)
    print(result.stderr)
    assert result.returncode == 3, f"exit {result.returncode}, expected 3"
    assert "SCHED_FIFO priority" in result.stderr and "on_rt_setup_failure: fail" in result.stderr, result.stderr
    print(f"bridge_realtime_test: PASS ({len(threads)} threads at SCHED_FIFO {PRIORITY}; a refused priority exits 3)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
