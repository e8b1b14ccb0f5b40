// Every built-in policy reaches the whole cluster: on 10,000 devices whose low-numbered ones are all busy
// (or refuse the job), a job lands on one of the idle devices at the far end. Before SlotPolicy kept an
// index of idle devices, interference-aware and heshare examined at most `candidates` (64) devices in
// first-fit order and left such a job waiting for ever.
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

namespace {

constexpr DeviceIndex DEVICES = 10'000;
constexpr DeviceIndex IDLE = 10; ///< idle devices at the end: DEVICES − IDLE and on

/// DEVICES devices in `mode`, one per node; all but the last IDLE run one compute-bound job each, started
/// before the policy first looks.
void fill(FakeClusterView& view, SharingMode mode)
{
  for (DeviceIndex d = 0; d < DEVICES; ++d)
    view.add_device(mode, d);
  for (DeviceIndex d = 0; d < DEVICES - IDLE; ++d)
    view.run_before(view.add_job(make_job(), busy_signature()), {d});
}

} // namespace

TEST_CASE("every built-in policy places a job on an idle device past 9,990 full ones", "[policies][scale]")
{
  // Exclusive devices: a busy device has no free slot, so the only devices that can take the new job are
  // 9,990..9,999, and a policy that looks at all of them takes the lowest (all of them score alike: no
  // residents, the same memory, power and type) — except random, which draws one of them.
  for (const auto& info : policy_registry()) {
    if (info.name == "mig-manager") continue; // needs mig devices: tests/sim/Mig_test.cpp
    DYNAMIC_SECTION(info.name)
    {
      FakeClusterView view;
      fill(view, SharingMode::EXCLUSIVE);
      const auto j = view.add_job(make_job(), busy_signature());
      auto policy = make_policy(info.name);
      const auto placed = placements(view.submit(*policy, {j}));
      REQUIRE(placed.count(j) == 1);
      REQUIRE(placed.at(j).size() == 1);
      CHECK(placed.at(j)[0] >= DEVICES - IDLE);
      if (info.name != "random") CHECK(placed.at(j)[0] == DEVICES - IDLE);
    }
  }
}

TEST_CASE("interference-aware and heshare reach idle devices past 9,990 that refuse the job",
          "[policies][scale][interference-aware][heshare]")
{
  // Time-slice devices, θ = 1: each busy device has free slots, but a second compute-bound job slows both
  // to max(Σ duty, 1 + 1·1) = 2 > max_slowdown 1.5, so all of 0..9,989 refuse. An idle device is always
  // acceptable; interference-aware takes the lowest ones (first-fit order), heshare the lowest of equal
  // energy (FakeClusterView predicts no power: every option scores 0 and the sort is stable). A 4-device job
  // takes 9,990..9,993; the single-device job after it takes 9,994.
  for (const std::string name : {"interference-aware", "heshare"}) {
    DYNAMIC_SECTION(name)
    {
      FakeClusterView view;
      fill(view, SharingMode::TIME_SLICE);
      const auto gang = view.add_job(make_job(4), busy_signature());
      const auto one = view.add_job(make_job(), busy_signature());
      auto policy = make_policy(name + ":max_slowdown=1.5");
      CHECK(placements(view.submit(*policy, {gang, one})) ==
            std::map<JobIndex, Devices>{{gang, {9'990, 9'991, 9'992, 9'993}}, {one, {9'994}}});
    }
  }
}

TEST_CASE("the interference-aware window bounds only doubling up and leaves idle devices within reach",
          "[policies][scale][interference-aware]")
{
  // Device 5,000 runs a light job (duty 0.25): a compute-bound job next to it gives
  // max(1.25, 1 + 1·0.25, 1 + 0.25·1) = 1.25 ≤ 1.5, so it accepts; the other 9,989 busy devices refuse (2).
  // With the default window (64 refusing predictions) device 5,000 is never examined and the job takes the
  // first idle device, 9,990; with candidates=10000 first-fit order reaches device 5,000 and shares it.
  FakeClusterView view;
  for (DeviceIndex d = 0; d < DEVICES; ++d)
    view.add_device(SharingMode::TIME_SLICE, d);
  for (DeviceIndex d = 0; d < DEVICES - IDLE; ++d)
    view.run_before(view.add_job(make_job(), d == 5'000 ? light_signature() : busy_signature()), {d});
  const auto j = view.add_job(make_job(), busy_signature());
  FakeClusterView copy = view;
  auto windowed = make_policy("interference-aware");
  CHECK(placements(view.submit(*windowed, {j})) == std::map<JobIndex, Devices>{{j, {9'990}}});
  auto whole = make_policy("interference-aware:candidates=10000");
  CHECK(placements(copy.submit(*whole, {j})) == std::map<JobIndex, Devices>{{j, {5'000}}});
}
