// `colocsim sweep`: the product of axes and seeds, runs that are exactly `colocsim run`, the output-directory
// rules (--resume, --force), a failing run, and spec errors at their place in the spec. The sweep runs in
// process through run_cli(); its runs are real colocsim processes (COLOCSIM_EXE points at the binary).
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "cli/Cli.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <unistd.h>

using namespace colocsim::test;

namespace {
namespace fs = std::filesystem;

const colocsim::test::ScratchDirs scratch_dir{"sweep-test"};

std::size_t column(const std::vector<std::string>& header, const std::string& name)
{
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  FAIL("no column " << name);
  return 0;
}

const char* const SPEC = R"(name: policies
description: two policies x two sharing modes x two seeds on the default scenario
set:
  outputs.timeseries: false
axes:
  policy: [first-fit, exclusive-fcfs]
  platform.sharing: [time-slice, ccs-2]
seeds: [1, 2]
metrics: [makespan_s, wait_mean_s]
)";
} // namespace

TEST_CASE("sweep runs every combination of axes and seeds, each exactly as colocsim run", "[cli][sweep]")
{
  const auto dir = scratch_dir("product");
  write_file(dir / "spec.yaml", SPEC);
  const auto r =
      cli_spawning_binary({"sweep", (dir / "spec.yaml").string(), "-j", "2", "-o", (dir / "out").string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, ContainsSubstring("8 runs (8 ok, 0 failed, 0 done earlier)"));

  const auto rows = read_csv_cells(dir / "out" / "sweep.csv");
  REQUIRE(rows.size() == 9);
  const auto& h = rows[0];
  CHECK(h[0] == "run");
  CHECK(h[1] == "status");
  CHECK(h[2] == "policy");
  CHECK(h[3] == "platform.sharing");
  CHECK(h[4] == "seed");
  // Run order: the first axis varies slowest, the seeds fastest.
  CHECK(rows[1][0] == "run-0001");
  CHECK(rows[1][2] == "first-fit");
  CHECK(rows[1][3] == "time-slice");
  CHECK(rows[1][4] == "1");
  CHECK(rows[2][4] == "2");
  CHECK(rows[3][3] == "ccs-2");
  CHECK(rows[5][2] == "exclusive-fcfs");
  CHECK(rows[5][3] == "time-slice");
  CHECK(rows[8][0] == "run-0008");
  for (std::size_t i = 1; i < rows.size(); ++i)
    CHECK(rows[i][1] == "ok");

  // run-0007 (exclusive-fcfs, ccs-2, seed 1) is the run `colocsim run` gives with the same arguments.
  const auto direct = dir / "direct";
  const std::string cmd = std::string(COLOCSIM_BINARY) +
                          " run --set outputs.timeseries=false --set platform.sharing=ccs-2 --set seed=1 "
                          "--policy exclusive-fcfs --quiet -o " +
                          direct.string();
  REQUIRE(colocsim::test::shell(cmd) == 0);
  CHECK(slurp((direct / "jobs.csv").string()) == slurp((dir / "out" / "run-0007" / "jobs.csv").string()));
  CHECK(slurp((direct / "summary.json").string()).substr(0, 300) ==
        slurp((dir / "out" / "run-0007" / "summary.json").string()).substr(0, 300));
  // Sharing changes the result: the sweep did not run one configuration eight times.
  const auto m = column(h, "makespan_s");
  CHECK(rows[1][m] != rows[3][m]);
  CHECK(rows[1][m] != rows[5][m]);
  CHECK(rows[1][m] == rows[2][m]); // a trace-driven scenario: the seed changes nothing here
  CHECK_THAT(slurp((dir / "out" / "runs.txt").string()),
             ContainsSubstring("run-0007  colocsim run builtin:sim/scenarios/default/scenario.yaml"));
  fs::remove_all(dir);
}

TEST_CASE("sweep never overwrites an earlier sweep unless asked, --resume runs only what is missing",
          "[cli][sweep]")
{
  const auto dir = scratch_dir("resume");
  write_file(dir / "spec.yaml", SPEC);
  const auto spec = (dir / "spec.yaml").string(), out = (dir / "out").string();
  REQUIRE(cli_spawning_binary({"sweep", spec, "-j", "2", "-o", out, "--quiet"}).status == 0);
  const std::string before = slurp((dir / "out" / "run-0004" / "summary.json").string());

  const auto again = cli_spawning_binary({"sweep", spec, "-o", out});
  CHECK(again.status == 2);
  CHECK_THAT(again.err, ContainsSubstring("already holds a sweep") && ContainsSubstring("--resume"));
  CHECK(slurp((dir / "out" / "run-0004" / "summary.json").string()) == before);

  fs::remove_all(dir / "out" / "run-0004");
  const auto resumed = cli_spawning_binary({"sweep", spec, "-o", out, "--resume"});
  INFO(resumed.err);
  CHECK(resumed.status == 0);
  CHECK_THAT(resumed.out, ContainsSubstring("8 runs (8 ok, 0 failed, 7 done earlier)"));
  CHECK(slurp((dir / "out" / "run-0004" / "summary.json").string()).substr(0, 300) == before.substr(0, 300));
  CHECK(read_csv_cells(dir / "out" / "sweep.csv").size() == 9);

  // --resume needs the same spec; --force reruns everything.
  write_file(dir / "spec.yaml", std::string(SPEC) + "# changed\n");
  const auto other = cli_spawning_binary({"sweep", spec, "-o", out, "--resume"});
  CHECK(other.status == 2);
  CHECK_THAT(other.err, ContainsSubstring("different spec"));
  const auto forced = cli_spawning_binary({"sweep", spec, "-o", out, "--force", "-j", "2"});
  CHECK(forced.status == 0);
  CHECK_THAT(forced.out, ContainsSubstring("(8 ok, 0 failed, 0 done earlier)"));
  fs::remove_all(dir);
}

TEST_CASE("a failing run is reported with its log and the other runs still complete", "[cli][sweep]")
{
  // bad.csv opens fine (the spec check passes) but its second row is wrong: that run fails while it runs.
  const auto dir = scratch_dir("fail");
  write_file(dir / "bad.csv",
             "id,submit_s,duration_s,profile\nj1,0,10,resnet50-infer-bs1\nj2,5,-3,resnet50-infer-bs1\n");
  write_file(dir / "spec.yaml",
             "name: f\nset: {outputs.timeseries: false, outputs.jobs: false}\n"
             "axes:\n  workload.trace: [builtin:sim/scenarios/default/jobs.csv, bad.csv]\n");
  const auto r =
      cli_spawning_binary({"sweep", (dir / "spec.yaml").string(), "-o", (dir / "out").string(), "-j", "1"});
  CHECK(r.status == 1);
  CHECK_THAT(r.out, ContainsSubstring("2 runs (1 ok, 1 failed, 0 done earlier)"));
  const auto rows = read_csv_cells(dir / "out" / "sweep.csv");
  REQUIRE(rows.size() == 3);
  CHECK(rows[1][1] == "ok");
  CHECK(rows[2][1] == "failed");
  CHECK(rows[2][2] == "bad.csv"); // the value as written in the spec
  CHECK_THAT(slurp((dir / "out" / "run-0002" / "log.txt").string()),
             ContainsSubstring("bad.csv:3:") && ContainsSubstring("duration_s"));
  // bad.csv was passed as the file next to the spec (values naming a file there are resolved).
  CHECK_THAT(slurp((dir / "out" / "runs.txt").string()), ContainsSubstring((dir / "bad.csv").string()));
  // A file that does not exist is refused before anything runs, at its place in the spec, naming the file
  // next to the spec (before: the embedded scenario's folder, "builtin:.../missing.csv: no such bundled
  // file").
  write_file(dir / "spec.yaml", "name: f\naxes:\n  workload.trace: [missing.csv]\n");
  const auto missing =
      cli_spawning_binary({"sweep", (dir / "spec.yaml").string(), "-o", (dir / "out2").string()});
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, ContainsSubstring("spec.yaml:3:20: axes.workload.trace:") &&
                              ContainsSubstring((dir / "missing.csv").string() + ": cannot open trace file"));
  CHECK_FALSE(fs::exists(dir / "out2"));
  fs::remove_all(dir);
}

TEST_CASE("sweep spec errors name the spec file, line, column and key", "[cli][sweep]")
{
  const auto dir = scratch_dir("errors");
  const auto spec = (dir / "spec.yaml").string();
  write_file(spec,
             "name: e\naxes:\n  platform.sharing: [time-slice, bogus]\n  policy: [first-fit, nosuch]\n");
  auto r = cli_spawning_binary({"sweep", spec, "--dry-run"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("spec.yaml:3:34: axes.platform.sharing: unknown value (got 'bogus')") &&
                        ContainsSubstring("valid: exclusive, time-slice") &&
                        ContainsSubstring("spec.yaml:4:23: axes.policy: unknown policy 'nosuch'"));

  write_file(spec, "name: e\ncolour: red\nseeds: [1, x, 1]\naxes:\n  platform.sharing: []\n");
  r = cli_spawning_binary({"sweep", spec});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("spec.yaml:2:1: colour: unknown key") &&
                        ContainsSubstring("spec.yaml:3:12: seeds: expected an integer seed (got 'x')") &&
                        ContainsSubstring("spec.yaml:3:15: seeds: seed 1 appears twice") &&
                        ContainsSubstring(
                            "spec.yaml:5:21: axes.platform.sharing: expected a value or a non-empty list"));

  // Found by scripts/fuzz.sh 10m (sweep harness): an axis key that is a list or map stopped colocsim with a
  // yaml-cpp exception (exit 1, "internal error") instead of naming the key.
  write_file(spec, "name: e\naxes:\n  ? [policy, seed]\n  : [first-fit]\n");
  r = cli_spawning_binary({"sweep", spec, "--dry-run"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err,
             ContainsSubstring("spec.yaml:3:5: axes: expected a scenario key (a plain name) before ':'"));

  write_file(spec, "metrics: [makespan_s, energy_kwh]\n");
  r = cli_spawning_binary({"sweep", spec});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("spec.yaml:1:23: metrics: unknown metric 'energy_kwh'") &&
                        ContainsSubstring("energy_total_j"));

  write_file(spec, "axes: {policy: [first-fit, exclusive-fcfs]}\nseeds: {first: 5, count: 3}\n");
  r = cli_spawning_binary({"sweep", spec, "--dry-run", "-o", "x"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, ContainsSubstring("6 runs") && ContainsSubstring("run-0006  colocsim run") &&
                        ContainsSubstring("--set seed=7 --policy exclusive-fcfs -o x/run-0006"));
  CHECK_FALSE(fs::exists("x"));

  CHECK(cli_spawning_binary({"sweep"}).status == 2);
  CHECK(cli_spawning_binary({"sweep", spec, "-j", "0"}).status == 2);
  CHECK(cli_spawning_binary({"sweep", spec, "--resume", "--force"}).status == 2);
  fs::remove_all(dir);
}

TEST_CASE("the sweep page shows the bundled example spec, which checks and expands to 24 runs",
          "[cli][sweep]")
{
  const std::string file = "experiments/sweeps/default-sharing.yaml";
  CHECK(colocsim::test::doc_example("docs/formats/sweep.md", file) == colocsim::test::read_source_file(file));
  const auto r = cli_spawning_binary({"sweep", std::string(COLOCSIM_SOURCE_DIR) + "/" + file, "--dry-run"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, ContainsSubstring("24 runs") && ContainsSubstring("run-0024  colocsim run"));
}

TEST_CASE("a sweep killed with SIGKILL mid-way and resumed runs every run exactly once", "[cli][sweep]")
{
  // The sweep (the real binary, in its own process group) runs four runs one at a time. Once two runs have
  // their results and the third is running (its staging directory holds a jobs.csv), the whole process
  // group — the sweep and its child — gets SIGKILL: no handler runs, nothing is cleaned up. Waiting on
  // files, not on time, keeps the test independent of the machine's speed.
  const auto dir = scratch_dir("sigkill");
  write_file(dir / "spec.yaml", "name: killed\n"
                                "scenario: builtin:sim/scenarios/bench/scenario.yaml\n"
                                "set: {workload.synthetic.jobs: 4000, outputs.jobs: true}\n"
                                "seeds: [1, 2, 3, 4]\n");
  const auto out = dir / "out";
  const std::vector<std::string> args{"sweep", (dir / "spec.yaml").string(), "-o", out.string(), "-j", "1"};
  const pid_t pid = colocsim::test::spawn_colocsim(args, dir / "first.log");
  auto staging_of = [&](const std::string& run) {
    std::vector<fs::path> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(out, ec))
      if (e.path().filename().string().rfind("." + run + ".partial", 0) == 0) found.push_back(e.path());
    return found;
  };
  bool in_flight = false, exited = false;
  // Poll every 5 ms; the bound only stops a broken sweep from hanging the test (hours on any machine).
  for (int polls = 0; polls < 2000000 && !in_flight && !exited; ++polls) {
    const bool two_done =
        fs::exists(out / "run-0001" / "summary.json") && fs::exists(out / "run-0002" / "summary.json");
    if (two_done)
      for (const auto& s : staging_of("run-0003"))
        in_flight = in_flight || fs::exists(s / "jobs.csv");
    int status = 0;
    exited = !in_flight && ::waitpid(pid, &status, WNOHANG) == pid;
    if (!in_flight && !exited) ::usleep(5000);
  }
  INFO(slurp((dir / "first.log").string()));
  REQUIRE_FALSE(exited);
  REQUIRE(in_flight);
  REQUIRE(::kill(-pid, SIGKILL) == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);

  // What the kill left: results of the runs that finished, no sweep.csv.
  std::map<std::string, std::pair<std::string, fs::file_time_type>> done;
  for (const std::string run : {"run-0001", "run-0002", "run-0003", "run-0004"})
    if (fs::exists(out / run / "summary.json"))
      done[run] = {slurp((out / run / "summary.json").string()),
                   fs::last_write_time(out / run / "summary.json")};
  REQUIRE(done.size() >= 2); // run-0003 may have finished between the check and the kill
  CHECK_FALSE(fs::exists(out / "sweep.csv"));

  // --resume: only the runs without results run (each exactly once), and the sweep is complete.
  const auto resumed =
      cli_spawning_binary({"sweep", (dir / "spec.yaml").string(), "-o", out.string(), "-j", "1", "--resume"});
  INFO(resumed.err);
  REQUIRE(resumed.status == 0);
  CHECK_THAT(resumed.out,
             ContainsSubstring("4 runs (4 ok, 0 failed, " + std::to_string(done.size()) + " done earlier)"));
  for (const auto& [run, before] : done) { // not run again: the same bytes, never rewritten
    INFO(run);
    CHECK(slurp((out / run / "summary.json").string()) == before.first);
    CHECK(fs::last_write_time(out / run / "summary.json") == before.second);
  }
  // Every run's directory once, with its results; no staging directory of the killed run left behind.
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(out))
    entries.push_back(e.path().filename().string());
  std::sort(entries.begin(), entries.end());
  CHECK(entries == std::vector<std::string>{"run-0001", "run-0002", "run-0003", "run-0004", "runs.txt",
                                            "sweep.csv", "sweep.yaml"});
  // sweep.csv (parsed strictly by cli_spawning_binary() above): one row per run, each run once, in order,
  // each row the numbers of that run's summary.json.
  const auto rows = read_csv_cells(out / "sweep.csv");
  REQUIRE(rows.size() == 5);
  const auto m = column(rows[0], "makespan_s");
  for (std::size_t i = 1; i <= 4; ++i) {
    const std::string run = "run-000" + std::to_string(i);
    INFO(run);
    CHECK(rows[i][0] == run);
    CHECK(rows[i][1] == "ok");
    CHECK(rows[i][column(rows[0], "seed")] == std::to_string(i));
    CHECK_THAT(slurp((out / run / "summary.json").string()),
               ContainsSubstring("\"makespan_s\": " + rows[i][m] + ","));
    CHECK(fs::exists(out / run / "jobs.csv"));
  }
  fs::remove_all(dir);
}

TEST_CASE("the sweep table shows jobs completed of read, marks runs that lost jobs, and compares with "
          "--baseline in %",
          "[cli][sweep][compare]")
{
  // oom.csv on the engine tests' base scenario: two `huge` jobs (40 GB each, 1 GB declared) on two 64 GB
  // tiles. memory=none puts both on tile 0 and big2 fails out of memory (1 of 2 completed); memory=profile
  // puts them on a tile each (2 of 2). The run that lost a job looks cheaper in total energy.
  const auto dir = scratch_dir("compare");
  const std::string data = std::string(COLOCSIM_TEST_DATA) + "/sim/";
  write_file(dir / "spec.yaml", "name: lost\nscenario: " + data + "base.yaml\nset: {workload.trace: " + data +
                                    "oom.csv, outputs.timeseries: false}\n"
                                    "axes:\n  policy.params.memory: [profile, none]\n"
                                    "metrics: [energy_total_j, energy_per_completed_job_j, makespan_s]\n");
  const auto r = cli_spawning_binary({"sweep", (dir / "spec.yaml").string(), "-o", (dir / "out").string(),
                                      "-j", "1", "--baseline", "policy.params.memory=profile"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto rows = read_csv_cells(dir / "out" / "sweep.csv");
  REQUIRE(rows.size() == 3);
  const auto energy = column(rows[0], "energy_total_j"),
             per_job = column(rows[0], "energy_per_completed_job_j");
  CHECK(rows[1][column(rows[0], "jobs_completed")] == "2");
  CHECK(rows[2][column(rows[0], "jobs_completed")] == "1");
  // The table: completed of read per row, the lost job marked and explained.
  CHECK_THAT(r.out, ContainsSubstring(" 2 of 2 ") && ContainsSubstring(" 1 of 2 *") &&
                        ContainsSubstring("* not every job completed") &&
                        ContainsSubstring("energy_per_completed_job_j\n"));
  // --baseline: a Δ% column after each metric, "base" on the baseline row, the change in % elsewhere.
  CHECK_THAT(r.out, ContainsSubstring("Δ%") && ContainsSubstring("base") &&
                        ContainsSubstring(
                            "Δ%: change of the mean from the baseline row (policy.params.memory=profile)"));
  const auto pct = [](double x, double base) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f %%", 100.0 * (x - base) / std::fabs(base));
    return std::string(buf);
  };
  const double e_base = std::stod(rows[1][energy]), e_lost = std::stod(rows[2][energy]);
  const double j_base = std::stod(rows[1][per_job]), j_lost = std::stod(rows[2][per_job]);
  CHECK(j_lost > 1.5 * j_base); // one job's worth of energy for one job done, not two
  std::istringstream table(r.out);
  std::string none_row;
  for (std::string line; std::getline(table, line);)
    if (line.rfind("  none ", 0) == 0) none_row = line;
  INFO(none_row);
  CHECK_THAT(none_row, ContainsSubstring(pct(e_lost, e_base)) && ContainsSubstring(pct(j_lost, j_base)));

  // A --baseline that names no axis or value of the spec is refused before anything runs.
  auto bad = cli_spawning_binary({"sweep", (dir / "spec.yaml").string(), "-o", (dir / "out2").string(),
                                  "--baseline", "policy=first-fit"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err,
             ContainsSubstring("--baseline expects AXIS=VALUE") && ContainsSubstring("policy.params.memory"));
  bad = cli_spawning_binary({"sweep", (dir / "spec.yaml").string(), "-o", (dir / "out2").string(),
                             "--baseline", "policy.params.memory=declared"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, ContainsSubstring("'declared' is not a value of axis policy.params.memory"));
  CHECK_FALSE(fs::exists(dir / "out2"));
  fs::remove_all(dir);
}

TEST_CASE("a sweep over policies and sharing modes with MIG skips the combinations that cannot run",
          "[cli][sweep][compare]")
{
  // One A100 (tests/data/sim/mig.yaml, sharing mig): first-fit needs a sharing mode other than mig,
  // mig-manager needs mig. Of the 4 combinations 2 can run; the other 2 are skipped with a note, marked
  // `infeasible` in sweep.csv, and do not make the sweep fail.
  const auto dir = scratch_dir("mig-combos");
  write_file(dir / "spec.yaml", "name: mig\nscenario: " + std::string(COLOCSIM_TEST_DATA) +
                                    "/sim/mig.yaml\nset: {outputs.timeseries: false}\n"
                                    "axes:\n  policy: [first-fit, mig-manager]\n"
                                    "  platform.sharing: [time-slicing, mig]\n");
  const auto r =
      cli_spawning_binary({"sweep", (dir / "spec.yaml").string(), "-o", (dir / "out").string(), "-j", "2"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, ContainsSubstring("4 runs (2 ok, 0 failed, 2 skipped as infeasible, 0 done earlier)"));
  // (each is also named once on stderr: "colocsim: sweep: skipped 1 run(s) of a combination ...")
  CHECK_THAT(r.out, ContainsSubstring("skipped, cannot run: policy=first-fit platform.sharing=mig: ") &&
                        ContainsSubstring("needs platform.sharing"));
  const auto rows = read_csv_cells(dir / "out" / "sweep.csv");
  REQUIRE(rows.size() == 5);
  CHECK(rows[1][1] == "ok");
  CHECK(rows[2][1] == "infeasible");
  CHECK(rows[3][1] == "infeasible");
  CHECK(rows[4][1] == "ok");
  CHECK_FALSE(fs::exists(dir / "out" / "run-0002"));
  CHECK_THAT(slurp((dir / "out" / "runs.txt").string()),
             ContainsSubstring("run-0002  # skipped, cannot run"));
  // The chart leaves the infeasible runs out (not counted as failed).
  const auto plot = cli_spawning_binary({"plot", (dir / "out").string(), "--metrics", "makespan_s"});
  INFO(plot.err);
  CHECK(plot.status == 0);
  CHECK_THAT(slurp((dir / "out" / "sweep-makespan_s.svg").string()), !ContainsSubstring("failed run(s)"));

  // A sweep none of whose combinations can run is refused, naming them.
  write_file(dir / "none.yaml", "name: none\nscenario: " + std::string(COLOCSIM_TEST_DATA) +
                                    "/sim/mig.yaml\naxes:\n  policy: [first-fit]\n");
  const auto none =
      cli_spawning_binary({"sweep", (dir / "none.yaml").string(), "-o", (dir / "none").string()});
  CHECK(none.status == 2);
  CHECK_THAT(none.err, ContainsSubstring("needs platform.sharing"));
  fs::remove_all(dir);
}

TEST_CASE("seeds that change nothing give a warning, not a spread of 1e-12", "[cli][sweep][compare]")
{
  // The embedded default trace binds every job to its profile and nothing is drawn: the seed changes
  // nothing, which the table says instead of printing rounding noise as a standard deviation.
  const auto dir = scratch_dir("seeds");
  write_file(dir / "spec.yaml", "name: s\nset: {outputs.timeseries: false, outputs.jobs: false}\n"
                                "axes:\n  policy: [first-fit]\nseeds: [1, 2, 3]\n"
                                "metrics: [makespan_s, energy_total_j, jct_mean_s]\n");
  const auto r =
      cli_spawning_binary({"sweep", (dir / "spec.yaml").string(), "-o", (dir / "out").string(), "-j", "2"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK_FALSE(std::regex_search(r.out, std::regex("[0-9]e-[0-9]"))); // no "± 1e-12"
  CHECK_THAT(r.out, ContainsSubstring("± 0 "));
  CHECK_THAT(r.out, ContainsSubstring("note: every combination gave the same results with each of its seeds: "
                                      "nothing in this scenario depends on the seed"));
  fs::remove_all(dir);
}
