// Scenario parsing: the declared keys, overrides, and the messages for bad scenarios (file:line:col,
// the key's path, what was wrong and the valid values).
#include "tests/CatchCompat.hpp"

#include "sim/Engine.hpp"
#include "sim/Resources.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"

#include <filesystem>

using namespace colocsim;
using colocsim::test::ContainsSubstring;

namespace {
const std::string DATA = std::string(COLOCSIM_TEST_DATA) + "/sim/";
const std::string BAD = DATA + "bad/";

std::string load_error(const std::string& file, bool build = false)
{
  try {
    auto s = load_scenario(file);
    if (build) build_run(s);
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("expected an InputError for " << file);
  return {};
}
} // namespace

TEST_CASE("the embedded default scenario parses with its declared values", "[scenario]")
{
  const auto s = load_scenario(DEFAULT_SCENARIO);
  CHECK(s.name == "default-aurora-node");
  CHECK(s.policy == "first-fit");
  CHECK(s.policy_params.integer("max_per_device") == 2);
  CHECK(s.sharing == SharingMode::TIME_SLICE);
  CHECK(s.oom_delay_s == 60.0);
  const auto in = build_run(s);
  CHECK(in.platform.devices.size() == 12); // one Aurora node: 6 cards × 2 tiles
  CHECK(in.platform.node_baseline_w == std::vector<double>{in.calibration.node_baseline_w.value});
  CHECK(in.device->name == "max1550-aurora-tile");
}

TEST_CASE("overrides: --set and --policy", "[scenario]")
{
  SECTION("--set policy=NAME replaces the whole policy section")
  {
    const auto s = load_scenario(DEFAULT_SCENARIO, {"policy=exclusive-fcfs"});
    CHECK(s.policy == "exclusive-fcfs");
    CHECK(s.policy_params.values().empty());
  }
  SECTION("--set a nested key")
  {
    const auto s = load_scenario(DEFAULT_SCENARIO, {"policy.params.max_per_device=3", "platform.nodes=4"});
    CHECK(s.policy_params.integer("max_per_device") == 3);
    CHECK(s.nodes == 4);
    CHECK(build_run(s).platform.devices.size() == 48);
    const auto one =
        load_scenario(DEFAULT_SCENARIO, {"platform.cards_per_node=1", "platform.devices_per_card=1"});
    CHECK(build_run(one).platform.devices.size() == 1);
    REQUIRE_THROWS_WITH(build_run(load_scenario(DEFAULT_SCENARIO, {"platform.devices_per_card=3"})),
                        ContainsSubstring("platform.devices_per_card: out of range (got 3)"));
  }
  SECTION("--policy name:key=value")
  {
    const auto s = load_scenario(DEFAULT_SCENARIO, {}, "first-fit:max_per_device=4,memory=profile");
    CHECK(s.policy_params.integer("max_per_device") == 4);
    CHECK(s.policy_params.text("memory") == "profile");
  }
  SECTION("the policy is looked up once, when the scenario is read; an unknown one names where it came from")
  {
    const auto s = load_scenario(DEFAULT_SCENARIO, {}, "best-fit");
    REQUIRE(s.policy_info != nullptr);
    CHECK(s.policy_info->name == "best-fit");
    CHECK(build_run(s).policy != nullptr);
    // --policy is not in the file: the message names the option, not the scenario file.
    REQUIRE_THROWS_WITH(load_scenario(DEFAULT_SCENARIO, {}, "no-such-policy"),
                        Catch::Matchers::StartsWith(
                            "command line --policy: policy: unknown policy 'no-such-policy'; valid: "));
    REQUIRE_THROWS_WITH(
        load_scenario(DEFAULT_SCENARIO, {}, "no-such-policy:a=1"),
        Catch::Matchers::StartsWith("command line --policy: policy: unknown policy 'no-such-policy'"));
  }
  SECTION("policy.placement: pack by default, --set reaches it, --policy keeps it")
  {
    CHECK(load_scenario(DEFAULT_SCENARIO).placement == GangRule::PACK);
    const auto spread = load_scenario(DEFAULT_SCENARIO, {"policy.placement=spread"});
    CHECK(spread.placement == GangRule::SPREAD);
    CHECK(spread.policy == load_scenario(DEFAULT_SCENARIO).policy); // the shorthand `policy: NAME` kept
    CHECK(load_scenario(DEFAULT_SCENARIO, {"policy.placement=any"}, "exclusive-fcfs").placement ==
          GangRule::ANY);
    REQUIRE_THROWS_WITH(load_scenario(DEFAULT_SCENARIO, {"policy.placement=nodes"}),
                        ContainsSubstring("policy.placement: unknown placement rule 'nodes'; expected pack, "
                                          "spread or any"));
  }
  SECTION("a bad override is reported like a bad key")
  {
    REQUIRE_THROWS_WITH(load_scenario(DEFAULT_SCENARIO, {"platform.colour=red"}),
                        ContainsSubstring("platform.colour: unknown key; valid: preset, nodes"));
    REQUIRE_THROWS_WITH(load_scenario(DEFAULT_SCENARIO, {"novalue"}),
                        ContainsSubstring("expected key=value"));
  }
}

TEST_CASE("bad scenarios give located messages naming the valid values", "[scenario][errors]")
{
  CHECK_THAT(load_error(BAD + "unknown-key.yaml"),
             ContainsSubstring("unknown-key.yaml:4:3: platform.sharng: unknown key; valid: preset, nodes, "
                               "cards_per_node, devices_per_card, sharing"));
  const auto policy = load_error(BAD + "unknown-policy.yaml");
  CHECK_THAT(policy, ContainsSubstring("unknown-policy.yaml:4:9: policy: unknown policy 'fifo'; valid: "));
  CHECK_THAT(policy, ContainsSubstring("exclusive-fcfs") && ContainsSubstring("first-fit"));
  CHECK_THAT(load_error(BAD + "out-of-range.yaml"),
             ContainsSubstring("out-of-range.yaml:3:10: platform.nodes: out of range (got '0'); expected an "
                               "integer in [1, 1e+06]"));
  CHECK_THAT(load_error(BAD + "bad-choice.yaml"),
             ContainsSubstring("bad-choice.yaml:3:12: platform.sharing: unknown value (got 'mig-7'); valid: "
                               "exclusive, time-slice, ccs-2, ccs-4, mps, mig"));
  CHECK_THAT(load_error(BAD + "bad-placement.yaml"),
             ContainsSubstring("bad-placement.yaml:6:14: policy.placement: unknown placement rule 'tight'; "
                               "expected pack, spread or any"));
  const auto params = load_error(BAD + "bad-policy-param.yaml");
  CHECK_THAT(params,
             ContainsSubstring("bad-policy-param.yaml:7:21: policy.params.max_per_device: out of range "
                               "(got '100')"));
  CHECK_THAT(params,
             ContainsSubstring("bad-policy-param.yaml:8:14: policy.params.packing: unknown key; valid: "
                               "max_per_device, memory"));
  CHECK_THAT(
      load_error(BAD + "missing-workload.yaml"),
      ContainsSubstring("workload.trace: missing: the workload needs a trace file or a synthetic section"));
  CHECK_THAT(load_error(BAD + "syntax.yaml"),
             ContainsSubstring("syntax.yaml:3:") && ContainsSubstring("invalid YAML"));
  CHECK_THAT(load_error(BAD + "unknown-calibration.yaml", true),
             ContainsSubstring("unknown calibration 'max1550-fantasy'; valid: ") &&
                 ContainsSubstring("max1550-aurora-default"));
  const auto several = load_error(BAD + "several.yaml");
  CHECK_THAT(several, ContainsSubstring("several.yaml:2:7: seed: out of range (got '-3')"));
  CHECK_THAT(several,
             ContainsSubstring("several.yaml:3:15: interference: unknown value (got 'fancy'); valid: "
                               "none, table, contention, calibrated"));
  CHECK_THAT(several, ContainsSubstring("several.yaml:8:8: power.pue: out of range (got '0.5')"));
}

TEST_CASE("a trace row naming an unknown profile is reported at its line", "[scenario][errors]")
{
  RunInputs in = build_run(load_scenario(BAD + "unknown-profile.yaml"));
  RunObserver none;
  REQUIRE_THROWS_AS(run_simulation(in.setup(), none), InputError);
  RunInputs again = build_run(load_scenario(BAD + "unknown-profile.yaml"));
  REQUIRE_THROWS_WITH(run_simulation(again.setup(), none), ContainsSubstring("unknown-profile.csv:3") &&
                                                               ContainsSubstring("resnet-9000") &&
                                                               ContainsSubstring("busy"));
}

TEST_CASE("bundled files are addressed by name, paths relative to the scenario", "[scenario]")
{
  const auto cals = bundled_names("calibration/data");
  CHECK(std::find(cals.begin(), cals.end(), "max1550-aurora-default") != cals.end());
  const auto presets = bundled_names("sim/platforms");
  CHECK(std::find(presets.begin(), presets.end(), "aurora") != presets.end());
  CHECK(parent_dir("builtin:sim/scenarios/default/scenario.yaml") == "builtin:sim/scenarios/default");
  CHECK(parent_dir("a/b/c.yaml") == "a/b");
  CHECK(parent_dir("c.yaml") == ".");
}

TEST_CASE("calibration: auto picks the bundled calibration made for the device", "[scenario]")
{
  const auto in = build_run(load_scenario(DEFAULT_SCENARIO));
  CHECK(in.calibration.name == "max1550-aurora-default");
  CHECK(in.calibration_file == "builtin:calibration/data/max1550-aurora-default.yaml");
  const auto testnode = build_run(load_scenario(DEFAULT_SCENARIO, {"platform.preset=max1550-testnode"}));
  CHECK(testnode.calibration.name == "max1550-default");
  CHECK(testnode.platform.devices.size() == 2);
  // A device with no bundled calibration: the message says so and lists the bundled ones.
  REQUIRE_THROWS_WITH(build_run(load_scenario(DATA + "base.yaml", {"calibration=auto"})),
                      ContainsSubstring("no bundled calibration is made for device 'test-tile'") &&
                          ContainsSubstring("max1550-aurora-default") &&
                          ContainsSubstring("max1550-default"));
}

TEST_CASE("interference: calibrated insists on a measured table", "[scenario]")
{
  REQUIRE_THROWS_WITH(
      build_run(load_scenario(DEFAULT_SCENARIO, {"interference=calibrated"})),
      ContainsSubstring("calibrated needs a calibration whose interference table was measured") &&
          ContainsSubstring("is tagged estimate"));
  // A calibration whose table carries the measured-by-microbenchmark tag is accepted.
  const auto in = build_run(load_scenario(
      DATA + "base.yaml", {"interference=calibrated", "calibration=calibration-measured.yaml"}));
  CHECK(in.platform.types[0].interference->name() == "table");
}

TEST_CASE("interference: pair-total reads a pair table, and misuse is refused", "[scenario][pair-total]")
{
  const auto in =
      build_run(load_scenario(DATA + "base.yaml", {"platform.sharing=mps", "interference=pair-total",
                                                   "interference_table=gavel-v100"}));
  CHECK(in.platform.types[0].interference->name() == "pair-total");
  CHECK(in.interference_table_file == "builtin:calibration/interference/gavel-v100.yaml");
  CHECK(in.platform.types[0].interference->gives_total_slowdown(SharingMode::MPS));
  // No table named.
  REQUIRE_THROWS_WITH(
      build_run(load_scenario(DATA + "base.yaml", {"platform.sharing=mps", "interference=pair-total"})),
      ContainsSubstring("interference_table: interference: pair-total needs a pair table; expected a bundled "
                        "name (gavel-v100) or a path to a pair table"));
  // A table measured for mps on a time-sliced platform.
  REQUIRE_THROWS_WITH(
      build_run(
          load_scenario(DATA + "base.yaml", {"interference=pair-total", "interference_table=gavel-v100"})),
      ContainsSubstring("pair table 'gavel-v100' (builtin:calibration/interference/gavel-v100.yaml) holds "
                        "totals measured for mps, but platform.sharing is time-slice; expected "
                        "platform.sharing: mps (or a pair table listing time-slice)"));
  // A table with another interference model.
  REQUIRE_THROWS_WITH(
      build_run(load_scenario(DATA + "base.yaml", {"platform.sharing=mps", "interference_table=gavel-v100"})),
      ContainsSubstring("only interference: pair-total reads a pair table (got interference: table)"));
  // An unknown bundled name.
  REQUIRE_THROWS_WITH(
      build_run(load_scenario(DATA + "base.yaml", {"platform.sharing=mps", "interference=pair-total",
                                                   "interference_table=gavel-a100"})),
      ContainsSubstring("gavel-a100"));
}

TEST_CASE("NVIDIA calibrations reproduce the LLM-Inference-Bench power they were solved from",
          "[scenario][nvidia]")
{
  // Reference §3.6 (LIB): Llama-3-8B under vLLM, A100 228.8 W (batch 1) and 315.8 W (batch 64); H100 363.3 W
  // and 455.5 W. One job alone at full clock (f_default = f_max on these devices): ρ = 1.
  struct Case {
    const char* preset;
    double bs1_w, bs64_w;
  };
  for (const auto& c : {Case{"dgx-a100", 228.8, 315.8}, Case{"dgx-h100", 363.3, 455.5}}) {
    INFO(c.preset);
    const auto in = build_run(load_scenario(DEFAULT_SCENARIO, {std::string("platform.preset=") + c.preset}));
    CHECK(in.platform.devices.size() == 8);
    const auto& decode = in.profiles.at("llama3-8b-decode-bs1", {}).sig;
    const auto& batch = in.profiles.at("llama3-8b-infer-bs64", {}).sig;
    const PowerLoad one_decode[] = {{&decode, 1.0}};
    const PowerLoad one_batch[] = {{&batch, 1.0}};
    CHECK_THAT(device_power(in.calibration.power, one_decode, 1.0).total_w,
               Catch::Matchers::WithinAbs(c.bs1_w, 1.0));
    CHECK_THAT(device_power(in.calibration.power, one_batch, 1.0).total_w,
               Catch::Matchers::WithinAbs(c.bs64_w, 1.0));
  }
}
