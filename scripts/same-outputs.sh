#!/usr/bin/env bash
# same-outputs.sh [--rtol R] OLD_BUILD_DIR NEW_BUILD_DIR: the before/after check of a refactoring that must not
# change any result (CONTRIBUTING.md, Refactoring the engine). Runs every shipped scenario and every experiment
# driver with the two builds and compares every output file pair byte for byte; prints one line per run,
# "same" or the first differing line, and exits 1 on any difference (2 on bad usage).
#
# --rtol R (e.g. 1e-9): for a change that may move results in their last digits and nothing else (the engine
# computing completion times by its own arithmetic instead of SimGrid's solver), a file pair that is not the
# same byte for byte (after the masks below) is compared by scripts/numdiff.py: the same lines in the same
# order, everything but the numbers the same character for character (ids such as job-17 or run-3, and words
# such as 1.70x or 3g, are text), and each number within R relative of its counterpart
# (|a - b| <= max(R * max(|a|, |b|), 1e-12): the absolute floor accepts 0 against 3e-17, numdiff.py's
# header says why). Each run's line then reads "same" (byte for byte), "same within rtol (max rel diff X at
# FILE:LINE)" or DIFFERENT with the first difference, and the last line gives the largest relative difference
# over all runs and where. The exit statuses (rc.txt) are compared exactly; gzip files decompressed, binary
# files byte for byte, as without --rtol. A number printed rounded (the run summary's "12881.2 s") can flip
# in its last printed digit when the value behind it moves by far less than R: check such a line against the
# full-precision file (summary.json) before calling it a difference.
#
# Each build directory needs sim/colocsim and the C++ experiment drivers
#   cmake --build DIR --target colocsim colocsim-pitfalls colocsim-compare-policies colocsim-mlperf-scaling \
#     colocsim-repro-costa colocsim-repro-fgd colocsim-repro-heshare colocsim-repro-mig \
#     colocsim-validate-interference colocsim-validate-mig
# (a driver missing from either build is reported as skipped, not as a difference).
#
# What runs, both builds alike, each in a temporary directory of its own (relative output paths, so
# the paths printed are the same), scenario files taken from this script's repository:
#   * `colocsim run` (the embedded default scenario) and the README tutorial's runs of it (exclusive-fcfs,
#     interference-aware, first-fit:max_per_device=4, ccs-2, ccs-4, ccs-2 + contention);
#   * `colocsim run FILE --log-events events.jsonl` for tests/data/sim/{base,mig,hetero/scenario}.yaml,
#     experiments/*/scenario.yaml and every scenario of experiments/labs/ and experiments/notebooks/
#     (the event log compares the order of events and decisions, not only the results);
#   * `colocsim sweep SPEC -j 1` for the sweep specs there (files with a top-level `axes:`) and
#     experiments/sweeps/*.yaml;
#   * the README's replay (`colocsim replay tests/data/workloads/itp/cluster10-head30.csv --format itp
#     --platform aurora-node`);
#   * every C++ experiment driver as its CTest runs it (`--check`; repro-fgd-atc23 `--reduced --check -j 2`)
#     with `--csv` into the temporary directory, and experiments/validate-easy/validate_easy.py --quick.
#   stdout, stderr and the exit status of every run are compared too.
# Skipped (and why): experiments/labs/04-write-a-policy/stream.yaml and the lab's plugin runs (they need the
#   student plugin built: the lab's own CTest covers them); the device and platform files of lab 3 (not
#   scenarios; the lab's scenario uses them); repro-heshare-full (minutes; its reduced CTest run is here);
#   colocsim-repro-fgd without --reduced (minutes; packing only, no engine).
#
# Masked, exactly (lines that legitimately differ between two builds), before comparing:
#   * summary.json: the value of "wall_s" (wall-clock seconds of the run);
#   * sweep.csv: the wall_s column (found by its header), the same number;
#   * stdout/stderr: the experiment directory compiled into each driver (COLOCSIM_EXPERIMENT_DIR, i.e. the
#     two source trees' paths) is replaced by EXPERIMENT_DIR, the colocsim binary's path by COLOCSIM, and
#     the wall seconds that end a sweep's progress line ("colocsim: sweep [i/n] run-k ok (...) 0.08 s") by
#     TIME, and the wall seconds of a sweep's last line ("sweep 'x': 18 runs (...), 0.8 s with -j 1") by TIME;
#   * every file: the two sides' temporary directories ($WORK/old/, $WORK/new/) by WORK/ (validate-easy
#     writes the absolute path of its trace slice into each run's scenario.yaml).
# Nothing else is masked. Gzip-compressed outputs (*.gz) are compared decompressed.
#
# Runs in about 2 minutes on 2 idle cores. COLOCSIM_SAME_KEEP=1 keeps the temporary directory.
set -u -o pipefail

usage() {
  echo "usage: $0 [--rtol R] OLD_BUILD_DIR NEW_BUILD_DIR (each with sim/colocsim built; R a number >= 0)" >&2
  exit 2
}
RTOL=""
if [[ $# -ge 1 && $1 == --rtol ]]; then
  [[ $# -ge 2 && $2 =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]] || usage
  RTOL=$2
  shift 2
fi
if [[ $# -ne 2 || ! -x "$1/sim/colocsim" || ! -x "$2/sim/colocsim" ]]; then usage; fi
NUMDIFF="$(cd "$(dirname "$0")" && pwd)/numdiff.py"
OLD=$(cd "$1" && pwd)
NEW=$(cd "$2" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/same-outputs.XXXXXX")
if [[ "${COLOCSIM_SAME_KEEP:-0}" != 1 ]]; then trap 'rm -rf "$WORK"' EXIT; else echo "keeping $WORK"; fi

differences=0
runs=0
max_rel=0       # --rtol: the largest relative difference over all runs, and where
max_rel_at=""

# run_side SIDE BUILD NAME CMD...: runs CMD in $WORK/SIDE/NAME, with @BIN@ = BUILD/sim/colocsim and
# @BUILD@ = BUILD; stdout, stderr and the exit status go to files there.
run_side() {
  local side=$1 build=$2 name=$3
  shift 3
  local dir="$WORK/$side/$name" args=() a
  mkdir -p "$dir"
  for a in "$@"; do
    a=${a//@BIN@/$build/sim/colocsim}
    a=${a//@BUILD@/$build}
    args+=("$a")
  done
  (cd "$dir" && "${args[@]}" >stdout.txt 2>stderr.txt; echo $? >rc.txt)
}

# normalise FILE: the masked, decompressed text of FILE on stdout (see the header for what is masked).
normalise() {
  local f=$1 base
  base=$(basename "$f")
  local cat=(cat "$f")
  [[ $f == *.gz ]] && cat=(gzip -dc "$f")
  case "$base" in
  summary.json | summary.json.gz)
    "${cat[@]}" | sed -E 's/("wall_s": *)[-0-9.eE+]+/\1WALL/' ;;
  sweep.csv | sweep.csv.gz)
    "${cat[@]}" | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
w = rows[0].index("wall_s") if rows and "wall_s" in rows[0] else None
out = csv.writer(sys.stdout, lineterminator="\n")
for i, r in enumerate(rows):
    if i > 0 and w is not None and w < len(r): r[w] = "WALL"
    out.writerow(r)' ;;
  stdout.txt | stderr.txt)
    "${cat[@]}" | sed -E -e "s#$OLD_EXP#EXPERIMENT_DIR#g; s#$NEW_EXP#EXPERIMENT_DIR#g" \
      -e "s#$OLD/sim/colocsim#COLOCSIM#g; s#$NEW/sim/colocsim#COLOCSIM#g" \
      -e "s#$WORK/(old|new)/#WORK/#g" -e 's#^(colocsim: sweep \[.*\) )[0-9.]+ s$#\1TIME#' \
      -e 's#^(sweep .* runs \(.*\), )[0-9.]+ s (with -j [0-9]+)$#\1TIME \2#' ;;
  *)
    "${cat[@]}" | sed -E "s#$WORK/(old|new)/#WORK/#g" ;;
  esac
}

# greater X Y: X > Y as numbers (1e-06 > 5e-10).
greater() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }

# compare NAME: every file of the two sides' directories, the first difference of each run printed. With
# --rtol, a file pair that is not the same byte for byte goes to numdiff.py (rc.txt excepted: the exit status
# must be the same); the run's largest relative difference is that of its files.
compare() {
  local name=$1 a="$WORK/old/$1" b="$WORK/new/$1" f first="" rel="" rel_at="" out rc x at
  runs=$((runs + 1))
  local la lb
  la=$(cd "$a" && find . -type f | sort)
  lb=$(cd "$b" && find . -type f | sort)
  if [[ "$la" != "$lb" ]]; then
    first="the files differ: $(diff <(echo "$la") <(echo "$lb") | grep '^[<>]' | head -3 | tr '\n' ' ')"
  else
    while read -r f; do
      cmp -s <(normalise "$a/$f") <(normalise "$b/$f") && continue
      if [[ -n "$RTOL" && $(basename "$f") != rc.txt ]]; then
        out=$(python3 "$NUMDIFF" --rtol "$RTOL" --label "${f#./}" <(normalise "$a/$f") <(normalise "$b/$f") \
          </dev/null)
        rc=$?
        # "max rel diff: X at FILE:LINE:COLUMN (A vs B)", or "max rel diff: 0" (no number differs in value)
        x=$(sed -n 's/^max rel diff: \([^ ]*\).*/\1/p' <<<"$out")
        at=$(sed -n 's/^max rel diff: [^ ]* at \(.*\):[0-9]* (.*/\1/p' <<<"$out")
        [[ -z $at ]] && at="${f#./} (numbers equal as values or within numdiff.py's absolute floor)"
        if [[ -n $x && ($rc -eq 0 || $x != 0) ]] && { [[ -z $rel ]] || greater "$x" "$rel"; }; then
          rel=$x
          rel_at=$at
        fi
        [[ $rc -eq 0 ]] && continue
        first=$(grep -m1 -A2 '^DIFFERENT ' <<<"$out" | sed 's/^DIFFERENT //; s/^  //' | cut -c1-200 | tr '\n' ' ')
        [[ -z $first ]] && first="${f#./}: numdiff.py failed (exit $rc) $(tr '\n' ' ' <<<"$out")"
      else
        first="$f: $(diff <(normalise "$a/$f") <(normalise "$b/$f") | grep -m2 '^[<>]' | cut -c1-200 |
          tr '\n' ' ')"
      fi
      break
    done <<<"$la"
  fi
  if [[ -n $rel ]] && { [[ -z $max_rel_at ]] || greater "$rel" "$max_rel"; }; then
    max_rel=$rel
    max_rel_at="$name: $rel_at"
  fi
  if [[ -n "$first" ]]; then
    printf '%-48s DIFFERENT %s\n' "$name" "$first"
    differences=$((differences + 1))
  elif [[ -n "$rel" ]]; then
    printf '%-48s same within rtol (max rel diff %s at %s)\n' "$name" "$rel" "$rel_at"
  else
    printf '%-48s same\n' "$name"
  fi
}

# both NAME CMD...: the run with each build, then the comparison.
both() {
  run_side old "$OLD" "$@"
  run_side new "$NEW" "$@"
  compare "$1"
}

# The experiment directory compiled into the drivers: each build's source tree (CMakeCache.txt).
src_of() { sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$1/CMakeCache.txt"; }
OLD_EXP="$(src_of "$OLD")/experiments"
NEW_EXP="$(src_of "$NEW")/experiments"

# 1. The default scenario and the README tutorial.
both default/run @BIN@ run -o out
both tutorial/exclusive-fcfs @BIN@ run --set policy=exclusive-fcfs -o out
both tutorial/interference-aware @BIN@ run --policy interference-aware -o out --log-events events.jsonl
both tutorial/first-fit-4 @BIN@ run --policy first-fit:max_per_device=4 -o out
both tutorial/ccs-2 @BIN@ run --set platform.sharing=ccs-2 -o out
both tutorial/ccs-4 @BIN@ run --set platform.sharing=ccs-4 -o out
both tutorial/ccs-2-contention @BIN@ run --set platform.sharing=ccs-2 --set interference=contention -o out
both tutorial/replay-itp @BIN@ replay "$ROOT/tests/data/workloads/itp/cluster10-head30.csv" --format itp \
  --platform aurora-node -o out

# 2. Scenario files and sweep specs.
scenarios=("$ROOT"/tests/data/sim/{base,mig,hetero/scenario}.yaml "$ROOT"/experiments/*/scenario.yaml
  "$ROOT"/experiments/labs/*/*.yaml "$ROOT"/experiments/notebooks/*.yaml "$ROOT"/experiments/sweeps/*.yaml)
for f in "${scenarios[@]}"; do
  rel=${f#"$ROOT"/}
  case "$rel" in
  experiments/labs/04-write-a-policy/stream.yaml) echo "$rel: skipped (needs the lab's plugin)"; continue ;;
  esac
  if grep -q '^format:' "$f"; then continue; fi # a device or platform file, not a scenario
  if grep -q '^axes:' "$f"; then
    both "$rel" @BIN@ sweep "$f" -j 1 -o out # one at a time: the progress lines in run order
  else
    both "$rel" @BIN@ run "$f" -o out --log-events events.jsonl
  fi
done

# 3. The experiment drivers, as their CTests run them: every colocsim-* executable the new build has under
#    experiments/FOLDER/ (a driver added later is compared without editing this list).
while read -r path; do
  folder=$(basename "$(dirname "$path")")
  exe=$(basename "$path")
  if [[ ! -x "$OLD/experiments/$folder/$exe" ]]; then
    echo "experiments/$folder: skipped ($exe not built in the old build)"
    continue
  fi
  extra=()
  [[ $folder == repro-fgd-atc23 ]] && extra=(--reduced -j 2)
  both "experiments/$folder" "@BUILD@/experiments/$folder/$exe" --check "${extra[@]}" --csv results.csv
done < <(find -H "$NEW/experiments" -mindepth 2 -maxdepth 2 -type f -executable -name 'colocsim-*' | sort)
both experiments/validate-easy python3 "$ROOT/experiments/validate-easy/validate_easy.py" --check --quick \
  --colocsim @BIN@ --out out

echo "$runs runs compared, $differences different"
if [[ -n "$RTOL" ]]; then
  if [[ -z $max_rel_at ]]; then
    echo "largest relative difference over all runs: none (every output the same byte for byte)"
  else
    echo "largest relative difference over all runs: $max_rel ($max_rel_at; rtol $RTOL)"
  fi
fi
[[ $differences -eq 0 ]]
