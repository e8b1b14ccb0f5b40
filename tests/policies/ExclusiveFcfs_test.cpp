// exclusive-fcfs: whole devices in strict submission order — the queue head blocks later jobs that would fit.
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

TEST_CASE("exclusive-fcfs: the head blocks a later job that would fit", "[policies][exclusive-fcfs]")
{
  FakeClusterView view;
  view.add_device(SharingMode::EXCLUSIVE);
  view.add_device(SharingMode::EXCLUSIVE);
  const auto j0 = view.add_job(make_job(1)), j1 = view.add_job(make_job(2)), j2 = view.add_job(make_job(1));
  auto policy = make_policy("exclusive-fcfs");
  // j0 takes device 0; j1 needs both devices and waits; j2 would fit on device 1 but stays behind j1.
  const auto first = placements(view.submit(*policy, {j0, j1, j2}));
  CHECK(first == std::map<JobIndex, Devices>{{j0, {0}}});
  const auto second = placements(view.complete(*policy, j0));
  CHECK(second == std::map<JobIndex, Devices>{{j1, {0, 1}}});
  const auto third = placements(view.complete(*policy, j1));
  CHECK(third == std::map<JobIndex, Devices>{{j2, {0}}});
}

TEST_CASE("exclusive-fcfs rejects a job larger than the platform", "[policies][exclusive-fcfs]")
{
  FakeClusterView view;
  view.add_device(SharingMode::EXCLUSIVE);
  const auto j = view.add_job(make_job(2));
  auto policy = make_policy("exclusive-fcfs");
  const auto out = view.submit(*policy, {j});
  REQUIRE(out.size() == 1);
  const auto* r = std::get_if<Reject>(&out[0]);
  REQUIRE(r != nullptr);
  CHECK(r->job == j);
  CHECK_THAT(r->reason, ContainsSubstring("more devices than the platform has"));
}
