// colocsim replay warns when the platform is far larger (or smaller) than what the trace uses, with the
// trace's peak and mean demand, a node count and the part of the energy that is idle baseline; and a
// platform sized to the trace gives interference-aware the room it needs (end to end, real ITP jobs).
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "cli/Cli.hpp"
#include "models/DeviceSpec.hpp"
#include "workloads/TraceFormats.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
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
  // 472 × that; 23 nodes of 12 tiles (276) hold it. --platform aurora asks for the whole preset.
  const auto dir = fresh_dir("sizing-aurora");
  const auto r = cli({"replay", ITP + "cluster05-rows1826-1925.csv", "--format", "itp", "--platform",
                      "aurora", "-o", (dir / "out").string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.err,
             ContainsSubstring("platform 'aurora' has 127488 devices, 472× what the trace ever uses") &&
                 ContainsSubstring("peak demand is 270.0 GPUs") &&
                 ContainsSubstring("--nodes 23 (12 devices each) holds the peak") &&
                 ContainsSubstring("is idle baseline"));
  // The head of cluster10 warns as well.
  const auto head = cli({"replay", ITP + "cluster10-head30.csv", "--format", "itp", "--platform", "aurora",
                         "-o", (dir / "head").string(), "--quiet"});
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

TEST_CASE("replay without --platform sizes the default platform to the trace and says so",
          "[cli][replay][sizing][defaults]")
{
  // The same 270-GPU burst: without --platform, 23 Aurora nodes (276 tiles), not all 127,488 tiles at a
  // utilisation of 0.0 %; no oversize warning; the saved scenario holds the node count, so a rerun is the
  // same run.
  const auto dir = fresh_dir("sizing-default");
  const auto r = cli({"replay", ITP + "cluster05-rows1826-1925.csv", "--format", "itp", "-o",
                      (dir / "out").string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.err, ContainsSubstring("--platform not given: aurora sized to the trace, 23 node(s) of 12 "
                                      "devices (276 devices) hold its peak demand of 270.0 GPUs"));
  CHECK_THAT(r.err, !ContainsSubstring("ever uses"));
  CHECK(summary_value(dir / "out", "devices") == 276);
  CHECK(summary_value(dir / "out", "utilization") > 0.01); // 0.0 % on all 127,488 tiles
  CHECK_THAT(slurp((dir / "out" / "scenario.yaml").string()), ContainsSubstring("nodes: \"23\""));
  fs::remove_all(dir);
}

TEST_CASE("replay errors name the option and not the staged scenario: time-slicing is time-slice and --help "
          "lists every sharing mode",
          "[cli][replay][defaults]")
{
  const auto dir = fresh_dir("replay-options");
  const std::string trace = ITP + "cluster10-head30.csv";
  // A bad --sharing: the message names the option; the staged scenario.yaml (removed when the run fails)
  // is not named.
  const auto bad = cli({"replay", trace, "--format", "itp", "--sharing", "timeslice", "--platform",
                        "aurora-node", "-o", (dir / "bad").string(), "--quiet"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, ContainsSubstring("command line --sharing: platform.sharing: unknown value (got "
                                        "'timeslice')"));
  CHECK_THAT(bad.err, !ContainsSubstring("partial") && !ContainsSubstring("scenario.yaml"));
  // A policy the platform cannot run names --policy.
  const auto policy = cli({"replay", trace, "--format", "itp", "--policy", "mig-manager", "--platform",
                           "aurora-node", "-o", (dir / "bad2").string(), "--quiet"});
  CHECK(policy.status == 2);
  CHECK_THAT(policy.err, ContainsSubstring("command line --policy: ") && !ContainsSubstring("partial"));

  // time-slicing, NVIDIA's and Kubernetes' name, is time-slice.
  const auto ts = cli({"replay", trace, "--format", "itp", "--sharing", "time-slicing", "--platform",
                       "aurora-node", "--nodes", "3", "-o", (dir / "ts").string(), "--quiet"});
  INFO(ts.err);
  REQUIRE(ts.status == 0);
  CHECK_THAT(slurp((dir / "ts" / "summary.json").string()), ContainsSubstring("\"sharing\": \"time-slice\""));

  const auto help = cli({"replay", "--help"});
  REQUIRE(help.status == 0);
  const auto from = help.out.find("--sharing MODE"), to = help.out.find("--policy NAME");
  REQUIRE(from != std::string::npos);
  const std::string sharing = help.out.substr(from, to - from);
  for (const auto& mode : colocsim::sharing_mode_names()) {
    INFO(mode);
    CHECK(std::regex_search(sharing, std::regex("[ ,(]" + mode + "[,) ]")));
  }
  CHECK_THAT(sharing, ContainsSubstring("time-slicing"));
  // --format names every registered trace format.
  const auto format_from = help.out.find("--format F"), format_to = help.out.find("--option K=V");
  REQUIRE(format_from != std::string::npos);
  const std::string formats = help.out.substr(format_from, format_to - format_from);
  for (const auto& name : colocsim::trace_format_names()) {
    INFO(name);
    CHECK(std::regex_search(formats, std::regex("[ ,]" + name + "[, ]")));
  }
  fs::remove_all(dir);
}

TEST_CASE("replay's progress line counts the trace's jobs", "[cli][replay][defaults]")
{
  // replay counts the jobs before the run (its sizing pass): the progress line says "N of 100 jobs read",
  // not "remaining unknown".
  const auto dir = fresh_dir("replay-progress");
  REQUIRE(
      colocsim::test::shell("COLOCSIM_PROGRESS=0.000001 " + std::string(COLOCSIM_BINARY) + " replay " + ITP +
                            "cluster05-rows1826-1925.csv --format itp --platform aurora-node --nodes 23 "
                            "-o " +
                            (dir / "out").string() + " > /dev/null 2> " + (dir / "err.txt").string()) == 0);
  const std::string err = slurp((dir / "err.txt").string());
  INFO(err);
  CHECK_THAT(err, ContainsSubstring(" of 100 jobs read, "));
  CHECK_THAT(err, !ContainsSubstring("remaining unknown"));
  fs::remove_all(dir);
}

TEST_CASE("out of memory under memory=declared on a trace that declares none suggests memory=profile",
          "[cli][defaults]")
{
  // oom.csv's two 40 GB `huge` jobs, here without a mem column: memory=declared takes 0 bytes for both and
  // first-fit puts them on one 64 GB tile; the second fails out of memory.
  const auto dir = fresh_dir("declared-none");
  {
    std::ofstream f(dir / "nomem.csv");
    f << "id,submit_s,duration_s,profile\nbig1,0,1000,huge\nbig2,10,1000,huge\n";
  }
  const std::string data = std::string(COLOCSIM_TEST_DATA) + "/sim/";
  const auto r = cli({"run", data + "base.yaml", "--set", "workload.trace=" + (dir / "nomem.csv").string(),
                      "--set", "policy.params.memory=declared", "-o", (dir / "out").string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(summary_value(dir / "out", "jobs_failed") == 1);
  CHECK_THAT(r.err,
             ContainsSubstring("places jobs by the memory the trace declares (memory=declared), and 2 of "
                               "2 jobs declare none (taken as 0 bytes); --policy first-fit:memory=profile"));
  // memory=profile: no out-of-memory, no warning.
  const auto p = cli({"run", data + "base.yaml", "--set", "workload.trace=" + (dir / "nomem.csv").string(),
                      "--set", "policy.params.memory=profile", "-o", (dir / "p").string(), "--quiet"});
  REQUIRE(p.status == 0);
  CHECK(summary_value(dir / "p", "jobs_failed") == 0);
  CHECK_THAT(p.err, !ContainsSubstring("memory=declared"));
  fs::remove_all(dir);
}
