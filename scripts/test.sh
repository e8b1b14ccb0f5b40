#!/usr/bin/env bash
# Command 2 of the README: install the missing Debian packages, build everything with the tests (Release,
# in build-test/) and run the whole suite with CTest. Exits with CTest's status. CI runs this (.ci/run).
#   scripts/test.sh                  all tests
#   scripts/test.sh -R '^sim/'       extra arguments go to ctest
# COLOCSIM_JOBS=N sets the parallelism of the build and of ctest (default: the number of cores).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${COLOCSIM_JOBS:-$(nproc)}"
step() { echo "+ $*"; "$@"; }

"$root/scripts/setup-deps.sh"
step cmake -S "$root" -B "$root/build-test" -DCMAKE_BUILD_TYPE=Release -DCOLOCSIM_TESTS=ON
step cmake --build "$root/build-test" -j "$jobs"
step ctest --test-dir "$root/build-test" --output-on-failure -j "$jobs" "$@"
