#!/usr/bin/env bash
# clang-tidy (the checks and naming of .clang-tidy) over the sources of the libraries and the CLI: base/, models/,
# workloads/, policies/, sim/, cli/, calibration/. Exits non-zero on any finding (.clang-tidy: WarningsAsErrors).
# Tests and experiments are left out: Catch2's macros and the drivers' tables are not what the checks are for.
#   scripts/tidy.sh                 every source file (about 90; 10-15 min on 2 cores)
#   scripts/tidy.sh sim/Engine.cpp  the files given (a regular expression each, as run-clang-tidy takes them)
# COLOCSIM_JOBS=N sets the parallelism (default: the number of cores). The compile commands come from
# build-tidy/ (configured here on every run; nothing is built).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${COLOCSIM_JOBS:-$(nproc)}"
tidy=$(command -v run-clang-tidy-14 || command -v run-clang-tidy || true)
[[ -n "$tidy" ]] || { echo "scripts/tidy.sh: run-clang-tidy not found (Debian package clang-tidy)" >&2; exit 3; }
# Configured every time (a few seconds once cached), so that source files added since the last run are in the
# compile database: a stale build-tidy/ silently skipped them.
cmake -S "$root" -B "$root/build-tidy" -DCMAKE_BUILD_TYPE=Release -DCOLOCSIM_TESTS=ON >/dev/null
if [[ $# -eq 0 ]]; then
  set -- "$root/(base|models|workloads|policies|sim|cli|calibration)/"
fi
exec "$tidy" -p "$root/build-tidy" -quiet -j "$jobs" "$@"
