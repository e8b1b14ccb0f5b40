#!/usr/bin/env bash
# Command 1 of the README: install what is missing, build colocsim (Release, in build/), and run the
# embedded default scenario. Extra arguments go to `colocsim run` (e.g. --force, -o DIR, --set k=v).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup-deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release -DCOLOCSIM_TESTS=OFF
cmake --build "$root/build" -j"$(nproc)" --target colocsim
exec "$root/build/sim/colocsim" run "$@"
