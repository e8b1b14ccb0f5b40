// The command line on hostile input: every error caused by an input file exits 2 and says where
// (file:line:col or the argument) and what was expected; nothing crashes, hangs or writes invalid JSON.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "cli/Cli.hpp"
#include "sim/Outputs.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace colocsim::test;

namespace {
namespace fs = std::filesystem;

const colocsim::test::ScratchDirs scratch_dir{"hardening"};

std::string write(const fs::path& dir, const std::string& name, const std::string& text)
{
  const auto path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

/// `colocsim validate` of a one-job scenario on the platform file `platform` (written to DIR/p.yaml).
auto validate_platform(const fs::path& dir, const std::string& platform)
{
  write(dir, "t.csv", "id,submit_s,duration_s,profile\na,0,10,resnet50-infer-bs1\n");
  write(dir, "p.yaml", platform);
  const auto s = write(dir, "s.yaml",
                       "name: t\nplatform:\n  preset: p.yaml\nworkload:\n  trace: t.csv\n"
                       "policy: first-fit\n");
  return cli({"validate", s});
}
} // namespace

TEST_CASE("summary.json never holds inf or nan", "[cli][outputs]")
{
  const auto dir = scratch_dir("json");
  colocsim::Summary s;
  s.edp_js = std::numeric_limits<double>::infinity();
  s.jct_mean_s = std::numeric_limits<double>::quiet_NaN();
  s.makespan_s = 2.5;
  colocsim::write_summary_json(s, dir / "summary.json");
  const std::string json = slurp((dir / "summary.json").string());
  CHECK_THAT(json, ContainsSubstring("\"edp_js\": null,"));
  CHECK_THAT(json, ContainsSubstring("\"jct_mean_s\": null,"));
  CHECK_THAT(json, ContainsSubstring("\"makespan_s\": 2.5,"));
  CHECK(json.find("inf") == std::string::npos);
  CHECK(json.find("nan") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("replay refuses trace values beyond the documented bounds and exits 2", "[cli][errors]")
{
  const auto dir = scratch_dir("bounds");
  // 1e300 s would make the energy-delay product overflow to inf.
  const auto trace = write(dir, "huge.csv", "id,submit_s,duration_s\na,0,1e300\n");
  const auto r = cli({"replay", trace, "--format", "native", "-o", (dir / "out").string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err,
             ContainsSubstring(trace + ":2: duration_s: out of bounds (got 1e+300); expected seconds in "
                                       "[0, 1e10]"));
  CHECK(!fs::exists(dir / "out" / "summary.json"));

  // SWF: 1e15 processors would overflow the int device count.
  const auto swf = write(dir, "procs.swf", "1 0 -1 100 1e15 -1 -1 8 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n");
  const auto s = cli({"replay", swf, "--format", "swf", "-o", (dir / "out2").string()});
  CHECK(s.status == 2);
  CHECK_THAT(s.err,
             ContainsSubstring(swf + ":1: allocated_processors: too many (got 1e15, 8 requested): more "
                                     "than 1048576 devices"));
  fs::remove_all(dir);
}

TEST_CASE("replay of a header-only trace or of /dev/zero exits 2 and says why", "[cli][errors]")
{
  const auto dir = scratch_dir("empty");
  const auto trace = write(dir, "header.csv", "id,submit_s,duration_s\n");
  const auto r = cli({"replay", trace, "--format", "native", "-o", (dir / "out").string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("no job to replay (the trace has no job rows)"));
  const auto z = cli({"replay", "/dev/zero", "--format", "native", "-o", (dir / "out2").string()});
  CHECK(z.status == 2);
  CHECK_THAT(z.err, ContainsSubstring("/dev/zero: cannot read trace file: the path is a character device"));
  fs::remove_all(dir);
}

TEST_CASE("a duplicate key in a scenario or a sweep exits 2 naming both lines", "[cli][errors]")
{
  const auto dir = scratch_dir("duplicates");
  // yaml-cpp kept both: policy resolved to the first, seed (read in a loop) to the last.
  const auto s = write(dir, "s.yaml", "name: t\npolicy: first-fit\nseed: 1\npolicy: best-fit\nseed: 2\n");
  const auto r = cli({"validate", s});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring(s + ":4:1: policy: duplicate key (first at line 2)"));
  CHECK_THAT(r.err, ContainsSubstring(s + ":5:1: seed: duplicate key (first at line 3)"));
  const auto sw = write(dir, "sw.yaml", "name: t\nseeds: [1]\nseeds: [2]\n");
  const auto w = cli({"sweep", sw, "--dry-run", "-o", (dir / "out").string()});
  CHECK(w.status == 2);
  CHECK_THAT(w.err, ContainsSubstring(sw + ":3:1: seeds: duplicate key (first at line 2)"));
  fs::remove_all(dir);
}

TEST_CASE("a platform file without name or device exits 2 with the file, not a yaml-cpp message",
          "[cli][errors]")
{
  const auto dir = scratch_dir("platform");
  // Without `name:` (optional: the file's name stands in) and without `device:` (required).
  const auto r =
      validate_platform(dir, "format: colocsim-platform/1\nnodes: {value: 1, tag: estimate, source: test}\n"
                             "cards_per_node: {value: 1, tag: estimate, source: test}\n");
  CHECK(r.status == 2);
  CHECK_THAT(r.err,
             ContainsSubstring("p.yaml:1:1: device: missing required key; expected a device catalog name"));
  CHECK(r.err.find("invalid node") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("a platform's node and card counts must be whole numbers", "[cli][errors]")
{
  const auto dir = scratch_dir("fraction");
  // cards_per_node 2.5 and nodes 1.5 were cut to 2 and 1 without a word.
  const auto r = validate_platform(dir, "format: colocsim-platform/1\nname: frac\ndevice: a100-40gb\n"
                                        "nodes: 1.5\n"
                                        "cards_per_node: {value: 2.5, tag: estimate, source: test}\n");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("p.yaml:4:8: nodes: not a whole number (got 1.5); expected a count"));
  CHECK_THAT(r.err, ContainsSubstring(
                        "p.yaml:5:17: cards_per_node: not a whole number (got 2.5); expected a count"));
  fs::remove_all(dir);
}

TEST_CASE("a sweep whose scenario path is too long for the file system exits 2 at the key", "[cli][errors]")
{
  const auto dir = scratch_dir("long-path");
  // 300 characters: more than NAME_MAX (255 on Linux file systems) in one path component.
  const auto sw = write(dir, "sw.yaml", "name: t\nscenario: " + std::string(295, 'a') + ".yaml\n");
  const auto r = cli({"sweep", sw, "--dry-run", "-o", (dir / "out").string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring(sw + ":2:11: scenario: cannot access the scenario file"));
  CHECK_THAT(r.err, ContainsSubstring("File name too long"));
  fs::remove_all(dir);
}

TEST_CASE("a scenario path that is a directory exits 2", "[cli][errors]")
{
  const auto dir = scratch_dir("dir-scenario");
  const auto r = cli({"validate", dir.string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring(dir.string() + ": not a regular file"));
  fs::remove_all(dir);
}

TEST_CASE("a platform of more than 2^22 devices exits 2 before allocating them", "[cli][errors]")
{
  const auto dir = scratch_dir("huge-platform");
  // 10^6 nodes x 64 cards x 1 device = 6.4e7 devices (4 GB of device rows before the cap; the fuzzer's seed).
  const auto r = validate_platform(dir, "format: colocsim-platform/1\nname: huge\ndevice: a100-40gb\n"
                                        "nodes: {value: 1000000, tag: estimate, source: test}\n"
                                        "cards_per_node: {value: 64, tag: estimate, source: test}\n");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("p.yaml: nodes: the platform has 64000000 devices"));
  CHECK_THAT(r.err, ContainsSubstring("expected at most 4194304"));
  fs::remove_all(dir);
}
