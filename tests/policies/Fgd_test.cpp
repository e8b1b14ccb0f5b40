// fgd (Weng et al., USENIX ATC'23): the device whose fragmentation F(f) = f · P(M > f) grows least, with M
// the per-device shares of the jobs submitted so far.
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

#include "policies/Fgd.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

TEST_CASE("fgd keeps the device a typical task still fits, best-fit-frac takes the tightest one",
          "[policies][fgd]")
{
  // Two GPUs. j0 (400 milli) goes to GPU 0 (both idle, Δ equal: the lower index). Then j1 (200) and three
  // 500-milli jobs arrive together. Shares seen: 200, 400, 500, 500, 500, so
  //   P(M > f) = 1 for f < 200, 0.8 for 200 ≤ f < 400, 0.6 for 400 ≤ f < 500, 0 for f ≥ 500.
  // j1 (200):  GPU 0, 600 → 400: Δ = F(400) − F(600) = 400·0.6 − 0 = 240
  //            GPU 1, 1000 → 800: Δ = F(800) − F(1000) = 0 − 0 = 0          → GPU 1
  //   (best-fit-frac takes GPU 0, 600 free: the tightest, leaving 400 that no 500 task can use)
  // j2 (500):  GPU 0, 600 → 100: Δ = 100·1 − 0 = 100;  GPU 1, 800 → 300: Δ = 300·0.8 − 0 = 240 → GPU 0
  // j3 (500):  only GPU 1 fits (800 → 300)                                                        → GPU 1
  // j4 (500):  neither fits (100 and 300 free): it waits.
  FakeClusterView view;
  view.check_milli = true;
  view.add_device();
  view.add_device();
  const auto j0 = view.add_job(make_job(1, 400));
  const auto j1 = view.add_job(make_job(1, 200));
  const auto j2 = view.add_job(make_job(1, 500));
  const auto j3 = view.add_job(make_job(1, 500));
  const auto j4 = view.add_job(make_job(1, 500));
  auto policy = make_policy("fgd");
  CHECK(placements(view.submit(*policy, {j0})) == std::map<JobIndex, Devices>{{j0, {0}}});
  CHECK(placements(view.submit(*policy, {j1, j2, j3, j4})) ==
        std::map<JobIndex, Devices>{{j1, {1}}, {j2, {0}}, {j3, {1}}});
  const auto& fgd = dynamic_cast<const Fgd&>(*policy);
  CHECK_THAT(fgd.fragmentation(100), WithinAbs(100.0, 1e-9));
  CHECK_THAT(fgd.fragmentation(300), WithinAbs(240.0, 1e-9));
  CHECK_THAT(fgd.fragmentation(400), WithinAbs(240.0, 1e-9));
  CHECK_THAT(fgd.fragmentation(600), WithinAbs(0.0, 1e-9));

  FakeClusterView bf_view;
  bf_view.check_milli = true;
  bf_view.add_device();
  bf_view.add_device();
  for (int milli : {400, 200, 500, 500, 500})
    bf_view.add_job(make_job(1, milli));
  auto bf = make_policy("best-fit-frac");
  CHECK(placements(bf_view.submit(*bf, {0})) == std::map<JobIndex, Devices>{{0, {0}}});
  // j1 → GPU 0 (600 → 400), j2 → GPU 1 (1000 → 500), j3 → GPU 1 (500 → 0); j4 waits.
  CHECK(placements(bf_view.submit(*bf, {1, 2, 3, 4})) ==
        std::map<JobIndex, Devices>{{1, {0}}, {2, {1}}, {3, {1}}});
}

TEST_CASE("fgd counts the free share behind a device's last slot as fragment", "[policies][fgd]")
{
  // GPU 0 is in ccs-2 mode (two slots) and already runs a 300-milli job; GPU 1 is idle, time-slice. Only
  // 300-milli jobs are seen, so P(M > f) = 1 for f < 300, else 0.
  //   GPU 0, 700 → 400, last slot: Δ = 400 (all of it unusable) − F(700) = 400 − 0 = 400
  //   GPU 1, 1000 → 700:           Δ = F(700) − F(1000) = 0                       → GPU 1
  FakeClusterView view;
  view.add_device(SharingMode::CCS_2);
  view.add_device();
  const auto r = view.add_job(make_job(1, 300));
  view.run_before(r, {0});
  const auto j = view.add_job(make_job(1, 300));
  auto policy = make_policy("fgd");
  CHECK(placements(view.submit(*policy, {j})) == std::map<JobIndex, Devices>{{j, {1}}});
}

TEST_CASE("fgd sets the mps active-thread share from gpu_milli", "[policies][fgd]")
{
  FakeClusterView view;
  view.add_device(SharingMode::MPS);
  const auto j = view.add_job(make_job(1, 250));
  auto policy = make_policy("fgd");
  const auto out = view.submit(*policy, {j});
  REQUIRE(out.size() == 1);
  CHECK_THAT(std::get<Place>(out[0]).thread_share, WithinAbs(0.25, 1e-12));
  auto plain = make_policy("fgd:mps_share=false");
  FakeClusterView view2;
  view2.add_device(SharingMode::MPS);
  view2.add_job(make_job(1, 250));
  CHECK(std::get<Place>(view2.submit(*plain, {0})[0]).thread_share == 1.0);
}

TEST_CASE("the FGD family drops a job that fits nowhere with no_fit=drop instead of blocking the queue",
          "[policies][fgd]")
{
  // One GPU; 600, 600 and 300 milli arrive together. The first takes the GPU (400 left). The second fits
  // nowhere: by default it waits at the queue head and the 300 behind it waits too, although it fits;
  // with no_fit=drop it is rejected with its reason and the 300 is placed.
  for (const std::string name :
       {"fgd", "random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit-frac"}) {
    INFO(name);
    FakeClusterView view;
    view.check_milli = true;
    view.add_device();
    const auto a = view.add_job(make_job(1, 600));
    const auto b = view.add_job(make_job(1, 600));
    const auto c = view.add_job(make_job(1, 300));
    auto waiting = make_policy(name);
    CHECK(placements(view.submit(*waiting, {a, b, c})) == std::map<JobIndex, Devices>{{a, {0}}});

    FakeClusterView view2;
    view2.check_milli = true;
    view2.add_device();
    for (int milli : {600, 600, 300})
      view2.add_job(make_job(1, milli));
    auto dropping = make_policy(name + ":no_fit=drop");
    const auto out = view2.submit(*dropping, {0, 1, 2});
    CHECK(placements(out) == std::map<JobIndex, Devices>{{0, {0}}, {2, {0}}});
    std::vector<std::string> rejected;
    for (const auto& d : out)
      if (const auto* r = std::get_if<Reject>(&d))
        rejected.push_back(std::to_string(r->job) + ": " + r->reason);
    CHECK(rejected == std::vector<std::string>{"1: fits no device at its arrival (no_fit=drop)"});
  }
}
