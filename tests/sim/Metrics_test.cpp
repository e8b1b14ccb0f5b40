// Every metric a run reports, pinned to values worked out by hand: percentiles and the collector on
// made-up job records, and every field of summary.json, jobs.csv and timeseries.csv on two small runs of
// the real engine through the command line (fixtures tests/data/sim/metrics-*.csv on the two test tiles).
//
// Fixture numbers (tests/data/sim/calibration-test.yaml, profiles-test.yaml; as in Engine_test.cpp):
//   device power P = 100 + [resident]·20 + 100·u_vec (+ 50·u_xmx + 40·u_bw), u_vec = Σ vec_util · rate
//   node baseline 500 W; time-slice, table C|C = 1.25: two busy jobs on one tile run at rate 0.4 (2.5x)
//   busy: class C, vec 0.5 → 170 W alone;  light: class L, vec 0.1 → 130 W alone;  idle tile 100 W.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "cli/Cli.hpp"
#include "sim/Metrics.hpp"
#include "sim/Outputs.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <unistd.h>

using namespace colocsim;
using namespace colocsim::test;

namespace {
namespace fs = std::filesystem;

const std::string DATA = std::string(COLOCSIM_TEST_DATA) + "/sim/";

using Row = std::map<std::string, std::string>;

/// The rows of a CSV file without quoted fields, as column → text.
std::vector<Row> read_csv(const std::string& path)
{
  std::istringstream in(slurp(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::istringstream h(line);
    for (std::string c; std::getline(h, c, ',');)
      header.push_back(c);
  }
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    Row r;
    std::size_t from = 0;
    for (const auto& col : header) {
      const auto comma = line.find(',', from);
      r[col] = line.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      from = comma == std::string::npos ? line.size() : comma + 1;
    }
    rows.push_back(r);
  }
  return rows;
}

double num(const Row& r, const std::string& col)
{
  INFO("column " << col);
  REQUIRE(r.count(col) == 1);
  REQUIRE(!r.at(col).empty());
  return std::stod(r.at(col));
}

struct RunResult {
  std::string out, err, summary;
  std::map<std::string, Row> jobs;
  std::vector<std::string> job_order; ///< ids in the order of the rows
  std::vector<Row> series;

  /// A number of summary.json.
  double field(const std::string& key) const
  {
    std::smatch m;
    const std::regex re("\n  \"" + key + "\": ([^,\n]+)");
    INFO("summary.json key " << key);
    REQUIRE(std::regex_search(summary, m, re));
    return std::stod(m[1].str());
  }
  std::string text(const std::string& key) const
  {
    std::smatch m;
    const std::regex re("\n  \"" + key + "\": \"([^\"]*)\"");
    INFO("summary.json key " << key);
    REQUIRE(std::regex_search(summary, m, re));
    return m[1].str();
  }
};

RunResult run_fixture(const std::string& name, std::vector<std::string> args)
{
  const auto dir =
      fs::temp_directory_path() / ("colocsim-metrics-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  args.insert(args.begin(), {"run", DATA + "base.yaml"});
  args.insert(args.end(), {"-o", dir.string()});
  const auto run = colocsim::test::cli(args);
  INFO(run.err);
  REQUIRE(run.status == 0);
  RunResult r{run.out, run.err, slurp((dir / "summary.json").string()), {}, {}, {}};
  for (auto& row : read_csv((dir / "jobs.csv").string())) {
    r.job_order.push_back(row["id"]);
    r.jobs[row["id"]] = row;
  }
  r.series = read_csv((dir / "timeseries.csv").string());
  fs::remove_all(dir);
  return r;
}

JobRecord record(const Job& job, JobStatus status, double submit, double start, double last_start, double end)
{
  JobRecord r;
  r.job = &job;
  r.status = status;
  r.submit_s = submit;
  r.start_s = start;
  r.last_start_s = last_start;
  r.end_s = end;
  r.slowdown = status == JobStatus::COMPLETED ? (end - last_start) / job.duration_s : 0.0;
  return r;
}

} // namespace

TEST_CASE("percentiles are nearest rank: the value at rank ceil(q·n) of the sorted values", "[metrics]")
{
  // 1..20 in scrambled order. Ranks: p50 ⌈10⌉ = 10 → 10; p90 ⌈18⌉ = 18 → 18; p95 ⌈19⌉ = 19 → 19;
  // p99 ⌈19.8⌉ = 20 → 20; q = 0 → rank 1 → 1; q = 1 → 20.
  std::vector<double> v;
  for (int i = 0; i < 20; ++i)
    v.push_back(static_cast<double>((i * 7) % 20 + 1));
  CHECK(percentile(v, 0.50) == 10);
  CHECK(percentile(v, 0.90) == 18);
  CHECK(percentile(v, 0.95) == 19);
  CHECK(percentile(v, 0.99) == 20);
  CHECK(percentile(v, 0.0) == 1);
  CHECK(percentile(v, 1.0) == 20);
  // {30, 10, 20}: p50 rank ⌈1.5⌉ = 2 → 20; p95 rank ⌈2.85⌉ = 3 → 30; p34 rank ⌈1.02⌉ = 2 → 20; p33 rank 1.
  CHECK(percentile({30, 10, 20}, 0.50) == 20);
  CHECK(percentile({30, 10, 20}, 0.95) == 30);
  CHECK(percentile({30, 10, 20}, 0.34) == 20);
  CHECK(percentile({30, 10, 20}, 0.33) == 10);
  CHECK(percentile({7}, 0.5) == 7);
  CHECK(percentile({}, 0.5) == 0);
}

TEST_CASE("percentiles of several quantiles at once are those of a full sort", "[metrics]")
{
  // Against the definition computed by brute force: sort a copy, take rank ⌈q·n⌉. Values with many ties
  // (0..9) and without, sizes 1..200, quantiles with ties between them and at 0 and 1.
  std::mt19937 rng(7);
  const std::vector<double> qs{0.0, 0.01, 0.5, 0.5, 0.95, 0.99, 1.0};
  for (std::size_t n = 1; n <= 200; n += 13) {
    for (int ties = 0; ties < 2; ++ties) {
      std::vector<double> v(n);
      for (auto& x : v)
        x = ties ? static_cast<double>(rng() % 10) : std::uniform_real_distribution<double>(0, 1)(rng);
      auto sorted = v;
      std::sort(sorted.begin(), sorted.end());
      const auto got = percentiles(v, qs);
      REQUIRE(got.size() == qs.size());
      for (std::size_t i = 0; i < qs.size(); ++i) {
        const auto rank = static_cast<std::size_t>(std::ceil(qs[i] * static_cast<double>(n)));
        CHECK(got[i] == sorted[std::min(n - 1, rank == 0 ? 0 : rank - 1)]);
        CHECK(got[i] == percentile(v, qs[i]));
      }
    }
  }
  CHECK(percentiles({}, qs) == std::vector<double>(qs.size(), 0.0));
  const std::vector<double> descending{0.9, 0.5};
  CHECK_THROWS_AS(percentiles({1, 2, 3}, descending), std::invalid_argument);
}

TEST_CASE("the collector's percentiles, means and slowdowns on hand-made job records", "[metrics]")
{
  // 20 completed jobs i = 1..20: submit 0, start 5·i, end 10·i (JCT 10·i, wait 5·i, run 5·i, solo
  // duration 5·i: never slowed). JCT p50 = 100 (rank 10), p95 = 190 (rank 19; p90 would be 180), p99 = 200,
  // mean 105; wait p95 = 95, mean 52.5.
  std::vector<Job> jobs(23);
  MetricsCollector m;
  double bsld = 0;
  for (int i = 1; i <= 20; ++i) {
    jobs[i - 1].duration_s = 5.0 * i;
    m.add(record(jobs[i - 1], JobStatus::COMPLETED, 0, 5.0 * i, 5.0 * i, 10.0 * i));
    bsld += std::max(1.0, 10.0 * i / std::max(5.0 * i, 10.0)); // i = 1: 10/10 = 1; else 2
  }
  REQUIRE(bsld == 39.0);
  // A rejected and a never-started job count in neither JCT nor wait.
  jobs[20].duration_s = 10;
  m.add(record(jobs[20], JobStatus::REJECTED, 0, -1, -1, -1));
  m.add(record(jobs[20], JobStatus::NEVER_STARTED, 0, -1, -1, -1));
  RunTotals t;
  t.t_end_s = 200;
  t.completed = 20;
  t.device_count = 1;
  const Summary s = m.summarize(t, 1.0);
  CHECK(s.jct_p50_s == 100);
  CHECK(s.jct_p95_s == 190);
  CHECK(s.jct_p99_s == 200);
  CHECK_THAT(s.jct_mean_s, WithinRel(105.0, 1e-12));
  CHECK(s.wait_p95_s == 95);
  CHECK_THAT(s.wait_mean_s, WithinRel(52.5, 1e-12));
  // Bounded slowdown max(1, JCT / max(run, 10 s)): job 1 (run 5 s) 10 / 10 = 1, the others 10i / 5i = 2:
  // 39 / 20 = 1.95 (with τ = 1 s job 1 would give 2, mean 2). Solo durations equal the runs here.
  CHECK_THAT(s.bounded_slowdown_mean, WithinRel(1.95, 1e-12));
  CHECK_THAT(s.solo_bounded_slowdown_mean, WithinRel(1.95, 1e-12));
  CHECK_THAT(s.corun_slowdown_mean, WithinRel(1.0, 1e-12));
  CHECK_THAT(s.throughput_jobs_per_h, WithinRel(20 / (200.0 / 3600), 1e-12));
}

TEST_CASE("bounded slowdown divides by the actual runtime of the last attempt, not the solo duration",
          "[metrics]")
{
  // slowed: solo 100 s, submitted 0, started 20, slowed by sharing to end at 270 (run 250 s):
  //   standard max(1, 270 / 250) = 1.08;  against its solo duration max(1, 270 / 100) = 2.7.
  // retried: solo 30 s, submitted 0, first start 0, failed, last attempt 50..80 (run 30 s):
  //   standard 80 / 30 = 2.6667 (the failed attempt counts as waiting);  solo 80 / 30 the same.
  // short: solo 4 s, submitted 0, runs 6..10: standard max(1, 10 / max(4, 10)) = 1 (τ = 1 s: 2.5).
  Job slowed, retried, short_job;
  slowed.duration_s = 100;
  retried.duration_s = 30;
  short_job.duration_s = 4;
  MetricsCollector m;
  m.add(record(slowed, JobStatus::COMPLETED, 0, 20, 20, 270));
  m.add(record(retried, JobStatus::COMPLETED, 0, 0, 50, 80));
  m.add(record(short_job, JobStatus::COMPLETED, 0, 6, 6, 10));
  const Summary s = m.summarize(RunTotals{}, 1.0);
  CHECK_THAT(s.bounded_slowdown_mean, WithinRel((1.08 + 80.0 / 30 + 1) / 3, 1e-12));
  CHECK_THAT(s.solo_bounded_slowdown_mean, WithinRel((2.7 + 80.0 / 30 + 1) / 3, 1e-12));
}

TEST_CASE("a queueing run: every summary field, jobs.csv and timeseries.csv by hand", "[metrics]")
{
  // exclusive-fcfs, PUE 1.5. Schedule: j1 tile 0 0..100; j2 tile 1 0..50; j3 (submitted 10) tile 1 50..80;
  // j4 (submitted 20, 4 s) tile 1 80..84; j6 (3 devices) rejected by the policy at 20; j5 (gpu_types T4)
  // rejected by the engine at 30. Makespan 100 s.
  const auto r = run_fixture("queue", {"--set", "workload.trace=" + DATA + "metrics-queue.csv", "--policy",
                                       "exclusive-fcfs", "--set", "power.pue=1.5"});
  CHECK(r.text("scenario") == "engine-test");
  CHECK(r.text("policy") == "exclusive-fcfs");
  CHECK(r.text("sharing") == "time-slice");
  CHECK(r.text("interference") == "table");
  CHECK_THAT(r.text("calibration"), ContainsSubstring("calibration-test.yaml"));
  CHECK_THAT(r.text("workload"), ContainsSubstring("metrics-queue.csv"));
  CHECK(r.field("seed") == 1);
  CHECK_THAT(r.field("makespan_s"), WithinAbs(100.0, 1e-9));
  // Energy. Tile 0: 170 W × 100 s = 17,000 J. Tile 1: 170 W × 84 s + idle 100 W × 16 s = 15,880 J.
  // GPU 32,880 J; node 500 W × 100 s = 50,000 J; total (32,880 + 50,000) × 1.5 = 124,320 J.
  CHECK_THAT(r.field("energy_gpu_j"), WithinRel(32880.0, 1e-9));
  CHECK_THAT(r.field("energy_node_j"), WithinRel(50000.0, 1e-9));
  CHECK(r.field("pue") == 1.5);
  CHECK_THAT(r.field("energy_total_j"), WithinRel(124320.0, 1e-9));
  CHECK_THAT(r.field("edp_js"), WithinRel(124320.0 * 100, 1e-9));
  CHECK(r.field("jobs_read") == 6);
  CHECK(r.field("jobs_completed") == 4);
  CHECK(r.field("jobs_rejected") == 2);
  CHECK_THAT(
      r.summary,
      ContainsSubstring("\"jobs_by_reason\": {\n"
                        "    \"rejected: its gpu_types 'T4' name no device type of the platform\": 1,\n"
                        "    \"rejected: policy 'exclusive-fcfs': requests more devices than the platform "
                        "has\": 1\n  },\n"));
  CHECK(r.field("jobs_failed") == 0);
  CHECK(r.field("jobs_never_started") == 0);
  CHECK(r.field("jobs_cancelled") == 0);
  CHECK(r.field("oom_events") == 0);
  // JCT (end − submit): j1 100, j2 50, j3 80 − 10 = 70, j4 84 − 20 = 64. Sorted 50, 64, 70, 100: mean 71,
  // p50 rank ⌈2⌉ = 2 → 64, p95 rank ⌈3.8⌉ = 4 → 100, p99 → 100.
  CHECK_THAT(r.field("jct_mean_s"), WithinAbs(71.0, 1e-6));
  CHECK_THAT(r.field("jct_p50_s"), WithinAbs(64.0, 1e-6));
  CHECK_THAT(r.field("jct_p95_s"), WithinAbs(100.0, 1e-6));
  CHECK_THAT(r.field("jct_p99_s"), WithinAbs(100.0, 1e-6));
  // Wait (start − submit) of the 4 started jobs: 0, 0, 40, 60 → mean 25, p95 60 (j5, j6 never started).
  CHECK_THAT(r.field("wait_mean_s"), WithinAbs(25.0, 1e-6));
  CHECK_THAT(r.field("wait_p95_s"), WithinAbs(60.0, 1e-6));
  // Bounded slowdown max(1, JCT / max(run, 10)): j1 100/100 = 1, j2 1, j3 70/30, j4 64/max(4, 10) = 6.4.
  // Nothing shares, so runs equal solo durations and both variants agree.
  const double bsld = (1 + 1 + 70.0 / 30 + 6.4) / 4;
  CHECK_THAT(r.field("bounded_slowdown_mean"), WithinRel(bsld, 1e-9));
  CHECK_THAT(r.field("solo_bounded_slowdown_mean"), WithinRel(bsld, 1e-9));
  CHECK_THAT(r.field("corun_slowdown_mean"), WithinAbs(1.0, 1e-9));
  // Busy device time: tile 0 100 s, tile 1 50 + 30 + 4 = 84 s → 184 / (2 × 100) = 0.92; one job per busy
  // device; whole-device jobs allocate what is busy, nothing is fragmented. 4 jobs in 100 s = 144 jobs/h.
  CHECK_THAT(r.field("utilization"), WithinAbs(0.92, 1e-9));
  CHECK_THAT(r.field("colocation_mean"), WithinAbs(1.0, 1e-9));
  CHECK_THAT(r.field("allocation_mean"), WithinAbs(0.92, 1e-9));
  CHECK_THAT(r.field("fragmented_mean"), WithinAbs(0.0, 1e-12));
  CHECK_THAT(r.field("throughput_jobs_per_h"), WithinRel(144.0, 1e-9));
  // j3 and j4 wait only while both tiles are busy: no device sits idle next to a waiting job.
  CHECK(r.field("idle_while_waiting_s") == 0);
  // Events: submission batches at 0, 10, 20 (j5 was refused before reaching the policy), completions at
  // 50, 80, 84, 100. Exclusive jobs never change rate while running.
  CHECK(r.field("engine_events") == 7);
  CHECK(r.field("rate_updates") == 0);
  CHECK(r.field("wall_s") > 0);

  SECTION("jobs.csv")
  {
    // Rows in order of end: j6 (rejected at 20), j5 (at 30), j2 (50), j3 (80), j4 (84), j1 (100).
    CHECK(r.job_order == std::vector<std::string>{"j6", "j5", "j2", "j3", "j4", "j1"});
    struct Expect {
      const char* id;
      double submit, start, end;
      const char* devices;
      double energy;
    };
    // Energy: 170 W while alone on a tile: j1 × 100 s, j2 × 50, j3 × 30, j4 × 4.
    for (const Expect& e : {Expect{"j1", 0, 0, 100, "0", 17000}, Expect{"j2", 0, 0, 50, "1", 8500},
                            Expect{"j3", 10, 50, 80, "1", 5100}, Expect{"j4", 20, 80, 84, "1", 680}}) {
      INFO(e.id);
      const auto& row = r.jobs.at(e.id);
      CHECK_THAT(num(row, "submit_s"), WithinAbs(e.submit, 1e-9));
      CHECK_THAT(num(row, "start_s"), WithinAbs(e.start, 1e-6));
      CHECK_THAT(num(row, "end_s"), WithinAbs(e.end, 1e-6));
      CHECK(row.at("status") == "completed");
      CHECK(row.at("attempts") == "1");
      CHECK(row.at("devices") == e.devices);
      CHECK(row.at("profile") == "busy");
      CHECK_THAT(num(row, "slowdown"), WithinAbs(1.0, 1e-9));
      CHECK_THAT(num(row, "energy_j"), WithinRel(e.energy, 1e-9));
      CHECK_THAT(num(row, "jct_s"), WithinAbs(e.end - e.submit, 1e-6));
      CHECK_THAT(num(row, "wait_s"), WithinAbs(e.start - e.submit, 1e-6));
      CHECK(row.at("reason").empty());
    }
    const auto& j5 = r.jobs.at("j5");
    CHECK(j5.at("status") == "rejected");
    CHECK(j5.at("start_s").empty());
    CHECK(j5.at("attempts") == "0");
    CHECK(j5.at("slowdown").empty());
    CHECK(j5.at("jct_s").empty());
    CHECK(j5.at("wait_s").empty());
    CHECK(num(j5, "energy_j") == 0);
    CHECK(j5.at("reason") == "its gpu_types 'T4' name no device type of the platform");
    const auto& j6 = r.jobs.at("j6");
    CHECK(j6.at("status") == "rejected");
    CHECK(j6.at("reason") == "policy 'exclusive-fcfs': requests more devices than the platform has");
    // Per-job energies add up to the device energy less the idle time: 31,280 + 100 W × 16 s = 32,880 J.
    double sum = 0;
    for (const auto& [id, row] : r.jobs)
      sum += num(row, "energy_j");
    CHECK_THAT(sum + 1600.0, WithinRel(r.field("energy_gpu_j"), 1e-9));
  }

  SECTION("timeseries.csv")
  {
    // One row per instant with an event; power is constant until the next row.
    //   t    device W          node  total  busy running waiting
    //   0    170 + 170 = 340   500   840    2    2       0
    //   10   340               500   840    2    2       1   (j3 waits)
    //   20   340               500   840    2    2       2   (j4 waits)
    //   50   340               500   840    2    2       1   (j2 ends, j3 starts)
    //   80   340               500   840    2    2       0   (j3 ends, j4 starts)
    //   84   170 + 100 = 270   500   770    1    1       0
    //   100  200               500   700    0    0       0
    const double rows[][7] = {{0, 340, 500, 840, 2, 2, 0},  {10, 340, 500, 840, 2, 2, 1},
                              {20, 340, 500, 840, 2, 2, 2}, {50, 340, 500, 840, 2, 2, 1},
                              {80, 340, 500, 840, 2, 2, 0}, {84, 270, 500, 770, 1, 1, 0},
                              {100, 200, 500, 700, 0, 0, 0}};
    REQUIRE(r.series.size() == 7);
    const char* cols[] = {"t_s",          "device_power_w", "node_power_w", "total_power_w",
                          "busy_devices", "running_jobs",   "waiting_jobs"};
    for (std::size_t i = 0; i < 7; ++i)
      for (std::size_t c = 0; c < 7; ++c) {
        INFO("row " << i << " column " << cols[c]);
        CHECK_THAT(num(r.series[i], cols[c]), WithinAbs(rows[i][c], 1e-6));
      }
    // Σ total power × time to the next row = 840 × 84 + 770 × 16 = 82,880 J = GPU + node energy.
    double e = 0;
    for (std::size_t i = 0; i + 1 < r.series.size(); ++i)
      e += num(r.series[i], "total_power_w") * (num(r.series[i + 1], "t_s") - num(r.series[i], "t_s"));
    CHECK_THAT(e, WithinRel(82880.0, 1e-9));
  }

  SECTION("the printed summary")
  {
    CHECK_THAT(r.out, ContainsSubstring("makespan                100.0 s (0.03 h)"));
    // 124,320 J = 0.035 kWh; GPU 32,880 J = 0.009 kWh; node 50,000 J = 0.014 kWh.
    CHECK_THAT(r.out,
               ContainsSubstring("energy total            0.035 kWh (GPU 0.009, node 0.014, PUE 1.50)"));
    CHECK_THAT(r.out,
               ContainsSubstring("4 completed of 6 (0 failed, 2 rejected, 0 never started)\n"
                                 "    1 rejected: its gpu_types 'T4' name no device type of the platform\n"
                                 "    1 rejected: policy 'exclusive-fcfs': requests more devices than"));
    CHECK_THAT(r.out, ContainsSubstring("JCT mean / p95          71.0 / 100.0 s"));
    CHECK_THAT(r.out, ContainsSubstring("wait mean / p95         25.0 / 60.0 s"));
    CHECK_THAT(r.out, ContainsSubstring("bounded slowdown mean   2.683"));
    CHECK_THAT(r.out, ContainsSubstring("utilization             92.0 %"));
  }
}

TEST_CASE("a sharing run: co-location, allocation, fragmentation and per-job energy by hand", "[metrics]")
{
  // first-fit (2 per device), PUE 1.2. a and b share tile 0 at rate 0.4 (time-slice 2 × table 1.25 = 2.5)
  // and end at 250 s; q (light, gpu_milli 250) runs alone on tile 1, 0..100. Makespan 250 s.
  const auto r = run_fixture(
      "share", {"--set", "workload.trace=" + DATA + "metrics-share.csv", "--set", "power.pue=1.2"});
  CHECK(r.text("policy") == "first-fit");
  CHECK_THAT(r.field("makespan_s"), WithinAbs(250.0, 1e-6));
  // Tile 0: 100 + 20 + 100 · (0.5 · 0.4 · 2) = 160 W × 250 s = 40,000 J. Tile 1: 130 W × 100 s + 100 W ×
  // 150 s = 28,000 J. GPU 68,000 J; node 500 × 250 = 125,000 J; total 193,000 × 1.2 = 231,600 J.
  CHECK_THAT(r.field("energy_gpu_j"), WithinRel(68000.0, 1e-9));
  CHECK_THAT(r.field("energy_node_j"), WithinRel(125000.0, 1e-9));
  CHECK_THAT(r.field("energy_total_j"), WithinRel(231600.0, 1e-9));
  CHECK_THAT(r.field("edp_js"), WithinRel(231600.0 * 250, 1e-9));
  // JCT 250, 250, 100: mean 200, p50 rank 2 → 250, p95 → 250. No waits.
  CHECK_THAT(r.field("jct_mean_s"), WithinAbs(200.0, 1e-6));
  CHECK_THAT(r.field("jct_p50_s"), WithinAbs(250.0, 1e-6));
  CHECK_THAT(r.field("jct_p95_s"), WithinAbs(250.0, 1e-6));
  CHECK_THAT(r.field("wait_mean_s"), WithinAbs(0.0, 1e-9));
  // Nobody waited and each ran to its end: the standard bounded slowdown is 1 for all three. Against the
  // solo duration: a and b 250 / 100 = 2.5, q 1 → mean 2. Co-run slowdown (2.5 + 2.5 + 1) / 3 = 2.
  CHECK_THAT(r.field("bounded_slowdown_mean"), WithinAbs(1.0, 1e-9));
  CHECK_THAT(r.field("solo_bounded_slowdown_mean"), WithinAbs(2.0, 1e-9));
  CHECK_THAT(r.field("corun_slowdown_mean"), WithinAbs(2.0, 1e-9));
  // Busy: tile 0 250 s + tile 1 100 s = 350 of 500 device-s → 0.7. Residents × time: 2 × 250 + 1 × 100 =
  // 600 → 600 / 350 jobs per busy device. Allocated: tile 0 min(1, 2) × 250 + tile 1 0.25 × 100 = 275 →
  // 0.55; fragmented: tile 1 (1 − 0.25) × 100 = 75 → 0.15. Throughput 3 jobs / (250 s / 3600) = 43.2 /h.
  CHECK_THAT(r.field("utilization"), WithinAbs(0.7, 1e-9));
  CHECK_THAT(r.field("colocation_mean"), WithinRel(600.0 / 350.0, 1e-9));
  CHECK_THAT(r.field("allocation_mean"), WithinAbs(0.55, 1e-9));
  CHECK_THAT(r.field("fragmented_mean"), WithinAbs(0.15, 1e-9));
  CHECK_THAT(r.field("throughput_jobs_per_h"), WithinRel(43.2, 1e-9));
  CHECK(r.field("idle_while_waiting_s") == 0); // nobody waits
  // Per job: a and b each (100 + 20) / 2 static + 100 · 0.5 · 0.4 dynamic = 80 W × 250 s = 20,000 J;
  // q 130 W × 100 s = 13,000 J. With tile 1's 150 s idle (15,000 J): 53,000 + 15,000 = the GPU energy.
  CHECK(r.jobs.at("a").at("devices") == "0");
  CHECK(r.jobs.at("b").at("devices") == "0");
  CHECK(r.jobs.at("q").at("devices") == "1");
  CHECK_THAT(num(r.jobs.at("a"), "energy_j"), WithinRel(20000.0, 1e-9));
  CHECK_THAT(num(r.jobs.at("b"), "energy_j"), WithinRel(20000.0, 1e-9));
  CHECK_THAT(num(r.jobs.at("q"), "energy_j"), WithinRel(13000.0, 1e-9));
  CHECK_THAT(num(r.jobs.at("a"), "slowdown"), WithinAbs(2.5, 1e-9));
  CHECK_THAT(num(r.jobs.at("q"), "slowdown"), WithinAbs(1.0, 1e-9));
  CHECK_THAT(num(r.jobs.at("a"), "jct_s"), WithinAbs(250.0, 1e-6));
  CHECK_THAT(num(r.jobs.at("q"), "jct_s"), WithinAbs(100.0, 1e-6));
  // Time series: t 0: 160 + 130 = 290 W devices, 790 W total, 2 busy, 3 running; t 100: 160 + 100 = 260 W,
  // 1 busy, 2 running; t 250: 200 W, nothing running.
  REQUIRE(r.series.size() == 3);
  CHECK_THAT(num(r.series[0], "device_power_w"), WithinAbs(290.0, 1e-9));
  CHECK_THAT(num(r.series[0], "total_power_w"), WithinAbs(790.0, 1e-9));
  CHECK(num(r.series[0], "running_jobs") == 3);
  CHECK_THAT(num(r.series[1], "t_s"), WithinAbs(100.0, 1e-6));
  CHECK_THAT(num(r.series[1], "device_power_w"), WithinAbs(260.0, 1e-9));
  CHECK(num(r.series[1], "busy_devices") == 1);
  CHECK(num(r.series[1], "running_jobs") == 2);
  CHECK_THAT(num(r.series[2], "t_s"), WithinAbs(250.0, 1e-6));
  CHECK_THAT(num(r.series[2], "device_power_w"), WithinAbs(200.0, 1e-9));
  CHECK(num(r.series[2], "running_jobs") == 0);
}

namespace {
/// Places nothing, ever.
class PlacesNothing final : public Policy {
public:
  std::vector<Decision> decide(const ClusterView&, std::span<const Event>) override { return {}; }
};
} // namespace

TEST_CASE("a job that never starts, and one held by it, carry their reasons", "[metrics]")
{
  // metrics-never.csv: b depends on a; the policy never places a, so a never starts and b stays blocked.
  RunInputs in = build_run(load_scenario(DATA + "base.yaml", {"workload.trace=metrics-never.csv"}));
  in.policy = std::make_unique<PlacesNothing>();
  in.scenario.policy = "places-nothing";
  MetricsCollector m;
  std::map<std::string, JobRecord> jobs;
  struct Collect final : RunObserver {
    MetricsCollector& m;
    std::map<std::string, JobRecord>& jobs;
    Collect(MetricsCollector& mc, std::map<std::string, JobRecord>& j) : m(mc), jobs(j) {}
    void on_job_end(const JobRecord& r) override
    {
      m.add(r);
      jobs[r.job->id] = r;
    }
  } collect(m, jobs);
  const RunTotals t = run_simulation(in.setup(), collect);
  CHECK(t.never_started == 2);
  CHECK(jobs.at("a").status == JobStatus::NEVER_STARTED);
  CHECK(jobs.at("a").reason ==
        "policy 'places-nothing' left it waiting: nothing ran and nothing was left to arrive");
  CHECK(jobs.at("b").status == JobStatus::NEVER_STARTED);
  CHECK(jobs.at("b").reason == "a job it depends on never ran");
  const Summary s = m.summarize(t, 1.0);
  CHECK(s.jobs_by_reason ==
        std::map<std::string, std::uint64_t>{{"never-started: a job it depends on never ran", 1},
                                             {"never-started: policy 'places-nothing' left it waiting: "
                                              "nothing ran and nothing was left to arrive",
                                              1}});
}

TEST_CASE("every shipped scenario runs, and its outputs add up", "[metrics][scenarios]")
{
  // Every experiments/**/scenario.yaml and sim/scenarios/**/scenario.yaml, with both CSV files on; the
  // synthetic bench workload cut to 300 jobs (the traces are at most 200 jobs). Checked on each: every job is
  // accounted for once, in the summary and in jobs.csv; the energy of the time series equals the summary's;
  // total = (GPU + node) × PUE; ratios in their ranges; percentiles in order.
  std::vector<fs::path> shipped;
  for (const char* folder : {"experiments", "sim/scenarios"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(COLOCSIM_SOURCE_DIR) / folder))
      if (entry.path().filename() == "scenario.yaml") shipped.push_back(entry.path());
  int n = 0;
  for (const auto& path : shipped) {
    const auto file = path.string();
    INFO(file);
    const auto dir = fs::temp_directory_path() / ("colocsim-shipped-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    std::vector<std::string> args{
        "run", file,        "--quiet", "--set", "outputs.jobs=true", "--set", "outputs.timeseries=true",
        "-o",  dir.string()};
    const bool synthetic = slurp(file).find("synthetic:") != std::string::npos;
    if (synthetic) args.insert(args.end(), {"--set", "workload.synthetic.jobs=300"});
    const auto run = colocsim::test::cli(args);
    INFO(run.err);
    REQUIRE(run.status == 0);
    RunResult r{run.out, run.err, slurp((dir / "summary.json").string()), {}, {}, {}};
    const auto jobs = read_csv((dir / "jobs.csv").string());
    const auto series = read_csv((dir / "timeseries.csv").string());
    fs::remove_all(dir);
    ++n;

    const double read = r.field("jobs_read");
    CHECK(read > 0);
    if (synthetic) CHECK(read == 300);
    CHECK(r.field("jobs_completed") + r.field("jobs_failed") + r.field("jobs_rejected") +
              r.field("jobs_never_started") + r.field("jobs_cancelled") ==
          read);
    CHECK(static_cast<double>(jobs.size()) == read);
    std::map<std::string, double> per_status;
    for (const auto& row : jobs)
      per_status[row.at("status")] += 1;
    CHECK(per_status["completed"] == r.field("jobs_completed"));
    CHECK(per_status["rejected"] == r.field("jobs_rejected"));
    CHECK(per_status["never-started"] == r.field("jobs_never_started"));
    const double makespan = r.field("makespan_s");
    CHECK(makespan > 0);
    const double gpu = r.field("energy_gpu_j"), node = r.field("energy_node_j"), pue = r.field("pue");
    CHECK(gpu > 0);
    CHECK(pue >= 1);
    CHECK_THAT(r.field("energy_total_j"), WithinRel((gpu + node) * pue, 1e-12));
    CHECK_THAT(r.field("edp_js"), WithinRel(r.field("energy_total_j") * makespan, 1e-12));
    if (r.field("jobs_completed") > 0)
      CHECK_THAT(r.field("energy_per_completed_job_j"),
                 WithinRel(r.field("energy_total_j") / r.field("jobs_completed"), 1e-12));
    double e = 0;
    for (std::size_t i = 0; i + 1 < series.size(); ++i)
      e += num(series[i], "total_power_w") * (num(series[i + 1], "t_s") - num(series[i], "t_s"));
    CHECK_THAT(e, WithinRel(gpu + node, 1e-9));
    double job_energy = 0;
    for (const auto& row : jobs)
      job_energy += num(row, "energy_j");
    CHECK(job_energy <= gpu * (1 + 1e-12));
    const double util = r.field("utilization"), alloc = r.field("allocation_mean");
    CHECK(util > 0);
    CHECK(util <= 1 + 1e-12);
    CHECK(alloc <= util + 1e-12); // min(1, share) ≤ 1 per busy device-second
    CHECK(alloc + r.field("fragmented_mean") <= util + 1e-12);
    CHECK(r.field("colocation_mean") >= 1 - 1e-12);
    CHECK(r.field("jct_p50_s") <= r.field("jct_p95_s"));
    CHECK(r.field("jct_p95_s") <= r.field("jct_p99_s"));
    CHECK(r.field("wait_mean_s") >= 0);
    CHECK(r.field("bounded_slowdown_mean") >= 1);
    CHECK(r.field("solo_bounded_slowdown_mean") >= 1);
    CHECK_THAT(r.field("throughput_jobs_per_h"),
               WithinRel(r.field("jobs_completed") / makespan * 3600, 1e-12));
  }
  CHECK(n >= 8); // 6 under experiments/, the default and bench scenarios in sim/scenarios/
}

TEST_CASE("idle while waiting: device-seconds a free device that fits a waiting job sat idle", "[metrics]")
{
  // metrics-idle.csv under exclusive-fcfs on 2 tiles. j1 tile 0 0..100. j2 (2 devices, submitted 10) waits
  // for both tiles: one idle tile cannot take it, so 10..20 does not count. j3 (1 device, submitted 20)
  // fits the idle tile 1 but waits behind j2: 20..100 counts, 80 device-s. At 100 j2 takes both tiles
  // (100..150), then j3 runs 150..180: no idle tile while it waits. Makespan 180 s, device-time 360 s:
  // 80 / 360 = 22 % > 5 %, so the run warns and names the policy.
  std::ostringstream captured;
  auto* old = std::cerr.rdbuf(captured.rdbuf());
  const auto r = run_fixture(
      "idle", {"--set", "workload.trace=" + DATA + "metrics-idle.csv", "--policy", "exclusive-fcfs"});
  std::cerr.rdbuf(old);
  CHECK_THAT(r.field("makespan_s"), WithinAbs(180.0, 1e-6));
  CHECK_THAT(num(r.jobs.at("j3"), "start_s"), WithinAbs(150.0, 1e-6));
  CHECK_THAT(r.field("idle_while_waiting_s"), WithinAbs(80.0, 1e-6));
  CHECK_THAT(r.out, ContainsSubstring("idle while waiting      80.0 device-s"));
  CHECK_THAT(captured.str(),
             ContainsSubstring("warning: devices that could have run a waiting job sat idle for "
                               "80 device-s (22.2 % of device-time): policy 'exclusive-fcfs'"));
}

TEST_CASE("the summary's run totals: makespan from the first submission, energy with the PUE, device ratios",
          "[metrics]")
{
  // A run whose first job arrives at t = 50 and whose last event is at t = 250 on 4 devices:
  //   makespan 250 − 50 = 200 s (not 250); energy (1,000 J devices + 500 J nodes) × PUE 1.5 = 2,250 J;
  //   EDP 2,250 × 200 = 450,000 J·s; utilization 600 busy device-s / (4 × 200) = 0.75; allocation
  //   400 / 800 = 0.5; fragmented 80 / 800 = 0.1; co-location 900 resident-s / 600 busy device-s = 1.5;
  //   throughput 3 jobs / (200 / 3600 h) = 54 jobs/h.
  RunTotals t;
  t.t_first_submit_s = 50;
  t.t_end_s = 250;
  t.energy_device_j = 1000;
  t.energy_node_j = 500;
  t.busy_device_s = 600;
  t.resident_s = 900;
  t.allocated_device_s = 400;
  t.fragmented_device_s = 80;
  t.device_count = 4;
  t.completed = 3;
  const Summary s = MetricsCollector{}.summarize(t, 1.5);
  CHECK_THAT(s.makespan_s, WithinRel(200.0, 1e-12));
  CHECK_THAT(s.energy_gpu_j, WithinRel(1000.0, 1e-12));
  CHECK_THAT(s.energy_node_j, WithinRel(500.0, 1e-12));
  CHECK_THAT(s.energy_total_j, WithinRel(2250.0, 1e-12));
  CHECK_THAT(s.edp_js, WithinRel(450000.0, 1e-12));
  CHECK_THAT(s.utilization, WithinRel(0.75, 1e-12));
  CHECK_THAT(s.allocation_mean, WithinRel(0.5, 1e-12));
  CHECK_THAT(s.fragmented_mean, WithinRel(0.1, 1e-12));
  CHECK_THAT(s.colocation_mean, WithinRel(1.5, 1e-12));
  CHECK_THAT(s.throughput_jobs_per_h, WithinRel(54.0, 1e-12));
  CHECK_THAT(s.energy_per_completed_job_j, WithinRel(750.0, 1e-12)); // 2250 J / 3 completed
}

TEST_CASE("energy per completed job: total energy over the jobs that completed, null when none did",
          "[metrics]")
{
  // A run that loses jobs spends less in total: per completed job it is not cheaper.
  RunTotals t;
  t.t_first_submit_s = 0;
  t.t_end_s = 100;
  t.energy_device_j = 3000;
  t.energy_node_j = 1000;
  t.device_count = 1;
  t.jobs_read = 10;
  t.completed = 4;
  t.failed = 6;
  Summary s = MetricsCollector{}.summarize(t, 1.0);
  CHECK_THAT(s.energy_per_completed_job_j, WithinRel(1000.0, 1e-12));
  std::ostringstream printed;
  print_summary(s, printed);
  CHECK(printed.str().find("energy per job          0.3 Wh per completed job (total / 4)") !=
        std::string::npos);
  t.completed = 0;
  t.failed = 10;
  s = MetricsCollector{}.summarize(t, 1.0);
  CHECK(std::isnan(s.energy_per_completed_job_j));
  CHECK(find_summary_field("energy_per_completed_job_j")->json(s) == "null");
  printed.str("");
  print_summary(s, printed);
  CHECK(printed.str().find("energy per job          - (no job completed)") != std::string::npos);
}
