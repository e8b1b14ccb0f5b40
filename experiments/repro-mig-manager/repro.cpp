// Reproduction of Saraha, Li, Porter, Pande, "Managing Multi Instance GPUs for High Throughput and Energy
// Savings" (arXiv 2508.18556, 2025; reference §3.3, key MIGMGR) with the mig-manager policy.
//
// Scenario: the paper's single A100 (one card of a DGX A100 node) and a whole DGX A100 (8 A100-SXM4-40GB
// GPUs; scenario.yaml). Four seeded traces of single-GPU jobs (make_trace.py): ml.csv (64 ML inference and
// training jobs), llm.csv (32 LLM jobs), light.csv (64 small ML jobs), from the bundled profiles, and
// scientific.csv (64 series of Rodinia runs, the paper's "general" class, with speeds on every MIG slice
// measured on an A100: rodinia-profiles.yaml); 20 % declare half their real memory, 15 % twice it. Each
// trace runs on whole GPUs (exclusive-fcfs, sharing exclusive), on static MIG layouts
// (mig-manager:reconfigure=false) and under mig-manager (compute-aware sizing, backfilling, fission, fusion,
// memory estimation, early restart) and variants (oracle memory, no early restart, the former memory-only
// strict-FCFS rule, no backfill). Reported: batch throughput (jobs / makespan), the steady rate (jobs per
// hour between the 10th and 90th percentile completions), GPU-only energy (no node baseline, as the paper
// measures the GPU), and beside each result the brute-force MIG work bound (mig_throughput_bound).
//
// Claim compared (not tuned to): MIGMGR's "up to" 1.59x throughput / 1.12x energy for ML, 1.43x / 1.11x for
// LLM and 6.20x / 5.93x for general workloads on A100, against its (unstated) baselines.
//
// Checked (--check): the table equals results.csv; a static 7g.40gb layout equals whole GPUs' speed less
// 98/108 SMs; hand-computed MIG slowdowns and instance choices; out-of-memory restarts exactly where the
// declared memory picks too small an instance; whole GPUs = a brute-force FCFS schedule; no MIG run beats
// the work bound; each mig-manager ratio within its pinned distance of the paper's number (README.md).
//
// Command: build/experiments/repro-mig-manager/colocsim-repro-mig [--check] [--csv FILE]
#include "experiments/Driver.hpp"
#include "sim/Engine.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace colocsim;

namespace {

const std::string DIR = COLOCSIM_EXPERIMENT_DIR;

struct Config {
  std::string name, policy, layout; ///< layout: platform.mig_layout; "exclusive": sharing exclusive
};

const std::vector<Config> CONFIGS{
    {"whole-gpu", "exclusive-fcfs", "exclusive"},
    {"static-7g", "mig-manager:reconfigure=false", "7g.40gb"},
    {"static-4g+3g", "mig-manager:reconfigure=false", "4g.20gb,3g.20gb"},
    {"static-2x3g", "mig-manager:reconfigure=false", "3g.20gb,3g.20gb"},
    {"static-3g+2g+2x1g", "mig-manager:reconfigure=false", "3g.20gb,2g.10gb,1g.5gb,1g.5gb"},
    {"static-3x2g+1g", "mig-manager:reconfigure=false", "2g.10gb,2g.10gb,2g.10gb,1g.5gb"},
    {"static-7x1g", "mig-manager:reconfigure=false", "1g.5gb,1g.5gb,1g.5gb,1g.5gb,1g.5gb,1g.5gb,1g.5gb"},
    {"mig-manager", "mig-manager", "7g.40gb"},
    {"mig-manager-oracle", "mig-manager:memory=profile", "7g.40gb"},
    {"mig-manager-no-early", "mig-manager:early_restart=false", "7g.40gb"},
    {"mig-manager-memsize", "mig-manager:sizing=memory,backfill=false", "7g.40gb"},
    {"mig-manager-no-backfill", "mig-manager:backfill=false", "7g.40gb"},
};

/// The platforms: the paper's single A100 (one card of a DGX A100 node) and a whole DGX A100 (8 GPUs).
struct Platform {
  std::string name;
  int gpus;
  std::vector<std::string> sets;
};
const std::vector<Platform> PLATFORMS{{"a100", 1, {"platform.cards_per_node=1"}}, {"dgx", 8, {}}};

/// mig-manager's default max_slowdown (policies/MigManager.cpp), for the hand-computed instance choice.
constexpr double MAX_SLOWDOWN = 1.25;

/// Forwards to the policy and counts its MIG reconfigurations.
class CountReconfigurations final : public Policy {
public:
  explicit CountReconfigurations(std::unique_ptr<Policy> inner) : inner_(std::move(inner)) {}
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    auto out = inner_->decide(view, events);
    for (const auto& d : out)
      count += std::holds_alternative<ReconfigureMig>(d);
    return out;
  }
  std::uint64_t count = 0;

private:
  std::unique_ptr<Policy> inner_;
};

struct JobOutcome {
  std::string profile;
  double mem_declared_bytes = 0, slowdown = 0, end_s = 0;
  int attempts = 0;
  bool completed = false;
};

struct Collect final : RunObserver {
  double jct_s = 0;
  std::size_t n = 0;
  std::map<std::string, JobOutcome> jobs;
  void on_job_end(const JobRecord& r) override
  {
    const bool done = r.status == JobStatus::COMPLETED;
    jobs[r.job->id] =
        JobOutcome{r.job->profile, r.job->mem_request_bytes, r.slowdown, r.end_s, r.attempts, done};
    if (!done) return;
    jct_s += r.end_s - r.submit_s;
    ++n;
  }
};

struct Row {
  std::string trace, platform, config;
  int gpus = 0;
  double makespan_h = 0, jobs_per_h = 0, steady_per_h = 0, energy_kwh = 0, jobs_per_kwh = 0, jct_mean_s = 0;
  std::uint64_t completed = 0, not_completed = 0, oom_events = 0, reconfigurations = 0;
  double throughput_x = 0, steady_x = 0, efficiency_x = 0; ///< vs whole-gpu on the same trace and platform
  double bound_x = 0; ///< mig_throughput_bound: the best batch throughput any MIG schedule could reach
  std::map<std::string, JobOutcome> jobs;
};

/// Hand-computed slowdown of each profile alone on a 7g.40gb instance (filled by run()).
std::map<std::string, double> seven_slowdown;
/// Each profile's signature, as the scenario's profile catalogue gives it (filled by run()).
std::map<std::string, ResourceSignature> signatures;

/// The A100-40GB GPU instance profiles (reference §4.2): compute slices of 7, SM fraction s of the A100's
/// 108, memory-slice fraction m of 8, memory in GiB as nvidia-smi -lgip prints it.
struct Instance {
  const char* name;
  int compute;
  double s, m, gib;
};
constexpr Instance INSTANCES[] = {
    {"1g.5gb", 1, 14 / 108.0, 1 / 8.0, 4.75},   {"1g.10gb", 1, 14 / 108.0, 2 / 8.0, 9.75},
    {"2g.10gb", 2, 28 / 108.0, 2 / 8.0, 9.75},  {"3g.20gb", 3, 42 / 108.0, 4 / 8.0, 19.62},
    {"4g.20gb", 4, 56 / 108.0, 4 / 8.0, 19.62}, {"7g.40gb", 7, 98 / 108.0, 1.0, 39.38}};

/// The MIG slowdown of models/README.md (mig), written out again here: max(β·max(1, c/s) + (1 − β)·max(1,
/// b/m), b/m, u/s, 1) with u = max(vec, xmx).
double hand_mig_slowdown(const ResourceSignature& g, double s, double m)
{
  const double beta = g.freq_sensitive;
  return std::max({beta * std::max(1.0, g.compute_share / s) + (1 - beta) * std::max(1.0, g.bw_util / m),
                   g.bw_util / m, std::max(g.vec_util, g.xmx_util) / s, 1.0});
}

/// A job's slowdown alone on instance `i`: 1 / its profile's measured speed on that many compute slices where
/// the profile gives one (`mig_speed`, docs/formats/profiles.md: the Rodinia profiles), else the law above.
double hand_slowdown_on(const ResourceSignature& g, const Instance& i)
{
  const double speed = g.mig_speed.at(static_cast<std::size_t>(i.compute));
  return speed > 0 ? 1.0 / speed : hand_mig_slowdown(g, i.s, i.m);
}

/// Upper bound on any MIG schedule's throughput against whole GPUs on `trace`, by brute force over each job's
/// instances: a GPU has 7 compute slices, so a job that runs on an instance of k slices for its slowdown ×
/// duration uses at least k/7 × slowdown × duration of a GPU, whatever the layout, the order or the
/// reconfigurations; the makespan is at least Σ_jobs min_instances(that) / the GPUs and at least
/// max(submit + duration) − first submit. The instances that cannot hold a job's real footprint are skipped.
double mig_throughput_bound(const std::string& trace, double whole_makespan_s, int gpus)
{
  constexpr double GIB = 1024.0 * 1024 * 1024;
  double gpu_s = 0, first = INFINITY, last_end = 0;
  for (const auto& row : experiments::read_csv_rows(DIR + "/" + trace)) {
    const double submit = std::stod(row.at("submit_s")), duration = std::stod(row.at("duration_s"));
    const ResourceSignature& g = signatures.at(row.at("profile"));
    double best = INFINITY;
    for (const auto& i : INSTANCES)
      if (i.gib * GIB >= g.mem_bytes)
        best = std::min(best, i.compute / 7.0 * hand_slowdown_on(g, i) * duration);
    gpu_s += best;
    first = std::min(first, submit);
    last_end = std::max(last_end, submit + duration);
  }
  return whole_makespan_s / std::max(gpu_s / gpus, last_end - first);
}

/// Jobs per hour in the middle of the batch: the completions from the 10th to the 90th percentile (by end
/// time) over the time between them; the fill at the start and the drain at the end are left out.
double steady_rate_per_h(const std::map<std::string, JobOutcome>& jobs)
{
  std::vector<double> ends;
  for (const auto& [id, j] : jobs)
    if (j.completed) ends.push_back(j.end_s);
  std::sort(ends.begin(), ends.end());
  if (ends.size() < 10) return NAN;
  const auto n = ends.size();
  const std::size_t lo = n / 10, hi = (9 * n + 9) / 10 - 1; // floor(0.1 n), ceil(0.9 n) - 1
  return static_cast<double>(hi - lo) / (ends[hi] - ends[lo]) * 3600.0;
}

Row run(const std::string& trace, const Platform& platform, const Config& c,
        std::map<std::string, double>* real_mem_bytes)
{
  std::vector<std::string> sets{"workload.trace=" + trace};
  if (trace == "scientific.csv") sets.push_back("workload.profiles=" + DIR + "/rodinia-profiles.yaml");
  sets.insert(sets.end(), platform.sets.begin(), platform.sets.end());
  if (c.layout == "exclusive")
    sets.push_back("platform.sharing=exclusive");
  else
    sets.push_back("platform.mig_layout=" + c.layout);
  RunInputs in = build_run(load_scenario(DIR + "/scenario.yaml", experiments::with_env_sets(sets), c.policy));
  if (real_mem_bytes)
    for (const auto& p : in.profiles.profiles()) {
      (*real_mem_bytes)[p.name] = p.sig.mem_bytes;
      signatures[p.name] = p.sig;
      // On 7g.40gb (s = 98/108 of the A100's SMs, m = 8/8) only the SM terms of the law can exceed 1; a
      // measured speed on 7 slices (mig_speed) replaces the law.
      seven_slowdown[p.name] = hand_slowdown_on(p.sig, INSTANCES[std::size(INSTANCES) - 1]); // 7g.40gb
    }
  auto counting = std::make_unique<CountReconfigurations>(std::move(in.policy));
  auto* counter = counting.get();
  in.policy = std::move(counting);
  Collect col;
  const RunTotals t = run_simulation(in.setup(), col);
  Row r;
  r.trace = trace;
  r.platform = platform.name;
  r.gpus = platform.gpus;
  r.config = c.name;
  r.makespan_h = (t.t_end_s - t.t_first_submit_s) / 3600.0;
  r.energy_kwh = t.energy_device_j / 3.6e6; // the GPUs only, as the paper measures (no node baseline)
  r.completed = t.completed;
  r.not_completed = t.failed + t.rejected + t.never_started;
  r.jobs_per_h = static_cast<double>(t.completed) / r.makespan_h;
  r.jobs_per_kwh = static_cast<double>(t.completed) / r.energy_kwh;
  r.jct_mean_s = col.n ? col.jct_s / static_cast<double>(col.n) : 0;
  r.oom_events = t.oom_events;
  r.reconfigurations = counter->count;
  r.jobs = std::move(col.jobs);
  r.steady_per_h = steady_rate_per_h(r.jobs);
  return r;
}

/// A100-40GB instance memory (reference §4.2, GiB as nvidia-smi -lgip prints them), smallest first in the
/// order mig-manager picks (fewest compute slices, then least memory): 1g.5gb, 1g.10gb, 2g.10gb, 3g.20gb,
/// 4g.20gb, 7g.40gb.
double instance_for_bytes(double bytes)
{
  constexpr double GIB = 1024.0 * 1024 * 1024;
  for (const double gib : {4.75, 9.75, 9.75, 19.62, 19.62, 39.38})
    if (gib * GIB >= bytes) return gib * GIB;
  return INFINITY;
}

/// The same, sized by compute too (mig-manager's default sizing, written out again): of the instances in
/// that order that hold `bytes`, the first on which the hand-computed slowdown is at most MAX_SLOWDOWN, else
/// the one with the least slowdown. Returns the instance's memory.
double instance_for(double bytes, const ResourceSignature& g)
{
  constexpr double GIB = 1024.0 * 1024 * 1024;
  double best = INFINITY, best_slowdown = INFINITY;
  for (const auto& i : INSTANCES) {
    if (i.gib * GIB < bytes) continue;
    const double slowdown = hand_slowdown_on(g, i);
    if (slowdown <= MAX_SLOWDOWN * (1 + 1e-12)) return i.gib * GIB;
    if (slowdown < best_slowdown * (1 - 1e-12)) {
      best = i.gib * GIB;
      best_slowdown = slowdown;
    }
  }
  return best;
}

} // namespace

const char* const TRACES[] = {"ml.csv", "llm.csv", "light.csv", "scientific.csv"};
namespace {
/// The paper's "up to" numbers (Saraha et al., arXiv 2508.18556, abstract): throughput and energy efficiency
/// x whole GPUs, and the distance of today's mig-manager from each, rounded up (README.md "How close"): the
/// check holds each ratio within that distance of the paper's, so a gap can only shrink.
struct Paper {
  const char* trace;
  const char* platform;
  double throughput, efficiency;         // the paper's "up to"
  double throughput_gap, efficiency_gap; // pinned |ours − paper's|
};
const Paper PAPER[] = {
    {"ml.csv", "a100", 1.59, 1.12, 0.07, 0.14},         {"ml.csv", "dgx", 1.59, 1.12, 0.21, 0.12},
    {"llm.csv", "a100", 1.43, 1.11, 0.45, 0.12},        {"llm.csv", "dgx", 1.43, 1.11, 0.45, 0.12},
    {"light.csv", "a100", 6.20, 5.93, 2.49, 3.63},      {"light.csv", "dgx", 6.20, 5.93, 3.45, 3.88},
    {"scientific.csv", "a100", 6.20, 5.93, 0.08, 2.49}, {"scientific.csv", "dgx", 6.20, 5.93, 2.23, 3.06},
};

/// Every trace on every platform under every configuration, with the ratios to whole GPUs and the MIG work
/// bound; `real_mem_bytes` gets each profile's real footprint.
std::vector<Row> run_matrix(std::map<std::string, double>& real_mem_bytes)
{
  std::vector<Row> rows;
  for (const std::string trace : TRACES)
    for (const auto& platform : PLATFORMS) {
      const std::size_t first = rows.size();
      for (const auto& c : CONFIGS)
        rows.push_back(run(trace, platform, c, &real_mem_bytes));
      const double bound = mig_throughput_bound(trace, rows[first].makespan_h * 3600, platform.gpus);
      for (std::size_t i = first; i < rows.size(); ++i) {
        // Throughput of a run that left jobs undone is not comparable: no ratio (NAN here; an empty cell in
        // results.csv and "-" in the printed table, since a CSV file has no portable spelling of NaN).
        const bool all = rows[i].not_completed == 0;
        rows[i].throughput_x = all ? rows[i].jobs_per_h / rows[first].jobs_per_h : NAN;
        rows[i].steady_x = all ? rows[i].steady_per_h / rows[first].steady_per_h : NAN;
        rows[i].efficiency_x = all ? rows[i].jobs_per_kwh / rows[first].jobs_per_kwh : NAN;
        rows[i].bound_x = bound;
      }
    }
  return rows;
}

/// A ratio, or `none` where it is not comparable.
std::string ratio(double x, const char* format, const char* none)
{
  char text[32];
  std::snprintf(text, sizeof text, format, x);
  return std::isfinite(x) ? std::string(text) : std::string(none);
}

/// results.csv.
std::string make_table(const std::vector<Row>& rows)
{
  std::ostringstream table;
  table << "trace,platform,config,makespan_h,jobs_per_h,steady_jobs_per_h,gpu_energy_kwh,jobs_per_kwh,"
           "jct_mean_s,completed,not_completed,oom_events,reconfigurations,throughput_x,steady_x,"
           "efficiency_x,bound_x\n";
  char line[640];
  for (const auto& r : rows) {
    std::snprintf(
        line, sizeof line, "%s,%s,%s,%.4f,%.3f,%s,%.4f,%.4f,%.1f,%llu,%llu,%llu,%llu,%s,%s,%s,%.4f\n",
        r.trace.c_str(), r.platform.c_str(), r.config.c_str(), r.makespan_h, r.jobs_per_h,
        ratio(r.steady_per_h, "%.3f", "").c_str(), r.energy_kwh, r.jobs_per_kwh, r.jct_mean_s,
        static_cast<unsigned long long>(r.completed), static_cast<unsigned long long>(r.not_completed),
        static_cast<unsigned long long>(r.oom_events), static_cast<unsigned long long>(r.reconfigurations),
        ratio(r.throughput_x, "%.4f", "").c_str(), ratio(r.steady_x, "%.4f", "").c_str(),
        ratio(r.efficiency_x, "%.4f", "").c_str(), r.bound_x);
    table << line;
  }
  return table.str();
}

/// The table on stdout.
void print_table(const std::vector<Row>& rows)
{
  std::printf("%-9s %-5s %-23s %8s %6s %6s %7s %6s %6s %4s %4s %4s %6s %6s %6s %6s %6s\n", "trace", "plat",
              "config", "makespan", "jobs/h", "steady", "GPU", "jobs/", "JCT", "done", "not", "OOM", "reconf",
              "thr", "steady", "eff", "bound");
  std::printf("%-9s %-5s %-23s %8s %6s %6s %7s %6s %6s %4s %4s %4s %6s %6s %6s %6s %6s\n", "", "", "", "h",
              "", "jobs/h", "kWh", "kWh", "mean s", "", "done", "", "", "x whl", "x whl", "x whl", "x whl");
  for (const auto& r : rows)
    std::printf(
        "%-9s %-5s %-23s %8.2f %6.2f %6s %7.2f %6.2f %6.0f %4llu %4llu %4llu %6llu %6s %6s %6s %6.2f\n",
        r.trace.c_str(), r.platform.c_str(), r.config.c_str(), r.makespan_h, r.jobs_per_h,
        ratio(r.steady_per_h, "%.2f", "-").c_str(), r.energy_kwh, r.jobs_per_kwh, r.jct_mean_s,
        static_cast<unsigned long long>(r.completed), static_cast<unsigned long long>(r.not_completed),
        static_cast<unsigned long long>(r.oom_events), static_cast<unsigned long long>(r.reconfigurations),
        ratio(r.throughput_x, "%.3f", "-").c_str(), ratio(r.steady_x, "%.3f", "-").c_str(),
        ratio(r.efficiency_x, "%.3f", "-").c_str(), r.bound_x);
}

const Row& find_row(const std::vector<Row>& rows, const std::string& trace, const std::string& platform,
                    const std::string& config)
{
  for (const auto& r : rows)
    if (r.trace == trace && r.platform == platform && r.config == config) return r;
  throw std::runtime_error("no row " + trace + " " + platform + " " + config);
}

/// Checks 2-4 of one trace on one platform: the MIG runs.
void check_mig_runs(const std::vector<Row>& rows, const std::string& trace, const Platform& platform,
                    const std::map<std::string, double>& real_mem_bytes, experiments::Checks& checks)
{
  const std::string where = trace + " " + platform.name;
  const Row& whole = find_row(rows, trace, platform.name, "whole-gpu");
  const Row& seven = find_row(rows, trace, platform.name, "static-7g");
  const Row& mgr = find_row(rows, trace, platform.name, "mig-manager");
  const Row& oracle = find_row(rows, trace, platform.name, "mig-manager-oracle");
  const Row& memsize = find_row(rows, trace, platform.name, "mig-manager-memsize");
  // 2. A 7g.40gb instance holds 98 of the A100's 108 SMs (GONVML-A100, GK-A100) and all 8 memory
  //    slices: never faster than the whole GPU, and every job runs at mig_slowdown(s = 98/108, m = 1).
  std::size_t off = 0;
  for (const auto& [id, j] : seven.jobs)
    off += j.completed && std::abs(j.slowdown - seven_slowdown.at(j.profile)) > 1e-6;
  checks.expect(seven.makespan_h >= whole.makespan_h - 1e-9 && seven.oom_events == 0 && off == 0,
                where + ": a static 7g.40gb layout is never faster than whole GPUs (98 of 108 SMs)");
  // 3. Every job completes under mig-manager; the oracle never runs out of memory.
  checks.expect(mgr.completed == mgr.jobs.size() && mgr.not_completed == 0,
                where + ": mig-manager completes every job");
  checks.expect(oracle.oom_events == 0 && oracle.completed == oracle.jobs.size(),
                where + ": mig-manager with the profiles' real memory never runs out of memory");
  // 4. Out-of-memory restarts exactly where the declared memory picks an instance smaller than the
  //    footprint: by memory and compute (instance_for) under mig-manager, by memory alone
  //    (instance_for_bytes) under the former rule (memsize).
  for (const Row* r : {&mgr, &memsize}) {
    std::size_t under = 0, wrong = 0;
    for (const auto& [id, j] : r->jobs) {
      const double first = r == &mgr ? instance_for(j.mem_declared_bytes, signatures.at(j.profile))
                                     : instance_for_bytes(j.mem_declared_bytes);
      const bool too_small = first < real_mem_bytes.at(j.profile);
      under += too_small;
      if (too_small != (j.attempts > 1)) ++wrong;
    }
    checks.expect(wrong == 0 && r->oom_events >= under && r->completed == r->jobs.size(),
                  where + " " + r->config + ": out-of-memory restarts for exactly the " +
                      std::to_string(under) +
                      " jobs whose declared memory picks too small an instance; every job completes");
  }
}

/// Checks 5-6 of one trace on one platform: whole GPUs against brute force, every MIG run under the bound.
void check_whole_and_bound(const std::vector<Row>& rows, const std::string& trace, const Platform& platform,
                           experiments::Checks& checks)
{
  const std::string where = trace + " " + platform.name;
  const Row& whole = find_row(rows, trace, platform.name, "whole-gpu");
  std::size_t slowed = 0;
  for (const auto& [id, j] : whole.jobs)
    slowed += std::abs(j.slowdown - 1.0) > 1e-9;
  checks.expect(slowed == 0 && whole.oom_events == 0,
                where + ": whole GPUs: every job at full speed, no OOM");
  // 5. Whole GPUs = a brute-force strict-FCFS schedule of the trace on the platform's GPUs.
  std::vector<experiments::FcfsJob> jobs;
  for (const auto& row : experiments::read_csv_rows(DIR + "/" + trace))
    jobs.push_back({std::stod(row.at("submit_s")), std::stod(row.at("duration_s")), 1});
  const auto brute = experiments::fcfs_exclusive(jobs, static_cast<std::size_t>(platform.gpus));
  checks.near(whole.makespan_h * 3600, brute.makespan_s, 1e-6 * brute.makespan_s,
              where + ": whole-gpu makespan = the brute-force strict-FCFS schedule (s)");
  // 6. No MIG run that completes every job beats the brute-force work bound.
  for (const auto& r : rows)
    if (r.trace == trace && r.platform == platform.name && r.config != "whole-gpu" && r.not_completed == 0)
      checks.at_most(r.throughput_x, r.bound_x,
                     where + " " + r.config + ": throughput x whole GPUs <= the brute-force MIG work bound");
}

/// 7. Hand-computed MIG slowdowns max(β·max(1, c/s) + (1 − β)·max(1, b/m), b/m, u/s, 1) (s = instance SMs
///    / 108, m = memory slices / 8; c, b, u = max(vec, xmx), β = freq_sensitive:
///    workloads/profiles/default.yaml). On 7 × 1g.5gb (s = 14/108, m = 1/8): resnet50-infer-bs1
///    0.3·1.928571 + 0.7 = 1.278571; bert-base-infer-bs1 0.3·2.314286 + 0.7·2.0 = 2.094286;
///    stable-diffusion-infer 0.8·6.942857 + 0.2·2.8 = 6.114286. On 2 × 3g.20gb (s = 42/108, m = 1/2):
///    llama3-8b-decode-bs1 0.25·1.285714 + 0.75·1.7 = 1.596429 < b/m = 1.7 → 1.7; llama3-8b-infer-bs64
///    0.7·2.314286 + 0.3·1.2 = 1.98. Under mig-manager (max_slowdown 1.25) stable diffusion and
///    resnet50-train-bs32 run on 7g.40gb at 1 (c/s = 0.9918, 0.8816), not on 1g.5gb (6.11, 5.33).
void check_hand_slowdowns(const std::vector<Row>& rows, const std::map<std::string, double>& real_mem_bytes,
                          experiments::Checks& checks)
{
  const std::map<std::pair<std::string, std::string>, double> hand{
      {{"static-7x1g", "resnet50-infer-bs1"}, 0.3 * 0.25 * 108 / 14 + 0.7},
      {{"static-7x1g", "bert-base-infer-bs1"}, 0.3 * 0.3 * 108 / 14 + 0.7 * 2.0},
      {{"static-7x1g", "stable-diffusion-infer"}, 0.8 * 0.9 * 108 / 14 + 0.2 * 2.8},
      {{"static-2x3g", "llama3-8b-decode-bs1"}, 1.7},
      {{"static-2x3g", "llama3-8b-infer-bs64"}, 0.7 * 0.9 * 108 / 42 + 0.3 * 1.2},
      {{"mig-manager", "stable-diffusion-infer"}, 1.0},
      {{"mig-manager", "resnet50-train-bs32"}, 1.0},
      {{"mig-manager-memsize", "stable-diffusion-infer"}, 0.8 * 0.9 * 108 / 14 + 0.2 * 2.8},
      // Measured speeds on a 1g slice (rodinia-profiles.yaml, medians of 50 runs): gaussian 0.0411 s whole /
      // 0.0433 s = 0.949, srad_v1 0.1687 / 0.1712 = 0.985, bfs 1.2177 / 1.2140 >= 1, written 1.
      {{"static-7x1g", "rodinia-gaussian"}, 1 / 0.949},
      {{"static-7x1g", "rodinia-srad-v1"}, 1 / 0.985},
      {{"static-7x1g", "rodinia-bfs"}, 1.0}};
  for (const auto& [key, expected] : hand) {
    std::size_t seen = 0, bad = 0;
    for (const auto& r : rows) {
      if (r.config != key.first) continue;
      for (const auto& [id, j] : r.jobs)
        if (j.profile == key.second && j.completed &&
            std::abs(j.mem_declared_bytes - real_mem_bytes.at(j.profile)) < 1e6) { // declares its footprint
          ++seen;
          bad += std::abs(j.slowdown - expected) > 1e-6;
        }
    }
    checks.expect(seen > 0 && bad == 0, key.first + ": every " + key.second + " runs " +
                                            std::to_string(expected).substr(0, 4) + "x slower (" +
                                            std::to_string(seen) + " jobs)");
  }
}

/// 8. The paper (Saraha et al., arXiv 2508.18556, abstract: "up to" throughput / energy efficiency on an
///    A100: ML 1.59x / 1.12x, LLM 1.43x / 1.11x, general 6.20x / 5.93x: the scientific mix, and the light ML
///    mix against the same numbers). Where the model reaches a target within 10 %, the check holds it there;
///    where it does not (README.md "How close": the cause, and the bound beside it), the gap is pinned where
///    it stands today, so it can only shrink.
void check_paper(const std::vector<Row>& rows, experiments::Checks& checks)
{
  for (const Paper& p : PAPER) {
    const Row& mgr = find_row(rows, p.trace, p.platform, "mig-manager");
    std::printf("%s %s: mig-manager %.3fx / %.3fx (bound %.3fx); paper up to %.2fx / %.2fx\n", p.trace,
                p.platform, mgr.throughput_x, mgr.efficiency_x, mgr.bound_x, p.throughput, p.efficiency);
    const std::string where = std::string(p.trace) + " " + p.platform;
    auto hold = [&](double ours, double paper, double gap, const char* what) {
      char text[240];
      std::snprintf(text, sizeof text,
                    ": mig-manager %s x whole GPUs within %.2f of Saraha et al.'s %.2fx (%s; MIG "
                    "work bound %.2fx)",
                    what, gap, paper,
                    std::abs(ours - paper) <= 0.10 * paper ? "within 10 %" : "gap pinned, can only shrink",
                    mgr.bound_x);
      checks.near(ours, paper, gap, where + text);
    };
    hold(mgr.throughput_x, p.throughput, p.throughput_gap, "throughput");
    hold(mgr.efficiency_x, p.efficiency, p.efficiency_gap, "GPU jobs/kWh");
  }
}

int driver_main(int argc, char** argv)
{
  const auto args = experiments::parse_driver_args(argc, argv, "colocsim-repro-mig");
  if (!args) return 2;
  std::map<std::string, double> real_mem_bytes; // profile → real footprint
  const std::vector<Row> rows = run_matrix(real_mem_bytes);
  const std::string table = make_table(rows);
  print_table(rows);
  if (!args->csv.empty()) std::ofstream(args->csv) << table;
  if (!args->check) return 0;

  experiments::Checks checks;
  // 1. The printed table is the committed results.csv, line for line.
  checks.table_is_committed(DIR, table);
  for (const std::string trace : TRACES)
    for (const auto& platform : PLATFORMS) {
      check_mig_runs(rows, trace, platform, real_mem_bytes, checks);
      check_whole_and_bound(rows, trace, platform, checks);
    }
  check_hand_slowdowns(rows, real_mem_bytes, checks);
  check_paper(rows, checks);
  return checks.exit_status();
}
} // namespace

int main(int argc, char** argv)
{
  return experiments::guarded_main("colocsim-repro-mig", [&] { return driver_main(argc, argv); });
}
