#!/usr/bin/env bash
# Mutation testing on demand (not in CI; CONTRIBUTING.md, "Mutation testing"): plants the small, plausible
# bugs listed in scripts/mutants.txt one at a time, rebuilds incrementally and runs the test suite, and reports
# which ones the suite kills. The score is killed / (mutants run that are not marked equivalent, less those
# that did not build).
#
#   scripts/mutate.sh                 every mutant of the list
#   scripts/mutate.sh 3 7 12          only mutants 3, 7 and 12 (numbered in list order, from 1)
#   scripts/mutate.sh -j 4 -B build-test -t 1800 -l scripts/mutants.txt
#     -j N   build and ctest parallelism (default: the number of cores)
#     -B DIR build folder configured with -DCOLOCSIM_TESTS=ON (default: build-test; configured if absent)
#     -t S   time limit of one mutant's build + tests, in seconds (default 1800; past it: "timeout")
#     -l F   the mutant list (default: scripts/mutants.txt)
#     -n     dry run: check that every selected mutant applies, build and test nothing
#
# The list (one mutant a line; '#' starts a comment line): file<TAB>line<TAB>original<TAB>mutant[<TAB>reason].
# `original` must occur exactly once in the file's line that holds it (the line number is a hint: of the lines
# holding the text, the nearest is taken, so the list survives code moving); a mutant whose text is not found
# is reported "refused" and counts for nothing. A fifth field starting "equivalent:" marks a mutant that cannot
# change any result, with the reason; it is listed, never run, and left out of the score.
#
# One mutant at a time, in place: the file is saved under <build>/mutate-saved/ and put back after the mutant
# (trap on exit, Ctrl-C and termination; a save left by a killed run is put back when the script starts). The
# tests run in three steps, each stopping at its first failure, fast unit tests first: the mutated library's
# own tests (models/, workloads/, policies/ or sim/), then the other libraries' tests, then the rest (docs,
# calibration, experiments). The first failing test is the killer. At the end the build folder is rebuilt
# from the restored sources.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="$(nproc)"
build="$root/build-test"
limit=1800
list="$root/scripts/mutants.txt"
dry=0
usage() { sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while getopts "j:B:t:l:nh" opt; do
  case "$opt" in
  j) jobs="$OPTARG" ;;
  B) build="$(cd "$root" && realpath -m "$OPTARG")" ;;
  t) limit="$OPTARG" ;;
  l) list="$(realpath -m "$OPTARG")" ;;
  n) dry=1 ;;
  h) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
for a in "$@"; do
  [[ "$a" =~ ^[1-9][0-9]*$ ]] || { echo "mutate.sh: '$a' is not a mutant number (expected 1, 2, ...)" >&2; exit 2; }
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "mutate.sh: -j expects a positive integer (got '$jobs')" >&2; exit 2; }
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || { echo "mutate.sh: -t expects seconds > 0 (got '$limit')" >&2; exit 2; }
[[ -f "$list" ]] || { echo "mutate.sh: no mutant list at $list" >&2; exit 2; }

saved="$build/mutate-saved"
restore() {
  # Put back a mutated file (a new mtime, so that the next build recompiles it from the restored text).
  if [[ -f "$saved/path" ]]; then
    local rel
    rel="$(cat "$saved/path")"
    cat "$saved/original" >"$root/$rel"
    rm -f "$saved/path" "$saved/original"
    echo "mutate.sh: restored $rel" >&2
  fi
}
trap restore EXIT
trap 'restore; exit 130' INT
trap 'restore; exit 143' TERM
mkdir -p "$saved"
restore # left by a run that was killed outright

# apply.py FILE HINT ORIGINAL MUTANT [--check]: prints the line it changed, or a reason on stderr and exit 1.
apply() {
  python3 - "$@" <<'EOF'
import sys
path, hint, original, mutant = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
check = len(sys.argv) > 5
with open(path, encoding="utf-8") as f:
    lines = f.read().split("\n")
hits = [i for i, l in enumerate(lines) if original in l]
if not hits:
    sys.exit(f"original text not found in {path}")
i = min(hits, key=lambda k: (abs(k + 1 - hint), k))
if lines[i].count(original) != 1:
    sys.exit(f"original text occurs {lines[i].count(original)} times on line {i + 1}")
if original == mutant:
    sys.exit("mutant equals original")
lines[i] = lines[i].replace(original, mutant)
if not check:
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
print(i + 1)
EOF
}

# Read the list: numbered mutant lines.
mapfile -t entries < <(grep -v -e '^#' -e '^[[:space:]]*$' "$list")
total=${#entries[@]}
declare -a pick=()
if [[ $# -gt 0 ]]; then
  for a in "$@"; do
    ((a <= total)) || { echo "mutate.sh: no mutant $a (the list has $total)" >&2; exit 2; }
    pick+=("$a")
  done
else
  for ((k = 1; k <= total; ++k)); do pick+=("$k"); done
fi

if [[ $dry == 0 && ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCOLOCSIM_TESTS=ON >/dev/null
fi
if [[ $dry == 0 ]] && ! grep -q '^COLOCSIM_TESTS:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "mutate.sh: $build is not configured with -DCOLOCSIM_TESTS=ON" >&2
  exit 2
fi
log="$build/mutate-last.log"
[[ $dry == 1 ]] || : >"$log"

libs='models|workloads|policies|sim'
unit_areas='models|workloads|policies|policies_engine|sim' # CTest name prefixes (tests/*/CMakeLists.txt)
unit_targets=(colocsim_tests_models colocsim_tests_workloads colocsim_tests_policies colocsim_tests_policies_engine
  colocsim_tests_sim)
# run_step TARGETS... -- CTEST_ARGS...: build the targets, run ctest; sets step_result and step_killer.
run_step() {
  local targets=() left
  while [[ "$1" != -- ]]; do targets+=("$1"); shift; done
  shift
  left=$((deadline - SECONDS))
  ((left > 0)) || { step_result=timeout; return; }
  local build_cmd=(cmake --build "$build" -j "$jobs")
  [[ ${#targets[@]} -gt 0 ]] && build_cmd+=(--target "${targets[@]}")
  if ! timeout "$left" "${build_cmd[@]}" >>"$log" 2>&1; then
    if ((SECONDS >= deadline)); then step_result=timeout; else step_result=build-failed; fi
    return
  fi
  left=$((deadline - SECONDS))
  ((left > 0)) || { step_result=timeout; return; }
  rm -f "$build/Testing/Temporary/LastTestsFailed.log"
  local rc=0
  timeout "$left" ctest --test-dir "$build" -j "$jobs" --stop-on-failure --timeout "$left" "$@" >>"$log" 2>&1 || rc=$?
  if [[ -s "$build/Testing/Temporary/LastTestsFailed.log" ]]; then
    step_result=killed
    step_killer="$(head -n 1 "$build/Testing/Temporary/LastTestsFailed.log" | cut -d: -f2-)"
    if grep -qF "$step_killer (Timeout)" "$log"; then step_killer="$step_killer (test timeout)"; fi
  elif ((rc == 124 || rc == 137)); then
    step_result=timeout
  elif ((rc != 0)); then
    step_result=killed # ctest failed without naming a test (e.g. a test executable missing)
    step_killer="ctest exit $rc"
  else
    step_result=survived
  fi
  return 0 # under set -e a failing last command would end the script
}

declare -a rows=()
killed=0 survived=0 timedout=0 failed_build=0 equivalent=0 refused=0
for k in "${pick[@]}"; do
  IFS=$'\t' read -r file hint original mutant note <<<"${entries[$((k - 1))]}"
  note="${note:-}"
  where="$file:$hint"
  if [[ -z "$mutant" || ! "$hint" =~ ^[0-9]+$ ]]; then
    rows+=("$k|$where|refused|malformed list line (expected file<TAB>line<TAB>original<TAB>mutant)")
    refused=$((refused + 1))
    continue
  fi
  if [[ "$note" == equivalent:* ]]; then
    rows+=("$k|$where|equivalent|${note#equivalent: }")
    equivalent=$((equivalent + 1))
    continue
  fi
  if ! line="$(apply "$root/$file" "$hint" "$original" "$mutant" --check 2>&1)"; then
    rows+=("$k|$where|refused|$line")
    refused=$((refused + 1))
    continue
  fi
  where="$file:$line"
  if [[ $dry == 1 ]]; then
    rows+=("$k|$where|applies|$original -> $mutant")
    continue
  fi
  echo "=== mutant $k: $where: '$original' -> '$mutant'" | tee -a "$log" >&2
  cp "$root/$file" "$saved/original"
  echo "$file" >"$saved/path"
  apply "$root/$file" "$hint" "$original" "$mutant" >/dev/null
  area="${file%%/*}"
  deadline=$((SECONDS + limit))
  step_result=survived step_killer=""
  if [[ "$area" =~ ^($libs)$ ]]; then
    own=("colocsim_tests_$area")
    [[ $area == policies ]] && own+=(colocsim_tests_policies_engine)
    run_step "${own[@]}" -- -R "^$area(_engine)?/"
    [[ $step_result == survived ]] && run_step "${unit_targets[@]}" -- -R "^($unit_areas)/" -E "^$area(_engine)?/"
  else
    run_step "${unit_targets[@]}" -- -R "^($unit_areas)/"
  fi
  [[ $step_result == survived ]] && run_step -- -E "^($unit_areas)/"
  restore
  case $step_result in
  killed) killed=$((killed + 1)) ;;
  survived) survived=$((survived + 1)) ;;
  timeout) timedout=$((timedout + 1)) ;;
  build-failed) failed_build=$((failed_build + 1)) ;;
  esac
  rows+=("$k|$where|$step_result|$step_killer")
  echo "=== mutant $k: $step_result ${step_killer}" | tee -a "$log" >&2
done

if [[ $dry == 0 ]]; then
  echo "mutate.sh: rebuilding $build from the restored sources" >&2
  cmake --build "$build" -j "$jobs" >>"$log" 2>&1 || echo "mutate.sh: the final rebuild failed (see $log)" >&2
fi

printf '%-4s %-42s %-12s %s\n' "#" "where" "result" "killing test / note"
for r in "${rows[@]}"; do
  IFS='|' read -r k where result what <<<"$r"
  printf '%-4s %-42s %-12s %s\n' "$k" "$where" "$result" "$what"
done
[[ $dry == 1 ]] && exit $((refused > 0 ? 1 : 0))
scored=$((killed + survived + timedout))
echo "killed $killed, survived $survived, timeout $timedout, build-failed $failed_build, equivalent $equivalent, refused $refused"
if ((scored > 0)); then
  echo "mutation score: $killed / $scored = $((100 * killed / scored)).$(((1000 * killed / scored) % 10)) % (killed / non-equivalent mutants run; timeouts count as survivors)"
fi
((survived + timedout + refused == 0))
