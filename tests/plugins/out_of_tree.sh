#!/usr/bin/env bash
# The example policy plugin (experiments/plugin-example) builds OUT OF TREE against the INSTALLED colocsim
# package and runs through the installed CLI. Arguments: BUILD_DIR SOURCE_DIR WORK_DIR CHECK_OUTPUTS (the
# strict output checker, tests/support/check_outputs.cpp, run on every output directory at the end).
set -euo pipefail
build=$1 src=$2 work=$3 CHECK_OUTPUTS=$4
rm -rf "$work"
mkdir -p "$work"
echo "+ cmake --install $build --prefix $work/prefix"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
echo "+ cmake -S $src/experiments/plugin-example -B $work/build -DCMAKE_PREFIX_PATH=$work/prefix"
cmake -S "$src/experiments/plugin-example" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
plugin="$work/build/libshortest_first.so"
colocsim="$work/prefix/bin/colocsim"
test -f "$plugin" || { echo "no $plugin"; exit 1; }

"$colocsim" policies --policy-plugin "$plugin" > "$work/policies.txt"
grep -q '^shortest-first — whole devices per job' "$work/policies.txt" || { echo "policies does not list it"; exit 1; }

"$colocsim" run --policy-plugin "$plugin" --policy shortest-first:max_starts_per_call=1 -o "$work/out" --quiet
grep -q '"policy": "shortest-first"' "$work/out/summary.json"
grep -q '"policy_params": "max_starts_per_call=1"' "$work/out/summary.json"
grep -q '"jobs_completed": 48,' "$work/out/summary.json" || { cat "$work/out/summary.json"; exit 1; }

# The policy is the shortest-job-first one: on the default scenario it waits less on average than FCFS.
"$colocsim" run --set policy=exclusive-fcfs -o "$work/fcfs" --quiet
wait_of() { sed -n 's/.*"wait_mean_s": \([0-9.e+-]*\),/\1/p' "$1/summary.json"; }
sjf=$(wait_of "$work/out") fcfs=$(wait_of "$work/fcfs")
awk -v a="$sjf" -v b="$fcfs" 'BEGIN { exit !(a < b) }' || { echo "SJF wait $sjf not below FCFS $fcfs"; exit 1; }

# A scenario can name the plugin itself (key `plugins`, relative to the scenario file).
cp "$plugin" "$work/libsjf.so"
cat > "$work/scenario.yaml" <<YAML
name: plugin-scenario
plugins: [libsjf.so]
platform: {preset: aurora-node}
workload: {trace: $src/sim/scenarios/default/jobs.csv}
policy: shortest-first
YAML
# ...loaded only with consent: without --allow-plugins the run stops (exit 2) before loading it.
status=0
"$colocsim" run "$work/scenario.yaml" -o "$work/out-refused" --quiet 2> "$work/refused.txt" || status=$?
test "$status" = 2 || { echo "a scenario's plugin ran without consent (exit $status)"; exit 1; }
grep -q "is not loaded without consent" "$work/refused.txt" || { cat "$work/refused.txt"; exit 1; }
"$colocsim" run "$work/scenario.yaml" --allow-plugins -o "$work/out-scenario" --quiet
grep -q '"jobs_completed": 48,' "$work/out-scenario/summary.json"
sha=$(sha256sum "$work/libsjf.so" | cut -c1-64)
grep -q "\"sha256\": \"$sha\"" "$work/out-scenario/summary.json" || { echo "no sha256 $sha in summary.json"; exit 1; }
"$CHECK_OUTPUTS" "$work/out" "$work/fcfs" "$work/out-scenario"
echo "ok: SJF mean wait $sjf s (FCFS $fcfs s)"
