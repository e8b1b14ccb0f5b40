// best-fit: the device whose free memory is the smallest that still fits (ties: lowest index).
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

namespace {
/// Three 64 GB devices; 0 runs a 60 GB job, 1 a 10 GB one, 2 nothing; j, a 1 GB job, waits.
std::pair<FakeClusterView, JobIndex> three_devices_60_10_0_gb()
{
  FakeClusterView view;
  for (int i = 0; i < 3; ++i)
    view.add_device(SharingMode::TIME_SLICE, 0, 64 * GB);
  const auto r0 = view.add_job(make_job(1, 1000, 100, 60 * GB));
  const auto r1 = view.add_job(make_job(1, 1000, 100, 10 * GB));
  view.run_before(r0, {0});
  view.run_before(r1, {1});
  const auto j = view.add_job(make_job(1, 1000, 100, 1 * GB));
  return {view, j};
}
} // namespace

TEST_CASE("best-fit picks the tightest device", "[policies][best-fit]")
{
  // The first-fit case: after A (30 GB) on 0 and B (40 GB) on 1, device 0 has 34 GB free and device 1
  // 24 GB. C (20 GB) goes to device 1, the tighter fit (first-fit takes 0).
  auto [view, a, b, c] = three_jobs_on_two_devices();
  auto policy = make_policy("best-fit:memory=declared");
  CHECK(placements(view.submit(*policy, {a, b, c})) ==
        std::map<JobIndex, Devices>{{a, {0}}, {b, {1}}, {c, {1}}});
}

TEST_CASE("best-fit skips devices without a free slot", "[policies][best-fit]")
{
  // Three 64 GB devices; 0 already runs a 60 GB job, 1 a 10 GB one. With max_per_device = 1 neither has a
  // slot left, so a 1 GB job takes device 2 although device 0 would be the tightest.
  auto [view, j] = three_devices_60_10_0_gb();
  auto tight = make_policy("best-fit:memory=declared,max_per_device=1");
  CHECK(placements(view.submit(*tight, {j})) == std::map<JobIndex, Devices>{{j, {2}}});
}

TEST_CASE("best-fit with two slots prefers the device the earlier jobs filled most", "[policies][best-fit]")
{
  auto [view, j] = three_devices_60_10_0_gb();
  auto policy = make_policy("best-fit:memory=declared,max_per_device=2");
  CHECK(placements(view.submit(*policy, {j})) ==
        std::map<JobIndex, Devices>{{j, {0}}}); // 4 GB free: tightest
}

TEST_CASE("best-fit takes a device whose free memory equals the request exactly", "[policies][best-fit]")
{
  // Device 0 runs a 40 GB job: 24 GB free, exactly what j declares; device 1 is empty (64 GB free). The
  // exact fit is the tightest (24 − 24 = 0 GB left), so j goes to device 0, not 1.
  FakeClusterView view;
  view.add_device(SharingMode::TIME_SLICE, 0, 64 * GB);
  view.add_device(SharingMode::TIME_SLICE, 0, 64 * GB);
  const auto r0 = view.add_job(make_job(1, 1000, 100, 40 * GB));
  view.run_before(r0, {0});
  const auto j = view.add_job(make_job(1, 1000, 100, 24 * GB));
  auto policy = make_policy("best-fit:memory=declared,max_per_device=2");
  CHECK(placements(view.submit(*policy, {j})) == std::map<JobIndex, Devices>{{j, {0}}});
}
