#!/usr/bin/env bash
# Command 2 of the README: install the missing Debian packages, build everything with the tests (Release,
# in build-test/) and run the whole suite with CTest; then build the libFuzzer harnesses with clang in
# build-fuzz/ and run their CTest tests (scripts/fuzz.sh --ctest: a fixed number of inputs each, from the
# seed corpora of tests/fuzz/corpus). Exits with CTest's status. CI runs this (.ci/run).
#   scripts/test.sh                  all tests, then the fuzz tests
#   scripts/test.sh -R '^sim/'       extra arguments go to ctest (the main suite only; no fuzz tests)
# COLOCSIM_JOBS=N sets the parallelism of the builds and of ctest (default: the number of cores).
# COLOCSIM_FUZZ_TESTS=0 leaves the fuzz tests out.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${COLOCSIM_JOBS:-$(nproc)}"
step() { echo "+ $*"; "$@"; }

"$root/scripts/setup-deps.sh"
step cmake -S "$root" -B "$root/build-test" -DCMAKE_BUILD_TYPE=Release -DCOLOCSIM_TESTS=ON
step cmake --build "$root/build-test" -j "$jobs"
step ctest --test-dir "$root/build-test" --output-on-failure -j "$jobs" "$@"
if [[ $# -eq 0 && "${COLOCSIM_FUZZ_TESTS:-1}" != 0 ]]; then
  COLOCSIM_JOBS="$jobs" "$root/scripts/fuzz.sh" --ctest
fi
