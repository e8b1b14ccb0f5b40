// Policies on the shared fit indexes (SlotPolicy: first-fit, best-fit, interference-aware, heshare) place
// exactly as their scanning versions did once nodes can be off. Before, the devices of nodes that
// power-aware switched off stayed in the indexes (the engine reported no node going off), and each
// placement attempt stepped over them one by one (DeviceView::available false) while jobs waited: O(devices
// off) per decision. Now the engine reports NodePowered{node, false} and the policy takes the node's devices
// out of its indexes until NodePowered{node, true}.
//
// The scanning version is the same policy shown the events without NodePowered{node, false} (what the
// engine sent before): it keeps the devices of nodes off in its indexes and steps over them, as it did.
// Both run inside power-aware through the real engine on a trace of bursts separated by idle gaps longer
// than idle_s (nodes go off, the next burst waits for boots), and every job must start at the same time on
// the same devices. A view that counts the devices a policy looks up while they are unavailable shows that
// the scanning version steps over devices of nodes off (the test reaches the scan) and the indexed one never
// does (no device is being repartitioned here, the only other reason for a device to be unavailable).
#include "tests/CatchCompat.hpp"

#include "base/Params.hpp"
#include "policies/Policy.hpp"
#include "policies/PolicyRegistry.hpp"
#include "sim/Engine.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"
#include "tests/policies/BurstTrace.hpp"
#include "tests/sim/EngineTestSupport.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

using namespace colocsim;

namespace {

/// Devices looked up (ClusterView::device) while unavailable, by the wrapped policies of the current run.
std::uint64_t g_unavailable_lookups = 0;

/// Hands every call to the real view and counts the lookups of unavailable devices.
class CountingView final : public ClusterView {
public:
  explicit CountingView(const ClusterView& v) : v_(v) {}
  double now() const override { return v_.now(); }
  std::size_t device_count() const override { return v_.device_count(); }
  DeviceView device(DeviceIndex d) const override
  {
    DeviceView dv = v_.device(d);
    if (!dv.available) ++g_unavailable_lookups;
    return dv;
  }
  const Job& job(JobIndex j) const override { return v_.job(j); }
  std::span<const JobIndex> residents(DeviceIndex d) const override { return v_.residents(d); }
  const ResourceSignature& signature(JobIndex j) const override { return v_.signature(j); }
  PlacementPrediction predict(JobIndex j, std::span<const DeviceIndex> devices,
                              std::span<const JobIndex> also) const override
  {
    return v_.predict(j, devices, also);
  }
  const MigGeometry* mig_geometry(DeviceIndex d) const override { return v_.mig_geometry(d); }
  std::vector<MigSlot> mig_instances(DeviceIndex d) const override { return v_.mig_instances(d); }
  bool allows(JobIndex j, DeviceIndex d) const override { return v_.allows(j, d); }
  double estimate(JobIndex j) const override { return v_.estimate(j); }
  double time_limit(JobIndex j) const override { return v_.time_limit(j); }

private:
  const ClusterView& v_;
};

/// The policy underneath, through a CountingView; `scanning`: without the NodePowered{node, false} events.
class Wrapped final : public Policy {
public:
  Wrapped(std::unique_ptr<Policy> inner, bool scanning) : inner_(std::move(inner)), scanning_(scanning) {}
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    std::vector<Event> kept;
    for (const auto& e : events) {
      const auto* np = std::get_if<NodePowered>(&e);
      if (np && !np->on) {
        ++offs_seen;
        if (scanning_) continue;
      }
      kept.push_back(e);
    }
    const CountingView counting(view);
    return inner_->decide(counting, kept);
  }
  static inline std::uint64_t offs_seen = 0;

private:
  std::unique_ptr<Policy> inner_;
  bool scanning_;
};

const std::vector<std::string> INDEXED = {"first-fit", "best-fit", "interference-aware", "heshare"};

/// NAME-counted (the policy as it is) and NAME-scanning (without node-off events), for power-aware's inner.
void register_wrapped()
{
  for (const auto& p : policy_registry())
    if (p.name == "first-fit-counted") return;
  std::vector<PolicyInfo> added;
  for (const auto& name : INDEXED)
    for (const bool scanning : {false, true}) {
      PolicyInfo info = find_policy(name);
      const auto factory = info.factory;
      info.name = name + (scanning ? "-scanning" : "-counted");
      info.factory = [factory, scanning](const ParamSet& p) -> std::unique_ptr<Policy> {
        return std::make_unique<Wrapped>(factory(p), scanning);
      };
      added.push_back(info);
    }
  register_policies(added);
}

struct Run {
  std::map<std::string, JobRecord> jobs;
  std::uint64_t unavailable_lookups = 0;
  std::uint64_t offs_seen = 0;
};

Run run(const std::string& trace, const std::string& policy)
{
  // 8 nodes of one card (2 tiles): 16 devices.
  const std::vector<std::string> sets{"platform.nodes=8", "platform.node_boot=300s",
                                      "workload.trace=" + trace};
  RunInputs in = build_run(load_scenario(std::string(COLOCSIM_TEST_DATA) + "/sim/base.yaml", sets, policy));
  g_unavailable_lookups = 0;
  Wrapped::offs_seen = 0;
  auto outcome = test::run_collect(in);
  return Run{std::move(outcome.jobs), g_unavailable_lookups, Wrapped::offs_seen};
}

} // namespace

TEST_CASE("policies on the fit indexes place as their scanning versions with nodes off, without stepping "
          "over them",
          "[policies][power-aware][offscan]")
{
  register_wrapped();
  const std::string trace = test::write_burst_trace("offscan", 424242, 200);
  for (const auto& inner : INDEXED)
    for (const std::string knobs : {"idle_s=600,min_on=1", "idle_s=120,min_on=2,max_boots=1"}) {
      DYNAMIC_SECTION(inner << " in power-aware:" << knobs)
      {
        const Run now = run(trace, "power-aware:inner=" + inner + "-counted," + knobs);
        const Run before = run(trace, "power-aware:inner=" + inner + "-scanning," + knobs);
        REQUIRE(now.jobs.size() == 200);
        REQUIRE(before.jobs.size() == 200);
        for (const auto& [id, r] : now.jobs) {
          INFO(id);
          CHECK(r.devices == before.jobs.at(id).devices);
          // Times may differ in the last bits: two runs in one process already do (the engine's
          // floating-point state carries over between runs; a start after a completion inherits it).
          CHECK_THAT(r.start_s, Catch::Matchers::WithinRel(before.jobs.at(id).start_s, 1e-12));
          CHECK_THAT(r.end_s, Catch::Matchers::WithinRel(before.jobs.at(id).end_s, 1e-12));
        }
        // Nodes went off (the engine reported each one) and the scanning version stepped over their
        // devices while jobs waited; the indexed version looked up no unavailable device.
        CHECK(now.offs_seen > 20);
        CHECK(now.offs_seen == before.offs_seen);
        CHECK(before.unavailable_lookups > 50);
        CHECK(now.unavailable_lookups == 0);
      }
    }
  std::filesystem::remove(trace);
}
