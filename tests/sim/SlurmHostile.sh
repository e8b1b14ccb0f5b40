#!/bin/bash
# `colocsim sweep --slurm` with hostile text in everything a user controls that reaches the generated
# scripts (docs/sweeps.md): the spec's `name`, a `set:` value passed to every run, the spec's file name and
# the directory --slurm runs in. Each holds one of the strings below: newlines, carriage returns, quotes,
# `$(...)`, backticks, '#', backslash-newline, tabs, non-UTF-8 bytes; several try to `touch PWNED...`.
#   SlurmHostile.sh COLOCSIM WORK CHECK_OUTPUTS
# For every string: the three scripts pass `bash -n`, hold only printable ASCII, keep every #SBATCH line
# (the job name from a safe charset, --array included) in the block sbatch reads before the first command;
# task 0 runs with bash (SLURM_ARRAY_TASK_ID=0) and its run succeeds, collect.sh and `sweep --collect DIR`
# (no SPEC: the spec's path is read back from DIR/slurm/spec-path) collect it, submit.sh runs against a fake
# sbatch; the files task 0 wrote, names and all, pass the strict output checker (CHECK_OUTPUTS:
# tests/support/check_outputs.cpp); and no PWNED file appears anywhere under WORK.
set -u
COLOCSIM=$1
WORK=$2
CHECK_OUTPUTS=$3
rm -rf "$WORK" && mkdir -p "$WORK/bin" && cd "$WORK" || exit 1
fails=0
fail() { echo "FAIL [$k]: $*"; fails=$((fails + 1)); }
expect_rc() { # expect_rc RC WHAT CMD...: CMD exits RC
  local want=$1 what=$2; shift 2
  "$@" >"$WORK/last.out" 2>&1
  local rc=$?
  [ "$rc" = "$want" ] || { fail "$what: exit $rc, expected $want"; sed 's/^/  | /' "$WORK/last.out" | head -20; }
}
# A fake sbatch: prints a job id, as `sbatch --parsable` does.
cat >"$WORK/bin/sbatch" <<'SH'
#!/bin/bash
echo "4242;cluster"
SH
chmod +x "$WORK/bin/sbatch"
# The text as a YAML double-quoted scalar, every byte as \xHH (a byte above 0x7f becomes that code point).
yaml_dq() { printf '"'; printf '%s' "$1" | od -An -v -tx1 | tr -s ' \n' '\n' | sed '/^$/d; s/^/\\x/' | tr -d '\n'; printf '"'; }

hostile=(
  $'x\ntouch PWNED1\n#'
  '$(touch PWNED2)'
  '`touch PWNED3`'
  "'; touch PWNED4; '"
  '"; touch PWNED5; "'
  $'#\r\ntouch PWNED6\r'
  $'\xff\xfe not UTF-8 \x80'
  $'a\\\ntouch PWNED8'
  '%A %j ${HOME} \'
  $'\ttab;touch PWNED10&\n#SBATCH --array=0-99'
)
for k in "${!hostile[@]}"; do
  h=${hostile[$k]}
  cwd="$WORK/cwd$k $h"
  mkdir -p "$cwd" && cd "$cwd" || { fail "mkdir"; continue; }
  spec="spec$k ${h//\//_}.yaml"
  { echo "name: $(yaml_dq "n$k ${h//\//_}")"
    echo "set:"
    echo "  outputs.timeseries: false"
    echo "  description: $(yaml_dq "$h")"
    echo "seeds: [1]"
  } >"$spec"
  out="$WORK/out$k"
  expect_rc 0 "sweep --slurm" "$COLOCSIM" sweep "$spec" --slurm -o "$out" --partition debug
  for f in array.sh collect.sh submit.sh; do
    s="$out/slurm/$f"
    [ -f "$s" ] || { fail "no $f"; continue; }
    bash -n "$s" 2>"$WORK/bashn.out" || { fail "$f is not valid bash: $(head -2 "$WORK/bashn.out")"; }
    LC_ALL=C grep -qn '[^[:print:]]' "$s" && fail "$f holds a byte that is not printable ASCII: $(LC_ALL=C grep -n '[^[:print:]]' "$s" | head -2 | od -c | head -3)"
    # sbatch reads #SBATCH lines up to the first line of shell: all of them must be there.
    head_n=$(awk '!/^#/ && !/^[[:space:]]*$/ { exit } /^#SBATCH/ { n++ } END { print n + 0 }' "$s")
    all_n=$(grep -c '^#SBATCH' "$s")
    [ "$head_n" = "$all_n" ] || fail "$f: $((all_n - head_n)) #SBATCH line(s) after the first command"
  done
  grep -qE '^#SBATCH --job-name=colocsim-[A-Za-z0-9._-]+$' "$out/slurm/array.sh" ||
    fail "array.sh: job name not from [A-Za-z0-9._-]: $(grep -a 'job-name' "$out/slurm/array.sh")"
  [ "$(grep -c '^#SBATCH --array=' "$out/slurm/array.sh")" = 1 ] && grep -qx '#SBATCH --array=0-0' "$out/slurm/array.sh" ||
    fail "array.sh: expected one #SBATCH --array=0-0"
  # task 0 from another directory: the run succeeds (its --set value arrived whole and the scenario took it).
  cd "$WORK" || exit 1
  expect_rc 0 "task 0" env SLURM_ARRAY_TASK_ID=0 bash "$out/slurm/array.sh"
  [ -f "$out/run-0001/summary.json" ] || fail "task 0 wrote no run-0001/summary.json"
  "$CHECK_OUTPUTS" "$out/run-0001" >"$WORK/check.out" 2>&1 ||
    { fail "run-0001's files do not pass the checker"; sed 's/^/  | /' "$WORK/check.out" | head -20; }
  expect_rc 0 "collect.sh" bash "$out/slurm/collect.sh"
  expect_rc 0 "sweep --collect DIR" "$COLOCSIM" sweep --collect "$out" --quiet
  [ "$(awk -F, 'NR == 2 { print $2 }' "$out/sweep.csv" 2>/dev/null)" = ok ] || fail "sweep.csv: run-0001 not ok"
  expect_rc 0 "sweep SPEC --collect DIR" "$COLOCSIM" sweep "$cwd/$spec" --collect "$out" --quiet
  expect_rc 0 "submit.sh" env PATH="$WORK/bin:$PATH" bash "$out/slurm/submit.sh"
  grep -q "submitted job array 4242" "$WORK/last.out" || fail "submit.sh: no job id"
done
k=all
pwned=$(find "$WORK" -name 'PWNED*' | head -5)
[ -z "$pwned" ] || fail "an injected command ran: $pwned"
[ "$fails" = 0 ] && echo "PASS: ${#hostile[@]} hostile strings, nothing became shell" || exit 1
