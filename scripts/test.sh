#!/usr/bin/env bash
# Command 2 of the README: install what is missing, build everything with the tests (Release, in
# build-test/), and run the whole suite with CTest. Exits with CTest's status.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup-deps.sh"
cmake -S "$root" -B "$root/build-test" -DCMAKE_BUILD_TYPE=Release -DCOLOCSIM_TESTS=ON
cmake --build "$root/build-test" -j"$(nproc)"
cd "$root/build-test"
ctest --output-on-failure -j"$(nproc)" "$@"
