// best-fit-frac (the FGD study's Best-fit): the device left with the least free share and memory.
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

TEST_CASE("best-fit-frac picks the GPU with the least free share that fits", "[policies][best-fit-frac]")
{
  // Free shares 600, 300, 1000 (jobs of 400 and 700 milli already run on GPUs 0 and 1). A 250-milli job
  // fits all three: scores 0.5·(f − 250)/1000 + 0.5·1 (memory ignored: all of it free everywhere)
  // → 0.675, 0.525, 0.875 → GPU 1.
  // A 400-milli job no longer fits GPU 1 (50 left): GPU 0 (600 → 200) beats GPU 2.
  FakeClusterView view;
  view.check_milli = true;
  for (int i = 0; i < 3; ++i)
    view.add_device();
  const auto r0 = view.add_job(make_job(1, 400)), r1 = view.add_job(make_job(1, 700));
  view.run_before(r0, {0});
  view.run_before(r1, {1});
  const auto a = view.add_job(make_job(1, 250)), b = view.add_job(make_job(1, 400));
  auto policy = make_policy("best-fit-frac:memory=none");
  CHECK(placements(view.submit(*policy, {a, b})) == std::map<JobIndex, Devices>{{a, {1}}, {b, {0}}});
}

TEST_CASE("fractional policies take whole GPUs for whole-GPU gang jobs", "[policies][best-fit-frac]")
{
  // A 2-GPU job at 1000 milli each needs two idle GPUs: GPU 0 runs a 100-milli job, so GPUs 1 and 2.
  FakeClusterView view;
  view.check_milli = true;
  for (int i = 0; i < 3; ++i)
    view.add_device();
  const auto r = view.add_job(make_job(1, 100));
  view.run_before(r, {0});
  const auto g = view.add_job(make_job(2, 1000));
  for (const char* name :
       {"best-fit-frac", "fgd", "dot-product", "gpu-packing", "gpu-clustering", "random"}) {
    INFO(name);
    FakeClusterView v = view;
    auto policy = make_policy(name);
    auto placed = placements(v.submit(*policy, {g}));
    REQUIRE(placed.count(g) == 1);
    std::sort(placed[g].begin(), placed[g].end());
    CHECK(placed[g] == Devices{1, 2});
  }
}
