#!/usr/bin/env bash
# Runs a command with two CPU-burning processes beside it, as on a loaded 2-core machine: a
# test whose outcome depends on timing fails here. Usage: scripts/stress.sh npm test
set -uo pipefail
burners=()
for _ in 1 2; do
  sh -c 'while :; do :; done' &
  burners+=($!)
done
trap 'kill "${burners[@]}" 2>/dev/null' EXIT
"$@"
