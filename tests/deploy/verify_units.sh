#!/bin/sh
# systemd-analyze verify on augur's units in UNITS_DIR: fails on any line about them; exit status 77
# (skipped) where systemd-analyze is missing.
#   verify_units.sh UNITS_DIR
set -u
dir=$1
if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "systemd-analyze not found (package systemd): skipped"
  exit 77
fi
units=$(ls "$dir"/augur-*.service)
[ "$(echo "$units" | wc -l)" -eq 3 ] || { echo "expected 3 units in $dir: $units"; exit 1; }
# shellcheck disable=SC2086
out=$(systemd-analyze verify $units 2>&1)
echo "$out"
# verify also reports problems of other units of this machine: only lines about ours count.
if echo "$out" | grep -q 'augur-[a-z]*\.service'; then
  echo "systemd-analyze verify: problems in augur's units"
  exit 1
fi
echo "systemd-analyze verify: 3 units clean"
