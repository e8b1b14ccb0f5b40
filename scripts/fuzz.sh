#!/usr/bin/env bash
# Fuzzes colocsim's readers and loaders with libFuzzer (tests/fuzz/README.md). Configures and builds a clang
# build with ASan + UBSan in build-fuzz/, then
#   scripts/fuzz.sh DURATION [HARNESS...]   runs every harness (or the ones named) for DURATION each
#                                           (10m, 90s, 1h; a bare number is seconds) and prints a table:
#                                           harness, executions, crashes, timeouts, leaks, out-of-memory
#   scripts/fuzz.sh --ctest [CTEST ARGS]    runs the CTest tests labelled fuzz (a fixed number of inputs per
#                                           harness from its seed corpus, and the generated seeds): CI
# A harness first runs its generated seeds once each (a 4 MiB line, 100,000 nested '['), then fuzzes from
# its corpus (tests/fuzz/corpus/NAME) with -timeout=10 -rss_limit_mb=2048 in fork mode, going on after a
# finding. Findings are files under build-fuzz/fuzz-out/NAME/ (crash-*, timeout-*, leak-*, oom-*; a
# generated seed that fails is listed in gen-failures.txt); rerun one with build-fuzz/tests/fuzz/fuzz_NAME FILE.
# Exits 1 if anything was found. COLOCSIM_JOBS=N builds with N jobs and fuzzes N harnesses at a time
# (default: the number of cores). COLOCSIM_FUZZ_NO_BUILD=1 uses build-fuzz/ as it is (no configure, no build).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz"
jobs="${COLOCSIM_JOBS:-$(nproc)}"
step() { echo "+ $*"; "$@"; }
usage() {
  sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
[[ $# -ge 1 ]] || usage

configure_and_build() {
  [[ "${COLOCSIM_FUZZ_NO_BUILD:-0}" == 0 ]] || return 0
  local launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  # -O1 with line tables: the usual fuzzing build (readable stacks, a third of -O2's compile time).
  # The calibration backends are off: the harnesses need none of them. The libraries are unity builds (a few
  # .cpp files of one library compiled as one: CONTRIBUTING.md, "Presets and CI").
  CC="${CC:-clang}" CXX="${CXX:-clang++}" step cmake -S "$root" -B "$build" -DCOLOCSIM_FUZZ=ON \
    -DCOLOCSIM_TESTS=OFF -DCOLOCSIM_LEVEL_ZERO=OFF -DCOLOCSIM_OPENCL=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_UNITY_BUILD=ON \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" "${launcher[@]}"
  step cmake --build "$build" -j "$jobs" --target colocsim_fuzz
}

if [[ "$1" == "--ctest" ]]; then
  shift
  configure_and_build
  step ctest --test-dir "$build" -L fuzz --output-on-failure -j "$jobs" "$@"
  exit
fi

duration="$1"
shift
case "$duration" in
  *h) seconds=$((${duration%h} * 3600)) ;;
  *m) seconds=$((${duration%m} * 60)) ;;
  *s) seconds=${duration%s} ;;
  *) seconds=$duration ;;
esac
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -gt 0 ]] || {
  echo "fuzz.sh: bad DURATION '$duration' (expected e.g. 10m, 90s, 1h)" >&2
  exit 2
}

all=()
for f in "$root"/tests/fuzz/fuzz_*.cpp; do
  n="$(basename "$f" .cpp)"
  all+=("${n#fuzz_}")
done
harnesses=("$@")
[[ ${#harnesses[@]} -gt 0 ]] || harnesses=("${all[@]}")
for h in "${harnesses[@]}"; do
  [[ -f "$root/tests/fuzz/fuzz_$h.cpp" ]] || {
    echo "fuzz.sh: no harness '$h'; valid: ${all[*]}" >&2
    exit 2
  }
done

configure_and_build

# One harness: its generated seeds once each, then fuzzing for $seconds. Writes build-fuzz/fuzz-out/NAME/.
fuzz_one() {
  local h="$1" bin="$build/tests/fuzz/fuzz_$1" out="$build/fuzz-out/$1"
  rm -rf "$out"
  mkdir -p "$out/corpus"
  : >"$out/gen-failures.txt"
  local g
  for g in "$build/tests/fuzz/generated/$h"/*; do
    [[ -f "$g" ]] || continue
    if ! "$bin" -timeout=10 -rss_limit_mb=2048 "$g" >"$out/gen-$(basename "$g").log" 2>&1; then
      local kind=crash
      grep -q 'ERROR: libFuzzer: timeout' "$out/gen-$(basename "$g").log" && kind=timeout
      grep -q 'ERROR: LeakSanitizer' "$out/gen-$(basename "$g").log" && kind=leak
      grep -q 'ERROR: libFuzzer: out-of-memory' "$out/gen-$(basename "$g").log" && kind=oom
      echo "$kind $g (log: $out/gen-$(basename "$g").log)" >>"$out/gen-failures.txt"
    fi
  done
  "$bin" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$out/" -print_final_stats=1 "$out/corpus" "$root/tests/fuzz/corpus/$h" \
    >"$out/fuzz.log" 2>&1 || true
}

pids=()
for h in "${harnesses[@]}"; do
  echo "fuzzing $h for ${seconds}s (log: build-fuzz/fuzz-out/$h/fuzz.log)"
  fuzz_one "$h" &
  pids+=($!)
  if [[ ${#pids[@]} -ge $jobs ]]; then
    wait "${pids[0]}"
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do
  wait "$p"
done

# The table. Executions: the last "#N:" status line of the fork-mode parent.
found=0
printf '%-14s %12s %8s %9s %6s %5s\n' harness executions crashes timeouts leaks ooms
for h in "${harnesses[@]}"; do
  out="$build/fuzz-out/$h"
  execs="$(grep -oE '^#[0-9]+' "$out/fuzz.log" | tail -1 | tr -d '#')"
  count() { find "$out" -maxdepth 1 -name "$1-*" | wc -l; }
  gen() { grep -c "^$1 " "$out/gen-failures.txt" || true; }
  crashes=$(($(count crash) + $(gen crash)))
  timeouts=$(($(count timeout) + $(gen timeout)))
  leaks=$(($(count leak) + $(gen leak)))
  ooms=$(($(count oom) + $(gen oom)))
  printf '%-14s %12s %8d %9d %6d %5d\n' "$h" "${execs:-?}" "$crashes" "$timeouts" "$leaks" "$ooms"
  [[ $((crashes + timeouts + leaks + ooms)) -eq 0 ]] || found=1
done
if [[ $found -ne 0 ]]; then
  echo "findings: build-fuzz/fuzz-out/<harness>/ (crash-*, timeout-*, leak-*, oom-*, gen-failures.txt)"
fi
exit $found
