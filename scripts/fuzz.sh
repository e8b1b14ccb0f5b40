#!/bin/sh
# Fuzz every input reader for DURATION seconds each (default 60) with libFuzzer, ASan and UBSan:
#   scripts/fuzz.sh [DURATION]
# Builds build-fuzz/ with clang-14 (packages clang-14 and libclang-rt-14-dev, scripts/deps.txt) and
# -DCOLOCSIM_FUZZ=ON, then runs tests/fuzz's harnesses from their seed corpora. A finding leaves a
# crash-*/timeout-*/oom-* file in build-fuzz/fuzz-findings/ and makes the script exit 1.
set -eu
duration=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCOLOCSIM_FUZZ=ON -DCOLOCSIM_TESTS=OFF -DCOLOCSIM_LEVEL_ZERO=OFF -DCOLOCSIM_OPENCL=OFF >/dev/null
names="native swf itp openb pai batsim yaml"
targets=""
for n in $names; do targets="$targets fuzz_$n"; done
cmake --build "$build" -j"$(nproc)" --target $targets
mkdir -p "$build/fuzz-findings"
status=0
for n in $names; do
  echo "== fuzz_$n: $duration s"
  case $n in yaml) extra="$root/models/devices" ;; native) extra="$root/tests/data/workloads" ;; *) extra="$root/tests/data/workloads/$n" ;; esac
  mkdir -p "$build/tests/fuzz/corpus-$n"
  "$build/tests/fuzz/fuzz_$n" -max_total_time="$duration" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$build/fuzz-findings/$n-" "$build/tests/fuzz/corpus-$n" "$root/tests/fuzz/corpus/$n" "$extra" ||
    status=1
done
exit $status
