#!/usr/bin/env bash
# Command 1 of the README: install the missing Debian packages, build colocsim (Release, in build/; with the
# Python package when pybind11 is installed) and run the embedded default scenario, writing ./colocsim-out/
# (in the current directory).
#   scripts/run-default.sh                      rerunnable: overwrites ./colocsim-out with the same results
#   scripts/run-default.sh ARGS...              `colocsim run ARGS...`, e.g. --set policy=exclusive-fcfs -o out-exclusive
# COLOCSIM_JOBS=N sets the build's parallelism (default: the number of cores).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${COLOCSIM_JOBS:-$(nproc)}"
step() { echo "+ $*"; "$@"; }

"$root/scripts/setup-deps.sh"
configure_log="$(mktemp)"
trap 'rm -f "$configure_log"' EXIT
step cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release | tee "$configure_log"
# colocsim, and the Python package when it is configured (pybind11 found): `colocsim run --policy-python`
# loads its bridge (lab 4, part B), and `cmake --install build` (lab 4, part A) installs it.
targets=(colocsim)
if grep -q 'Python package *: ON' "$configure_log"; then targets+=(colocsim_python); fi
step cmake --build "$root/build" -j "$jobs" --target "${targets[@]}"
# Without arguments the script is rerunnable: the run is deterministic, so overwriting colocsim-out loses
# nothing. With arguments, colocsim's own rule holds: an earlier run's results need --force.
[[ $# -eq 0 ]] && set -- --force
step "$root/build/sim/colocsim" run "$@"
