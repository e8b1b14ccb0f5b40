#!/bin/bash
# `colocsim sweep --slurm` and `--collect` (docs/sweeps.md), two modes:
#   SlurmSweep.sh script COLOCSIM WORK CHECK_OUTPUTS  the generated scripts, run task by task by bash as Slurm would run them
#                                       (SLURM_ARRAY_TASK_ID set), collected at every stage; always runs
#   SlurmSweep.sh real COLOCSIM WORK CHECK_OUTPUTS    a private single-node Slurm (slurmctld + slurmd + munged) on localhost:
#                                       submit.sh, wait, and the collected sweep.csv; prints SLURM-SKIPPED and
#                                       the reason where that Slurm cannot start (not root, not installed)
# In both, the collected sweep.csv must equal the one of the same sweep run by `colocsim sweep -j 2`, byte for
# byte but for the wall_s column (the one column that differs between two runs of the same sweep); and every
# file the runs wrote passes the strict output checker (CHECK_OUTPUTS: tests/support/check_outputs.cpp).
set -u
mode=$1
COLOCSIM=$2
WORK=$3
CHECK_OUTPUTS=$4
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_rc() { # expect_rc RC WHAT CMD...: CMD exits RC
  local want=$1 what=$2; shift 2
  "$@" >"$WORK/last.out" 2>&1
  local rc=$?
  [ "$rc" = "$want" ] || { fail "$what: exit $rc, expected $want"; sed 's/^/  | /' "$WORK/last.out"; }
}
# sweep.csv without its wall_s column
strip_wall() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s") w = i }
           { out = ""; for (i = 1; i <= NF; i++) if (i != w) out = out (out == "" && i == 1 ? "" : ",") $i; print out }' "$1"
}
# column STATUS of sweep.csv, one per line
statuses() { awk -F, 'NR > 1 { print $2 }' "$1" | tr '\n' ' '; }

# 2 policies x 2 seeds = 4 runs of the embedded default scenario (48 jobs, about 0.1 s each)
cat >spec.yaml <<'YAML'
name: slurm-test
set:
  outputs.timeseries: false
axes:
  policy: [exclusive-fcfs, first-fit]
seeds: [1, 2]
YAML

# The reference: the same sweep on this machine.
expect_rc 0 "local sweep -j 2" "$COLOCSIM" sweep spec.yaml -j 2 -o local --quiet

if [ "$mode" = script ]; then
  # 4 runs, 3 per task: tasks 0 (runs 1-3) and 1 (run 4); at most 1 at a time.
  expect_rc 0 "sweep --slurm" "$COLOCSIM" sweep spec.yaml --slurm -o out --runs-per-task 3 --array-max 1 \
    --partition debug --time 0-00:10:00
  for f in array.sh collect.sh submit.sh; do
    bash -n "out/slurm/$f" || fail "out/slurm/$f is not valid bash"
  done
  grep -qx '#SBATCH --array=0-1%1' out/slurm/array.sh || fail "array.sh: expected --array=0-1%1"
  grep -qx '#SBATCH --partition=debug' out/slurm/array.sh || fail "array.sh: expected --partition=debug"
  grep -qx '#SBATCH --time=0-00:10:00' out/slurm/collect.sh || fail "collect.sh: expected --time"
  [ "$(grep -c '^  run run-' out/slurm/array.sh)" = 4 ] || fail "array.sh: expected 4 runs"
  [ -e out/run-0001 ] && fail "--slurm ran something"

  # Nothing has run: 4 runs missing, exit 1.
  expect_rc 1 "collect before any task" "$COLOCSIM" sweep --collect out
  [ "$(statuses out/sweep.csv)" = "missing missing missing missing " ] || fail "statuses: $(statuses out/sweep.csv)"
  grep -q "4 not run yet" last.out || fail "collect did not say 4 runs are not run yet"

  # Task 0 only: runs 1-3 ok, run 4 missing.
  expect_rc 0 "task 0" env SLURM_ARRAY_TASK_ID=0 bash out/slurm/array.sh
  expect_rc 1 "collect after task 0" "$COLOCSIM" sweep --collect out
  [ "$(statuses out/sweep.csv)" = "ok ok ok missing " ] || fail "statuses after task 0: $(statuses out/sweep.csv)"
  grep -q "run-0004 (not run)" last.out || fail "collect did not name run-0004 as not run"

  # Task 0 again: every run is done and none runs twice (its summary.json is untouched).
  before=$(stat -c %Y.%s out/run-0001/summary.json)
  sleep 1
  expect_rc 0 "task 0 again" env SLURM_ARRAY_TASK_ID=0 bash out/slurm/array.sh
  [ "$(grep -c 'done earlier' last.out)" = 3 ] || fail "task 0 again: expected 3 runs done earlier"
  [ "$(stat -c %Y.%s out/run-0001/summary.json)" = "$before" ] || fail "run-0001 ran twice"

  # A task that does not exist, and the script outside Slurm.
  expect_rc 2 "task 7" env SLURM_ARRAY_TASK_ID=7 bash out/slurm/array.sh
  expect_rc 1 "array.sh without sbatch" env -u SLURM_ARRAY_TASK_ID bash out/slurm/array.sh

  # A run that fails is 'failed' (not missing) and the task's exit status says so.
  expect_rc 1 "task 1 with a broken colocsim" env SLURM_ARRAY_TASK_ID=1 COLOCSIM=/bin/false bash out/slurm/array.sh
  expect_rc 1 "collect after a failed run" "$COLOCSIM" sweep --collect out
  [ "$(statuses out/sweep.csv)" = "ok ok ok failed " ] || fail "statuses after a failure: $(statuses out/sweep.csv)"

  # Task 1 for real: every run done; the collected sweep.csv equals the local sweep's.
  expect_rc 0 "task 1" env SLURM_ARRAY_TASK_ID=1 bash out/slurm/array.sh
  expect_rc 0 "collect" "$COLOCSIM" sweep --collect out
  grep -q "4 ok, 0 failed" last.out || fail "collect: expected 4 ok"
  [ "$(strip_wall out/sweep.csv)" = "$(strip_wall local/sweep.csv)" ] || {
    fail "collected sweep.csv differs from the local sweep's"
    diff <(strip_wall out/sweep.csv) <(strip_wall local/sweep.csv) | head -5
  }
  # SPEC given with --collect works the same; a second collect gives the same file.
  cp out/sweep.csv first.csv
  expect_rc 0 "collect with SPEC" "$COLOCSIM" sweep spec.yaml --collect out
  cmp -s first.csv out/sweep.csv || fail "a second collect changed sweep.csv"
  "$CHECK_OUTPUTS" out/run-000[1-4] >check.out 2>&1 || { fail "the runs' files do not pass the checker"; cat check.out; }

  # Bad command lines and directories: exit 2 with a message.
  expect_rc 2 "--time bogus" "$COLOCSIM" sweep spec.yaml --slurm -o bad1 --time 10min
  grep -q "expects a Slurm time limit" last.out || fail "--time bogus: message"
  expect_rc 2 "--partition with a space" "$COLOCSIM" sweep spec.yaml --slurm -o bad2 --partition "a b"
  expect_rc 2 "--array-max 0" "$COLOCSIM" sweep spec.yaml --slurm -o bad3 --array-max 0
  expect_rc 2 "--time without --slurm" "$COLOCSIM" sweep spec.yaml -o bad4 --time 10
  expect_rc 2 "--collect with -j" "$COLOCSIM" sweep --collect out -j 2
  expect_rc 2 "--collect of no sweep" "$COLOCSIM" sweep --collect "$WORK/local/run-0001"
  grep -q "holds no sweep" last.out || fail "--collect of no sweep: message"
  # An output directory --slurm refuses is refused before anything is written there: a local sweep (which
  # may write there) then succeeds.
  expect_rc 2 "--slurm into a path with a space" "$COLOCSIM" sweep spec.yaml --slurm -o "with space"
  [ -e "with space" ] && fail "a refused --slurm -o was written: $(ls -A "with space" | tr '\n' ' ')"
  expect_rc 2 "--slurm into a path with a newline" "$COLOCSIM" sweep spec.yaml --slurm -o "$(printf 'new\nline')"
  [ -e "$(printf 'new\nline')" ] && fail "a refused --slurm -o (newline) was written"
  mkdir -p "empty dir"
  expect_rc 2 "--slurm into an existing empty path with a space" "$COLOCSIM" sweep spec.yaml --slurm -o "empty dir"
  [ -n "$(ls -A "empty dir")" ] && fail "a refused --slurm -o was written into: $(ls -A "empty dir" | tr '\n' ' ')"
  expect_rc 0 "a local sweep into the directory --slurm refused" "$COLOCSIM" sweep spec.yaml -o "empty dir" --quiet
  expect_rc 2 "--slurm over an earlier sweep" "$COLOCSIM" sweep spec.yaml --slurm -o out
  [ "$fails" = 0 ] && echo "PASS: scripts run task by task and collected" || exit 1
  exit 0
fi

# ---- real: a private Slurm on localhost ----
skip() { echo "SLURM-SKIPPED: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "not root (slurmd must run as root to start tasks as the submitting user)"
for t in slurmctld slurmd munged sbatch squeue scontrol; do
  command -v "$t" >/dev/null 2>&1 || skip "$t not found (Debian packages slurm-wlm and munge)"
done
S="$WORK/slurm-daemons"
mkdir -p "$S"/{state,spool,log,run,munge} && chmod 700 "$S/munge"
head -c 1024 /dev/urandom >"$S/munge/munge.key" && chmod 400 "$S/munge/munge.key"
cleanup() {
  [ -n "${SLURM_CONF:-}" ] && scontrol shutdown >/dev/null 2>&1
  sleep 1
  for p in "$S/run/slurmd.pid" "$S/run/slurmctld.pid" "$S/munge/pid"; do
    [ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null
  done
}
trap cleanup EXIT
munged --key-file="$S/munge/munge.key" --socket="$S/munge/sock" --pid-file="$S/munge/pid" \
  --log-file="$S/munge/log" --seed-file="$S/munge/seed" -f >"$S/munge/start.log" 2>&1 ||
  skip "munged does not start: $(tail -1 "$S/munge/start.log")"
port=$((20000 + (RANDOM % 20000)))
host=$(hostname -s)
cat >"$S/slurm.conf" <<CONF
ClusterName=colocsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$S/munge/sock
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$S/slurm.conf"
slurmctld -c >"$S/log/start.log" 2>&1 || skip "slurmctld does not start: $(tail -1 "$S/log/slurmctld.log" 2>/dev/null)"
slurmd -c >>"$S/log/start.log" 2>&1 || skip "slurmd does not start: $(tail -1 "$S/log/slurmd.log" 2>/dev/null)"
for _ in $(seq 60); do
  sinfo -h -o %t 2>/dev/null | grep -qx idle && break
  sleep 1
done
sinfo -h -o %t 2>/dev/null | grep -qx idle ||
  skip "the local Slurm node is not idle after 60 s: $(tail -2 "$S/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
echo "a private Slurm is up: $(sinfo -h -o '%P %D %t' | head -1), port $port"

expect_rc 0 "sweep --slurm" "$COLOCSIM" sweep spec.yaml --slurm -o out --runs-per-task 1 --array-max 2 --partition debug \
  --time 5
# Slurm's own parser: sbatch --test-only reads every #SBATCH line and schedules nothing.
expect_rc 0 "sbatch --test-only array.sh" sbatch --test-only out/slurm/array.sh
expect_rc 0 "submit.sh" bash out/slurm/submit.sh
cat last.out
collect=$(sed -n 's/.*collect job \([0-9]*\).*/\1/p' last.out)
[ -n "$collect" ] || { fail "submit.sh printed no collect job id"; exit 1; }
for _ in $(seq 180); do
  [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
  sleep 1
done
[ -z "$(squeue -h -o %i 2>/dev/null)" ] || fail "jobs still queued after 180 s: $(squeue -h | tr '\n' ';')"
ls out/slurm/
[ -e out/slurm/collect-"$collect".out ] || fail "no output of the collect job"
cat out/slurm/collect-"$collect".out 2>/dev/null
grep -q "4 ok, 0 failed" out/slurm/collect-"$collect".out 2>/dev/null || fail "collect job: expected 4 ok"
[ "$(ls out/slurm/task-*.out 2>/dev/null | wc -l)" = 4 ] || fail "expected 4 task outputs"
[ "$(strip_wall out/sweep.csv 2>/dev/null)" = "$(strip_wall local/sweep.csv)" ] || fail "Slurm's sweep.csv differs from the local sweep's"
"$CHECK_OUTPUTS" out/run-000[1-4] >check.out 2>&1 || { fail "the runs' files do not pass the checker"; cat check.out; }
[ "$fails" = 0 ] && echo "PASS: submitted to a real Slurm, collected, equal to the local sweep" || exit 1
