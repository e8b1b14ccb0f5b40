// Where a relative path resolves: one typed on the command line (--set KEY=PATH, replay's TRACE and
// --platform) against the current directory; one written in a scenario against that scenario's folder; one in
// a sweep spec against the spec's folder. Messages name a command-line path as typed. Each test runs from its
// own scratch directory, with a decoy file of the same name where the wrong rule would look.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "cli/Cli.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace colocsim::test;

namespace {
namespace fs = std::filesystem;

/// A scratch directory, made the current directory for the test's lifetime.
struct InScratchDir {
  fs::path dir, before = fs::current_path();
  explicit InScratchDir(const std::string& name)
      : dir(fs::temp_directory_path() / ("colocsim-paths-" + std::to_string(::getpid()) + "-" + name))
  {
    fs::remove_all(dir);
    fs::create_directories(dir / "sub");
    fs::current_path(dir);
  }
  ~InScratchDir()
  {
    fs::current_path(before);
    fs::remove_all(dir);
  }
};

/// The first `jobs` jobs of the default scenario's trace (native CSV: a header, then one job a line).
void write_trace(const fs::path& file, std::size_t jobs)
{
  std::istringstream in(slurp(source("sim/scenarios/default/jobs.csv")));
  std::ofstream out(file);
  std::string line;
  for (std::size_t n = 0; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') {
      out << line << "\n";
      continue;
    }
    if (n++ > jobs) break; // the header, then `jobs` rows
    out << line << "\n";
  }
}

/// A copy of the default scenario in sub/ (it names workload.trace: jobs.csv, resolved in sub/).
void write_scenario()
{
  std::ofstream(fs::path("sub") / "scenario.yaml") << slurp(source("sim/scenarios/default/scenario.yaml"));
}

/// A one-node platform file of `cards` Max 1550 cards (2 tiles each).
void write_platform(const fs::path& file, int cards)
{
  std::ofstream(file) << "format: colocsim-platform/1\nname: paths-test\ndevice: max1550-aurora-tile\n"
                      << "nodes: {value: 1, tag: estimate, source: test}\n"
                      << "cards_per_node: {value: " << cards << ", tag: estimate, source: test}\n";
}
} // namespace

TEST_CASE(
    "paths given with --set resolve against the current directory, paths in a scenario against its folder",
    "[paths]")
{
  InScratchDir here("set");
  write_scenario();
  write_trace("sub/jobs.csv", 48);
  write_trace("mine.csv", 5);     // typed on the command line: the one to read
  write_trace("sub/mine.csv", 7); // the decoy next to the scenario
  write_platform("plat.yaml", 1); // 2 tiles
  write_platform("sub/plat.yaml", 3);

  // The file's own trace (jobs.csv) is the one next to the scenario: 48 jobs.
  auto r = cli({"validate", "sub/scenario.yaml"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, ContainsSubstring("12 devices") && ContainsSubstring("48 jobs"));

  // Before: sub/mine.csv (7 jobs) and sub/plat.yaml (6 tiles) were read.
  r = cli({"validate", "sub/scenario.yaml", "--set", "workload.trace=mine.csv", "--set",
           "platform.preset=plat.yaml"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, ContainsSubstring("2 devices") && ContainsSubstring("5 jobs"));

  // The same on the embedded default scenario (before: "builtin:sim/scenarios/default/mine.csv: no
  // such bundled file").
  r = cli({"run", "--set", "workload.trace=mine.csv", "-o", "out", "--quiet"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(slurp("out/summary.json"), ContainsSubstring("\"jobs_read\": 5,"));

  // A path written in the scenario stays relative to the scenario's folder.
  {
    std::string text = slurp(source("sim/scenarios/default/scenario.yaml"));
    const std::string from = "preset: aurora-node";
    REQUIRE(text.find(from) != std::string::npos);
    std::ofstream(fs::path("sub") / "scenario.yaml")
        << text.replace(text.find(from), from.size(), "preset: plat.yaml");
  }
  r = cli({"validate", "sub/scenario.yaml"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, ContainsSubstring("6 devices"));
}

TEST_CASE("every path key given with --set reads the file in the current directory", "[paths]")
{
  InScratchDir here("keys");
  write_scenario();
  write_trace("sub/jobs.csv", 48);
  // Copies of bundled files in the current directory only: resolved next to the scenario, they are missing.
  std::ofstream("cal.yaml") << slurp(source("calibration/data/max1550-aurora-default.yaml"));
  std::ofstream("prof.yaml") << slurp(source("workloads/profiles/default.yaml"));
  std::ofstream("table.yaml") << slurp(source("calibration/interference/gavel-v100.yaml"));
  const std::vector<std::vector<std::string>> cases{
      {"--set", "calibration=cal.yaml"},
      {"--set", "workload.profiles=prof.yaml"},
      {"--set", "interference=pair-total", "--set", "interference_table=table.yaml", "--set",
       "platform.preset=dgx-a100", "--set", "platform.sharing=mps"},
  };
  for (const auto& sets : cases) {
    std::vector<std::string> args{"validate", "sub/scenario.yaml"};
    args.insert(args.end(), sets.begin(), sets.end());
    const auto r = cli(args);
    INFO(sets[1] << ": " << r.err);
    CHECK(r.status == 0);
  }
}

TEST_CASE("a missing file typed on the command line is named as typed", "[paths]")
{
  InScratchDir here("missing");
  write_scenario();
  write_trace("sub/jobs.csv", 48);
  auto r = cli({"run", "sub/scenario.yaml", "--set", "workload.trace=nope.csv", "-o", "out"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("nope.csv: cannot open trace file"));
  CHECK_THAT(r.err, !ContainsSubstring("sub/nope.csv"));

  r = cli({"run", "--set", "platform.preset=nope.yaml", "-o", "out"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("cannot read platform preset file 'nope.yaml'"));

  r = cli({"replay", "nope.csv", "--format", "native", "-o", "r1", "--quiet"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("nope.csv: cannot open trace file"));
  CHECK_THAT(r.err, !ContainsSubstring(here.dir.string() + "/nope.csv")); // before: the absolute path
}

TEST_CASE(
    "replay --platform FILE reads FILE in the current directory, and its saved scenario reruns anywhere",
    "[paths]")
{
  InScratchDir here("replay");
  write_trace("t.csv", 6);
  write_platform("plat.yaml", 1);
  // Before: "out/scenario.yaml: platform preset: cannot read platform preset file 'out/myplat.yaml'".
  auto r = cli({"replay", "t.csv", "--format", "native", "--platform", "plat.yaml", "-o", "out", "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(slurp("out/summary.json"), ContainsSubstring("\"jobs_completed\": 6,"));
  CHECK_THAT(slurp("out/scenario.yaml"), ContainsSubstring("preset: \"" + (here.dir / "plat.yaml").string()));

  fs::current_path("sub"); // rerun the saved scenario from elsewhere
  r = cli({"run", "../out/scenario.yaml", "-o", "again", "--quiet"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(slurp("again/summary.json"), ContainsSubstring("\"jobs_completed\": 6,"));
}

TEST_CASE("a path in a sweep spec resolves against the spec's folder, even a missing one", "[paths]")
{
  InScratchDir here("sweep");
  write_scenario();
  write_trace("sub/jobs.csv", 48);
  fs::create_directories("specs");
  std::ofstream("specs/spec.yaml") << "name: paths\nscenario: ../sub/scenario.yaml\naxes:\n"
                                   << "  workload.trace: [jobs.csv, absent.csv]\n";
  // jobs.csv is not next to the spec: it is read from there, not from the scenario's folder.
  const auto r = cli({"sweep", "specs/spec.yaml", "--dry-run", "-o", "out"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring((here.dir / "specs" / "jobs.csv").string()) &&
                        ContainsSubstring((here.dir / "specs" / "absent.csv").string()));
  CHECK_THAT(r.err, !ContainsSubstring("sub/jobs.csv"));
}
