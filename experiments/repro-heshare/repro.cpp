// Comparison with HeShare (Jiang, Cai, ..., Buyya, IEEE Transactions on Computers 2026; reference §3.2, key
// HESHARE): energy-aware placement across heterogeneous GPUs with per-job MPS shares and per-GPU DVFS, as the
// heshare policy reads the abstract (policies/Heshare.hpp).
//
// Scenario (scenario.yaml, platform.yaml): 8 A100-40GB (one DGX A100), 8 V100-SXM2-16GB (2 nodes of 4) and 8
// T4 (4 nodes of 2), every GPU shared with MPS; 120 seeded single-GPU inference and training jobs over the
// first hour (jobs.csv, make_trace.py; durations are times alone on a V100; the jobs over 16 GB ask for an
// A100, a few others for V100/A100 or T4). Runs heshare, heshare with DVFS off (max_time_factor=1) and the
// baselines exclusive-fcfs (sharing exclusive), first-fit, best-fit and interference-aware, each with its
// defaults.
// Claim compared (not tuned to): HeShare's −26 % energy and −31 % JCT against state-of-the-art baselines
// (unnamed; the setup is NOT FOUND).
// Checked (--check): the table equals results.csv; every run completes every job, with no out-of-memory
// failure, each on a device of a type it accepts whose memory holds it; exclusive runs every job at the
// speed of its device type (sharing slowdown exactly 1) and one job per device; node energy = the nodes'
// baselines (1650 + 2 x 206 + 4 x 670 = 4742 W) x makespan in every run; heshare's DVFS lowers the mean GPU
// power draw (GPU energy / makespan) against heshare without DVFS.
// Command: build/experiments/repro-heshare/colocsim-repro-heshare [--check] [--csv FILE]
#include "experiments/Driver.hpp"
#include "sim/Engine.hpp"
#include "sim/Metrics.hpp"
#include "sim/Scenario.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

using namespace colocsim;

namespace {

const std::string DIR = COLOCSIM_EXPERIMENT_DIR;

struct Config {
  std::string name, policy;
  bool exclusive = false; ///< platform.sharing: exclusive instead of the scenario's mps
};

const std::vector<Config> CONFIGS{
    {"exclusive-fcfs", "exclusive-fcfs", true},
    {"first-fit", "first-fit", false},
    {"best-fit", "best-fit", false},
    {"interference-aware", "interference-aware", false},
    {"heshare-no-dvfs", "heshare:max_time_factor=1", false},
    {"heshare", "heshare", false},
};

/// Collects the metrics and, per job, what the checks need.
struct Collect final : RunObserver {
  explicit Collect(const Platform& p) : platform(p) {}
  void on_job_end(const JobRecord& r) override
  {
    metrics.add(r);
    if (r.status != JobStatus::COMPLETED) return;
    const DeviceIndex d = r.devices.front();
    const auto& type = platform.type_of(d);
    // Runtime ÷ the run time alone on this device type (durations are times on the reference type).
    const double sharing = r.slowdown * type.speed;
    sharing_sum += sharing;
    max_sharing = std::max(max_sharing, sharing);
    min_sharing = std::min(min_sharing, sharing);
    ++completed;
    bool allowed = r.job->gpu_types.empty();
    for (std::string_view rest = r.job->gpu_types; !allowed && !rest.empty();) {
      const auto bar = rest.find('|');
      allowed = type.answers_to(rest.substr(0, bar));
      rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
    }
    if (!allowed || r.job->mem_request_bytes > type.spec->memory_bytes.value || r.attempts != 1)
      wrong.push_back(r.job->id);
    intervals[d].push_back({r.start_s, r.end_s});
  }
  const Platform& platform;
  MetricsCollector metrics;
  double sharing_sum = 0, max_sharing = 0, min_sharing = INFINITY;
  std::size_t completed = 0;
  std::vector<std::string> wrong;
  std::map<DeviceIndex, std::vector<std::pair<double, double>>> intervals;
};

struct Row {
  std::string config;
  Summary s;
  double sharing_slowdown_mean = 0, max_sharing = 0, min_sharing = 0;
  std::size_t completed = 0, wrong = 0, overlapping = 0;
  double baseline_w = 0; ///< Σ node baselines
};

/// Strict FCFS on the heterogeneous platform, one job per GPU, worked out independently of the engine: in
/// submission order, each job starts at the earliest time that is ≥ its submission and the previous job's
/// start at which a GPU of a type it accepts is free (ties: the lowest index, so the A100s first), and runs
/// duration ÷ that type's speed (durations are times on the V100, the reference type).
struct BruteForce {
  double makespan_s = 0, wait_mean_s = 0, jct_mean_s = 0;
};
BruteForce fcfs_by_type(const Platform& platform)
{
  auto rows = experiments::read_csv_rows(DIR + "/jobs.csv");
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::stod(a.at("submit_s")) < std::stod(b.at("submit_s"));
  });
  std::vector<double> free_at(platform.devices.size(), -1e300);
  double previous = -1e300, end = 0, wait = 0, jct = 0;
  for (const auto& row : rows) {
    const double submit = std::stod(row.at("submit_s")), duration = std::stod(row.at("duration_s"));
    const std::string types = row.count("gpu_types") ? row.at("gpu_types") : "";
    std::size_t best = free_at.size();
    double start = INFINITY;
    for (std::size_t d = 0; d < free_at.size(); ++d) {
      bool accepted = types.empty();
      for (std::string_view rest = types; !accepted && !rest.empty();) {
        const auto bar = rest.find('|');
        accepted = platform.type_of(static_cast<std::uint32_t>(d)).answers_to(rest.substr(0, bar));
        rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
      }
      const double t = std::max({submit, previous, free_at[d]});
      if (accepted && t < start) start = t, best = d;
    }
    if (best == free_at.size()) throw std::runtime_error("no GPU accepts " + row.at("id"));
    const double run = duration / platform.type_of(static_cast<std::uint32_t>(best)).speed;
    free_at[best] = start + run;
    previous = start;
    end = std::max(end, start + run);
    wait += start - submit;
    jct += start + run - submit;
  }
  const double n = static_cast<double>(rows.size());
  return {end - std::stod(rows.front().at("submit_s")), wait / n, jct / n};
}

BruteForce brute; ///< fcfs_by_type of the platform (filled by run())

Row run(const Config& c)
{
  std::vector<std::string> sets;
  if (c.exclusive) sets.push_back("platform.sharing=exclusive");
  RunInputs in = build_run(load_scenario(DIR + "/scenario.yaml", experiments::with_env_sets(sets), c.policy));
  if (c.exclusive) brute = fcfs_by_type(in.platform);
  Collect col(in.platform);
  const RunTotals t = run_simulation(in.setup(), col);
  Row r;
  r.config = c.name;
  r.s = col.metrics.summarize(t, 1.0);
  r.completed = col.completed;
  r.sharing_slowdown_mean = col.completed ? col.sharing_sum / static_cast<double>(col.completed) : 0;
  r.max_sharing = col.max_sharing;
  r.min_sharing = col.min_sharing;
  r.wrong = col.wrong.size();
  for (auto& [d, iv] : col.intervals) { // jobs whose run overlaps another's on the same device
    std::sort(iv.begin(), iv.end());
    for (std::size_t i = 1; i < iv.size(); ++i)
      r.overlapping += iv[i].first < iv[i - 1].second - 1e-6;
  }
  for (double w : in.platform.node_baseline_w)
    r.baseline_w += w;
  return r;
}

} // namespace

namespace {
int driver_main(int argc, char** argv)
{
  const auto args = experiments::parse_driver_args(argc, argv, "colocsim-repro-heshare");
  if (!args) return 2;
  std::vector<Row> rows;
  for (const auto& c : CONFIGS)
    rows.push_back(run(c));
  const Row& he = rows.back();

  std::ostringstream table;
  table << "config,makespan_h,energy_gpu_kwh,energy_node_kwh,energy_total_kwh,jct_mean_s,wait_mean_s,"
           "corun_slowdown_mean,sharing_slowdown_mean,allocation_mean,completed,heshare_energy_change,"
           "heshare_jct_change\n";
  char line[512];
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "%s,%.4f,%.4f,%.4f,%.4f,%.1f,%.1f,%.4f,%.4f,%.4f,%llu,%.4f,%.4f\n",
                  r.config.c_str(), r.s.makespan_s / 3600, r.s.energy_gpu_j / 3.6e6,
                  r.s.energy_node_j / 3.6e6, r.s.energy_total_j / 3.6e6, r.s.jct_mean_s, r.s.wait_mean_s,
                  r.s.corun_slowdown_mean, r.sharing_slowdown_mean, r.s.allocation_mean,
                  static_cast<unsigned long long>(r.s.jobs_completed),
                  he.s.energy_total_j / r.s.energy_total_j - 1, he.s.jct_mean_s / r.s.jct_mean_s - 1);
    table << line;
  }
  std::printf("%-19s %8s %6s %6s %6s %6s %6s %6s %6s %6s %4s | %8s %8s\n", "config", "makespan", "energy", "",
              "", "JCT", "wait", "co-run", "shar.", "alloc", "done", "heshare", "heshare");
  std::printf("%-19s %8s %6s %6s %6s %6s %6s %6s %6s %6s %4s | %8s %8s\n", "", "h", "GPU", "node", "total",
              "mean s", "mean s", "slowd.", "slowd.", "", "", "energy", "JCT");
  for (const auto& r : rows)
    std::printf(
        "%-19s %8.2f %6.2f %6.2f %6.2f %6.0f %6.0f %6.3f %6.3f %6.3f %4llu | %+7.1f%% %+7.1f%%\n",
        r.config.c_str(), r.s.makespan_s / 3600, r.s.energy_gpu_j / 3.6e6, r.s.energy_node_j / 3.6e6,
        r.s.energy_total_j / 3.6e6, r.s.jct_mean_s, r.s.wait_mean_s, r.s.corun_slowdown_mean,
        r.sharing_slowdown_mean, r.s.allocation_mean, static_cast<unsigned long long>(r.s.jobs_completed),
        100 * (he.s.energy_total_j / r.s.energy_total_j - 1), 100 * (he.s.jct_mean_s / r.s.jct_mean_s - 1));
  std::printf("HeShare (published, vs unnamed state-of-the-art baselines): energy -26.0%%, JCT -31.0%%\n");
  if (!args->csv.empty()) std::ofstream(args->csv) << table.str();
  if (!args->check) return 0;

  experiments::Checks checks;
  auto expect = [&](bool cond, const std::string& what) { checks.expect(cond, what); };
  auto find = [&](const std::string& config) -> const Row& {
    for (const auto& r : rows)
      if (r.config == config) return r;
    throw std::runtime_error("no row " + config);
  };
  // 1. The printed table is the committed results.csv, line for line.
  checks.table_is_committed(DIR, table.str());
  for (const auto& r : rows) {
    // 2. Every job completes at its first attempt, on a device type it accepts that holds its memory.
    expect(r.s.jobs_read == 120 && r.completed == 120 && r.s.oom_events == 0 && r.wrong == 0,
           r.config +
               ": 120 of 120 jobs complete at the first attempt, each on a device of a type it accepts "
               "whose memory holds it");
    // 3. The nodes are always on: node energy = Σ baselines (1650 + 2 x 206 + 4 x 670 W) x makespan.
    expect(std::abs(r.baseline_w - 4742.0) < 1e-9 &&
               std::abs(r.s.energy_node_j - r.baseline_w * r.s.makespan_s) < 1e-6 * r.s.energy_node_j,
           r.config + ": node energy = 4742 W x makespan");
  }
  // 4. Exclusive: one job per device at a time, each at its device type's speed (no sharing slowdown).
  const Row& ex = find("exclusive-fcfs");
  expect(
      ex.overlapping == 0 && std::abs(ex.max_sharing - 1) < 1e-9 && std::abs(ex.min_sharing - 1) < 1e-9,
      "exclusive-fcfs: no two jobs overlap on a device; every job runs exactly at its device type's speed");
  // 5. DVFS lowers heshare's mean GPU power draw (it lowers clocks, never raises them above f_max).
  const Row& nodvfs = find("heshare-no-dvfs");
  expect(he.s.energy_gpu_j / he.s.makespan_s < nodvfs.s.energy_gpu_j / nodvfs.s.makespan_s,
         "heshare: DVFS lowers the mean GPU power draw against heshare without DVFS");
  // 6. Exclusive FCFS = the brute-force strict-FCFS schedule by GPU type (fcfs_by_type).
  checks.near(ex.s.makespan_s, brute.makespan_s, 1e-6 * brute.makespan_s,
              "exclusive-fcfs: makespan = the brute-force strict-FCFS schedule by GPU type (s)");
  checks.near(ex.s.wait_mean_s, brute.wait_mean_s, 1e-6 * brute.makespan_s,
              "exclusive-fcfs: mean wait = the brute-force schedule's (s)");
  checks.near(ex.s.jct_mean_s, brute.jct_mean_s, 1e-6 * brute.makespan_s,
              "exclusive-fcfs: mean JCT = the brute-force schedule's (s)");
  // 7. The paper (Jiang et al., HeShare, IEEE TC 2026, abstract): −26 % energy and −31 % JCT against "the
  //    state-of-the-art framework" (unnamed). The model misses both against every baseline here (README.md
  //    "How close": heshare favours the slow, frugal T4s and node baselines dominate the energy), so each
  //    gap is pinned at today's change rounded up to the next percent: it can only shrink toward the paper.
  struct Pin {
    const char* baseline;
    double energy, jct; // the largest heshare change (total energy, mean JCT) against it allowed today
  };
  for (const Pin p : {Pin{"exclusive-fcfs", 0.24, 0.23}, Pin{"first-fit", 0.43, 1.39},
                      Pin{"best-fit", 0.17, 0.25}, Pin{"interference-aware", 0.21, 1.49}}) {
    const Row& b = find(p.baseline);
    checks.at_most(he.s.energy_total_j / b.s.energy_total_j - 1, p.energy,
                   std::string("heshare vs ") + p.baseline +
                       ": total energy change (HeShare: -0.26; gap pinned, can only shrink)");
    checks.at_most(he.s.jct_mean_s / b.s.jct_mean_s - 1, p.jct,
                   std::string("heshare vs ") + p.baseline +
                       ": mean JCT change (HeShare: -0.31; gap pinned, can only shrink)");
  }
  return checks.exit_status();
}
} // namespace

int main(int argc, char** argv)
{
  return experiments::guarded_main("colocsim-repro-heshare", [&] { return driver_main(argc, argv); });
}
