// Comparison of every registered policy on one scenario (README.md).
//
// Scenario: two DGX A100 nodes (16 A100-40GB GPUs shared with MPS) receive 200 jobs over ~8 h
// (jobs.csv, from make_trace.py): 55 % inference on a share of one GPU (250-750 milli), 30 % training on one
// GPU, 15 % gang training on 2 or 4 GPUs; declared memory = the profiles' real footprints. Every policy of
// the registry runs with its default parameters.
// No paper to compare with: the checks compare with numbers worked out independently of the engine.
// Checked (--check): exclusive FCFS gives the makespan and mean wait of a brute-force strict-FCFS schedule of
// jobs.csv on 2 nodes of 8 whole GPUs, each gang on one node (experiments::fcfs_exclusive_nodes, 1e-6
// relative); its busy GPU time is Σ duration ×
// devices of jobs.csv; every policy's makespan is at least the last job's submission + duration − the first
// submission (no job runs faster than alone), its node energy is 2 × 1650 W × makespan (nodes always on;
// power-aware: at most that); every policy completes all 200 jobs without an out-of-memory failure; sharing
// GPUs (every co-locating policy) at least halves the mean wait of the exclusive FCFS baseline and uses less
// energy; EASY backfilling never waits longer on average than FCFS; the exclusive policies never co-locate.
// Command: build/experiments/compare-policies/colocsim-compare-policies [--check] [--csv FILE]
#include "experiments/Driver.hpp"
#include "policies/PolicyRegistry.hpp"
#include "sim/Engine.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace colocsim;

namespace {

struct Result {
  std::string policy;
  double makespan_s = 0, wait_mean_s = 0, jct_mean_s = 0, energy_kwh = 0, colocation = 0;
  double energy_node_j = 0, busy_device_s = 0;
  std::uint64_t completed = 0, failed = 0, oom_events = 0;
};

struct Collect final : RunObserver {
  double wait_s = 0, jct_s = 0;
  std::size_t n = 0;
  void on_job_end(const JobRecord& r) override
  {
    if (r.start_s < 0) return;
    wait_s += r.start_s - r.job->submit_s;
    jct_s += r.end_s - r.job->submit_s;
    ++n;
  }
};

Result run(const std::string& policy)
{
  const std::string scenario = std::string(COLOCSIM_EXPERIMENT_DIR) + "/scenario.yaml";
  RunInputs in = build_run(load_scenario(scenario, experiments::with_env_sets({}), policy));
  Collect c;
  const RunTotals t = run_simulation(in.setup(), c);
  Result r;
  r.policy = policy;
  r.makespan_s = t.t_end_s - t.t_first_submit_s;
  r.wait_mean_s = c.n ? c.wait_s / static_cast<double>(c.n) : 0;
  r.jct_mean_s = c.n ? c.jct_s / static_cast<double>(c.n) : 0;
  r.energy_kwh = (t.energy_device_j + t.energy_node_j) / 3.6e6;
  r.energy_node_j = t.energy_node_j;
  r.busy_device_s = t.busy_device_s;
  r.colocation = t.busy_device_s > 0 ? t.resident_s / t.busy_device_s : 0;
  r.completed = t.completed;
  r.failed = t.failed + t.rejected + t.never_started;
  r.oom_events = t.oom_events;
  return r;
}

} // namespace

namespace {
int driver_main(int argc, char** argv)
{
  const auto args = experiments::parse_driver_args(argc, argv, "colocsim-compare-policies");
  if (!args) return 2;
  std::vector<Result> results;
  for (const auto& info : policy_registry()) {
    // mig-manager manages MIG instances: it needs GPUs in mig mode and single-GPU jobs, and this scenario
    // has MPS GPUs and gang jobs (tests/sim/Mig_test.cpp checks it on its own MIG scenario).
    if (info.name == "mig-manager") continue;
    results.push_back(run(info.name));
  }

  std::printf("%-20s %10s %10s %10s %10s %9s %9s %5s\n", "policy", "makespan_s", "wait_s", "jct_s",
              "energy_kWh", "coloc", "completed", "oom");
  for (const auto& r : results)
    std::printf("%-20s %10.0f %10.1f %10.1f %10.2f %9.2f %9llu %5llu\n", r.policy.c_str(), r.makespan_s,
                r.wait_mean_s, r.jct_mean_s, r.energy_kwh, r.colocation,
                static_cast<unsigned long long>(r.completed), static_cast<unsigned long long>(r.oom_events));
  if (!args->csv.empty()) {
    std::ofstream out(args->csv);
    out << "policy,makespan_s,wait_mean_s,jct_mean_s,energy_kwh,colocation,completed,oom_events\n";
    for (const auto& r : results)
      out << r.policy << ',' << r.makespan_s << ',' << r.wait_mean_s << ',' << r.jct_mean_s << ','
          << r.energy_kwh << ',' << r.colocation << ',' << r.completed << ',' << r.oom_events << '\n';
  }
  if (!args->check) return 0;

  auto find = [&](const std::string& name) -> const Result& {
    for (const auto& r : results)
      if (r.policy == name) return r;
    throw std::runtime_error("no result for " + name);
  };
  const Result& fcfs = find("exclusive-fcfs");
  const Result& easy = find("exclusive-easy");
  experiments::Checks checks;
  auto expect = [&](bool cond, const std::string& what) { checks.expect(cond, what); };

  // Independent numbers from jobs.csv alone. The durations are run times on the job's own GPU count (a native
  // trace: durations include the gang's scaling), so a job alone on whole GPUs runs exactly duration_s.
  std::vector<experiments::FcfsJob> jobs;
  double gpu_s = 0, last_alone_end_s = 0, first_submit_s = 1e300;
  for (const auto& row : experiments::read_csv_rows(std::string(COLOCSIM_EXPERIMENT_DIR) + "/jobs.csv")) {
    const experiments::FcfsJob j{std::stod(row.at("submit_s")), std::stod(row.at("duration_s")),
                                 std::stoul(row.at("devices"))};
    jobs.push_back(j);
    gpu_s += j.run_s * static_cast<double>(j.devices);
    last_alone_end_s = std::max(last_alone_end_s, j.submit_s + j.run_s);
    first_submit_s = std::min(first_submit_s, j.submit_s);
  }
  // Gangs (2 and 4 GPUs) on one node each, as policy.placement pack (the default) places them.
  const auto brute = experiments::fcfs_exclusive_nodes(jobs, 2, 8);
  constexpr double NODE_BASELINE_W = 1650; // dgx-a100 calibration: one DGX A100 node's CPUs, DRAM, NICs
  checks.near(
      fcfs.makespan_s, brute.makespan_s, 1e-6 * brute.makespan_s,
      "exclusive-fcfs: makespan = the brute-force strict-FCFS schedule of jobs.csv on 2 x 8 GPUs, gangs "
      "within a node (s)");
  checks.near(fcfs.wait_mean_s, brute.wait_mean_s, 1e-6 * brute.makespan_s,
              "exclusive-fcfs: mean wait = the brute-force strict-FCFS schedule's (s)");
  checks.near(fcfs.busy_device_s, gpu_s, 1e-6 * gpu_s,
              "exclusive-fcfs: busy GPU time = sum of duration x devices over jobs.csv (s)");
  for (const auto& r : results) {
    checks.at_least(r.makespan_s, last_alone_end_s - first_submit_s - 1e-6,
                    r.policy + ": makespan >= max(submit + duration) - first submit (s)");
    if (r.policy == "power-aware")
      checks.at_most(r.energy_node_j, 2 * NODE_BASELINE_W * r.makespan_s * (1 + 1e-9),
                     r.policy + ": node energy <= 2 x 1650 W x makespan (J; idle nodes powered off)");
    else
      checks.near(r.energy_node_j, 2 * NODE_BASELINE_W * r.makespan_s, 1e-6 * r.energy_node_j,
                  r.policy + ": node energy = 2 x 1650 W x makespan (J)");
  }
  for (const auto& r : results) {
    expect(r.completed == 200 && r.failed == 0 && r.oom_events == 0,
           r.policy + " completes all 200 jobs without out-of-memory failures");
    const bool exclusive = r.policy == "exclusive-fcfs" || r.policy == "exclusive-easy";
    if (exclusive) {
      expect(r.colocation < 1.0 + 1e-9, r.policy + " never co-locates");
    } else {
      expect(r.wait_mean_s <= 0.5 * fcfs.wait_mean_s,
             r.policy + " at least halves exclusive-fcfs's mean wait");
      expect(r.energy_kwh < fcfs.energy_kwh, r.policy + " uses less energy than exclusive-fcfs");
    }
  }
  expect(easy.wait_mean_s <= fcfs.wait_mean_s + 1e-6,
         "EASY backfilling waits no longer on average than FCFS");
  return checks.exit_status();
}
} // namespace

int main(int argc, char** argv)
{
  return experiments::guarded_main("colocsim-compare-policies", [&] { return driver_main(argc, argv); });
}
