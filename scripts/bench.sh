#!/usr/bin/env bash
# The per-policy cost table of BENCHMARKS.md: `colocsim bench` for every built-in policy at two platform
# sizes, the median of REPS runs of each, printed as a Markdown table (policy; per-job CPU time inside the
# policy's decisions and of the whole simulation at each size, and their ratios; setup and simulation walls
# at the large size).
# Runs one bench at a time (measurements beside each other would disturb each other).
#   scripts/bench.sh                         build/ or build-test/ colocsim, 5000 jobs, 12000 vs 127488 tiles, 3 runs
#   COLOCSIM=path/to/colocsim JOBS=5000 SMALL=12000 LARGE=127488 REPS=3 POLICIES="first-fit best-fit" scripts/bench.sh
# Every policy replays on Max 1550 tiles but mig-manager, which places on MIG instances: it replays on DGX
# A100 GPUs in MIG mode (`colocsim bench --platform dgx-a100`), the same numbers of devices (both sizes are
# whole 8-GPU nodes). A policy whose bench fails prints its error in the table.
# `scripts/bench.sh --suite [--quick] [options]`: the scale suite instead (scripts/bench_suite.py --help):
# 10k, 100k and 1M jobs on Aurora's 127,488 tiles, a few policies, and the raw-SimGrid reference loop.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# `scripts/bench.sh --network [N...]`: the network design bench (BENCHMARKS.md, "Network: design
# measurements"): colocsim-netdesigns for each design at N concurrent multi-node jobs (default 100 1000), 5
# ring steps each, one row per run (wall, µs per flow, peak RSS, step time against the closed form).
if [[ "${1:-}" == --network ]]; then
  shift
  nd=""
  for c in "$root/build/sim/colocsim-netdesigns" "$root/build-test/sim/colocsim-netdesigns"; do
    [[ -x "$c" ]] && nd="$c" && break
  done
  [[ -n "$nd" ]] || { echo "no colocsim-netdesigns binary: build it (--target colocsim-netdesigns)" >&2; exit 2; }
  echo "| design | jobs | flows | wall s | µs per flow | peak RSS MB | step vs closed form |"
  echo "|---|---|---|---|---|---|---|"
  sizes=("$@")
  [[ ${#sizes[@]} -gt 0 ]] || sizes=(100 1000)
  for n in "${sizes[@]}"; do
    for d in flow node-flows ptask ring; do
      out=$("$nd" --design "$d" --jobs "$n" --steps 5)
      get() { printf '%s\n' "$out" | sed -n "s/^$1=//p"; }
      echo "| $d | $n | $(get flows) | $(get wall_s) | $(get us_per_flow) | $(get peak_rss_mb) | $(get rel_err) |"
    done
  done
  exit 0
fi
if [[ "${1:-}" == --suite ]]; then
  shift
  exec python3 "$root/scripts/bench_suite.py" "$@"
fi
colocsim="${COLOCSIM:-}"
if [[ -z "$colocsim" ]]; then
  for c in "$root/build/sim/colocsim" "$root/build-test/sim/colocsim"; do
    [[ -x "$c" ]] && colocsim="$c" && break
  done
fi
[[ -x "$colocsim" ]] || { echo "no colocsim binary: build it (cmake --preset release) or set COLOCSIM" >&2; exit 2; }
jobs="${JOBS:-5000}" small="${SMALL:-12000}" large="${LARGE:-127488}" reps="${REPS:-3}"
policies="${POLICIES:-$("$colocsim" policies | sed -n 's/^\([a-z][a-z0-9-]*\) — .*/\1/p')}"

# platform_of POLICY: the `colocsim bench --platform` it replays on
platform_of() {
  if [[ "$1" == mig-manager ]]; then echo dgx-a100; else echo max1550; fi
}

# bench_medians POLICY TILES KEY...: the median over REPS benches of each KEY, one per line (ERROR if one failed)
bench_medians() {
  local policy=$1 tiles=$2
  shift 2
  local runs=()
  for ((r = 0; r < reps; ++r)); do
    local out
    if ! out=$("$colocsim" bench --jobs "$jobs" --tiles "$tiles" --policy "$policy" \
      --platform "$(platform_of "$policy")" --time-decisions 2>/dev/null); then
      echo "ERROR"
      return
    fi
    runs+=("$out")
  done
  for key in "$@"; do
    printf '%s\n' "${runs[@]}" | sed -n "s/^$key=//p" | sort -g | awk '{ v[NR] = $1 } END {
      if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
  done
}

echo "colocsim bench --jobs $jobs, median of $reps runs; $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d)"
echo "decision = CPU µs per job inside the policy's decide() (after its first call, which builds its indexes);"
echo "simulation = CPU µs per job of the whole simulation phase (engine, SimGrid and policy); walls in seconds"
echo
echo "| policy | decision @ $small | decision @ $large | ratio | simulation @ $small | simulation @ $large | ratio | setup wall @ $large | simulation wall @ $large |"
echo "|---|---|---|---|---|---|---|---|---|"
for p in $policies; do
  read -r s_pol s_sim < <(bench_medians "$p" "$small" policy_us_per_job simulation_us_per_job | paste -sd' ') || true
  read -r l_pol l_sim l_setup l_wall < <(bench_medians "$p" "$large" policy_us_per_job simulation_us_per_job \
    setup_wall_s simulation_wall_s | paste -sd' ') || true
  if [[ "$s_pol" == ERROR || "$l_pol" == ERROR || -z "${l_wall:-}" ]]; then
    echo "| $p | error: $("$colocsim" bench --jobs 10 --tiles 8 --policy "$p" --platform "$(platform_of "$p")" \
      2>&1 >/dev/null | tail -n 1) |||||||"
    continue
  fi
  awk -v p="$p" -v sp="$s_pol" -v lp="$l_pol" -v ss="$s_sim" -v ls="$l_sim" -v lset="$l_setup" -v lw="$l_wall" \
    'BEGIN { printf "| %s | %.1f | %.1f | %.2f | %.0f | %.0f | %.2f | %.1f | %.1f |\n", p, sp, lp, lp / sp, ss, ls,
             ls / ss, lset, lw }'
done
