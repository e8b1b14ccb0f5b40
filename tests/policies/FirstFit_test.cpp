// first-fit: the lowest-index device with a free slot and enough free memory (by the memory notion).
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

TEST_CASE("first-fit takes the lowest device that fits", "[policies][first-fit]")
{
  // Two 64 GB devices. A (30 GB) → 0; B (40 GB) does not fit next to A (34 GB free) → 1; C (20 GB) fits
  // on both (34 and 24 GB free) and first-fit takes the lowest index, 0.
  auto [view, a, b, c] = three_jobs_on_two_devices();
  auto policy = make_policy("first-fit:memory=declared");
  CHECK(placements(view.submit(*policy, {a, b, c})) ==
        std::map<JobIndex, Devices>{{a, {0}}, {b, {1}}, {c, {0}}});
}

TEST_CASE("first-fit respects max_per_device and the exclusive mode", "[policies][first-fit]")
{
  // Device 0 is exclusive (one job), device 1 time-slice with max_per_device = 2: the third job waits.
  FakeClusterView view;
  view.add_device(SharingMode::EXCLUSIVE);
  view.add_device(SharingMode::TIME_SLICE);
  const auto j0 = view.add_job(make_job()), j1 = view.add_job(make_job()), j2 = view.add_job(make_job()),
             j3 = view.add_job(make_job());
  auto policy = make_policy("first-fit:max_per_device=2");
  CHECK(placements(view.submit(*policy, {j0, j1, j2, j3})) ==
        std::map<JobIndex, Devices>{{j0, {0}}, {j1, {1}}, {j2, {1}}});
  CHECK(placements(view.complete(*policy, j0)) == std::map<JobIndex, Devices>{{j3, {0}}});
}
