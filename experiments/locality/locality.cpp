// colocsim-locality: gang placement `pack` vs `spread` vs `any` on a real trace, with communication
// (README.md).
//
// Scenario (scenario.yaml): the 2,396 jobs of Microsoft ITP cluster06 (data/, ElasticFlow traces, MIT) on 16
// DGX A100 nodes, whole GPUs, strict FCFS (exclusive-fcfs); every job drawn to one of two data-parallel
// trainings that ring-all-reduce their gradients each step (profiles.yaml: ResNet-50 and BERT-large, step
// time and gradient bytes from published sources); durations are compute time with perfect scaling, so each
// placement adds the communication its layout costs. Each placement rule runs on the DGX A100's network
// (8 HDR NICs per node), on a what-if with one NIC per node (dgx-a100-1nic.yaml) and on that node under 4:1
// oversubscribed leaf switches of 4 nodes (dgx-a100-1nic-leaves.yaml, full mode only).
//
// Checked (--check, independent numbers; the full table by the command without --check):
//  (a) a hand-made trace (tiny.csv, 2 nodes x 8 GPUs, jobs of 6, 6 and 4 GPUs): where each job runs under
//      pack, any and spread (pack: B alone on node 1, C waits for A; any: B on 2 + 4 GPUs of nodes 0 and 1,
//      C starts at once), and every start, end and communication slowdown against the ring all-reduce time
//      of NCCL's cost model written out here with the platform's numbers (α–β per tier, factor c / (c + T));
//  (b) the real trace under pack and any (the whole trace) and spread (its first 20 days: spread's many
//      flows take ~2 min on the whole trace): every job completes; under pack no job that fits in one node
//      spans two, and a larger one spans exactly ⌈devices / 8⌉; any spans at least as many jobs as pack; no
//      link contention on the DGX A100's network; every communicating job's slowdown equals the hand formula
//      at its own placement (k nodes, g = the most GPUs on one of them).
//
//   colocsim-locality [--check] [--csv FILE]
#include "experiments/Driver.hpp"
#include "sim/Engine.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

using namespace colocsim;
using colocsim::experiments::Checks;

namespace {

const std::string DIR = COLOCSIM_EXPERIMENT_DIR;
constexpr unsigned GPUS_PER_NODE = 8; // DGX A100

// ---- the communication model written out by hand (models/Communication.hpp documents the same formula;
// nothing here calls it). Numbers of sim/platforms/dgx-a100.yaml, each with its source there.
constexpr double ALPHA_FABRIC_S = 3.4e-6;       // NCCL NVLink ring step latency (tuning.cc hwLat)
constexpr double BETA_FABRIC = 1 / 232e9;       // s/B: 8 A100 on NVSwitch, busbw 232 GB/s (nccl-tests#175)
constexpr double ALPHA_NIC_S = 27.95e-6;        // network-calibration's fit (nccl-tests#232)
constexpr double NIC_BYTES_PER_S = 24e9;        // one 200 Gb/s HDR NIC (nccl-tests#119 / 4)
constexpr double DGX_NICS = 8, WHATIF_NICS = 1; // dgx-a100.yaml; dgx-a100-1nic.yaml

// The two profiles of profiles.yaml: gradient bytes S and compute time c of one step, as rounded there
// (ResNet-50: 4 B x 25,557,032 parameters, 256 images / 2470 img/s; BERT-large: 2 B x 340 M parameters,
// 32 sequences / 110.5 seq/s).
struct StepFigures {
  double bytes, compute_s;
};
const std::map<std::string, StepFigures> PROFILES = {
    {"resnet50-dp-a100", {102.2e6, 0.1036}},
    {"bert-large-dp-a100", {680e6, 0.2896}},
};

/// Ring all-reduce of S bytes per rank over k nodes × g GPUs (NCCL's cost model): 2(n−1) steps, 2(k−1)
/// of them crossing nodes, each rank moving 2(n−1)/n · S over the slowest tier it uses.
double ring_time_s(double k, double g, double bytes, double nics)
{
  const double n = k * g;
  if (n < 2) return 0;
  const double beta_nic = 1 / (nics * NIC_BYTES_PER_S);
  const double beta = k == 1 ? BETA_FABRIC : g == 1 ? beta_nic : std::max(BETA_FABRIC, beta_nic);
  return (2 * (n - 1) - 2 * (k - 1)) * ALPHA_FABRIC_S + 2 * (k - 1) * ALPHA_NIC_S +
         2 * (n - 1) / n * bytes * beta;
}

/// The slowdown 1 / (c / (c + T)) of a job of `profile` at k nodes × g GPUs.
double hand_slowdown(const std::string& profile, double k, double g, double nics)
{
  const StepFigures& p = PROFILES.at(profile);
  return (p.compute_s + ring_time_s(k, g, p.bytes, nics)) / p.compute_s;
}

// ---- runs
struct JobOut {
  std::string id, profile;
  double submit_s = 0, start_s = -1, end_s = -1, duration_s = 0;
  unsigned devices = 0, nodes = 0, most_on_one_node = 0;
  std::vector<unsigned> node_list;
  double comm_slowdown = 1;
  bool communicated = false, contended = false, completed = false;
};

struct Collect final : RunObserver {
  std::vector<JobOut> jobs;
  void on_job_end(const JobRecord& r) override
  {
    JobOut j;
    j.id = r.job->id;
    j.profile = r.job->profile;
    j.submit_s = r.submit_s;
    j.start_s = r.start_s;
    j.end_s = r.end_s;
    j.duration_s = r.job->duration_s;
    j.devices = static_cast<unsigned>(r.job->devices);
    j.nodes = r.nodes;
    std::map<unsigned, unsigned> per_node;
    for (auto d : r.devices)
      ++per_node[d / GPUS_PER_NODE];
    for (const auto& [node, count] : per_node) {
      j.node_list.push_back(node);
      j.most_on_one_node = std::max(j.most_on_one_node, count);
    }
    j.comm_slowdown = r.comm_slowdown;
    j.communicated = r.communicated;
    j.contended = r.link_contended;
    j.completed = r.status == JobStatus::COMPLETED;
    jobs.push_back(std::move(j));
  }
};

struct Result {
  std::string network, placement;
  int nodes = 16;
  double makespan_s = 0, jct_mean_s = 0, jct_p95_s = 0, wait_mean_s = 0, energy_kwh = 0;
  double comm_slowdown_mean = 0, share_spanning = 0, share_fit_spanning = 0, share_contended = 0;
  std::size_t jobs = 0, completed = 0, spanning = 0, fit_spanning = 0, contended = 0, communicating = 0;
  double wall_s = 0;
  std::vector<JobOut> per_job;
};

Result run(const std::string& network, const std::string& placement, std::vector<std::string> sets,
           int nodes = 16)
{
  if (nodes != 16) sets.push_back("platform.nodes=" + std::to_string(nodes));
  sets.push_back("policy.placement=" + placement);
  const auto t0 = std::chrono::steady_clock::now();
  RunInputs in = build_run(load_scenario(DIR + "/scenario.yaml", experiments::with_env_sets(sets)));
  Collect c;
  const RunTotals t = run_simulation(in.setup(), c);
  Result r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.network = network;
  r.placement = placement;
  r.nodes = nodes;
  r.makespan_s = t.t_end_s - t.t_first_submit_s;
  r.energy_kwh = (t.energy_device_j + t.energy_node_j) / 3.6e6;
  std::vector<double> jct;
  double wait = 0, comm = 0;
  for (const auto& j : c.jobs) {
    ++r.jobs;
    if (!j.completed) continue;
    ++r.completed;
    jct.push_back(j.end_s - j.submit_s);
    wait += j.start_s - j.submit_s;
    if (j.nodes > 1) ++r.spanning;
    if (j.nodes > 1 && j.devices <= GPUS_PER_NODE) ++r.fit_spanning;
    if (j.contended) ++r.contended;
    if (j.communicated) {
      ++r.communicating;
      comm += j.comm_slowdown;
    }
  }
  const double n = static_cast<double>(r.completed);
  if (r.completed > 0) {
    double sum = 0;
    for (double v : jct)
      sum += v;
    r.jct_mean_s = sum / n;
    std::sort(jct.begin(), jct.end()); // nearest rank, as summary.json's jct_p95_s
    r.jct_p95_s = jct[static_cast<std::size_t>(std::ceil(0.95 * n)) - 1];
    r.wait_mean_s = wait / n;
    r.share_spanning = static_cast<double>(r.spanning) / n;
    r.share_fit_spanning = static_cast<double>(r.fit_spanning) / n;
    r.share_contended = static_cast<double>(r.contended) / n;
  }
  r.comm_slowdown_mean = r.communicating ? comm / static_cast<double>(r.communicating) : 1.0;
  r.per_job = std::move(c.jobs);
  return r;
}

std::string table(const std::vector<Result>& results)
{
  std::string out =
      "network,nodes,placement,jobs,completed,makespan_s,jct_mean_s,jct_p95_s,wait_mean_s,energy_kwh,"
      "comm_slowdown_mean,share_spanning,share_fit_spanning,share_link_contended\n";
  char line[400];
  for (const auto& r : results) {
    std::snprintf(line, sizeof line, "%s,%d,%s,%zu,%zu,%.0f,%.0f,%.0f,%.0f,%.1f,%.4f,%.4f,%.4f,%.4f\n",
                  r.network.c_str(), r.nodes, r.placement.c_str(), r.jobs, r.completed, r.makespan_s,
                  r.jct_mean_s, r.jct_p95_s, r.wait_mean_s, r.energy_kwh, r.comm_slowdown_mean,
                  r.share_spanning, r.share_fit_spanning, r.share_contended);
    out += line;
  }
  return out;
}

void print(const std::vector<Result>& results)
{
  std::printf("%-10s %5s %-7s %9s %9s %9s %9s %9s %8s %7s %7s %7s %6s\n", "network", "nodes", "place",
              "makespan_h", "jct_h", "jct_p95_h", "wait_h", "MWh", "comm", "span", "fitspan", "contend",
              "wall_s");
  for (const auto& r : results)
    std::printf("%-10s %5d %-7s %9.1f %9.2f %9.1f %9.2f %9.2f %8.4f %7.3f %7.3f %7.3f %6.1f\n",
                r.network.c_str(), r.nodes, r.placement.c_str(), r.makespan_s / 3600, r.jct_mean_s / 3600,
                r.jct_p95_s / 3600, r.wait_mean_s / 3600, r.energy_kwh / 1000, r.comm_slowdown_mean,
                r.share_spanning, r.share_fit_spanning, r.share_contended, r.wall_s);
}

const JobOut& job(const Result& r, const std::string& id)
{
  for (const auto& j : r.per_job)
    if (j.id == id) return j;
  throw std::runtime_error("no job '" + id + "' in the " + r.placement + " run");
}

/// (a) The hand-made trace on 2 DGX A100 nodes.
void check_tiny(Checks& checks)
{
  const std::vector<std::string> sets = {"workload.trace=tiny.csv", "workload.format=native",
                                         "platform.nodes=2"};
  const double f6 = hand_slowdown("bert-large-dp-a100", 1, 6, DGX_NICS); // 6 GPUs on one node
  const double f4 = hand_slowdown("bert-large-dp-a100", 1, 4, DGX_NICS);
  const double f2x4 = hand_slowdown("bert-large-dp-a100", 2, 4, DGX_NICS); // 2 + 4 GPUs: k = 2, g = 4
  const double f2x3 = hand_slowdown("bert-large-dp-a100", 2, 3, DGX_NICS);
  const double f2x2 = hand_slowdown("bert-large-dp-a100", 2, 2, DGX_NICS);
  const double tol = 1e-6;
  auto nodes_are = [&](const JobOut& j, std::vector<unsigned> want, const std::string& what) {
    checks.expect(j.node_list == want, what);
  };
  {
    const Result r = run("dgx-a100", "pack", sets);
    const JobOut &a = job(r, "A"), &b = job(r, "B"), &c = job(r, "C");
    nodes_are(a, {0}, "tiny pack: A (6 GPUs) on node 0 alone");
    nodes_are(b, {1}, "tiny pack: B (6 GPUs) on node 1 alone, not across nodes");
    nodes_are(c, {0}, "tiny pack: C (4 GPUs) on node 0 once A has left it");
    checks.near(a.end_s, 1000 * f6, tol, "tiny pack: A ends at 1000 s x (c + T(1x6)) / c (hand α–β)");
    checks.near(b.end_s, 10 + 1000 * f6, tol, "tiny pack: B ends at 10 + 1000 s x (c + T(1x6)) / c");
    checks.near(c.start_s, a.end_s, tol, "tiny pack: C waits for a whole node: starts when A ends (s)");
    checks.near(c.end_s, 1000 * f6 + 500 * f4, tol,
                "tiny pack: C ends at A's end + 500 s x (c + T(1x4)) / c");
    checks.near(b.comm_slowdown, f6, 1e-9, "tiny pack: B's comm slowdown = (c + T(1x6)) / c");
  }
  {
    const Result r = run("dgx-a100", "any", sets);
    const JobOut &a = job(r, "A"), &b = job(r, "B"), &c = job(r, "C");
    nodes_are(a, {0}, "tiny any: A on node 0");
    nodes_are(b, {0, 1}, "tiny any: B across nodes 0 and 1");
    checks.expect(b.most_on_one_node == 4, "tiny any: B holds 2 GPUs of node 0 and 4 of node 1 (g = 4)");
    nodes_are(c, {1}, "tiny any: C on the 4 GPUs left on node 1");
    checks.near(b.comm_slowdown, f2x4, 1e-9,
                "tiny any: B's comm slowdown = (c + T(2x4)) / c, T = 12 α_nvl + 2 α_nic + 1.75 S β_nic");
    checks.near(b.end_s, 10 + 1000 * f2x4, tol, "tiny any: B ends at 10 + 1000 s x (c + T(2x4)) / c");
    checks.near(c.start_s, 20, tol, "tiny any: C starts on arrival (s)");
    checks.near(c.end_s, 20 + 500 * f4, tol, "tiny any: C ends at 20 + 500 s x (c + T(1x4)) / c");
    checks.expect(!b.contended && !c.contended, "tiny any: no link contention (B alone crosses nodes)");
  }
  {
    const Result r = run("dgx-a100", "spread", sets);
    const JobOut &a = job(r, "A"), &b = job(r, "B"), &c = job(r, "C");
    checks.expect(a.node_list == std::vector<unsigned>{0, 1} && a.most_on_one_node == 3,
                  "tiny spread: A as 3 + 3 GPUs on both nodes");
    checks.expect(c.node_list == std::vector<unsigned>{0, 1} && c.most_on_one_node == 2,
                  "tiny spread: C as 2 + 2 GPUs on both nodes");
    checks.near(a.end_s, 1000 * f2x3, tol, "tiny spread: A ends at 1000 s x (c + T(2x3)) / c");
    checks.near(b.end_s, 10 + 1000 * f2x3, tol, "tiny spread: B ends at 10 + 1000 s x (c + T(2x3)) / c");
    checks.near(c.end_s, 20 + 500 * f2x2, tol, "tiny spread: C ends at 20 + 500 s x (c + T(2x2)) / c");
  }
  char numbers[200];
  std::snprintf(numbers, sizeof numbers,
                "tiny: hand slowdowns (c + T) / c for BERT-large: 1x6 %.5f, 1x4 %.5f, 2x4 %.5f, 2x3 %.5f, "
                "2x2 %.5f",
                f6, f4, f2x4, f2x3, f2x2);
  std::printf("      %s\n", numbers);
}

/// (b) Invariants of the real trace under one rule.
void check_trace(Checks& checks, const Result& r, double nics)
{
  const std::string p = r.network + " " + r.placement + ": ";
  checks.expect(r.completed == r.jobs && r.jobs > 0, p + "every job completes (" +
                                                         std::to_string(r.completed) + " of " +
                                                         std::to_string(r.jobs) + ")");
  std::size_t bad_pack = 0, bad_model = 0, checked = 0;
  double worst = 0;
  for (const auto& j : r.per_job) {
    if (r.placement == "pack") {
      const unsigned need = (j.devices + GPUS_PER_NODE - 1) / GPUS_PER_NODE;
      if (j.nodes != need) ++bad_pack;
    }
    if (j.communicated && !j.contended) {
      ++checked;
      const double want = hand_slowdown(j.profile, j.nodes, j.most_on_one_node, nics);
      const double err = std::abs(j.comm_slowdown - want) / want;
      worst = std::max(worst, err);
      if (err > 1e-9) ++bad_model;
    }
  }
  if (r.placement == "pack")
    checks.expect(bad_pack == 0, p +
                                     "no job that fits in a node spans two; a larger one spans exactly "
                                     "ceil(devices / 8) nodes (" +
                                     std::to_string(bad_pack) + " do not)");
  char numbers[160];
  std::snprintf(numbers, sizeof numbers, " (%zu jobs checked, worst relative error %.2g)", checked, worst);
  checks.expect(checked > 0 && bad_model == 0,
                p + "every communicating job's slowdown = the hand (c + T(k x g)) / c at its placement" +
                    numbers);
}

int driver_main(int argc, char** argv)
{
  const auto args = experiments::parse_driver_args(argc, argv, "colocsim-locality");
  if (!args) return 2;
  const std::vector<std::string> placements = {"pack", "spread", "any"};
  if (!args->check) {
    std::vector<Result> results;
    for (const auto& [network, sets] : std::vector<std::pair<std::string, std::vector<std::string>>>{
             {"dgx-a100", {}},
             {"1-nic", {"platform.preset=dgx-a100-1nic.yaml"}},
             {"1nic-4:1", {"platform.preset=dgx-a100-1nic-leaves.yaml"}}})
      for (const auto& placement : placements)
        results.push_back(run(network, placement, sets));
    // How the node count changes the picture (README.md, "Why 16 nodes"): pack and any only (spread takes
    // ~2 min a run).
    for (int nodes : {12, 14, 20, 24})
      for (const char* placement : {"pack", "any"})
        results.push_back(run("dgx-a100", placement, {}, nodes));
    print(results);
    if (!args->csv.empty()) {
      std::ofstream out(args->csv);
      out << table(results);
    }
    return 0;
  }

  Checks checks;
  check_tiny(checks);
  // The real trace: pack and any whole, spread on its first 20 days (README.md, "The check").
  const Result pack = run("dgx-a100", "pack", {});
  const Result any = run("dgx-a100", "any", {});
  const Result spread20 = run("dgx-a100", "spread", {"workload.transforms=window=..20d"});
  print({pack, any, spread20});
  check_trace(checks, pack, DGX_NICS);
  check_trace(checks, any, DGX_NICS);
  check_trace(checks, spread20, DGX_NICS);
  checks.at_least(static_cast<double>(any.spanning), static_cast<double>(pack.spanning),
                  "any spans at least as many jobs over nodes as pack");
  for (const Result* r : {&pack, &any, &spread20})
    checks.expect(r->contended == 0, r->placement +
                                         ": no job slowed by link contention on 8 HDR NICs per node (192 "
                                         "GB/s, far above any job's average rate)");
  // The README's two claims, on the whole trace: with 8 NICs per node communication costs little and pack's
  // wait for a whole node costs more (any's mean JCT at most pack's); with one NIC per node crossing nodes
  // costs more than waiting (pack's mean JCT below any's).
  checks.at_most(any.jct_mean_s, pack.jct_mean_s,
                 "8 NICs: any's mean JCT <= pack's (s; pack waits for whole nodes, crossing costs ~0.2 %)");
  const std::vector<std::string> one_nic = {"platform.preset=dgx-a100-1nic.yaml"};
  const Result pack1 = run("1-nic", "pack", one_nic), any1 = run("1-nic", "any", one_nic);
  checks.at_most(pack1.jct_mean_s, any1.jct_mean_s,
                 "1 NIC: pack's mean JCT <= any's (s; crossing a node costs 8x the bandwidth)");
  return checks.exit_status();
}

} // namespace

int main(int argc, char** argv)
{
  return experiments::guarded_main("colocsim-locality", [&] { return driver_main(argc, argv); });
}
