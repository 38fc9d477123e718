#!/usr/bin/env bash
# RouDi supervision with the real daemon: iox-roudi and augur-runtime as separate processes.
#   transport_supervision_test.sh CASE IOX_ROUDI AUGUR_RUNTIME SOURCE_DIR
# CASE
#   roudi-killed   RouDi killed (SIGKILL) under a running runtime: the runtime exits with status 4
#                  (transport lost) within the probe interval plus a margin, and its log says so
#   roudi-replaced RouDi killed and a new one started while the runtime was stopped (SIGSTOP), so that
#                  the runtime finds a listening RouDi again: it tells the new RouDi from its own and
#                  exits with status 4 as well
#   roudi-stopped  RouDi stopped (SIGSTOP) before the runtime starts: its socket exists but nothing
#                  answers; the runtime exits with status 3 within transport.roudi_connect_timeout_ms
#                  plus a margin (iceoryx alone would wait 60 s and then abort)
#   name-in-use    a second runtime under the same transport.application_name: status 3 at once, with a
#                  message naming the name; the first one runs on and stops normally
# Every process this script starts is ended on exit; a RouDi it did not start is never touched. When
# another RouDi runs on the machine (one per machine), the script waits up to ROUDI_WAIT_S for it.
set -u
case_name=$1 roudi_bin=$2 runtime_bin=$3 src=$4
config=$src/tests/runtime/data/transport_supervision.yaml
app_name=augur-transport-test
connect_timeout_ms=1500  # transport.roudi_connect_timeout_ms of the configuration
ROUDI_WAIT_S=30
work=$(mktemp -d)
roudi_pid=""
roudi_starts=0
runtime_pids=()

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# Waits up to $2 seconds for child process $1 to end; sets rc to its exit status, or to "timeout" (it is
# then killed). Not in a subshell: only this shell can wait for its children.
wait_exit() {
  local pid=$1 deadline=$(( $(now_ms) + $2 * 1000 ))
  while kill -0 "$pid" 2>/dev/null && [ "$(now_ms)" -lt "$deadline" ]; do sleep 0.02; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    rc=timeout
  else
    wait "$pid"
    rc=$?
  fi
}

# Waits up to $3 seconds for file $1 to contain the extended regular expression $2.
wait_for_line() {
  local deadline=$(( $(now_ms) + $3 * 1000 ))
  until grep -Eq "$2" "$1"; do
    [ "$(now_ms)" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

cleanup() {
  local pid
  for pid in "${runtime_pids[@]}"; do kill -INT "$pid" 2>/dev/null; done
  for pid in "${runtime_pids[@]}"; do wait_exit "$pid" 10; done
  if [ -n "$roudi_pid" ]; then
    kill -CONT "$roudi_pid" 2>/dev/null  # a stopped RouDi: resume it so that SIGKILL ends it at once
    kill -KILL "$roudi_pid" 2>/dev/null
    wait "$roudi_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAILED: $*"
  for log in "$work"/*.log; do echo "--- $(basename "$log")"; cat "$log"; done
  exit 1
}

# Starts iox-roudi with the shipped pools; retries while another RouDi holds the machine's RouDi lock.
start_roudi() {
  local give_up=$(( $(now_ms) + ROUDI_WAIT_S * 1000 ))
  while :; do
    roudi_starts=$(( roudi_starts + 1 ))
    local log="$work/roudi-$roudi_starts.log"  # a log of its own: no earlier "ready" line to find
    "$roudi_bin" -c "$src/config/roudi.toml" > "$log" 2>&1 &
    roudi_pid=$!
    local ready_by=$(( $(now_ms) + 5000 ))
    while kill -0 "$roudi_pid" 2>/dev/null && [ "$(now_ms)" -lt "$ready_by" ]; do
      grep -q "RouDi is ready" "$log" && return 0
      sleep 0.05
    done
    kill -0 "$roudi_pid" 2>/dev/null && fail "iox-roudi did not become ready within 5 s"
    wait "$roudi_pid" 2>/dev/null
    roudi_pid=""
    [ "$(now_ms)" -lt "$give_up" ] || fail "iox-roudi did not start within ${ROUDI_WAIT_S} s (another RouDi runs?)"
    sleep 1
  done
}

start_runtime() {  # $1: log file name
  "$runtime_bin" --config "$config" > "$work/$1" 2>&1 &
  runtime_pids+=($!)
}

case "$case_name" in
  roudi-killed)
    start_roudi
    start_runtime runtime.log
    runtime_pid=${runtime_pids[0]}
    wait_for_line "$work/runtime.log" "augur-runtime: running" 10 || fail "the runtime did not start"
    sleep 0.5  # a few cycles with RouDi
    kill -KILL "$roudi_pid"
    wait "$roudi_pid" 2>/dev/null
    roudi_pid=""
    killed=$(now_ms)
    wait_exit "$runtime_pid" 10
    elapsed=$(( $(now_ms) - killed ))
    runtime_pids=()
    cat "$work/runtime.log"
    echo "runtime exit $rc, $elapsed ms after RouDi was killed"
    [ "$rc" = 4 ] || fail "exit status $rc, expected 4 (transport lost)"
    grep -q "error: transport lost after cycle" "$work/runtime.log" || fail "no 'transport lost' line in the log"
    grep -q "exit status 4: transport lost" "$work/runtime.log" || fail "no exit line in the log"
    # Probe interval 0.5 s, then one cycle (0.1 s): 3 s leaves room for a loaded machine.
    [ "$elapsed" -lt 3000 ] || fail "noticed after $elapsed ms"
    ;;
  roudi-replaced)
    start_roudi
    start_runtime runtime.log
    runtime_pid=${runtime_pids[0]}
    wait_for_line "$work/runtime.log" "augur-runtime: running" 10 || fail "the runtime did not start"
    sleep 0.5
    kill -STOP "$runtime_pid"
    kill -KILL "$roudi_pid"
    wait "$roudi_pid" 2>/dev/null
    roudi_pid=""
    start_roudi
    kill -CONT "$runtime_pid"
    resumed=$(now_ms)
    wait_exit "$runtime_pid" 10
    elapsed=$(( $(now_ms) - resumed ))
    runtime_pids=()
    cat "$work/runtime.log"
    echo "runtime exit $rc, $elapsed ms after it resumed next to a new RouDi"
    [ "$rc" = 4 ] || fail "exit status $rc, expected 4 (transport lost)"
    grep -q "error: transport lost after cycle" "$work/runtime.log" || fail "no 'transport lost' line in the log"
    [ "$elapsed" -lt 3000 ] || fail "noticed after $elapsed ms"
    ;;
  roudi-stopped)
    start_roudi
    kill -STOP "$roudi_pid"
    started=$(now_ms)
    start_runtime runtime.log
    wait_exit "${runtime_pids[0]}" 20
    elapsed=$(( $(now_ms) - started ))
    runtime_pids=()
    cat "$work/runtime.log"
    echo "runtime exit $rc after $elapsed ms (connect timeout $connect_timeout_ms ms)"
    [ "$rc" = 3 ] || fail "exit status $rc, expected 3 (init failed)"
    grep -q "init failed: transport: iceoryx: RouDi did not answer the registration within $connect_timeout_ms ms" \
      "$work/runtime.log" || fail "no clear error in the log"
    # The timeout counts from the connection attempt, after the map is loaded: a 3 s margin.
    [ "$elapsed" -ge "$connect_timeout_ms" ] || fail "gave up after $elapsed ms, before the timeout"
    [ "$elapsed" -lt $(( connect_timeout_ms + 3000 )) ] || fail "took $elapsed ms"
    ;;
  name-in-use)
    start_roudi
    start_runtime first.log
    first_pid=${runtime_pids[0]}
    wait_for_line "$work/first.log" "augur-runtime: running" 10 || fail "the first runtime did not start"
    started=$(now_ms)
    start_runtime second.log
    wait_exit "${runtime_pids[1]}" 20
    runtime_pids=("$first_pid")
    elapsed=$(( $(now_ms) - started ))
    cat "$work/second.log"
    echo "second runtime exit $rc after $elapsed ms"
    [ "$rc" = 3 ] || fail "second runtime: exit status $rc, expected 3"
    grep -q "init failed: transport: another process is registered with RouDi as '$app_name'" "$work/second.log" \
      || fail "second runtime: no clear error"
    [ "$elapsed" -lt $(( connect_timeout_ms + 3000 )) ] || fail "second runtime took $elapsed ms"
    kill -0 "$first_pid" 2>/dev/null || fail "the first runtime ended"
    kill -INT "$first_pid"
    wait_exit "$first_pid" 10
    runtime_pids=()
    echo "first runtime exit $rc"
    [ "$rc" = 0 ] || fail "first runtime: exit status $rc, expected 0"
    ;;
  *)
    echo "unknown case $case_name"
    exit 2
    ;;
esac
echo "PASSED: $case_name"
