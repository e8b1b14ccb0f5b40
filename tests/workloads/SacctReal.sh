#!/bin/bash
# The sacct reader (docs/formats/sacct.md) on the output of a real Slurm with accounting:
#   SacctReal.sh SACCT_DUMP COLOCSIM WORK CHECK_OUTPUTS [SAVE]
# starts, all under a private temporary directory, on private ports and sockets, a MariaDB server, slurmdbd
# (accounting_storage/mysql), slurmctld and slurmd (accounting_storage/slurmdbd) with a node of four GPUs of
# type a100 declared as GRES; submits jobs that complete, fail, time out, are cancelled before and after
# they start, one with no GPU and a job array; reads `sacct --parsable2` of them with the sacct reader
# (SACCT_DUMP: tests/workloads/sacct_dump.cpp) and replays it with `colocsim replay`. Each job's state, GPU
# count and type, time limit, submit time and run time are compared with what this script submitted and with
# the times slurmctld itself reports (`scontrol show job`), never with the reader's own earlier output.
# Prints SACCT-SKIPPED and the reason where these daemons cannot start (not root, packages missing). Every
# daemon it started is stopped and its files removed on every exit path. With SAVE, the sacct output is
# also copied there (how tests/data/workloads/sacct/slurm-22.05-slurmdbd.txt was made). Last, `colocsim
# advise` on the same file: every replayed job read, all completed by exclusive FCFS, the report written.
set -u
SACCT_DUMP=$(realpath "$1")
COLOCSIM=$(realpath "$2")
WORK=$3
CHECK_OUTPUTS=$(realpath "$4")
SAVE=${5:+$(realpath "$5")}
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
export TZ=UTC # sacct and scontrol print local time; the same zone for both, and for date -d below
unset SLURM_TIME_FORMAT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
skip() { echo "SACCT-SKIPPED: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "not root (slurmd must run as root to start jobs, mariadbd runs as the caller)"
for t in mariadb-install-db mariadbd mariadb slurmdbd slurmctld slurmd munged sbatch sacct sacctmgr scontrol squeue; do
  command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v "$t" >/dev/null 2>&1 ||
    skip "$t not found (Debian packages slurmdbd, mariadb-server, slurm-wlm and munge)"
done
export PATH=$PATH:/usr/sbin
ls /usr/lib/*/slurm-wlm/accounting_storage_mysql.so >/dev/null 2>&1 ||
  skip "accounting_storage_mysql.so not found (Debian package slurm-wlm-mysql-plugin, pulled in by slurmdbd)"

# Everything the daemons write lives here; the path is short because it holds Unix sockets (108 bytes).
D=$(mktemp -d /tmp/colocsim-sacct.XXXXXX) || exit 1
mkdir -p "$D"/{db,state,spool,log,run,munge,dev,jobs} && chmod 700 "$D/munge"
mariadb_pid=
# A watchdog well inside CTest's TIMEOUT (240 s): CTest kills with no trap to run, this ends the script
# through its trap, so the daemons are stopped even when something hangs.
(
  sleep "${SACCT_REAL_WATCHDOG_S:-200}" &
  s=$!
  trap 'kill $s 2>/dev/null; exit 0' TERM
  wait $s && echo "FAIL: still running after ${SACCT_REAL_WATCHDOG_S:-200} s, stopping" && kill -TERM $$
) &
watchdog=$!
stop_pid() { # stop_pid PID: TERM, then wait up to 15 s for it to exit, then KILL
  local p=$1
  [ -n "$p" ] && kill -0 "$p" 2>/dev/null || return 0
  kill "$p" 2>/dev/null
  for _ in $(seq 75); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.2; done
  kill -9 "$p" 2>/dev/null
}
cleanup() {
  local rc=$?
  kill "$watchdog" 2>/dev/null
  if [ -s "$D/slurm.conf" ]; then
    # Jobs first: slurmd leaves running jobs (their slurmstepd) behind when it stops.
    local jobs
    jobs=$(SLURM_CONF="$D/slurm.conf" timeout 10 squeue -h -o %i 2>/dev/null)
    if [ -n "$jobs" ]; then
      SLURM_CONF="$D/slurm.conf" timeout 10 scancel $jobs >/dev/null 2>&1
      for _ in $(seq 50); do
        [ -z "$(SLURM_CONF="$D/slurm.conf" timeout 10 squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.2
      done
    fi
    SLURM_CONF="$D/slurm.conf" timeout 10 scontrol shutdown >/dev/null 2>&1
  fi
  for f in slurmd slurmctld slurmdbd; do
    [ -s "$D/run/$f.pid" ] && stop_pid "$(cat "$D/run/$f.pid")"
  done
  stop_pid "$mariadb_pid"
  [ -s "$D/munge/pid" ] && stop_pid "$(cat "$D/munge/pid")"
  # Whatever of this Slurm still runs: a slurmstepd (its environment names this slurm.conf) or a job's
  # process (run in $D/jobs). Nothing else on the machine matches either.
  local p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [ "$p" = $$ ] && continue
    if { [ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmstepd ] &&
      tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_CONF=$D/slurm.conf"; } ||
      [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$D/jobs" ]; then
      kill -9 "$p" 2>/dev/null
    fi
  done
  # Logs stay in WORK when the test failed, for whoever reads the failure.
  [ "$rc" != 0 ] && cp -r "$D/log" "$WORK/daemon-logs" 2>/dev/null
  rm -rf "$D"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# Four ports in a row that nothing listens on: MariaDB, slurmdbd, slurmctld, slurmd.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for _ in $(seq 20); do
  P=$((20000 + (RANDOM % 20000)))
  port_free $P && port_free $((P + 1)) && port_free $((P + 2)) && port_free $((P + 3)) && break
done

# ---- MariaDB: a fresh data directory, TCP on 127.0.0.1 only (slurmdbd connects by host and port) ----
# --no-defaults: no /etc/mysql configuration is read. Small InnoDB files (the default redo log is 96 MiB).
DB_OPTS=(--no-defaults --datadir="$D/db" --innodb-log-file-size=8M --innodb-buffer-pool-size=32M
  --innodb-lock-wait-timeout=900)
timeout 120 mariadb-install-db "${DB_OPTS[@]}" --user=root --auth-root-authentication-method=normal \
  --skip-test-db >"$D/log/install-db.log" 2>&1 || skip "mariadb-install-db failed: $(tail -2 "$D/log/install-db.log" | tr '\n' ' ')"
mariadbd "${DB_OPTS[@]}" --user=root --socket="$D/db.sock" --port=$P --bind-address=127.0.0.1 \
  --pid-file="$D/run/mariadb.pid" --log-error="$D/log/mariadb.log" >/dev/null 2>&1 &
mariadb_pid=$!
sql() { mariadb --no-defaults --socket="$D/db.sock" -uroot -e "$1"; }
for _ in $(seq 150); do sql 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.2; done
sql "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'colocsim'; GRANT ALL ON *.* TO 'slurm'@'127.0.0.1';" \
  >"$D/log/grant.log" 2>&1 || skip "MariaDB does not start: $(tail -2 "$D/log/mariadb.log" | tr '\n' ' ')"

# ---- munge, slurmdbd ----
head -c 1024 /dev/urandom >"$D/munge/munge.key" && chmod 400 "$D/munge/munge.key"
munged --key-file="$D/munge/munge.key" --socket="$D/munge/sock" --pid-file="$D/munge/pid" \
  --log-file="$D/munge/log" --seed-file="$D/munge/seed" -f >"$D/log/munged.log" 2>&1 ||
  skip "munged does not start: $(tail -1 "$D/log/munged.log")"
# slurmdbd reads slurmdbd.conf from the directory of SLURM_CONF; it must be private to SlurmUser.
cat >"$D/slurmdbd.conf" <<CONF
AuthType=auth/munge
AuthInfo=socket=$D/munge/sock
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$((P + 1))
SlurmUser=root
PidFile=$D/run/slurmdbd.pid
LogFile=$D/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$P
StorageUser=slurm
StoragePass=colocsim
StorageLoc=colocsim_acct
CONF
chmod 600 "$D/slurmdbd.conf"
# The node's GPUs: Slurm 22.05 drops a GPU GRES without File= ("Removing file-less GPU"), so each is a
# character device made here (a copy of /dev/null), or a plain file where mknod is refused (slurmd then
# logs that it is not a device and still counts it).
for i in 0 1 2 3; do mknod "$D/dev/gpu$i" c 1 3 2>/dev/null || : >"$D/dev/gpu$i"; done
host=$(hostname -s)
cat >"$D/gres.conf" <<CONF
NodeName=$host Name=gpu Type=a100 File=$D/dev/gpu[0-3]
CONF
cat >"$D/slurm.conf" <<CONF
ClusterName=colocsimacct
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$((P + 2))
SlurmdPort=$((P + 3))
AuthType=auth/munge
AuthInfo=socket=$D/munge/sock
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
KillWait=2
MinJobAge=600
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$((P + 1))
# the munge socket for talking to slurmdbd (AuthInfo above is for slurmctld and slurmd)
AccountingStoragePass=$D/munge/sock
AccountingStorageTRES=gres/gpu,gres/gpu:a100
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:a100:4 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$D/slurm.conf"
slurmdbd >"$D/log/start.log" 2>&1 || skip "slurmdbd does not start: $(tail -2 "$D/log/slurmdbd.log" 2>/dev/null | tr '\n' ' ')"
# slurmdbd creates its tables before it listens; sacctmgr fails until then.
for _ in $(seq 100); do
  timeout 10 sacctmgr -i add cluster colocsimacct >"$D/log/sacctmgr.log" 2>&1 && break
  sleep 0.3
done
timeout 10 sacctmgr -n -P list cluster format=cluster 2>/dev/null | grep -qx colocsimacct ||
  skip "slurmdbd does not register the cluster: $(tail -2 "$D/log/sacctmgr.log" "$D/log/slurmdbd.log" 2>/dev/null | tr '\n' ' ')"
slurmctld -c >>"$D/log/start.log" 2>&1 || skip "slurmctld does not start: $(tail -2 "$D/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
slurmd -c >>"$D/log/start.log" 2>&1 || skip "slurmd does not start: $(tail -2 "$D/log/slurmd.log" 2>/dev/null | tr '\n' ' ')"
for _ in $(seq 150); do
  sinfo -h -o %t 2>/dev/null | grep -qx idle && break
  sleep 0.2
done
sinfo -h -o %t 2>/dev/null | grep -qx idle ||
  skip "the local Slurm node is not idle after 30 s: $(sinfo -h -o '%t %E' 2>/dev/null) $(tail -2 "$D/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
gres=$(sinfo -h -o %G)
[ "$gres" = "gpu:a100:4" ] || fail "the node's GRES: got '$gres', expected gpu:a100:4"
echo "a private Slurm with slurmdbd is up: $(sinfo -h -o '%P %D %t %G'), ports $P-$((P + 3))"

# ---- the jobs ----
# What each job should become, written down at submission: "name|GPUs|GPU type|state|Timelimit s|replayed".
# The node has only a100s, so a request without a type is allocated a100s too.
declare -A want id_of
submit() { # submit NAME WANT SBATCH_ARGS...: sbatch, remember the job id
  local name=$1 w=$2 out; shift 2
  out=$(cd "$D/jobs" && sbatch --parsable -J "$name" -o "$name.out" "$@" 2>&1) || {
    fail "sbatch $name: $out"
    return
  }
  id_of[$name]=${out%%;*}
  want[$name]=$w
}
state_of() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1; }
wait_state() { # wait_state SECONDS JOB STATE...: up to SECONDS for the job to be in one of STATEs
  local t=$1 j=$2 s; shift 2
  for _ in $(seq $((t * 5))); do
    s=$(state_of "$j")
    for w in "$@"; do [ "$s" = "$w" ] && return 0; done
    sleep 0.2
  done
  fail "job $j: state $s after $t s, expected $*"
  return 1
}
STAMP='echo start $(date +%s); '
# Phase 1: jobs that run to their end (2 CPUs: at most 2 at a time), one held.
submit ok '2|a100|COMPLETED|300|yes' --gres=gpu:a100:2 -t 5 --wrap "${STAMP}sleep 2"
submit fail '1|a100|FAILED|0|yes' --gres=gpu:1 --wrap "${STAMP}sleep 1; exit 1"
submit cpu '0||COMPLETED|0|no' --wrap "${STAMP}sleep 1"
submit held '3||CANCELLED|0|no' -H --gres=gpu:3 --wrap "${STAMP}sleep 1"
submit arr '1|a100|COMPLETED|120|yes' --array=0-1 -o arr-%a.out --gres=gpu:a100:1 -t 2 --wrap "${STAMP}sleep 1"
for j in ok fail cpu; do wait_state 30 "${id_of[$j]}" COMPLETED FAILED; done
for t in 0 1; do wait_state 30 "${id_of[arr]}_$t" COMPLETED; done
# Phase 2: a timeout, a job cancelled while it runs and one cancelled while it waits for GPUs.
submit timeout '1|a100|TIMEOUT|60|yes' --gres=gpu:1 -t 1 --wrap "${STAMP}sleep 300"
submit running '2|a100|CANCELLED|0|yes' --gres=gpu:a100:2 --wrap "${STAMP}sleep 300"
wait_state 30 "${id_of[timeout]}" RUNNING
wait_state 30 "${id_of[running]}" RUNNING
# 4 GPUs while 3 are held by the two above: it waits (eligible, never started).
submit pending '4||CANCELLED|0|no' --gres=gpu:4 --wrap "${STAMP}sleep 1"
wait_state 30 "${id_of[pending]}" PENDING
sleep 1
scancel "${id_of[pending]}"
# A time limit runs out 1 minute after the start at the soonest; moving the job's end to now ends it as
# TIMEOUT at slurmctld's next time-limit check (every 30 s), with its Timelimit still 1 minute.
scontrol update JobId="${id_of[timeout]}" EndTime=now >/dev/null 2>&1 ||
  fail "scontrol update EndTime=now refused"
wait_state 60 "${id_of[timeout]}" TIMEOUT
sleep 1
scancel "${id_of[running]}" "${id_of[held]}"
for j in pending running held; do wait_state 30 "${id_of[$j]}" CANCELLED; done
for _ in $(seq 150); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.2; done
[ -z "$(squeue -h -o %i 2>/dev/null)" ] || fail "jobs still queued: $(squeue -h | tr '\n' ';')"

# slurmctld's own record of each job (ID SUBMIT START END STATE, epoch seconds), array tasks as ID_TASK.
epoch() { [ "$1" = None ] || [ "$1" = Unknown ] && echo "-" || date -d "$1" +%s; }
declare -A ctl
while read -r line; do
  id=$(sed -n 's/^JobId=\([0-9]*\) .*/\1/p' <<<"$line")
  aj=$(sed -n 's/.* ArrayJobId=\([0-9]*\) ArrayTaskId=\([0-9]*\) .*/\1_\2/p' <<<"$line")
  [ -n "$aj" ] && id=$aj
  f() { sed -n "s/.* $1=\([^ ]*\) .*/\1/p" <<<"$line"; }
  ctl[$id]="$(epoch "$(f SubmitTime)") $(epoch "$(f StartTime)") $(epoch "$(f EndTime)") $(f JobState)"
done < <(scontrol -o show job)

# ---- sacct ----
COLS=JobID,Submit,Start,End,State,AllocTRES,ReqTRES,Timelimit,Elapsed,User,Partition,QOS,AllocNodes
ids=$(for n in "${!id_of[@]}"; do echo "${id_of[$n]}"; done | sort -n | tr '\n' ',')
ids=${ids%,}
# slurmctld hands job records to slurmdbd in the background: wait until every job reads as ended.
for _ in $(seq 100); do
  n=$(sacct -X -n -P --allusers --jobs="$ids" -o State 2>/dev/null | grep -cvE '^(PENDING|RUNNING|REQUEUED)')
  [ "$n" = $((${#id_of[@]} + 1)) ] && break # the array is 2 rows
  sleep 0.3
done
[ "$n" = $((${#id_of[@]} + 1)) ] || fail "slurmdbd holds $n ended jobs, expected $((${#id_of[@]} + 1))"
since=$(date -d "@$(($(date +%s) - 3600))" +%Y-%m-%dT%H:%M:%S)
sacct --parsable2 --allusers --jobs="$ids" --format=$COLS >by-id.txt 2>sacct.err || fail "sacct --jobs: $(cat sacct.err)"
sacct --parsable2 --allusers --starttime "$since" --format=$COLS >since.txt 2>sacct.err ||
  fail "sacct --starttime: $(cat sacct.err)"
echo "sacct --parsable2 --allusers --jobs=$ids --format=$COLS:"
cat by-id.txt
[ -n "$SAVE" ] && cp by-id.txt "$SAVE"
# A job held until it was cancelled never became eligible, and sacct --starttime leaves such jobs out;
# every other row is the same in both.
held=${id_of[held]}
[ "$(grep -v "^$held[|.]" by-id.txt)" = "$(cat since.txt)" ] ||
  fail "sacct --starttime differs from --jobs other than by the held job: $(diff by-id.txt since.txt | head -5)"

# ---- what the reader makes of it ----
"$SACCT_DUMP" by-id.txt >dump.txt 2>dump.err || fail "the reader rejects real sacct output: $(cat dump.err)"
cat dump.txt
# Expected lines "ID|SUBMIT_S|DURATION_S|DEVICES|GPU_MILLI|GPU_TYPES|STATE|REQUESTED_S" for replayed jobs:
# GPUs, type, state and limit from the table above, times from slurmctld, relative to the earliest Submit.
expect() {
  local n t id w
  for n in "${!id_of[@]}"; do
    w=${want[$n]}
    [ "${w##*|}" = yes ] || continue
    if [ "$n" = arr ]; then set -- "${id_of[$n]}_0" "${id_of[$n]}_1"; else set -- "${id_of[$n]}"; fi
    for id in "$@"; do
      read -r sub start end state <<<"${ctl[$id]:-- - - -}"
      IFS='|' read -r gpus type wstate lim _ <<<"$w"
      [ "$state" = "$wstate" ] || fail "slurmctld says job $n ($id) is $state, expected $wstate"
      echo "$id|$sub|$((end - start))|$gpus|1000|$type|$wstate|$lim"
    done
  done
}
expect >expected.txt
echo "slurmctld's record (ID|SUBMIT|DURATION|GPUS|MILLI|TYPE|STATE|LIMIT; SUBMIT in epoch seconds):"
cat expected.txt
exp=$(cat expected.txt)
origin=$(cut -d'|' -f2 <<<"$exp" | sort -n | head -1)
exp=$(awk -F'|' -v o="$origin" 'BEGIN { OFS = "|" } { $2 = $2 - o; print }' <<<"$exp" | sort)
got=$(grep '^job|' dump.txt | cut -d'|' -f2-9 | sort)
[ "$got" = "$exp" ] || { fail "the reader's jobs differ from the jobs submitted"; diff <(echo "$exp") <(echo "$got") | sed 's/^/  | /'; }
grep -qx "describe|submit 0 = $(date -d "@$origin" +%Y-%m-%dT%H:%M:%S) (the first job's Submit)" dump.txt ||
  fail "describe: expected submit 0 = $(date -d "@$origin" +%Y-%m-%dT%H:%M:%S)"
# The same jobs with times as Unix seconds (SLURM_TIME_FORMAT=%s, which the docs offer against time zones).
SLURM_TIME_FORMAT=%s sacct --parsable2 --allusers --jobs="$ids" --format=$COLS >epoch.txt 2>sacct.err ||
  fail "sacct with SLURM_TIME_FORMAT=%s: $(cat sacct.err)"
grep -q "^1|[0-9]*|[0-9]*|[0-9]*|" epoch.txt || fail "SLURM_TIME_FORMAT=%s: expected Unix seconds: $(sed -n 2p epoch.txt)"
"$SACCT_DUMP" epoch.txt >dump-epoch.txt 2>dump.err || fail "the reader rejects sacct with SLURM_TIME_FORMAT=%s: $(cat dump.err)"
[ "$(grep '^job|' dump-epoch.txt | cut -d'|' -f2-9 | sort)" = "$exp" ] ||
  fail "with SLURM_TIME_FORMAT=%s the reader's jobs differ from the jobs submitted: $(grep '^job|' dump-epoch.txt | tr '\n' ' ')"
# Each job's own clock: it printed its start within Slurm's Start..End.
for n in ok fail timeout running; do
  id=${id_of[$n]}
  read -r _ start end _ <<<"${ctl[$id]}"
  s=$(sed -n 's/^start \([0-9]*\)$/\1/p' "$D/jobs/$n.out" 2>/dev/null | head -1)
  [ -n "$s" ] && [ "$s" -ge "$start" ] && [ "$s" -le "$end" ] ||
    fail "job $n printed start '$s', outside Slurm's Start..End $start..$end"
done
# The rows not replayed, each counted: steps; never started: the held job (Start None) and the job cancelled
# while it waited for GPUs (Slurm prints it with Start = End, the time it was cancelled, and AllocNodes 0);
# the CPU-only job.
grep -q "^warning|.*skipped 2 CANCELLED job(s) that never started" dump.txt || fail "expected 2 never-started jobs counted"
grep -q "^warning|.*run time of 0" dump.txt && fail "a job counted with a run time of 0"
grep -q "^warning|.*skipped 1 job(s) without a GPU" dump.txt || fail "expected 1 job without a GPU counted"
grep -q "^warning|.*job step row" dump.txt || fail "expected the job steps counted"

# ---- colocsim replay of the same file ----
"$COLOCSIM" replay by-id.txt --format sacct --set workload.gpu_types=ignore -o replay --quiet >replay.log 2>&1 ||
  { fail "colocsim replay of real sacct output"; cat replay.log; }
want_ids=$(cut -d'|' -f1,4 <<<"$exp" | sort)
got_ids=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "devices") d = i; next }
                   { print $1 "|" split($d, a, ";") }' replay/jobs.csv 2>/dev/null | sort)
[ "$got_ids" = "$want_ids" ] || fail "replay/jobs.csv ids|devices: got $(echo $got_ids), expected $(echo $want_ids)"
"$CHECK_OUTPUTS" replay >check.out 2>&1 || { fail "the replay's files do not pass the checker"; cat check.out; }

# ---- colocsim advise of the same file (a few seconds: two options, one replicate) ----
# The jobs are typed a100, the site's GRES name, which no bundled device lists: --gpu-types ignore. A DGX
# A100 node has 8 GPUs, more than these jobs ever hold at once, so exclusive FCFS completes every one.
n_exp=$(wc -l <<<"$exp")
"$COLOCSIM" advise by-id.txt --format sacct --platform dgx-a100 --nodes 1 --gpu-types ignore \
  --options mps/fgd --replicates 1 -j 2 -o advise >advise.log 2>&1 || { fail "colocsim advise of real sacct output"; cat advise.log; }
[ -s advise/report.html ] || fail "advise wrote no report.html"
got_adv=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
b = [o for o in d["options"] if o["label"] == "exclusive/exclusive-fcfs"][0]
print(len(d["options"]), b["jobs_read"], b["jobs_completed"], d["recommended"] is not None)' advise/advise.json 2>&1)
[ "$got_adv" = "2 $n_exp $n_exp True" ] ||
  fail "advise.json: options, baseline jobs read and completed, recommended: got '$got_adv', expected '2 $n_exp $n_exp True'"
[ "$fails" = 0 ] && echo "PASS: real sacct output of $((${#id_of[@]} + 1)) jobs read as submitted" || exit 1
