// End-to-end tests of the colocsim command line, run in-process through run_cli().
#include "tests/CatchCompat.hpp"

#include "sim/Cli.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using colocsim::run_cli;
using colocsim::test::ContainsSubstring;
using colocsim::test::slurp;

namespace {
namespace fs = std::filesystem;

struct Result {
  int status;
  std::string out, err;
};

Result cli(std::vector<std::string> args)
{
  std::ostringstream out, err;
  const int status = run_cli(args, out, err);
  return {status, out.str(), err.str()};
}

fs::path fresh_dir(const std::string& name)
{
  auto d = fs::temp_directory_path() / ("colocsim-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(d);
  return d;
}
} // namespace

TEST_CASE("run with no scenario simulates the embedded default and writes the outputs", "[cli]")
{
  const auto dir = fresh_dir("default");
  const auto r = cli({"run", "-o", dir.string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, ContainsSubstring("default-aurora-node") && ContainsSubstring("makespan"));
  const std::string summary = slurp((dir / "summary.json").string());
  for (const char* key :
       {"\"makespan_s\"", "\"energy_total_j\"", "\"energy_gpu_j\"", "\"jobs_completed\": 48",
        "\"jct_mean_s\"", "\"jct_p95_s\"", "\"wait_mean_s\"", "\"utilization\"", "\"colocation_mean\"",
        "\"oom_events\"", "\"scenario\": \"default-aurora-node\"", "\"policy\": \"first-fit\"",
        "\"seed\": 1"})
    CHECK_THAT(summary, ContainsSubstring(key));
  const std::string jobs = slurp((dir / "jobs.csv").string());
  CHECK(std::count(jobs.begin(), jobs.end(), '\n') == 49); // header + 48 jobs
  CHECK_THAT(slurp((dir / "timeseries.csv").string()), ContainsSubstring("t_s,device_power_w,node_power_w"));

  SECTION("a second run refuses to overwrite without --force, and keeps the files")
  {
    const auto before = slurp((dir / "summary.json").string());
    const auto again = cli({"run", "-o", dir.string(), "--set", "policy=exclusive-fcfs"});
    CHECK(again.status == 2);
    CHECK_THAT(again.err, ContainsSubstring("--force"));
    CHECK(slurp((dir / "summary.json").string()) == before);
    const auto forced = cli({"run", "-o", dir.string(), "--set", "policy=exclusive-fcfs", "--force"});
    CHECK(forced.status == 0);
    CHECK_THAT(slurp((dir / "summary.json").string()), ContainsSubstring("\"policy\": \"exclusive-fcfs\""));
  }
  fs::remove_all(dir);
}

TEST_CASE("the same scenario and seed give identical outputs", "[cli]")
{
  // Two separate processes of the real binary, as a user runs it. (Runs inside one process share SimGrid's
  // clock, which carries over from one engine to the next and can change the last bits; see sim/README.md.)
  const auto a = fresh_dir("det-a"), b = fresh_dir("det-b");
  for (const auto& d : {a, b}) {
    const std::string cmd = std::string(COLOCSIM_BINARY) + " run --quiet -o " + d.string();
    REQUIRE(std::system(cmd.c_str()) == 0);
  }
  CHECK(slurp((a / "jobs.csv").string()) == slurp((b / "jobs.csv").string()));
  CHECK(slurp((a / "timeseries.csv").string()) == slurp((b / "timeseries.csv").string()));
  CHECK(slurp((a / "summary.json").string()).substr(0, 200) ==
        slurp((b / "summary.json").string()).substr(0, 200));
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST_CASE("validate, policies, devices and help", "[cli]")
{
  const auto v =
      cli({"validate", std::string(COLOCSIM_SOURCE_DIR) + "/experiments/scenarios/default/scenario.yaml"});
  INFO(v.err);
  CHECK(v.status == 0);
  CHECK_THAT(v.out,
             ContainsSubstring("ok:") && ContainsSubstring("12 devices") && ContainsSubstring("48 jobs"));
  const auto bad = cli({"validate", std::string(COLOCSIM_TEST_DATA) + "/sim/bad/unknown-profile.yaml"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, ContainsSubstring("unknown-profile.csv:3"));
  const auto p = cli({"policies"});
  CHECK(p.status == 0);
  CHECK_THAT(p.out, ContainsSubstring("exclusive-fcfs") && ContainsSubstring("max_per_device"));
  const auto d = cli({"devices"});
  CHECK(d.status == 0);
  CHECK_THAT(d.out, ContainsSubstring("max1550-aurora-tile") && ContainsSubstring("vendor-spec"));
  for (const char* cmd : {"run", "validate", "policies", "devices", "bench"}) {
    const auto h = cli({cmd, "--help"});
    CHECK(h.status == 0);
    CHECK_THAT(h.out, ContainsSubstring("usage: colocsim"));
  }
  CHECK(cli({}).status == 0);
  const auto unknown = cli({"frobnicate"});
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.err, ContainsSubstring("unknown command 'frobnicate'; valid: run"));
  CHECK(cli({"run", "--bogus"}).status == 2);
}

TEST_CASE("bench prints its figures as key=value lines", "[cli]")
{
  const auto b = cli({"bench", "--jobs", "2000", "--tiles", "20"});
  INFO(b.err);
  REQUIRE(b.status == 0);
  for (const char* key : {"jobs=2000", "tiles=20", "wall_s=", "engine_events=4000",
                          "events_per_s=", "peak_rss_mb=", "jobs_completed=2000"})
    CHECK_THAT(b.out, ContainsSubstring(key));
}

TEST_CASE("a run that fails on a bad trace row leaves no partial results behind", "[cli]")
{
  const auto dir = fresh_dir("failed");
  const auto r =
      cli({"run", std::string(COLOCSIM_TEST_DATA) + "/sim/bad/unknown-profile.yaml", "-o", dir.string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("unknown-profile.csv:3"));
  CHECK(!fs::exists(dir / "jobs.csv"));
  CHECK(!fs::exists(dir / "timeseries.csv"));
  CHECK(!fs::exists(dir / "summary.json"));
  fs::remove_all(dir);
}

TEST_CASE("replay runs a trace file end to end and saves its scenario", "[cli][replay]")
{
  const auto dir = fresh_dir("replay");
  const auto r = cli({"replay", std::string(COLOCSIM_TEST_DATA) + "/workloads/itp/cluster10-head30.csv",
                      "--format", "itp", "--platform", "aurora-node", "--nodes", "2", "--policy",
                      "first-fit:max_per_device=3", "-o", dir.string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(slurp((dir / "summary.json").string()), ContainsSubstring("\"jobs_completed\": 30"));
  // summary.json records where the jobs came from (format, file, profile mapping).
  CHECK_THAT(slurp((dir / "summary.json").string()),
             ContainsSubstring("\"workload\": \"itp ") &&
                 ContainsSubstring("cluster10-head30.csv; profiles: "));
  // The saved scenario records the policy as chosen, so rerunning it gives the same run.
  const std::string saved = slurp((dir / "scenario.yaml").string());
  CHECK_THAT(saved, ContainsSubstring("format: \"itp\"") && ContainsSubstring("name: \"first-fit\"") &&
                        ContainsSubstring("max_per_device: \"3\""));
  const auto again =
      cli({"run", (dir / "scenario.yaml").string(), "-o", (dir / "again").string(), "--quiet"});
  CHECK(again.status == 0);
  const auto params = [](const std::string& summary) {
    return summary.substr(summary.find("\"policy_params\"")).substr(0, 60);
  };
  CHECK(params(slurp((dir / "again" / "summary.json").string())) ==
        params(slurp((dir / "summary.json").string())));
  CHECK_THAT(slurp((dir / "again" / "summary.json").string()), ContainsSubstring("max_per_device=3"));
  CHECK(cli({"replay", "x.csv"}).status == 2); // --format is required
  const auto f = cli({"formats"});
  CHECK_THAT(f.out, ContainsSubstring("native") && ContainsSubstring("swf") && ContainsSubstring("itp"));
  fs::remove_all(dir);
}

TEST_CASE("generate writes a seeded synthetic trace and never overwrites without --force", "[cli][generate]")
{
  const auto dir = fresh_dir("generate");
  fs::create_directories(dir);
  const auto a = (dir / "a.csv").string(), b = (dir / "b.csv").string();
  REQUIRE(cli({"generate", "--jobs", "200", "--seed", "7", "-o", a}).status == 0);
  REQUIRE(cli({"generate", "--jobs", "200", "--seed", "7", "-o", b}).status == 0);
  CHECK(slurp(a) == slurp(b));
  const std::string text = slurp(a);
  CHECK(std::count(text.begin(), text.end(), '\n') == 201);
  const auto again = cli({"generate", "--jobs", "10", "-o", a});
  CHECK(again.status == 2);
  CHECK_THAT(again.err, ContainsSubstring("exists; pass --force"));
  CHECK(slurp(a) == slurp(b));
  CHECK(cli({"generate", "--jobs", "0", "-o", (dir / "c.csv").string()}).status == 2);
  fs::remove_all(dir);
}

TEST_CASE("a short option's value may be attached: -j2 is -j 2, -oDIR is -o DIR", "[cli]")
{
  const auto dir = fresh_dir("attached");
  fs::create_directories(dir);
  const auto spec = (dir / "spec.yaml").string();
  {
    std::ofstream f(spec);
    f << "axes: {policy: [first-fit, exclusive-fcfs]}\n";
  }
  const auto spaced = cli({"sweep", spec, "--dry-run", "-j", "2", "-o", (dir / "x").string()});
  const auto attached = cli({"sweep", spec, "--dry-run", "-j2", "-o" + (dir / "x").string()});
  INFO(attached.err);
  CHECK(spaced.status == 0);
  CHECK(attached.status == 0);
  CHECK(attached.out == spaced.out);
  const auto bad = cli({"sweep", spec, "-j0"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, ContainsSubstring("option -j expects a number of runs at a time, 1..1024 (got '0')"));
  // run: -oDIR writes into DIR.
  REQUIRE(cli({"run", "--quiet", "-o" + (dir / "run").string()}).status == 0);
  CHECK(fs::exists(dir / "run" / "summary.json"));
  fs::remove_all(dir);
}
