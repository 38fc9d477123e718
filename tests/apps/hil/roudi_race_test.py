#!/usr/bin/env python3
"""The bench's RouDi life cycle. 1: `augur-hil demo` while another RouDi starts at the same moment
(iceoryx 2.0: one RouDi per machine; the later one aborts with status 134): the bench must wait that RouDi
out and start its own, not fail. 2: a bench killed with SIGKILL mid-run leaves neither its RouDi nor its
runtime behind.

    roudi_race_test.py AUGUR_HIL OUT_DIR

Runs in a private IPC and mount namespace (unshare, as the suite does), so no RouDi of this machine is
touched; skipped (exit 77) where the machine allows no such namespace. The other RouDi comes up 0.3 s
after the bench starts (inside the window between the bench's check and its own start) and ends 4 s later.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "apps", "augur-hil", "tools"))
import hil_suite  # noqa: E402

SKIPPED = 77
STOP_WAIT_S = 20  # how long the killed bench's children may take to end


def main():
    hil, out = sys.argv[1], os.path.abspath(sys.argv[2])
    prefix = hil_suite.namespace_prefix()
    if prefix is None:
        print("roudi_race_test: no private IPC and mount namespace on this machine: skipped")
        return SKIPPED
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    log = os.path.join(out, "bench.log")
    script = (f'iox-roudi >/dev/null 2>&1 & other=$!; sleep 0.3; '
              f'"{hil}" demo --out "{out}/run" --duration-s 5 --quiet --no-report --no-acceptance >"{log}" 2>&1 & '
              f'bench=$!; sleep 4; kill -INT $other; wait $other; wait $bench; echo "bench status $?"')
    result = subprocess.run(prefix + ["sh", "-c", script], capture_output=True, text=True, timeout=240)
    text = open(log, encoding="utf-8").read() if os.path.exists(log) else ""
    print(result.stdout, result.stderr, text, sep="\n")
    assert "bench status 0" in result.stdout, "the bench did not complete its run"
    assert "another RouDi" in text, "the bench never met the other RouDi (the race was not staged)"
    assert "replaying" in text
    # 2: kill the bench outright; its children (iox-roudi, the runtime's shell/runtime) must end with it.
    script = (f'"{hil}" demo --out "{out}/killed" --duration-s 30 --quiet --no-report --no-acceptance '
              f'>"{out}/killed.log" 2>&1 & bench=$!; sleep 8; kids=$(cat /proc/$bench/task/*/children); '
              f'kill -KILL $bench; echo "children: $kids"; '
              # A child that has exited stays a zombie (state Z) until this machine's init reaps it, which
              # may take a while: it counts as ended. On a loaded machine the runtime's orderly exit takes
              # seconds, so the check waits up to STOP_WAIT_S for the last child to end.
              f'i=0; while [ $i -lt {STOP_WAIT_S * 10} ]; do alive=""; for k in $kids; do '
              f'[ "$(cut -d" " -f3 /proc/$k/stat 2>/dev/null || echo Z)" != Z ] && alive="$alive $k"; done; '
              f'[ -z "$alive" ] && break; sleep 0.1; i=$((i+1)); done; '
              f'for k in $alive; do echo "left behind: $k $(cat /proc/$k/comm)"; done; true')
    result = subprocess.run(prefix + ["sh", "-c", script], capture_output=True, text=True, timeout=180)
    print(result.stdout, result.stderr, sep="\n")
    children = result.stdout.split("children:", 1)[1].split()[:2] if "children:" in result.stdout else []
    assert len(children) >= 2, "the bench had not started RouDi and the runtime after 8 s"
    if "left behind" in result.stdout:
        runtime_log = os.path.join(out, "killed", "runtime.log")
        if os.path.exists(runtime_log):
            lines = open(runtime_log, encoding="utf-8").read().splitlines()
            print("the killed bench's runtime log, last lines:", *lines[-20:], sep="\n")
    assert "left behind" not in result.stdout, "a child outlived the killed bench"
    print("roudi_race_test: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
