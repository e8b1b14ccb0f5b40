#pragma once
// What the experiment drivers share (compare-policies, repro-costa-sscad25, repro-mig-manager,
// repro-heshare): the command line `[--check] [--csv FILE]`, the checks that --check prints, one "ok "/"FAIL"
// line each, then PASS/FAIL, and the independent reference numbers the checks compare with: a published
// number with a stated tolerance (near), a pinned gap to a published number that can only shrink (at_least /
// at_most), and a brute-force schedule of strict FCFS on whole devices (fcfs_exclusive). A committed
// results.csv is only ever an extra, regression check beside these (table_is_committed).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace colocsim::experiments {

struct DriverArgs {
  bool check = false; ///< run the checks after printing the table
  std::string csv;    ///< write the table here as well (empty: do not)
};

/// Parses `[--check] [--csv FILE]`; anything else prints the usage line and gives nothing (exit status 2).
inline std::optional<DriverArgs> parse_driver_args(int argc, char** argv, const char* program)
{
  DriverArgs args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check") {
      args.check = true;
    } else if (a == "--csv" && i + 1 < argc) {
      args.csv = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--check] [--csv FILE]\n", program);
      return std::nullopt;
    }
  }
  return args;
}

/// Runs a driver's body; an exception (bad input: a scenario file, COLOCSIM_EXPERIMENT_SET) becomes one
/// "<program>: error: ..." line on stderr and exit status 2 instead of a crash.
template <class Body> int guarded_main(const char* program, Body&& body)
{
  try {
    return body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return 2;
  }
}

/// `sets` followed by the scenario settings of the environment variable COLOCSIM_EXPERIMENT_SET
/// ("key=value;key=value", as `colocsim run --set`), which every driver applies to every run after its own:
/// a way to perturb a model parameter and see the checks fail (experiments/README.md).
inline std::vector<std::string> with_env_sets(std::vector<std::string> sets)
{
  const char* env = std::getenv("COLOCSIM_EXPERIMENT_SET");
  if (!env) return sets;
  std::stringstream ss(env);
  for (std::string set; std::getline(ss, set, ';');)
    if (!set.empty()) sets.push_back(set);
  return sets;
}

/// The checks of one --check run: each prints its line; exit_status() says whether all held.
class Checks {
public:
  void expect(bool cond, const std::string& what)
  {
    std::printf("%s: %s\n", cond ? "ok  " : "FAIL", what.c_str());
    ok_ = ok_ && cond;
  }
  /// |value − target| ≤ tolerance: a published (or hand-computed) number, named in `what` with its source.
  void near(double value, double target, double tolerance, const std::string& what)
  {
    char numbers[160];
    std::snprintf(numbers, sizeof numbers, " [%.6g, target %.6g ± %.3g]", value, target, tolerance);
    expect(std::abs(value - target) <= tolerance, what + numbers);
  }
  /// value ≤ bound: a pinned gap (the bound is where the reproduction stands today, so the gap can only
  /// shrink) or an upper limit worked out by hand.
  void at_most(double value, double bound, const std::string& what)
  {
    char numbers[120];
    std::snprintf(numbers, sizeof numbers, " [%.6g <= %.6g]", value, bound);
    expect(value <= bound, what + numbers);
  }
  /// value ≥ bound (see at_most).
  void at_least(double value, double bound, const std::string& what)
  {
    char numbers[120];
    std::snprintf(numbers, sizeof numbers, " [%.6g >= %.6g]", value, bound);
    expect(value >= bound, what + numbers);
  }
  /// The printed table is the committed `dir`/results.csv, line for line.
  void table_is_committed(const std::string& dir, const std::string& table)
  {
    std::ifstream committed(dir + "/results.csv");
    std::stringstream text;
    text << committed.rdbuf();
    expect(text.str() == table, "the table equals results.csv (rerun with --csv " + dir +
                                    "/results.csv after a deliberate model change)");
  }
  int exit_status() const
  {
    std::printf("check: %s\n", ok_ ? "PASS" : "FAIL");
    return ok_ ? 0 : 1;
  }

private:
  bool ok_ = true;
};

/// One job of a brute-force schedule: submit time, run time on its devices, device count.
struct FcfsJob {
  double submit_s = 0, run_s = 0;
  std::size_t devices = 1;
};

struct FcfsResult {
  double makespan_s = 0, wait_mean_s = 0, jct_mean_s = 0; ///< makespan from the first submission
};

/// Strict FCFS on `n` identical devices, one job per device, no backfilling, worked out independently of the
/// engine: in submission order, job i starts at the earliest time that is ≥ its submission, ≥ the start of
/// job i − 1, and at which `devices` devices are free; it then holds them for run_s. A job that asks for
/// more than n devices throws.
inline FcfsResult fcfs_exclusive_nodes(std::vector<FcfsJob> jobs, std::size_t nodes, std::size_t per_node);
inline FcfsResult fcfs_exclusive(std::vector<FcfsJob> jobs, std::size_t n)
{
  return fcfs_exclusive_nodes(std::move(jobs), 1, n); // one node holding all n devices
}

/// The same on `nodes` nodes of `per_node` devices with gangs placed as policy.placement `pack` places them
/// (policies/GangRule.hpp): a job of at most `per_node` devices starts at the earliest such time at which one
/// node has `devices` free, on the lowest-numbered such node (devices free at that time are alike: strict
/// FCFS starts no later job earlier). Jobs larger than a node throw (not needed by the experiments).
inline FcfsResult fcfs_exclusive_nodes(std::vector<FcfsJob> jobs, std::size_t nodes, std::size_t per_node)
{
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const FcfsJob& a, const FcfsJob& b) { return a.submit_s < b.submit_s; });
  std::vector<std::vector<double>> free_at(nodes, std::vector<double>(per_node, -1e300));
  FcfsResult r;
  if (jobs.empty()) return r;
  double previous_start = -1e300, end = -1e300, wait = 0, jct = 0;
  for (const auto& j : jobs) {
    if (j.devices == 0 || j.devices > per_node)
      throw std::runtime_error("fcfs_exclusive_nodes: a job asks for 0 or more devices than a node has");
    double start = 1e300;
    for (auto& node : free_at) { // the earliest time any node has j.devices free
      std::sort(node.begin(), node.end());
      start = std::min(start, node[j.devices - 1]);
    }
    start = std::max({j.submit_s, previous_start, start});
    for (auto& node : free_at) // the first node with enough devices free at `start`
      if (node[j.devices - 1] <= start) {
        for (std::size_t d = 0; d < j.devices; ++d)
          node[d] = start + j.run_s;
        break;
      }
    previous_start = start;
    end = std::max(end, start + j.run_s);
    wait += start - j.submit_s;
    jct += start + j.run_s - j.submit_s;
  }
  const double count = static_cast<double>(jobs.size());
  r.makespan_s = end - jobs.front().submit_s;
  r.wait_mean_s = wait / count;
  r.jct_mean_s = jct / count;
  return r;
}

/// The rows of a small CSV file (lines starting with '#' skipped), each as header → field. No quoting.
inline std::vector<std::map<std::string, std::string>> read_csv_rows(const std::string& file)
{
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file);
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');)
      fields.push_back(f);
    if (header.empty()) {
      header = fields;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i)
      row[header[i]] = fields[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

} // namespace colocsim::experiments
