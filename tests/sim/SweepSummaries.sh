#!/bin/bash
# Every run's summary.json is checked against the schema of colocsim's own summary.json before it goes into
# sweep.csv, by `sweep --collect` and by a local `sweep --resume` (docs/sweeps.md, docs/formats/sweep.md).
#   SweepSummaries.sh COLOCSIM WORK CHECK_OUTPUTS
# An 8-run sweep is run locally, its run directories copied into a directory prepared with --slurm, and the
# summaries of runs 2-8 replaced by what a disk, a user or a broken run may leave: {}, an empty file, a YAML
# scalar, a list, a one-key object, truncated JSON, a number for a string and a string for a number. Run 1
# keeps a real summary whose makespan_s is null (a NaN: valid). Then collect and resume must: exit 1, report runs 2-8 as
# failed naming each file and what is wrong, keep run 1 ok, and write the columns of the schema (those of a
# real summary.json's numbers), whatever run 1 holds.
set -u
COLOCSIM=$1
WORK=$2
CHECK_OUTPUTS=$3
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_rc() { # expect_rc RC WHAT CMD...: CMD exits RC
  local want=$1 what=$2; shift 2
  "$@" >"$WORK/last.out" 2>&1
  local rc=$?
  [ "$rc" = "$want" ] || { fail "$what: exit $rc, expected $want"; sed 's/^/  | /' "$WORK/last.out" | head -20; }
}
statuses() { awk -F, 'NR > 1 { print $2 }' "$1" | tr '\n' ' '; }

cat >spec.yaml <<'YAML'
name: summaries
set:
  outputs.timeseries: false
axes:
  policy: [exclusive-fcfs, first-fit]
seeds: [1, 2, 3, 4]
YAML
expect_rc 0 "local sweep" "$COLOCSIM" sweep spec.yaml -j 2 -o local --quiet
# the sweep's own files, before any is spoilt, pass the strict output checker (tests/support/check_outputs.cpp)
"$CHECK_OUTPUTS" local >check.out 2>&1 || { fail "the local sweep's files do not pass the checker"; cat check.out; }
expect_rc 0 "sweep --slurm" "$COLOCSIM" sweep spec.yaml --slurm -o coll
# The expected columns: run, status, the axis, seed, then every number (or null) of a real summary.json
# but seed, in file order.
numbers=$(grep -E '^  "[a-z0-9_]+": (-?[0-9]|null)' local/run-0001/summary.json | sed 's/^  "\([a-z0-9_]*\)".*/\1/' |
  grep -vx seed | tr '\n' ',' | sed 's/,$//')
[ -n "$numbers" ] || fail "no numbers in a real summary.json"
want_header="run,status,policy,seed,$numbers"
nf=$(grep -c '^  "[a-z0-9_]*":' local/run-0001/summary.json) # its fields

spoil() { # spoil DIR: runs 1-8 as described above
  local d=$1
  sed -i 's/^  "makespan_s": .*,$/  "makespan_s": null,/' "$d/run-0001/summary.json"
  echo '{}' >"$d/run-0002/summary.json"
  : >"$d/run-0003/summary.json"
  echo '"hello"' >"$d/run-0004/summary.json"
  echo '[1, 2]' >"$d/run-0005/summary.json"
  echo '{"makespan_s": 5}' >"$d/run-0006/summary.json"
  head -c 200 "$d/run-0007/summary.json" >"$d/run-0007/x" && mv "$d/run-0007/x" "$d/run-0007/summary.json"
  sed -i 's/^  "policy": .*,$/  "policy": 3,/; s/^  "makespan_s": .*,$/  "makespan_s": "fast",/' "$d/run-0008/summary.json"
}
check() { # check WHAT DIR: the statuses, the header, run 1's empty makespan and the messages in last.out
  local what=$1 d=$2
  [ "$(statuses "$d/sweep.csv")" = "ok failed failed failed failed failed failed failed " ] ||
    fail "$what: statuses $(statuses "$d/sweep.csv")"
  [ "$(head -1 "$d/sweep.csv")" = "$want_header" ] || fail "$what: header $(head -1 "$d/sweep.csv")"
  local col
  col=$(head -1 "$d/sweep.csv" | tr ',' '\n' | grep -nx makespan_s | cut -d: -f1)
  [ -n "$col" ] && [ -z "$(awk -F, -v c="$col" 'NR == 2 { print $c }' "$d/sweep.csv")" ] ||
    fail "$what: run-0001's makespan_s (null) should be an empty cell"
  local n
  for n in 2 3 4 5 6 7 8; do
    grep -q "run-000$n/summary.json" "$WORK/last.out" || fail "$what: run-000$n's file not named"
  done
  grep -q "run-0002/summary.json: $nf of the $nf fields of colocsim's summary.json missing" "$WORK/last.out" || fail "$what: {} not said to miss fields"
  grep -q "run-0004/summary.json:1:1: expected a JSON object" "$WORK/last.out" ||
    fail "$what: a scalar not said to be no summary"
  grep -q "run-0008/summary.json:[0-9]*:[0-9]*: policy: expected a string" "$WORK/last.out" ||
    fail "$what: policy 3 not said to be a number where a string is due"
  grep -q "run-0008/summary.json:[0-9]*:[0-9]*: makespan_s: expected a number or null" "$WORK/last.out" ||
    fail "$what: makespan_s \"fast\" not said to be a string where a number is due"
  grep -q "internal error" "$WORK/last.out" && fail "$what: internal error"
  grep -q "7 of them ran but hold a summary.json that is not colocsim's" "$WORK/last.out" ||
    fail "$what: not told that 7 runs hold a bad summary.json"
}
for n in 1 2 3 4 5 6 7 8; do cp -r "local/run-000$n" coll/; done
spoil coll
expect_rc 1 "--collect" "$COLOCSIM" sweep --collect coll
check "--collect" coll
spoil local
expect_rc 1 "--resume" "$COLOCSIM" sweep spec.yaml -o local --resume
check "--resume" local
[ "$fails" = 0 ] && echo "PASS: bad summaries are failed runs, columns from the schema" || exit 1
