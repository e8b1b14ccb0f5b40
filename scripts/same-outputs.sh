#!/usr/bin/env bash
# same-outputs.sh OLD_BUILD_DIR NEW_BUILD_DIR: the before/after check of a refactoring that must not change
# any result (CONTRIBUTING.md, Refactoring the engine). Runs every shipped scenario and every experiment
# driver with the two builds and compares every output file pair byte for byte; prints one line per run,
# "same" or the first differing line, and exits 1 on any difference (2 on bad usage).
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

if [[ $# -ne 2 || ! -x "$1/sim/colocsim" || ! -x "$2/sim/colocsim" ]]; then
  echo "usage: $0 OLD_BUILD_DIR NEW_BUILD_DIR (each with sim/colocsim built)" >&2
  exit 2
fi
OLD=$(cd "$1" && pwd)
NEW=$(cd "$2" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/same-outputs.XXXXXX")
if [[ "${COLOCSIM_SAME_KEEP:-0}" != 1 ]]; then trap 'rm -rf "$WORK"' EXIT; else echo "keeping $WORK"; fi

differences=0
runs=0

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

# compare NAME: every file of the two sides' directories, the first difference of each run printed.
compare() {
  local name=$1 a="$WORK/old/$1" b="$WORK/new/$1" f first=""
  runs=$((runs + 1))
  local la lb
  la=$(cd "$a" && find . -type f | sort)
  lb=$(cd "$b" && find . -type f | sort)
  if [[ "$la" != "$lb" ]]; then
    first="the files differ: $(diff <(echo "$la") <(echo "$lb") | grep '^[<>]' | head -3 | tr '\n' ' ')"
  else
    while read -r f; do
      if ! cmp -s <(normalise "$a/$f") <(normalise "$b/$f"); then
        first="$f: $(diff <(normalise "$a/$f") <(normalise "$b/$f") | grep -m2 '^[<>]' | cut -c1-200 |
          tr '\n' ' ')"
        break
      fi
    done <<<"$la"
  fi
  if [[ -z "$first" ]]; then
    printf '%-48s same\n' "$name"
  else
    printf '%-48s DIFFERENT %s\n' "$name" "$first"
    differences=$((differences + 1))
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
[[ $differences -eq 0 ]]
