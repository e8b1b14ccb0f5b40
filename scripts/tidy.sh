#!/usr/bin/env bash
# clang-tidy (the checks and naming of .clang-tidy) over the sources of the libraries and the CLI: base/, models/,
# workloads/, policies/, sim/, cli/, calibration/. Exits non-zero on any finding (.clang-tidy: WarningsAsErrors).
# Tests and experiments are left out: Catch2's macros and the drivers' tables are not what the checks are for.
#   scripts/tidy.sh                 every source file, checked as CMake's unity batches (a few .cpp files of one
#                                   library per clang-tidy run, so the headers they share are parsed once:
#                                   about 4 min on 2 cores, against 10-15 min one file at a time)
#   scripts/tidy.sh sim/Engine.cpp  the files given, one at a time (a regular expression each, as
#                                   run-clang-tidy takes them)
# COLOCSIM_JOBS=N sets the parallelism (default: the number of cores). The compile commands come from build-tidy/
# (one file at a time) and build-tidy-unity/ (the batches), configured here on every run; nothing is built.
# A finding inside a batch is reported at its line in the .cpp file, as in a run on that file alone.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${COLOCSIM_JOBS:-$(nproc)}"
tidy=$(command -v run-clang-tidy-14 || command -v run-clang-tidy || true)
[[ -n "$tidy" ]] || { echo "scripts/tidy.sh: run-clang-tidy not found (Debian package clang-tidy)" >&2; exit 3; }
dirs='(base|models|workloads|policies|packing|sim|cli|calibration)'
# Configured every time (a few seconds once cached), so that source files added since the last run are in the
# compile database: a stale database silently skipped them.
cmake -S "$root" -B "$root/build-tidy" -DCMAKE_BUILD_TYPE=Release -DCOLOCSIM_TESTS=ON >/dev/null
if [[ $# -gt 0 ]]; then
  exec "$tidy" -p "$root/build-tidy" -quiet -j "$jobs" "$@"
fi

unity="$root/build-tidy-unity"
cmake -S "$root" -B "$unity" -DCMAKE_BUILD_TYPE=Release -DCOLOCSIM_TESTS=ON -DCMAKE_UNITY_BUILD=ON >/dev/null
# Every file a run one at a time would check must be in a batch, or checked alone in the unity database (a
# file kept out of the batches). Files generated at build time (sim/embedded_data.cpp, the kernel blobs) are
# in neither: they live in the build folder.
db_files() { sed -n 's/^ *"file": "\(.*\)",\{0,1\}$/\1/p' "$1/compile_commands.json"; }
wanted=$(db_files "$root/build-tidy" | grep -E "^$root/$dirs/" | sort -u)
batches=$(db_files "$unity" | grep -E "^$unity/$dirs/.*/Unity/" | sort -u)
[[ -n "$batches" ]] || { echo "scripts/tidy.sh: no unity batches in $unity/compile_commands.json" >&2; exit 3; }
covered=$({
  # shellcheck disable=SC2086 # one path per line, no spaces in the build folder's paths
  sed -n 's/^#include "\(.*\)"$/\1/p' $batches
  db_files "$unity" | grep -E "^$root/$dirs/" || true # none today: every library is a unity build
} | sort -u)
missing=$(comm -23 <(echo "$wanted") <(echo "$covered"))
if [[ -n "$missing" ]]; then
  echo "scripts/tidy.sh: these files are in no unity batch; run scripts/tidy.sh on them by name:" >&2
  echo "$missing" >&2
  exit 3
fi
# bugprone-suspicious-include is off here: it flags the batches' own `#include "X.cpp"` lines. (It caught
# nothing in this code; a run on files by name still checks it.)
exec "$tidy" -p "$unity" -quiet -j "$jobs" -checks=-bugprone-suspicious-include \
  "^$unity/$dirs/.*/Unity/" "^$root/$dirs/"
