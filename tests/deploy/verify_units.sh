#!/bin/sh
# systemd-analyze verify on the named units of augur in UNITS_DIR: fails when one is missing or on any line
# about them; exit status 77 (skipped) where systemd-analyze is missing.
#   verify_units.sh UNITS_DIR UNIT...        (UNIT: augur-runtime for UNITS_DIR/augur-runtime.service)
set -u
dir=$1
shift
if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "systemd-analyze not found (package systemd): skipped"
  exit 77
fi
units=
for unit in "$@"; do
  [ -f "$dir/$unit.service" ] || { echo "not rendered: $dir/$unit.service"; exit 1; }
  units="$units $dir/$unit.service"
done
[ -n "$units" ] || { echo "no units named"; exit 1; }
# shellcheck disable=SC2086
out=$(systemd-analyze verify $units 2>&1)
echo "$out"
# verify also reports problems of other units of this machine: only lines about ours count.
if echo "$out" | grep -q 'augur-[a-z]*\.service'; then
  echo "systemd-analyze verify: problems in augur's units"
  exit 1
fi
echo "systemd-analyze verify: $# units clean ($*)"
