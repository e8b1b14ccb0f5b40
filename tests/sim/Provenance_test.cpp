// Provenance is required in the bundled catalog and optional in a user's platform or device file: a plain
// number there is accepted, tagged user-supplied, and listed in summary.json's user_supplied (and a note on
// stderr). Before, `nodes: 2` in a user's platform file was refused ("expected {value: ..., tag: ..., source:
// ...}").
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "cli/Cli.hpp"
#include "models/DeviceSpec.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

using namespace colocsim::test;

namespace {
namespace fs = std::filesystem;

const colocsim::test::ScratchDirs scratch_dir{"provenance"};

/// An A100-40GB device file with plain numbers only: the bundled file's values without their provenance.
const char* const PLAIN_A100 = R"(format: colocsim-device/1
name: a100-40gb
description: "an A100 typed in by hand"
vendor: NVIDIA
devices_per_card: 1
compute_units: 108
memory: 40537MiB
mem_bandwidth: 1.555e12
freq_max: 1410MHz
freq_default: 1410MHz
freq_min: 345MHz
card_tdp: 400W
sharing_modes: [exclusive, time-slice, mps, mig]
relative_throughput: 2.077
)";
} // namespace

TEST_CASE("a user's platform file may give plain numbers, which the run records as user-supplied",
          "[provenance]")
{
  const auto dir = scratch_dir("platform");
  std::ofstream(dir / "my-lab.yaml")
      << "format: colocsim-platform/1\nname: my-lab\ndevice: max1550-aurora-tile\n"
      << "nodes: 2\ncards_per_node: 3\n";
  const auto platform = (dir / "my-lab.yaml").string();
  // 2 nodes × 3 cards × 2 tiles = 12 devices.
  const auto v = cli(
      {"validate", source("sim/scenarios/default/scenario.yaml"), "--set", "platform.preset=" + platform});
  INFO(v.err);
  REQUIRE(v.status == 0);
  CHECK_THAT(v.out, ContainsSubstring("12 devices (2 nodes of max1550-aurora-tile)"));

  const auto r =
      cli({"run", "--set", "platform.preset=" + platform, "-o", (dir / "out").string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto summary = slurp((dir / "out" / "summary.json").string());
  CHECK_THAT(summary, ContainsSubstring("\"user_supplied\": [\"" + platform + ": nodes = 2\", \"" + platform +
                                        ": cards_per_node = 3\"]"));
  // The note on stderr (execute_run writes notes to the process's stderr: run the binary).
  const std::string cmd = std::string(COLOCSIM_BINARY) + " run --quiet --set platform.preset=" + platform +
                          " -o " + (dir / "out2").string() + " 2> " + (dir / "stderr.txt").string();
  REQUIRE(colocsim::test::shell(cmd) == 0);
  CHECK_THAT(slurp((dir / "stderr.txt").string()),
             ContainsSubstring(
                 "note: 2 numbers of the platform or profile catalog were given without provenance and are "
                 "recorded as "
                 "user-supplied"));

  // A value out of range is still refused, plain or not.
  std::ofstream(dir / "bad.yaml") << "format: colocsim-platform/1\nname: bad\ndevice: max1550-aurora-tile\n"
                                  << "nodes: 0\ncards_per_node: 3\n";
  const auto bad = cli({"validate", source("sim/scenarios/default/scenario.yaml"), "--set",
                        "platform.preset=" + (dir / "bad.yaml").string()});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, ContainsSubstring("bad.yaml:4:8: nodes: out of range (got '0')"));
  CHECK_THAT(bad.err, ContainsSubstring("nodes: out of range (got '0'); expected a value in [1, 1e+06]"));
  fs::remove_all(dir);
}

TEST_CASE("a user's device file may give plain numbers, a bundled one may not", "[provenance]")
{
  using namespace colocsim;
  const auto d = load_device_spec(PLAIN_A100, "my-a100.yaml");
  CHECK(d.card_tdp_w.value == 400);
  CHECK(d.card_tdp_w.evidence == Evidence::USER_SUPPLIED);
  CHECK(d.card_tdp_w.source == "plain number in my-a100.yaml");
  CHECK(d.memory_bytes.value == 40537.0 * 1024 * 1024); // MiB: binary prefix
  CHECK(d.freq_min_hz.value == 345e6);
  CHECK(d.relative_throughput.value == 2.077);
  CHECK(d.user_supplied.size() == 8); // the 7 required numbers and relative_throughput
  CHECK(d.user_supplied.front() == "compute_units = 108");

  try {
    (void)load_device_spec(PLAIN_A100, "builtin:models/devices/a100-40gb.yaml");
    FAIL("a bundled file with plain numbers was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()),
               ContainsSubstring("card_tdp: expected {value: ..., tag: ..., source: ...} so "
                                 "the number carries its provenance (every number of a "
                                 "bundled file does)"));
  }

  // Through a platform that names it: the run lists the device file's plain numbers too.
  const auto dir = scratch_dir("device");
  std::ofstream(dir / "my-a100.yaml") << PLAIN_A100;
  std::ofstream(dir / "lab.yaml") << "format: colocsim-platform/1\nname: lab\ndevice: my-a100.yaml\n"
                                  << "nodes: {value: 1, tag: estimate, source: test}\n"
                                  << "cards_per_node: {value: 4, tag: estimate, source: test}\n";
  const auto r = cli({"run", "--set", "platform.preset=" + (dir / "lab.yaml").string(), "-o",
                      (dir / "out").string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(slurp((dir / "out" / "summary.json").string()),
             ContainsSubstring("\"" + (dir / "my-a100.yaml").string() + ": card_tdp = 400W\""));
  fs::remove_all(dir);
}

TEST_CASE("every bundled platform and device file still tags every number", "[provenance]")
{
  using namespace colocsim;
  std::size_t devices = 0, platforms = 0;
  for (const auto& e : fs::directory_iterator(source("models/devices"))) {
    if (e.path().extension() != ".yaml") continue;
    const auto d =
        load_device_spec(slurp(e.path().string()), "builtin:models/devices/" + e.path().filename().string());
    INFO(e.path());
    CHECK(d.user_supplied.empty());
    for (const Sourced* s : {&d.compute_units, &d.memory_bytes, &d.mem_bandwidth, &d.freq_max_hz,
                             &d.freq_default_hz, &d.freq_min_hz, &d.card_tdp_w})
      CHECK(s->evidence != Evidence::USER_SUPPLIED);
    ++devices;
  }
  for (const auto& e : fs::directory_iterator(source("sim/platforms"))) {
    if (e.path().extension() != ".yaml") continue;
    const YAML::Node root = YAML::LoadFile(e.path().string());
    std::vector<YAML::Node> groups{root};
    for (const auto& g : root["groups"])
      groups.push_back(g);
    for (const auto& g : groups)
      for (const char* key : {"nodes", "cards_per_node"})
        if (g[key].IsDefined()) {
          INFO(e.path() << ": " << key);
          CHECK(g[key].IsMap());
          CHECK(g[key]["tag"].IsScalar());
          CHECK(g[key]["source"].IsScalar());
        }
    ++platforms;
  }
  CHECK(devices >= 10);
  CHECK(platforms >= 6);
  // And a run on them lists nothing.
  const auto dir = scratch_dir("bundled");
  REQUIRE(cli({"run", "-o", (dir / "out").string(), "--quiet"}).status == 0);
  CHECK_THAT(slurp((dir / "out" / "summary.json").string()), ContainsSubstring("\"user_supplied\": [],"));
  fs::remove_all(dir);
}

TEST_CASE("a user's profile catalog may give plain numbers, which the run records as user-supplied",
          "[provenance]")
{
  // The bundled catalog with one number typed in plainly (a solo measurement, docs/formats/profiles.md).
  const auto dir = scratch_dir("profiles");
  std::string text = slurp(source("workloads/profiles/default.yaml"));
  const std::string tagged = "duty_cycle: {value: 0.35, tag: estimate,";
  const auto at = text.find(tagged);
  REQUIRE(at != std::string::npos);
  text.replace(at, text.find('\n', at) - at, "duty_cycle: 0.35");
  const auto catalog = (dir / "mine.yaml").string();
  std::ofstream(catalog) << text;
  const auto r =
      cli({"run", "--set", "workload.profiles=" + catalog, "-o", (dir / "out").string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(slurp((dir / "out" / "summary.json").string()),
             ContainsSubstring("\"user_supplied\": [\"" + catalog +
                               ": profiles.resnet50-infer-bs1.duty_cycle = 0.35\"]"));
  fs::remove_all(dir);
}
