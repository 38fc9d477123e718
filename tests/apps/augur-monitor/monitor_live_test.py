#!/usr/bin/env python3
"""augur-monitor against the real runtime and a real RouDi: a healthy run passes; an injected stage delay,
a stopped (SIGSTOP) runtime, a killed runtime and a lost RouDi are each detected, and the detection
latencies are printed in cycle periods. Also the runtime's systemd notifications (READY=1, WATCHDOG=1
every cycle, none while stopped) against a socket standing in for systemd.

    monitor_live_test.py AUGUR_MONITOR AUGUR_RUNTIME CONFIG OUT_DIR [--cases a,b,...] [--healthy-s N]

Runs itself again inside a private IPC and mount namespace (unshare, as the HIL suite does, with a private
/tmp and /dev/shm), so no RouDi of this machine is touched; skipped (exit 77) where the machine allows no
such namespace. OUT_DIR must not be under /tmp. The stage delay is injected with the runtime's
AUGUR_FAULT_STAGE_DELAY (docs/monitor.md).
"""
import argparse
import csv
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "apps", "augur-hil", "tools"))
import hil_suite  # noqa: E402

SKIPPED = 77
PERIOD_S = 0.2          # runtime.cycle_period_ms of the configuration under test
STARTUP_S = 15.0        # RouDi and the runtime up, first health seen
STOP_S = 1.2            # sd_notify case: how long the runtime is stopped
ALL_CASES = ("healthy", "stage_delay", "sigstop", "killed", "roudi_lost", "sd_notify")


class Bench:
    def __init__(self, a, case):
        self.a = a
        self.dir = os.path.join(a.out, case)
        shutil.rmtree(self.dir, ignore_errors=True)  # an old log would look like health of this run
        os.makedirs(self.dir)
        self.procs = []

    def start(self, name, argv, env=None):
        out = open(os.path.join(self.dir, name + ".log"), "w", encoding="utf-8")
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=self.a.cwd)
        self.procs.append(proc)
        return proc

    def roudi(self):
        proc = self.start("roudi", ["iox-roudi", "-c", os.path.join(self.a.cwd, "config", "roudi.toml")])
        deadline = time.monotonic() + STARTUP_S
        while not os.path.exists("/tmp/roudi") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert os.path.exists("/tmp/roudi"), "RouDi did not start"
        return proc

    def runtime(self, extra_env=None):
        env = dict(os.environ)
        env.update(extra_env or {})
        return self.start("runtime", [self.a.runtime, "--config", self.a.config], env)

    def monitor(self, *args):
        log = os.path.join(self.dir, "monitor.csv")
        proc = self.start("monitor", [self.a.monitor, "--config", self.a.config, "--quiet", "--log", log,
                                      "--startup-timeout-s", str(STARTUP_S)] + list(args))
        return proc, log

    def wait_for_health(self, log):
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            if any(r["event"] == "health" for r in rows(log)):
                return
            time.sleep(0.1)
        raise AssertionError("the monitor saw no health within the startup time")

    def stop(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                try:
                    proc.send_signal(signal.SIGCONT)
                    proc.send_signal(signal.SIGINT)
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()

    def text(self, name):
        with open(os.path.join(self.dir, name + ".log"), encoding="utf-8") as f:
            return f.read()


def rows(log):
    try:
        with open(log, encoding="utf-8", newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def first_raise(log, condition, after_ns):
    for r in rows(log):
        if r["event"] == "raise" and r["condition"] == condition and int(r["t_ns"]) >= after_ns:
            return int(r["t_ns"])
    return None


def case_healthy(a, b):
    b.roudi()
    runtime = b.runtime()
    monitor, log = b.monitor("--for", f"{a.healthy_s}s", "--max-misses", "0", "--pid", str(runtime.pid))
    status = monitor.wait(timeout=a.healthy_s + STARTUP_S + 30)
    print(b.text("monitor"))
    health = [r for r in rows(log) if r["event"] == "health"]
    assert status == 0, f"a healthy run failed the verdict (status {status})"
    assert len(health) >= a.healthy_s / PERIOD_S * 0.5, f"only {len(health)} health messages in {a.healthy_s} s"
    false_alarms = [r for r in rows(log) if r["event"] == "raise" and r["condition"] in
                    ("health_missing", "runtime_gone", "stage_order", "sequence_gap", "deadline_miss")]
    assert not false_alarms, f"false alarms: {false_alarms}"
    print(f"healthy: {len(health)} cycles, no alarm")


def case_stage_delay(a, b):
    b.roudi()
    b.runtime({"AUGUR_FAULT_STAGE_DELAY": "motion:250"})
    monitor, log = b.monitor("--for", "4s", "--max-misses", "0")
    status = monitor.wait(timeout=4 + STARTUP_S + 30)
    print(b.text("monitor"))
    assert status == 1, f"a runtime missing every deadline passed the verdict (status {status})"
    raised = {r["condition"] for r in rows(log) if r["event"] == "raise"}
    assert "deadline_miss" in raised and "stage_over_budget" in raised, f"raised: {raised}"
    assert "health_missing" not in raised, "a slow runtime still publishes health every cycle"
    print("stage_delay: deadline_miss and stage_over_budget raised; verdict FAIL as expected")


def detection(a, b, sig, condition):
    """Starts RouDi, the runtime and the monitor; sends `sig` to the runtime once health flows; returns the
    periods from the signal to the first raise of each condition in `condition` (a tuple)."""
    b.roudi()
    runtime = b.runtime()
    monitor, log = b.monitor("--for", "60s", "--pid", str(runtime.pid))
    b.wait_for_health(log)
    time.sleep(1.0 + (time.monotonic() % PERIOD_S))  # a phase of the cycle that varies from run to run
    sent_ns = time.monotonic_ns()  # CLOCK_MONOTONIC, the clock of the monitor's t_ns
    runtime.send_signal(sig)
    periods = {}
    deadline = time.monotonic() + 10 * PERIOD_S + 2
    while time.monotonic() < deadline and len(periods) < len(condition):
        for c in condition:
            t = first_raise(log, c, sent_ns)
            if t is not None and c not in periods:
                periods[c] = (t - sent_ns) / 1e9 / PERIOD_S
        time.sleep(0.05)
    monitor.send_signal(signal.SIGINT)
    status = monitor.wait(timeout=20)
    print(b.text("monitor"))
    return periods, status


def case_sigstop(a, b):
    periods, status = detection(a, b, signal.SIGSTOP, ("health_missing",))
    assert "health_missing" in periods, "a stopped runtime was not detected"
    print(f"sigstop: health_missing after {periods['health_missing']:.2f} periods")
    assert periods["health_missing"] <= 2.0 + 0.25, "a stopped runtime was detected later than 2 periods"
    assert status == 1, f"the verdict after an alive loss was not FAIL (status {status})"


def case_killed(a, b):
    periods, status = detection(a, b, signal.SIGKILL, ("health_missing", "runtime_gone"))
    print("killed: " + ", ".join(f"{c} after {p:.2f} periods" for c, p in sorted(periods.items())))
    assert "health_missing" in periods and "runtime_gone" in periods, "a killed runtime was not detected"
    assert periods["health_missing"] <= 2.0 + 0.25 and periods["runtime_gone"] <= 1.0 + 0.25
    assert status == 1, f"the verdict after a killed runtime was not FAIL (status {status})"


def case_roudi_lost(a, b):
    roudi = b.roudi()
    b.runtime()
    monitor, log = b.monitor("--for", "60s")
    b.wait_for_health(log)
    sent = time.monotonic()
    roudi.send_signal(signal.SIGKILL)
    status = monitor.wait(timeout=20)
    took = (time.monotonic() - sent) / PERIOD_S
    print(b.text("monitor"))
    print(f"roudi_lost: monitor ended with status {status} after {took:.2f} periods")
    assert status == 4, f"a lost RouDi did not end the monitor with status 4 (status {status})"
    assert "RouDi (the iceoryx daemon) is gone" in b.text("monitor")
    assert took <= 3.0, "the lost RouDi was noticed later than 3 periods"


def case_sd_notify(a, b):
    """The runtime under a stand-in for systemd (a datagram socket named by NOTIFY_SOCKET, WatchdogSec 1 s):
    READY=1, then WATCHDOG=1 after every cycle; none while the process is stopped (systemd would restart
    it after WatchdogSec); STOPPING=1 on the way out."""
    path = "/tmp/augur-notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0.05)
    b.roudi()
    runtime = b.runtime({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1000000"})
    got = []  # (monotonic seconds, message)

    def collect(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                got.append((time.monotonic(), sock.recv(256).decode()))
            except socket.timeout:
                pass

    collect(STARTUP_S / 3)
    assert got and got[0][1] == "READY=1", f"the first notification was not READY=1: {got[:3]}"
    stopped_at = time.monotonic()
    runtime.send_signal(signal.SIGSTOP)
    # Longer than WatchdogSec (1 s), shorter than RouDi's keep-alive timeout (1.5 s in iceoryx 2.0.3), after
    # which RouDi releases the stopped process's resources and the process aborts when it continues.
    collect(STOP_S)
    runtime.send_signal(signal.SIGCONT)
    resumed_at = time.monotonic()
    collect(1.0)
    runtime.send_signal(signal.SIGINT)
    runtime.wait(timeout=20)
    collect(0.2)
    sock.close()
    print(b.text("runtime"))
    pings = [t for t, m in got if m == "WATCHDOG=1"]
    running = [t for t in pings if t < stopped_at]
    gaps = [y - x for x, y in zip(running, running[1:])]
    assert len(running) >= 5, f"only {len(running)} WATCHDOG=1 before the stop"
    print(f"sd_notify: {len(running)} pings while running, largest gap {max(gaps) / PERIOD_S:.2f} periods; "
          f"{sum(1 for t in pings if stopped_at + 0.05 < t < resumed_at)} while stopped for {STOP_S} s")
    assert max(gaps) < 2 * PERIOD_S, "WATCHDOG=1 was not sent every cycle"
    assert not [t for t in pings if stopped_at + 0.05 < t < resumed_at], "WATCHDOG=1 while the runtime was stopped"
    assert [t for t in pings if t > resumed_at], "no WATCHDOG=1 after the runtime continued"
    assert got[-1][1] == "STOPPING=1", f"the last notification was not STOPPING=1: {got[-3:]}"
    assert "systemd notification: READY=1 after the first cycle" in b.text("runtime")


def inside(a):
    failed = []
    for case in a.cases:
        print(f"--- {case}", flush=True)
        b = Bench(a, case)
        try:
            globals()["case_" + case](a, b)
        except AssertionError as e:
            print(f"{case}: FAIL: {e}", flush=True)
            failed.append(case)
        finally:
            b.stop()
        # RouDi's shared memory and socket of this case must not meet the next case's RouDi.
        subprocess.run(["sh", "-c", "rm -rf /tmp/* /dev/shm/*"], check=False)
    print("monitor_live_test: " + ("FAIL: " + ", ".join(failed) if failed else "PASS"), flush=True)
    return 1 if failed else 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("monitor")
    p.add_argument("runtime")
    p.add_argument("config")
    p.add_argument("out")
    p.add_argument("--cases", default=",".join(ALL_CASES))
    p.add_argument("--healthy-s", type=float, default=5.0)
    p.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    a.monitor, a.runtime, a.config, a.out = (os.path.abspath(x) for x in (a.monitor, a.runtime, a.config, a.out))
    a.cases = [c for c in a.cases.split(",") if c]
    a.cwd = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
    if a.inside:
        return inside(a)
    prefix = hil_suite.namespace_prefix()
    if prefix is None:
        print("monitor_live_test: no private IPC and mount namespace on this machine: skipped")
        return SKIPPED
    if any(os.path.commonpath([x, "/tmp"]) == "/tmp" for x in (a.monitor, a.runtime, a.config, a.out)):
        print("monitor_live_test: a private /tmp hides paths under /tmp")
        return 2
    os.makedirs(a.out, exist_ok=True)
    argv = [sys.executable, os.path.abspath(__file__), a.monitor, a.runtime, a.config, a.out,
            "--cases", ",".join(a.cases), "--healthy-s", str(a.healthy_s), "--inside"]
    return subprocess.run(prefix + argv, timeout=600).returncode


if __name__ == "__main__":
    sys.exit(main())
