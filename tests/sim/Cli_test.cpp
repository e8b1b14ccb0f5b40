// End-to-end tests of the colocsim command line, run in-process through run_cli().
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "cli/Cli.hpp"
#include "sim/Outputs.hpp"

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <streambuf>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>

using namespace colocsim::test;

namespace {
namespace fs = std::filesystem;

const colocsim::test::ScratchDirs scratch_dir{.prefix = "test", .create = false};
} // namespace

TEST_CASE("run with no scenario simulates the embedded default and writes the outputs", "[cli]")
{
  const auto dir = scratch_dir("default");
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
  const auto a = scratch_dir("det-a"), b = scratch_dir("det-b");
  for (const auto& d : {a, b}) {
    const std::string cmd = std::string(COLOCSIM_BINARY) + " run --quiet -o " + d.string();
    REQUIRE(colocsim::test::shell(cmd) == 0);
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
  const auto v = cli({"validate", std::string(COLOCSIM_SOURCE_DIR) + "/sim/scenarios/default/scenario.yaml"});
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
  const auto b = cli({"bench", "--jobs", "2000", "--tiles", "20", "--time-decisions"});
  INFO(b.err);
  REQUIRE(b.status == 0);
  for (const char* key : {"jobs=2000", "tiles=20", "wall_s=", "engine_events=4000",
                          "events_per_s=", "peak_rss_mb=", "jobs_completed=2000"})
    CHECK_THAT(b.out, ContainsSubstring(key));
  // Where the time went: setup (from before the scenario is read to the end of the policy's first call)
  // and simulation (from there to the last job's end) and teardown cover the whole simulation wall and more
  // (setup also holds the scenario and platform model, built before wall_s starts); the time inside the
  // policy's later calls is part of the simulation. Printed with 6 significant digits, hence the tolerances.
  std::map<std::string, double> v;
  std::istringstream lines(b.out);
  for (std::string l; std::getline(lines, l);)
    if (const auto eq = l.find('='); eq != std::string::npos && l.substr(0, eq) != "policy")
      v[l.substr(0, eq)] = std::stod(l.substr(eq + 1));
  for (const char* key : {"setup_wall_s", "simulation_wall_s", "policy_wall_s", "policy_calls", "setup_cpu_s",
                          "simulation_cpu_s", "policy_cpu_s", "simulation_us_per_job", "policy_us_per_job"})
    REQUIRE(v.count(key) == 1);
  REQUIRE(v.count("teardown_wall_s") == 1);
  REQUIRE(v.count("teardown_cpu_s") == 1);
  CHECK(v["setup_wall_s"] + v["simulation_wall_s"] + v["teardown_wall_s"] >= v["wall_s"] * (1 - 1e-5));
  CHECK(v["policy_wall_s"] <= v["simulation_wall_s"] * (1 + 1e-5));
  CHECK(v["policy_cpu_s"] <=
        v["simulation_cpu_s"] * (1 + 1e-5) + 1e-6); // the thread's share of the process's
  CHECK(v["policy_calls"] >= 1);
  // Job states kept at once: at least one, at most every job read.
  CHECK(v["peak_live_jobs"] >= 1);
  CHECK(v["peak_live_jobs"] <= 2000);
  CHECK(v["policy_calls"] < v["engine_events"]); // at most one call per instant with events, less the first
  // The per-job figures are CPU microseconds: the CPU seconds over the 2000 jobs.
  CHECK_THAT(v["simulation_us_per_job"], WithinRel(v["simulation_cpu_s"] / 2000 * 1e6, 1e-4));
  CHECK_THAT(v["policy_us_per_job"], WithinRel(v["policy_cpu_s"] / 2000 * 1e6, 1e-4) || WithinAbs(0, 1e-9));
  // The CPU time at the last job's end is a reading at most 1 ms old plus the wall time since: the teardown
  // after it cannot come out more than that below zero.
  CHECK(v["teardown_cpu_s"] >= -1e-3);

  // Without --time-decisions no CPU clock is read per decision (a system call each): the policy's CPU
  // figures are left out, everything else is there, and the run is the same.
  const auto quick = cli({"bench", "--jobs", "2000", "--tiles", "20"});
  REQUIRE(quick.status == 0);
  CHECK_THAT(quick.out, !ContainsSubstring("policy_cpu_s=") && !ContainsSubstring("policy_us_per_job="));
  for (const char* key :
       {"simulation_cpu_s=", "simulation_us_per_job=", "policy_wall_s=", "policy_calls=", "teardown_cpu_s="})
    CHECK_THAT(quick.out, ContainsSubstring(key));
  const auto makespan = [](const std::string& out) {
    return out.substr(out.find("makespan_s=")).substr(0, 30);
  };
  CHECK(makespan(quick.out) == makespan(b.out));
}

TEST_CASE("bench --platform dgx-a100 replays mig-manager on A100s in MIG mode", "[cli][mig]")
{
  // 20 devices round up to 3 DGX A100 nodes of 8 GPUs: 24.
  const auto b =
      cli({"bench", "--jobs", "300", "--tiles", "20", "--platform", "dgx-a100", "--policy", "mig-manager"});
  INFO(b.err);
  REQUIRE(b.status == 0);
  for (const char* key : {"jobs=300\n", "tiles=24\n", "policy=mig-manager\n", "jobs_completed=300\n"})
    CHECK_THAT(b.out, ContainsSubstring(key));
  // A policy that never names a MIG instance is refused there, and an unknown platform is a usage error.
  const auto ff =
      cli({"bench", "--jobs", "10", "--tiles", "8", "--platform", "dgx-a100", "--policy", "first-fit"});
  CHECK(ff.status == 2);
  CHECK_THAT(ff.err, ContainsSubstring("policy 'first-fit' needs platform.sharing"));
  const auto bad = cli({"bench", "--platform", "h100"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, ContainsSubstring("option --platform expects max1550 or dgx-a100 (got 'h100')"));
}

TEST_CASE("a run that fails on a bad trace row leaves no partial results behind", "[cli]")
{
  const auto dir = scratch_dir("failed");
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
  const auto dir = scratch_dir("replay");
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

/// id → (start_s, devices) of a run's jobs.csv (ids without commas).
std::map<std::string, std::pair<std::string, std::string>> job_starts(const fs::path& jobs_csv)
{
  std::map<std::string, std::pair<std::string, std::string>> rows;
  std::istringstream in(slurp(jobs_csv.string()));
  std::string line;
  std::getline(in, line); // id,submit_s,start_s,end_s,status,attempts,devices,...
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');)
      f.push_back(x);
    if (f.size() > 6) rows[f[0]] = {f[2], f[6]};
  }
  return rows;
}

TEST_CASE("replay --placement: gang jobs on two DGX A100 nodes", "[cli][replay][placement]")
{
  // tests/data/sim/gang-two-dgx.csv: A (6 GPUs, 100 s), B (6, 200 s), C (4, 50 s), all at 0, exclusive-fcfs
  // on 2 nodes of 8 A100s (devices 0-7 and 8-15). pack (the default): A on 0-5; B fits in one node, so it
  // takes node 1 alone (8-13), not 6-11; C (4) finds 2 free GPUs per node and waits until A ends at 100
  // (trace durations are times on the job's own GPUs: no scaling loss is added), then takes 0-3. any: B on
  // 6-11 across both nodes and C on 12-15 at 0, as before the rule. spread: one GPU per node in turn.
  const auto dir = scratch_dir("placement");
  const auto run = [&](const std::string& rule) {
    std::vector<std::string> args{"replay",     std::string(COLOCSIM_TEST_DATA) + "/sim/gang-two-dgx.csv",
                                  "--format",   "native",
                                  "--platform", "dgx-a100",
                                  "--nodes",    "2",
                                  "--sharing",  "exclusive",
                                  "--policy",   "exclusive-fcfs",
                                  "-o",         (dir / (rule.empty() ? "default" : rule)).string(),
                                  "--quiet"};
    if (!rule.empty()) args.insert(args.end(), {"--placement", rule});
    const auto r = cli(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return job_starts(dir / (rule.empty() ? "default" : rule) / "jobs.csv");
  };
  using Row = std::pair<std::string, std::string>;
  const auto pack = run("");
  CHECK(pack.at("A") == Row{"0", "0;1;2;3;4;5"});
  CHECK(pack.at("B") == Row{"0", "8;9;10;11;12;13"});
  CHECK(pack.at("C") == Row{"100", "0;1;2;3"});
  CHECK_THAT(slurp((dir / "default" / "summary.json").string()),
             ContainsSubstring("\"placement\": \"pack\""));
  const auto any = run("any");
  CHECK(any.at("B") == Row{"0", "6;7;8;9;10;11"});
  CHECK(any.at("C") == Row{"0", "12;13;14;15"});
  CHECK_THAT(slurp((dir / "any" / "summary.json").string()), ContainsSubstring("\"placement\": \"any\""));
  CHECK_THAT(slurp((dir / "any" / "scenario.yaml").string()), ContainsSubstring("placement: \"any\""));
  const auto spread = run("spread");
  CHECK(spread.at("A") == Row{"0", "0;1;2;8;9;10"});
  CHECK(spread.at("B") == Row{"0", "3;4;5;11;12;13"});
  CHECK(spread.at("C") == Row{"0", "6;7;14;15"});
  // An unknown rule: the saved scenario's line and key, and the rules accepted.
  const auto bad =
      cli({"replay", std::string(COLOCSIM_TEST_DATA) + "/sim/gang-two-dgx.csv", "--format", "native",
           "--platform", "dgx-a100", "--placement", "tight", "-o", (dir / "bad").string(), "--quiet"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err,
             ContainsSubstring("policy.placement: unknown placement rule 'tight'; expected pack, spread "
                               "or any"));
  fs::remove_all(dir);
}

TEST_CASE("generate writes a seeded synthetic trace and never overwrites without --force", "[cli][generate]")
{
  const auto dir = scratch_dir("generate");
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
  const auto dir = scratch_dir("attached");
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

namespace {
/// The entries of `dir` whose name starts with `prefix` (staging directories: ".NAME.partial-PID").
int count_entries(const fs::path& dir, const std::string& prefix)
{
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    n += e.path().filename().string().rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}
} // namespace

TEST_CASE("a run that fails leaves no output directory, and replay no scenario.yaml", "[cli][outputs]")
{
  const auto dir = scratch_dir("fails");
  fs::create_directories(dir);
  // The trace's rows name profiles of the test catalog, not the bundled one: the run stops at the first
  // row (exit 2), after replay wrote its scenario.yaml and the engine started.
  const auto r = cli({"replay", std::string(COLOCSIM_TEST_DATA) + "/sim/bad/unknown-profile.csv", "--format",
                      "native", "--platform", "aurora-node", "-o", (dir / "out").string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("unknown-profile.csv:2: profile: unknown profile 'busy'"));
  CHECK_FALSE(fs::exists(dir / "out"));
  CHECK(count_entries(dir, ".out.partial") == 0);

  SECTION("into an existing directory: the user's other files stay, and results appear only at the end")
  {
    fs::create_directories(dir / "mine");
    {
      std::ofstream(dir / "mine" / "notes.txt") << "keep me\n";
    }
    REQUIRE(cli({"run", "--quiet", "-o", (dir / "mine").string()}).status == 0);
    CHECK(slurp((dir / "mine" / "notes.txt").string()) == "keep me\n");
    CHECK(fs::exists(dir / "mine" / "summary.json"));
    // --force over those results without jobs.csv: the earlier jobs.csv does not stay behind.
    REQUIRE(cli({"run", "--quiet", "--force", "--set", "outputs.jobs=false", "-o", (dir / "mine").string()})
                .status == 0);
    CHECK_FALSE(fs::exists(dir / "mine" / "jobs.csv"));
    CHECK(fs::exists(dir / "mine" / "timeseries.csv"));
    CHECK(count_entries(dir, ".mine.partial") == 0);
  }
  fs::remove_all(dir);
}

TEST_CASE("a failed write is an error naming the file and the OS error", "[cli][outputs]")
{
  // A stream that takes 100 bytes, then fails as a full disk does.
  class FullAfter final : public std::streambuf {
  public:
    explicit FullAfter(std::size_t room) : room_(room) {}

  protected:
    int_type overflow(int_type c) override
    {
      if (room_ == 0) return traits_type::eof();
      --room_;
      return traits_type::not_eof(c);
    }

  private:
    std::size_t room_;
  };
  FullAfter buf(130);
  colocsim::MetricsCollector metrics;
  colocsim::OutputWriter writer(std::make_unique<std::ostream>(&buf), "injected/jobs.csv", nullptr, "",
                                metrics);
  colocsim::Job job;
  job.id = "a-job-with-a-long-name";
  job.profile = "busy";
  colocsim::JobRecord r;
  r.job = &job;
  r.status = colocsim::JobStatus::COMPLETED;
  r.start_s = r.last_start_s = 0;
  r.end_s = 10;
  // The header (116 bytes) fits; the first row does not.
  REQUIRE_THROWS_WITH(writer.on_job_end(r), ContainsSubstring("cannot write injected/jobs.csv"));

  // A real device that is always full.
  if (fs::exists("/dev/full"))
    REQUIRE_THROWS_WITH(colocsim::write_summary_json(colocsim::Summary{}, "/dev/full"),
                        ContainsSubstring("cannot write /dev/full: No space left on device"));
}

TEST_CASE("disk full: replaying 20,000 jobs into a 200 KB file system fails with the path and the error",
          "[cli][outputs]")
{
  const auto dir = scratch_dir("tmpfs");
  fs::create_directories(dir);
  if (!trace_and_small_tmpfs(dir, 200)) return;
  const std::string bin = COLOCSIM_BINARY;
  const auto mnt = dir / "small";
  const auto err = dir / "err.txt", out = dir / "out.txt";
  const int status =
      shell(bin + " replay " + (dir / "trace.csv").string() + " --format native --platform aurora-node -o " +
            (mnt / "out").string() + " > " + out.string() + " 2> " + err.string());
  const bool left_out = fs::exists(mnt / "out");
  const int staged = count_entries(mnt, ".out.partial");
  shell("umount " + mnt.string());
  INFO(slurp(err.string()));
  CHECK(status == 1);
  CHECK_THAT(slurp(err.string()), ContainsSubstring("cannot write " + mnt.string()) &&
                                      ContainsSubstring("No space left on device"));
  CHECK_THAT(slurp(out.string()), !ContainsSubstring("results in"));
  CHECK_FALSE(left_out);
  CHECK(staged == 0);
  fs::remove_all(dir);
}

TEST_CASE("Ctrl-C or SIGTERM stops a run: exit 130 or 143, one line, no output directory", "[cli][outputs]")
{
  // A run of 3 million synthetic jobs lasts far longer than the 3 s before the signal.
  // --foreground: timeout sends the signal to colocsim only. Without it, timeout also signals its whole
  // process group, so colocsim may receive the signal twice, and a second signal ends it at once (by design:
  // a second Ctrl-C), with no message: the test failed now and then on a loaded machine.
  const auto dir = scratch_dir("interrupt");
  fs::create_directories(dir);
  const std::string bin = COLOCSIM_BINARY;
  for (const auto& [sig, code] : {std::pair<std::string, int>{"INT", 130}, {"TERM", 143}}) {
    INFO("SIG" << sig);
    const auto err = dir / ("err-" + sig);
    const int status =
        shell("timeout --foreground --preserve-status -s " + sig + " 3 " + bin +
              " run builtin:sim/scenarios/bench/scenario.yaml --set workload.synthetic.jobs=3000000 -o " +
              (dir / "out").string() + " > /dev/null 2> " + err.string());
    const std::string text = slurp(err.string());
    INFO(text);
    CHECK(status == code);
    CHECK_THAT(text, ContainsSubstring("colocsim: interrupted by SIG" + sig + ", stopped at t=") &&
                         ContainsSubstring("no results written to " + (dir / "out").string()));
    CHECK_THAT(text,
               !ContainsSubstring("CTRL-C") && !ContainsSubstring("simgrid") && !ContainsSubstring("Actor"));
    CHECK_FALSE(fs::exists(dir / "out"));
    CHECK(count_entries(dir, ".out.partial") == 0);
  }
  fs::remove_all(dir);
}

namespace {
/// Waits up to `seconds` for process `pid` to exit (polling); kills it (SIGKILL) if it has not, so that a
/// broken run can never hang the test. Returns its exit status as waitpid gives it, or -1 if it was killed.
int wait_bounded(pid_t pid, int seconds)
{
  int status = 0;
  for (int polls = 0; polls < seconds * 200; ++polls) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    ::usleep(5000);
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1;
}

/// True once a staging directory ".out.partial-*" in `dir` holds `file`.
bool staged(const fs::path& dir, const std::string& file)
{
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind(".out.partial-", 0) == 0 && fs::exists(e.path() / file, ec))
      return true;
  return false;
}
} // namespace

TEST_CASE("Ctrl-C or SIGTERM during replay's demand pass: exit 130 or 143, the message, nothing left",
          "[cli][outputs]")
{
  // replay stages scenario.yaml, then reads the whole trace once for its demand (the sizing warnings)
  // before the run: 400,000 jobs keep it there far longer than it takes to see scenario.yaml and signal.
  const auto dir = scratch_dir("replay-interrupt");
  fs::create_directories(dir);
  {
    std::ofstream t(dir / "trace.csv");
    t << "id,submit_s,duration_s,profile\n";
    for (int i = 0; i < 400000; ++i)
      t << "j" << i << "," << i << ",100,resnet50-train-bs32\n";
  }
  for (const auto& [sig, code, name] :
       {std::tuple<int, int, std::string>{SIGINT, 130, "SIGINT"}, {SIGTERM, 143, "SIGTERM"}}) {
    INFO(name);
    const auto log = dir / ("log-" + name);
    const pid_t pid = spawn_colocsim({"replay", (dir / "trace.csv").string(), "--format", "native", "-o",
                                      (dir / "out").string(), "--quiet"},
                                     log);
    bool seen = false;
    int status = 0;
    bool exited = false;
    for (int polls = 0; polls < 60000 && !seen && !exited; ++polls) { // 1 ms each: a minute at most
      seen = staged(dir, "scenario.yaml");
      exited = !seen && ::waitpid(pid, &status, WNOHANG) == pid;
      if (!seen && !exited) ::usleep(1000);
    }
    INFO(slurp(log.string()));
    REQUIRE_FALSE(exited);
    REQUIRE(seen);
    REQUIRE(::kill(pid, sig) == 0);
    status = wait_bounded(pid, 60);
    const std::string text = slurp(log.string());
    INFO(text);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == code);
    CHECK_THAT(text, ContainsSubstring("colocsim: interrupted by " + name +
                                       ", before the simulation started; no results written to " +
                                       (dir / "out").string()));
    CHECK_FALSE(fs::exists(dir / "out"));
    CHECK(count_entries(dir, ".out.partial") == 0);
  }
  fs::remove_all(dir);
}

TEST_CASE("a staging directory a dead run left is named by the next run into the same directory, and kept",
          "[cli][outputs]")
{
  const auto dir = scratch_dir("leftover");
  fs::create_directories(dir);
  // A process that has ended (its id names no process now), and one still running.
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  REQUIRE(dead > 0);
  int status = 0;
  REQUIRE(::waitpid(dead, &status, 0) == dead);
  const pid_t alive = ::fork();
  if (alive == 0) {
    ::pause();
    ::_exit(0);
  }
  REQUIRE(alive > 0);
  const auto out = dir / "out";
  const auto of_dead = dir / (".out.partial-" + std::to_string(dead));
  const auto of_alive = dir / (".out.partial-" + std::to_string(alive));
  // This process's own id, left by a dead process that had it before: neither removed nor reused.
  const auto of_same = dir / (".out.partial-" + std::to_string(::getpid()));
  for (const auto& d : {of_dead, of_alive, of_same}) {
    fs::create_directories(d);
    std::ofstream(d / "jobs.csv") << "id\npartial\n";
  }
  std::ostringstream notes; // the run's notes go to std::cerr
  auto* old_cerr = std::cerr.rdbuf(notes.rdbuf());
  auto r = cli({"run", "-o", out.string(), "--quiet"});
  std::cerr.rdbuf(old_cerr);
  r.err += notes.str();
  ::kill(alive, SIGKILL);
  ::waitpid(alive, &status, 0);
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(fs::exists(out / "summary.json"));
  const std::string ended = " which ended before finishing (killed, crashed, or a Python policy called "
                            "os._exit): its files are incomplete and no results of it were written; "
                            "colocsim leaves it as it is; delete it (rm -r) once you no longer need it";
  CHECK_THAT(r.err, ContainsSubstring("colocsim: note: " + of_dead.string() +
                                      " is the staging directory of an earlier run into " + out.string() +
                                      " by process " + std::to_string(dead) + "," + ended));
  CHECK_THAT(r.err, ContainsSubstring("colocsim: note: " + of_same.string() +
                                      " is the staging directory of an earlier run into " + out.string() +
                                      " by process " + std::to_string(::getpid()) + "," + ended));
  CHECK_THAT(r.err, ContainsSubstring("colocsim: note: " + of_alive.string() +
                                      " is the staging directory of a "
                                      "run into " +
                                      out.string() + " by process " + std::to_string(alive) +
                                      ", which is still running: two runs are writing to the same output "
                                      "directory"));
  for (const auto& d : {of_dead, of_alive, of_same}) {
    INFO(d);
    CHECK(slurp((d / "jobs.csv").string()) == "id\npartial\n");
  }
  CHECK(count_entries(dir, ".out.partial") == 3); // this run's own is gone: its files are in out/
  fs::remove_all(dir);
}

TEST_CASE("profiles import-mig turns a MIG sweep into a profile key, a bad sweep is exit 2 with file:line",
          "[cli][profiles][mig]")
{
  // NJIT-MIG's GROMACS runs on an A100-80GB as a one-batch sweep: 43.28 / 118.59 = 0.36496 → 0.365,
  // 81.205 / 118.59 = 0.68476 → 0.6848, 115.507 / 118.59 = 0.97400 → 0.974 (4 significant digits).
  const auto dir = colocsim::test::fresh_dir("cli", "import-mig");
  const std::string sweep = (dir / "gromacs.csv").string();
  std::ofstream(sweep) << "batch,slice,throughput\n1,whole,118.59\n1,1g.10gb,43.28\n1,2g.20gb,81.205\n"
                          "1,3g.40gb,115.507\n";
  const auto ok = cli({"profiles", "import-mig", sweep, "--source", "NJIT-MIG"});
  INFO(ok.err);
  CHECK(ok.status == 0);
  CHECK_THAT(ok.out,
             ContainsSubstring("mig_speed: {value: {1g: 0.365, 2g: 0.6848, 3g: 0.974}, tag: measurement, "
                               "source: \"NJIT-MIG (batch 1)\"}"));

  const std::string bad = (dir / "bad.csv").string();
  std::ofstream(bad) << "batch,slice,throughput\n1,whole,118.59\n1,10gb,43.28\n";
  const auto err = cli({"profiles", "import-mig", bad});
  CHECK(err.status == 2);
  CHECK_THAT(err.err, ContainsSubstring(bad + ":3: slice: unknown slice (got '10gb')"));
  CHECK(cli({"profiles", "export"}).status == 2);
  CHECK(cli({"profiles", "import-mig"}).status == 2);
  CHECK_THAT(cli({"profiles", "--help"}).out, ContainsSubstring("usage: colocsim profiles import-mig"));
  std::filesystem::remove_all(dir);
}
