#!/usr/bin/env bash
# Three processes through a RouDi daemon: iox-roudi with the shipped mempool configuration, the runtime,
# and a perception stand-in that publishes object lists and checks the predictions it gets back.
#   processes_test.sh IOX_ROUDI AUGUR_RUNTIME FEEDER SOURCE_DIR
set -u
roudi_bin=$1 runtime_bin=$2 feeder_bin=$3 src=$4
config=$src/tests/runtime/data/processes.yaml
map=$src/data/scenarios/intersection-4way/map.net.xml
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

"$roudi_bin" -c "$src/config/roudi.toml" > "$work/roudi.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -q "RouDi is ready" "$work/roudi.log" && break; sleep 0.1; done
grep -q "RouDi is ready" "$work/roudi.log" || { echo "iox-roudi did not start"; cat "$work/roudi.log"; exit 1; }

"$runtime_bin" --config "$config" --cycles 40 > "$work/runtime.log" 2>&1 &
runtime_pid=$!
"$feeder_bin" "$config" "$map" 30
feeder_rc=$?
wait "$runtime_pid"
runtime_rc=$?
cat "$work/runtime.log"
echo "feeder exit $feeder_rc, runtime exit $runtime_rc"
grep -q "stopped after 40 cycles" "$work/runtime.log" || exit 1
[ "$feeder_rc" -eq 0 ] && [ "$runtime_rc" -eq 0 ]
