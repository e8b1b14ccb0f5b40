// A policy that cannot work on the platform is refused before anything is simulated
// (PolicyInfo::requirements): run, replay, validate and sweep --dry-run exit 2 naming the policy, what it
// needs and what the platform has. Before, `--policy mig-manager` on the default Max 1550 platform rejected
// every job and exited 0, and first-fit on a mig platform stopped mid-run with an infeasible decision (exit
// 1).
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "cli/Cli.hpp"
#include "policies/PolicyRegistry.hpp"
#include "sim/Platform.hpp"
#include "sim/RunInputs.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace colocsim::test;

namespace {
namespace fs = std::filesystem;

const colocsim::test::ScratchDirs scratch_dir{.prefix = "reqs", .create = false};

} // namespace

TEST_CASE("mig-manager on the default Max 1550 platform is refused by run, validate and replay",
          "[requirements]")
{
  const auto dir = scratch_dir("refused");
  const auto run = cli({"run", "--policy", "mig-manager", "-o", (dir / "run").string(), "--quiet"});
  CHECK(run.status == 2);
  CHECK_THAT(run.err,
             ContainsSubstring("policy 'mig-manager' needs platform.sharing mig") &&
                 ContainsSubstring("platform 'aurora-node' has max1550-aurora-tile devices in time-slice"));
  CHECK_FALSE(fs::exists(dir / "run" / "summary.json")); // nothing was simulated

  const auto validate =
      cli({"validate", source("sim/scenarios/default/scenario.yaml"), "--policy", "mig-manager"});
  CHECK(validate.status == 2);
  CHECK_THAT(validate.err, ContainsSubstring("policy 'mig-manager' needs platform.sharing mig"));

  const auto replay = cli({"replay", source("sim/scenarios/default/jobs.csv"), "--format", "native",
                           "--policy", "mig-manager", "-o", (dir / "replay").string(), "--quiet"});
  CHECK(replay.status == 2);
  CHECK_THAT(replay.err,
             ContainsSubstring("policy 'mig-manager' needs platform.sharing mig") &&
                 ContainsSubstring("platform 'aurora' has max1550-aurora-tile devices in time-slice"));
  CHECK_FALSE(fs::exists(dir / "replay" / "summary.json"));
  fs::remove_all(dir);
}

TEST_CASE("a policy that never names a MIG instance is refused on a mig platform, exit 2", "[requirements]")
{
  const auto dir = scratch_dir("first-fit-mig");
  // Before: the engine stopped at t=0 with "device 0 is in mig mode: name its GPU instance", exit 1.
  const auto r = cli({"run", "--set", "platform.preset=dgx-a100", "--set", "platform.sharing=mig", "--policy",
                      "first-fit", "-o", dir.string(), "--quiet"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err,
             ContainsSubstring("policy 'first-fit' needs platform.sharing exclusive, time-slice, ccs-2, "
                               "ccs-4 or mps") &&
                 ContainsSubstring("platform 'dgx-a100' has a100-40gb devices in mig"));
  // power-aware places through its inner policy, whose requirements apply.
  const auto wrapped = cli({"run", "--set", "platform.preset=dgx-a100", "--set", "platform.sharing=mig",
                            "--policy", "power-aware", "-o", dir.string(), "--quiet"});
  CHECK(wrapped.status == 2);
  CHECK_THAT(wrapped.err, ContainsSubstring("its inner policy first-fit"));
  const auto inner_mig = cli({"run", "--set", "platform.preset=dgx-a100", "--set", "platform.sharing=mig",
                              "--policy", "power-aware:inner=mig-manager", "-o", dir.string(), "--quiet"});
  INFO(inner_mig.err);
  CHECK(inner_mig.status == 0);
  fs::remove_all(dir);
}

TEST_CASE("mig-manager on a mig platform still runs", "[requirements]")
{
  const auto dir = scratch_dir("mig-ok");
  const auto r =
      cli({"run", source("experiments/repro-mig-manager/scenario.yaml"), "-o", dir.string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  // ml.csv: 64 single-GPU jobs, each fits a 7g.40gb instance (40 GB), so every one completes.
  CHECK_THAT(slurp((dir / "summary.json").string()), ContainsSubstring("\"jobs_completed\": 64"));
  fs::remove_all(dir);
}

TEST_CASE("sweep --dry-run refuses a policy its platform cannot serve", "[requirements]")
{
  const auto dir = scratch_dir("sweep");
  fs::create_directories(dir);
  const auto spec = dir / "spec.yaml";
  std::ofstream(spec) << "name: reqs\nscenario: " << source("sim/scenarios/default/scenario.yaml")
                      << "\nset:\n  platform.preset: dgx-a100\naxes:\n  policy: [first-fit, mig-manager]\n";
  const auto r = cli({"sweep", spec.string(), "--dry-run", "-o", (dir / "out").string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("axes.policy: policy 'mig-manager' needs platform.sharing mig") &&
                        ContainsSubstring("platform 'dgx-a100' has a100-40gb devices in time-slice"));
  CHECK_THAT(r.err, ContainsSubstring("spec.yaml:6:"));
  fs::remove_all(dir);
}

TEST_CASE("requirements: every device type must be one the policy names, and inner policies' apply too",
          "[requirements]")
{
  using namespace colocsim;
  Platform p;
  p.name = "two-types";
  auto a100 = std::make_shared<DeviceSpec>();
  a100->name = "a100-40gb";
  a100->sharing_modes = {SharingMode::TIME_SLICE, SharingMode::MIG};
  auto t4 = std::make_shared<DeviceSpec>();
  t4->name = "t4";
  t4->trace_names = {"T4"};
  t4->sharing_modes = {SharingMode::TIME_SLICE};
  p.types.push_back(DeviceType{.spec = a100});
  p.types.push_back(DeviceType{.spec = t4});
  p.add_nodes(0, 1, 2, SharingMode::TIME_SLICE, 0);
  p.add_nodes(1, 1, 1, SharingMode::TIME_SLICE, 0);

  CHECK(requirement_mismatch(p, PolicyRequirements{}).empty());
  CHECK(requirement_mismatch(p, PolicyRequirements{{SharingMode::TIME_SLICE}, {"a100-40gb", "T4"}, "", ""})
            .empty());
  CHECK(requirement_mismatch(p, PolicyRequirements{{}, {"a100-40gb"}, "", ""}) ==
        "platform 'two-types' has t4 devices in time-slice (that device supports time-slice)");
  CHECK(requirement_mismatch(p, PolicyRequirements{{SharingMode::MPS}, {}, "", ""}) ==
        "platform 'two-types' has a100-40gb devices in time-slice (that device supports time-slice, mig); t4 "
        "devices in time-slice (that device supports time-slice)");

  // power-aware's requirements are those of the policy its `inner` names.
  const auto& power_aware = find_policy("power-aware");
  DiagnosticSink sink;
  const auto with = [&](const std::string& inner) {
    return effective_requirements(
        power_aware, parse_params(power_aware.params, {{"inner", GivenValue{inner, {}}}}, "", sink));
  };
  CHECK(with("mig-manager").sharing == std::vector<SharingMode>{SharingMode::MIG});
  CHECK(with("first-fit").sharing.size() == 5);
  CHECK(describe(with("mig-manager")) ==
        "platform.sharing mig (its inner policy mig-manager: it places each job on a MIG instance)");
  CHECK(sink.empty());
}

TEST_CASE("every built-in policy runs on every shipped scenario it declares compatible, and only there",
          "[requirements]")
{
  // The shipped scenarios (every scenario.yaml under experiments/ and sim/scenarios/ is listed: a new one
  // must join the loop).
  const std::vector<std::string> scenarios{
      "sim/scenarios/default/scenario.yaml",
      "sim/scenarios/bench/scenario.yaml",
      "experiments/compare-policies/scenario.yaml",
      "experiments/repro-costa-sscad25/scenario.yaml",
      "experiments/repro-heshare/scenario.yaml",
      "experiments/repro-mig-manager/scenario.yaml",
      "experiments/collocation-pitfalls/scenario.yaml",
      "experiments/mlperf-scaling/scenario.yaml",
      "experiments/labs/03-energy/scenario.yaml",
      "experiments/notebooks/scenario.yaml",
      "experiments/locality/scenario.yaml",
  };
  std::size_t found = 0;
  for (const char* dir : {"experiments", "sim/scenarios"})
    for (const auto& e : fs::recursive_directory_iterator(source(dir)))
      if (e.path().filename() == "scenario.yaml") {
        ++found;
        const auto rel = fs::relative(e.path(), COLOCSIM_SOURCE_DIR).string();
        INFO(rel);
        CHECK(std::find(scenarios.begin(), scenarios.end(), rel) != scenarios.end());
      }
  CHECK(found == scenarios.size());

  std::size_t ran = 0, refused = 0;
  for (const auto& scenario : scenarios) {
    // By hand: only repro-mig-manager's platform is in mig mode (dgx-a100, sharing: mig); every other shipped
    // scenario shares Max 1550 tiles or NVIDIA GPUs in time-slice or mps, or gives whole GPUs (exclusive).
    // mig-manager places only on MIG instances; every other built-in policy (power-aware: its default inner
    // first-fit) never names one.
    const bool mig_platform = scenario.find("repro-mig-manager") != std::string::npos;
    for (const auto& info : colocsim::policy_registry()) {
      const bool compatible = (info.name == "mig-manager") == mig_platform;
      const auto dir = scratch_dir("loop");
      std::vector<std::string> args{"run", source(scenario), "--policy", info.name,
                                    "-o",  dir.string(),     "--quiet"};
      if (scenario.find("bench") != std::string::npos)
        args.insert(args.end(), {"--set", "workload.synthetic.jobs=200"}); // 100,000 by default
      const auto r = cli(args);
      INFO(scenario << " with " << info.name << ": " << r.err);
      if (compatible) {
        CHECK(r.status == 0);
        CHECK_THAT(slurp((dir / "summary.json").string()), !ContainsSubstring("\"jobs_completed\": 0,"));
        ++ran;
      } else {
        CHECK(r.status == 2);
        CHECK_THAT(r.err, ContainsSubstring("policy '" + info.name + "' needs platform.sharing"));
        ++refused;
      }
      fs::remove_all(dir);
    }
  }
  // 10 scenarios without MIG run every policy but mig-manager, which they refuse; the MIG one the reverse.
  CHECK(ran == 10 * (colocsim::policy_registry().size() - 1) + 1);
  CHECK(refused == 10 + colocsim::policy_registry().size() - 1);
}
