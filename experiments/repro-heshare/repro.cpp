// Comparison with HeShare (Jiang, Cai, ..., Buyya, IEEE Transactions on Computers 2026; reference §3.2, key
// HESHARE): energy-aware placement across heterogeneous GPUs with per-job MPS shares and per-GPU DVFS, as the
// heshare policy reads the abstract (policies/Heshare.hpp).
//
// Scenario (scenario.yaml, platform.yaml): 8 A100-40GB (one DGX A100), 8 V100-SXM2-16GB (2 nodes of 4) and 8
// T4 (4 nodes of 2), every GPU shared with MPS; 120 seeded single-GPU inference and training jobs per trace
// (make_trace.py: seeds 2026-2030, loads 0.5 / 1 / 2 = mean gaps of 60 / 30 / 15 s; durations are times alone
// on a V100; the jobs over 16 GB ask for an A100, a few others for V100/A100 or T4). Runs heshare, heshare
// with DVFS off (max_time_factor=1), heshare scoring GPU energy alone (time_price_w=0,wait_for_faster=false:
// the reading before) and the baselines exclusive-fcfs (sharing exclusive), first-fit, best-fit and
// interference-aware, each with its defaults.
// Claim compared (not tuned to): HeShare's −26 % energy and −31 % JCT against "the state-of-the-art
// framework" (unnamed; the setup is NOT FOUND). Our strongest baseline stands in for it: the one of least
// energy × mean JCT (means over seeds), interference-aware at every load.
// Checked (--check; the reduced matrix, seeds 2026-2027 at load 1, unless --full): every run completes every
// job at its first attempt, each on a device of a type it accepts whose memory holds it; node energy = the
// nodes' baselines (4742 W) x makespan; exclusive runs one job per device, each at its device type's speed,
// and equals a brute-force strict-FCFS schedule of the trace by GPU type; per load, heshare's mean JCT and
// mean energy over the seeds are at most first-fit's (hard); with --full also: the table equals
// results.csv, the strongest baseline is interference-aware, and heshare's changes against it are pinned
// one-sided at today's values (the paper's −26 % / −31 % within 5 points would count as reproduced).
// Command: build/experiments/repro-heshare/colocsim-repro-heshare [--check] [--full] [--csv FILE]
#include "experiments/Driver.hpp"
#include "sim/Engine.hpp"
#include "sim/Metrics.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
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
    {"heshare-gpu-energy", "heshare:time_price_w=0,wait_for_faster=false", false},
    {"heshare-no-dvfs", "heshare:max_time_factor=1", false},
    {"heshare", "heshare", false},
};
const std::vector<std::string> BASELINES{"exclusive-fcfs", "first-fit", "best-fit", "interference-aware"};

/// The traces of make_trace.py: seed 2026 at load 1 is jobs.csv (the scenario's own).
struct PinRow {
  const char* load;
  double energy, jct;
};
/// Today's heshare change against interference-aware per load, rounded up to the next percent (--full).
const std::vector<PinRow> PINS{{"0.5", -0.02, -0.07}, {"1", -0.17, -0.04}, {"2", -0.12, -0.01}};

std::string trace_path(int seed, const std::string& load)
{
  return seed == 2026 && load == "1" ? DIR + "/jobs.csv"
                                     : DIR + "/traces/jobs-s" + std::to_string(seed) + "-l" + load + ".csv";
}

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
BruteForce fcfs_by_type(const Platform& platform, const std::string& trace)
{
  auto rows = experiments::read_csv_rows(trace);
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

Row run(const Config& c, const std::string& trace, BruteForce* brute)
{
  std::vector<std::string> sets{"workload.trace=" + trace};
  if (c.exclusive) sets.push_back("platform.sharing=exclusive");
  RunInputs in = build_run(load_scenario(DIR + "/scenario.yaml", experiments::with_env_sets(sets), c.policy));
  if (c.exclusive) *brute = fcfs_by_type(in.platform, trace);
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

/// Mean, sample standard deviation, least and largest.
struct Stat {
  double mean = 0, sd = 0, min = 0, max = 0;
};
Stat stat(const std::vector<double>& v)
{
  Stat s;
  if (v.empty()) return s;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  for (double x : v)
    s.mean += x / static_cast<double>(v.size());
  if (v.size() > 1) {
    double ss = 0;
    for (double x : v)
      ss += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  }
  return s;
}

} // namespace

namespace {

/// The drivers' common command line, with this driver's own flag --full (the whole matrix) taken out.
std::optional<experiments::DriverArgs> parse_args(int argc, char** argv, bool& full)
{
  full = false;
  std::vector<char*> common;
  for (int i = 0; i < argc; ++i)
    if (std::string_view(argv[i]) == "--full")
      full = true;
    else
      common.push_back(argv[i]);
  return experiments::parse_driver_args(static_cast<int>(common.size()), common.data(),
                                        "colocsim-repro-heshare");
}

/// runs[load][config] = one Row per seed
using Runs = std::map<std::string, std::map<std::string, std::vector<Row>>>;

/// The checks of one run, printed as it ends.
void check_run(const Row& r, const Config& c, const BruteForce& brute, const std::string& tag,
               experiments::Checks& checks)
{
  // Every job completes at its first attempt, on a device type it accepts that holds its memory.
  checks.expect(r.s.jobs_read == 120 && r.completed == 120 && r.s.oom_events == 0 && r.wrong == 0,
                tag + ", " + r.config +
                    ": 120 of 120 jobs complete at the first attempt, each on a device of a type it accepts "
                    "whose memory holds it");
  // The nodes are always on: node energy = Σ baselines (1650 + 2 x 206 + 4 x 670 W) x makespan.
  checks.expect(std::abs(r.baseline_w - 4742.0) < 1e-9 &&
                    std::abs(r.s.energy_node_j - r.baseline_w * r.s.makespan_s) < 1e-6 * r.s.energy_node_j,
                tag + ", " + r.config + ": node energy = 4742 W x makespan");
  if (!c.exclusive) return;
  // One job per device at a time, each at its device type's speed (no sharing slowdown), and the
  // brute-force strict-FCFS schedule by GPU type (fcfs_by_type), to 1e-6 of the makespan.
  checks.expect(
      r.overlapping == 0 && std::abs(r.max_sharing - 1) < 1e-9 && std::abs(r.min_sharing - 1) < 1e-9,
      tag + ", exclusive-fcfs: no two jobs overlap on a device; every job runs exactly at its device "
            "type's speed");
  const double tol = 1e-6 * brute.makespan_s;
  checks.near(r.s.makespan_s, brute.makespan_s, tol,
              tag + ", exclusive-fcfs: makespan = the brute-force strict-FCFS schedule by GPU type (s)");
  checks.near(r.s.wait_mean_s, brute.wait_mean_s, tol,
              tag + ", exclusive-fcfs: mean wait = the brute-force schedule's (s)");
  checks.near(r.s.jct_mean_s, brute.jct_mean_s, tol,
              tag + ", exclusive-fcfs: mean JCT = the brute-force schedule's (s)");
}

/// Every configuration on every (load, seed) trace, each run checked as it ends.
Runs run_matrix(const std::vector<std::string>& loads, const std::vector<int>& seeds,
                experiments::Checks& checks)
{
  Runs runs;
  for (const auto& load : loads)
    for (int seed : seeds) {
      const std::string trace = trace_path(seed, load);
      const std::string tag = "load " + load + " seed " + std::to_string(seed);
      BruteForce brute;
      for (const auto& c : CONFIGS) {
        Row r = run(c, trace, &brute);
        check_run(r, c, brute, tag, checks);
        runs[load][c.name].push_back(std::move(r));
      }
    }
  return runs;
}

template <class Field> std::vector<double> values(const std::vector<Row>& rows, Field field)
{
  std::vector<double> v;
  for (const auto& r : rows)
    v.push_back(field(r));
  return v;
}
double energy(const Row& r)
{
  return r.s.energy_total_j / 3.6e6;
}
double jct(const Row& r)
{
  return r.s.jct_mean_s;
}

/// One load's rows of the table (results.csv into `table`, stdout); gives its strongest baseline, the one
/// of least mean energy x mean JCT.
std::string report_load(const std::string& load, const Runs& runs, std::ostringstream& table)
{
  std::string strongest;
  char line[768];
  const auto& he = runs.at(load).at("heshare");
  double best = INFINITY;
  for (const auto& c : CONFIGS) {
    const auto& rows = runs.at(load).at(c.name);
    const Stat e = stat(values(rows, energy)), j = stat(values(rows, jct));
    const Stat g = stat(values(rows, [](const Row& r) { return r.s.energy_gpu_j / 3.6e6; }));
    const Stat w = stat(values(rows, [](const Row& r) { return r.s.wait_mean_s; }));
    const Stat m = stat(values(rows, [](const Row& r) { return r.s.makespan_s / 3600; }));
    std::vector<double> de, dj; // per seed: heshare's change against this config
    for (std::size_t i = 0; i < rows.size(); ++i) {
      de.push_back(energy(he[i]) / energy(rows[i]) - 1);
      dj.push_back(jct(he[i]) / jct(rows[i]) - 1);
    }
    const Stat se = stat(de), sj = stat(dj);
    const Stat he_e = stat(values(he, energy)), he_j = stat(values(he, jct));
    const double ce = he_e.mean / e.mean - 1, cj = he_j.mean / j.mean - 1;
    if (std::find(BASELINES.begin(), BASELINES.end(), c.name) != BASELINES.end() && e.mean * j.mean < best)
      best = e.mean * j.mean, strongest = c.name;
    std::snprintf(line, sizeof line,
                  "%s,%s,%zu,%.4f,%.4f,%.4f,%.1f,%.1f,%.1f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n",
                  load.c_str(), c.name.c_str(), rows.size(), e.mean, e.sd, g.mean, j.mean, j.sd, w.mean,
                  m.mean, m.sd, ce, se.min, se.max, cj, sj.min, sj.max);
    table << line;
    std::printf(
        "%-4s %-19s %6.2f ± %4.2f %6.2f %5.0f ± %4.0f %6.0f %5.2f ± %4.2f | %+6.1f%% (%+5.1f, %+5.1f) "
        "%+6.1f%% (%+5.1f, %+5.1f)\n",
        load.c_str(), c.name.c_str(), e.mean, e.sd, g.mean, j.mean, j.sd, w.mean, m.mean, m.sd, 100 * ce,
        100 * se.min, 100 * se.max, 100 * cj, 100 * sj.min, 100 * sj.max);
  }
  std::printf("load %s: strongest baseline (least mean energy x mean JCT): %s\n", load.c_str(),
              strongest.c_str());
  return strongest;
}

/// The table (results.csv, returned) and its printed form; `strongest` gets each load's strongest baseline.
std::string report(const std::vector<std::string>& loads, const Runs& runs,
                   std::map<std::string, std::string>& strongest)
{
  std::ostringstream table;
  table << "load,config,seeds,energy_total_kwh_mean,energy_total_kwh_sd,energy_gpu_kwh_mean,jct_mean_s_mean,"
           "jct_mean_s_sd,wait_mean_s_mean,makespan_h_mean,makespan_h_sd,heshare_energy_change,"
           "heshare_energy_change_min,heshare_energy_change_max,heshare_jct_change,heshare_jct_change_min,"
           "heshare_jct_change_max\n";
  std::printf("%-4s %-19s %13s %6s %12s %6s %11s | %-22s %-22s\n", "load", "config", "energy kWh", "GPU",
              "JCT s", "wait", "makespan h", "heshare energy (range)", "heshare JCT (range)");
  for (const auto& load : loads)
    strongest[load] = report_load(load, runs, table);
  std::printf(
      "HeShare (published, vs its unnamed state-of-the-art framework): energy -26.0%%, JCT -31.0%%\n");
  return table.str();
}

template <class Field>
double mean_of(const Runs& runs, const std::string& load, const std::string& config, Field field)
{
  return stat(values(runs.at(load).at(config), field)).mean;
}

/// Hard checks on every load: heshare against first-fit, and its DVFS.
void check_loads(const std::vector<std::string>& loads, const Runs& runs, experiments::Checks& checks)
{
  for (const auto& load : loads) {
    // Hard: never worse mean JCT than first-fit, at equal or lower mean energy (over the seeds).
    checks.at_most(mean_of(runs, load, "heshare", jct) / mean_of(runs, load, "first-fit", jct) - 1, 0.0,
                   "load " + load + ": heshare's mean JCT change against first-fit (at most 0)");
    checks.at_most(mean_of(runs, load, "heshare", energy) / mean_of(runs, load, "first-fit", energy) - 1, 0.0,
                   "load " + load + ": heshare's mean total energy change against first-fit (at most 0)");
  }
  for (const auto& load : loads) {
    // DVFS saves GPU energy: heshare's mean GPU energy is below heshare's without DVFS.
    auto gpu = [](const Row& r) { return r.s.energy_gpu_j; };
    checks.expect(mean_of(runs, load, "heshare", gpu) < mean_of(runs, load, "heshare-no-dvfs", gpu),
                  "load " + load +
                      ": heshare's DVFS lowers the mean GPU energy against heshare without DVFS");
  }
}

/// The paper (abstract): −26 % energy and −31 % JCT against its unnamed state-of-the-art framework. Our
/// strongest baseline stands in for it; were heshare within 5 points of both (≤ −21 %, ≤ −26 %), the claim
/// would count as reproduced. It is not (README.md "How close"): each gap is pinned at today's change
/// rounded up to the next percent, so that it can only shrink toward the paper.
void check_paper_pins(const Runs& runs, std::map<std::string, std::string>& strongest,
                      experiments::Checks& checks)
{
  for (const PinRow& p : PINS) {
    checks.expect(strongest[p.load] == "interference-aware",
                  std::string("load ") + p.load +
                      ": the strongest baseline (least energy x JCT) is interference-aware");
    checks.at_most(
        mean_of(runs, p.load, "heshare", energy) / mean_of(runs, p.load, "interference-aware", energy) - 1,
        p.energy,
        std::string("load ") + p.load +
            ": heshare's mean energy change against interference-aware (HeShare: -0.26; gap pinned, "
            "can only shrink)");
    checks.at_most(
        mean_of(runs, p.load, "heshare", jct) / mean_of(runs, p.load, "interference-aware", jct) - 1, p.jct,
        std::string("load ") + p.load +
            ": heshare's mean JCT change against interference-aware (HeShare: -0.31; gap pinned, can "
            "only shrink)");
  }
}

int driver_main(int argc, char** argv)
{
  bool full = false;
  const auto args = parse_args(argc, argv, full);
  if (!args) return 2;
  const std::vector<int> seeds =
      full ? std::vector<int>{2026, 2027, 2028, 2029, 2030} : std::vector<int>{2026, 2027};
  const std::vector<std::string> loads =
      full ? std::vector<std::string>{"0.5", "1", "2"} : std::vector<std::string>{"1"};

  experiments::Checks checks;
  const Runs runs = run_matrix(loads, seeds, checks);
  std::map<std::string, std::string> strongest; // per load: the baseline of least mean energy x mean JCT
  const std::string table = report(loads, runs, strongest);
  if (!args->csv.empty()) std::ofstream(args->csv) << table;
  if (!args->check) return checks.exit_status();

  check_loads(loads, runs, checks);
  if (!full) return checks.exit_status();
  // The printed table is the committed results.csv, line for line.
  checks.table_is_committed(DIR, table);
  check_paper_pins(runs, strongest, checks);
  return checks.exit_status();
}
} // namespace

int main(int argc, char** argv)
{
  return experiments::guarded_main("colocsim-repro-heshare", [&] { return driver_main(argc, argv); });
}
