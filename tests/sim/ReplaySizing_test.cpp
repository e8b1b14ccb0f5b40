// colocsim replay warns when the platform is far larger (or smaller) than what the trace uses, with the
// trace's peak and mean demand, a node count and the part of the energy that is idle baseline; and a
// platform sized to the trace gives interference-aware the room it needs (end to end, real ITP jobs).
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "sim/cli/Cli.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

using colocsim::test::ContainsSubstring;
using colocsim::test::slurp;

namespace {
namespace fs = std::filesystem;

/// colocsim::test::cli, with what the run wrote to std::cerr (its warnings) added to `err`.
colocsim::test::CliResult cli(const std::vector<std::string>& args)
{
  std::ostringstream warnings;
  auto* old = std::cerr.rdbuf(warnings.rdbuf());
  auto r = colocsim::test::cli(args);
  std::cerr.rdbuf(old);
  r.err += warnings.str();
  return r;
}

const colocsim::test::ScratchDirs fresh_dir{"replay-sizing"};

double summary_value(const fs::path& dir, const std::string& key)
{
  const std::string s = slurp((dir / "summary.json").string());
  const auto at = s.find("\"" + key + "\": ");
  REQUIRE(at != std::string::npos);
  return std::stod(s.substr(at + key.size() + 4));
}

const std::string ITP = std::string(COLOCSIM_TEST_DATA) + "/workloads/itp/";
} // namespace

TEST_CASE("replay states the trace's peak and mean demand when the platform is far larger",
          "[cli][replay][sizing]")
{
  // Three jobs: a 2 GPUs [0, 100), b 4 GPUs [50, 150), c 1 GPU [100, 200). GPUs in use: 2 on [0, 50), 6 on
  // [50, 100), 5 on [100, 150) (a ends as c starts), 1 on [150, 200): peak 6. Mean: (2·100 + 4·100 + 1·100)
  // GPU·s over 200 s = 3.5. Ten aurora nodes hold 120 tiles = 20 × the peak; one node (12 tiles) holds it.
  const auto dir = fresh_dir("sizing-small");
  {
    std::ofstream f(dir / "three.csv");
    f << "job_id,submission_time,duration,num_gpu\na,0,100,2\nb,50,100,4\nc,100,100,1\n";
  }
  const auto r = cli({"replay", (dir / "three.csv").string(), "--format", "itp", "--platform", "aurora-node",
                      "--nodes", "10", "-o", (dir / "out").string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.err,
             ContainsSubstring("platform 'aurora-node' has 120 devices, 20× what the trace ever uses") &&
                 ContainsSubstring("peak demand is 6.0 GPUs, its mean 3.5 GPUs") &&
                 ContainsSubstring("--nodes 1 (12 devices each) holds the peak") &&
                 ContainsSubstring("is idle baseline") && ContainsSubstring("power-aware"));
  // The idle share: (1 − utilisation) × (node energy + device idle power × makespan) × PUE, with each of the
  // 120 tiles idling at the clock Aurora pins (1.5 GHz): 51.5 + 69.5 · (0.8509973 − 0.0152231) / 0.9847769
  // = 110.48423 W (models/README.md "Power"; not the 51.5 W of an unpinned tile at its idle clock).
  const auto out = dir / "out";
  const double total = summary_value(out, "energy_total_j");
  const double idle_j = std::min(
      total, summary_value(out, "pue") * (1.0 - summary_value(out, "utilization")) *
                 (summary_value(out, "energy_node_j") + 120 * 110.48423 * summary_value(out, "makespan_s")));
  char pct[32];
  std::snprintf(pct, sizeof pct, "(%.1f %%) is idle baseline", 100.0 * idle_j / total);
  CHECK_THAT(r.err, ContainsSubstring(pct));

  // Sized to the trace (one node, 12 tiles ≥ the peak of 6, < 10 × 6): no warning.
  const auto sized = cli({"replay", (dir / "three.csv").string(), "--format", "itp", "--platform",
                          "aurora-node", "-o", (dir / "sized").string(), "--quiet"});
  REQUIRE(sized.status == 0);
  CHECK_THAT(sized.err, !ContainsSubstring("peak demand"));

  // Smaller than the mean: three 8-GPU jobs at once for 100 s (mean = peak = 24 GPUs) on one DGX A100
  // (8 GPUs): three nodes hold the peak.
  {
    std::ofstream f(dir / "wide.csv");
    f << "job_id,submission_time,duration,num_gpu\na,0,100,8\nb,0,100,8\nc,0,100,8\n";
  }
  const auto small = cli({"replay", (dir / "wide.csv").string(), "--format", "itp", "--platform", "dgx-a100",
                          "-o", (dir / "wide").string(), "--quiet"});
  INFO(small.err);
  REQUIRE(small.status == 0);
  CHECK_THAT(small.err, ContainsSubstring("platform 'dgx-a100' has 8 devices, fewer than the trace's mean") &&
                            ContainsSubstring("peak demand is 24.0 GPUs, its mean 24.0 GPUs") &&
                            ContainsSubstring("--nodes 3 (8 devices each) holds the peak"));
  fs::remove_all(dir);
}

TEST_CASE("replaying real ITP slices on the whole Aurora preset warns and says how much energy is idle",
          "[cli][replay][sizing]")
{
  // cluster05 rows 1,826–1,925 peak at 270 GPUs (tests/data/workloads/itp/NOTICE.md): 127,488 tiles are
  // 472 × that; 23 nodes of 12 tiles (276) hold it.
  const auto dir = fresh_dir("sizing-aurora");
  const auto r = cli({"replay", ITP + "cluster05-rows1826-1925.csv", "--format", "itp", "-o",
                      (dir / "out").string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.err,
             ContainsSubstring("platform 'aurora' has 127488 devices, 472× what the trace ever uses") &&
                 ContainsSubstring("peak demand is 270.0 GPUs") &&
                 ContainsSubstring("--nodes 23 (12 devices each) holds the peak") &&
                 ContainsSubstring("is idle baseline"));
  // The head of cluster10 warns as well.
  const auto head = cli(
      {"replay", ITP + "cluster10-head30.csv", "--format", "itp", "-o", (dir / "head").string(), "--quiet"});
  REQUIRE(head.status == 0);
  CHECK_THAT(head.err, ContainsSubstring("platform 'aurora' has 127488 devices") &&
                           ContainsSubstring("is idle baseline"));
  fs::remove_all(dir);
}

TEST_CASE("interference-aware on 320 GPUs beats its own result on 64 GPUs for a trace that needs 270",
          "[cli][replay][interference-aware]")
{
  // The ITP burst above (peak 270 GPUs) on 8 and on 40 DGX A100 nodes. Two resnet50 training jobs on one
  // time-sliced GPU slow each other beyond max_slowdown 1.5, so every GPU holds one job: on 64 GPUs the
  // burst queues, on 320 it all runs at once. With a window of the first 64 devices, 320 GPUs gave exactly
  // the 64-GPU result.
  const auto dir = fresh_dir("ia-reach");
  auto run = [&](const std::string& nodes) {
    const auto out = dir / nodes;
    const auto r =
        cli({"replay", ITP + "cluster05-rows1826-1925.csv", "--format", "itp", "--platform", "dgx-a100",
             "--nodes", nodes, "--policy", "interference-aware", "-o", out.string(), "--quiet"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    return std::pair{summary_value(out, "jct_mean_s"), summary_value(out, "wait_mean_s")};
  };
  const auto [jct64, wait64] = run("8");
  const auto [jct320, wait320] = run("40");
  CHECK(wait320 < 0.5 * wait64);
  CHECK(jct320 < jct64);
  fs::remove_all(dir);
}
