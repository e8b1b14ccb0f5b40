// dot-product (Tetris as the FGD study's DotProd): the smallest dot product of the device's free
// (share, memory) and the job's request, each normalised by the device's capacity.
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

namespace {
/// Two 64 GB GPUs: 0 runs a 500-milli job declaring no memory (500 milli and 64 GB free), 1 a 100-milli job
/// declaring 48 GB (900 milli and 16 GB free).
FakeClusterView two_gpus_500_milli_and_48_gb_used()
{
  FakeClusterView view;
  view.check_milli = true;
  view.add_device(SharingMode::TIME_SLICE, 0, 64 * GB);
  view.add_device(SharingMode::TIME_SLICE, 0, 64 * GB);
  const auto r0 = view.add_job(make_job(1, 500, 100, 0));
  const auto r1 = view.add_job(make_job(1, 100, 100, 48 * GB));
  view.run_before(r0, {0});
  view.run_before(r1, {1});
  return view;
}
} // namespace

TEST_CASE("dot-product weighs memory against the GPU share", "[policies][dot-product]")
{
  // Two 64 GB GPUs. GPU 0 runs a 500-milli job declaring no memory (500 free, 64 GB free); GPU 1 a 100-milli
  // job declaring 48 GB (900 free, 16 GB free). A 200-milli, 16 GB job:
  //   GPU 0: 0.5·0.2 + (64/64)·(16/64) = 0.1 + 0.25   = 0.35
  //   GPU 1: 0.9·0.2 + (16/64)·(16/64) = 0.18 + 0.0625 = 0.2425  → GPU 1
  // With memory ignored only the share counts: 0.1 < 0.18 → GPU 0.
  FakeClusterView view = two_gpus_500_milli_and_48_gb_used();
  const auto j = view.add_job(make_job(1, 200, 100, 16 * GB));
  FakeClusterView other = view;
  auto declared = make_policy("dot-product:memory=declared");
  CHECK(placements(view.submit(*declared, {j})) == std::map<JobIndex, Devices>{{j, {1}}});
  auto share_only = make_policy("dot-product:memory=none");
  CHECK(placements(other.submit(*share_only, {j})) == std::map<JobIndex, Devices>{{j, {0}}});
}

TEST_CASE("dot-product scales the memory term by the request: a small request weighs little",
          "[policies][dot-product]")
{
  // The same two GPUs (0: 500 milli and 64 GB free; 1: 900 milli and 16 GB free) and a 200-milli job that
  // declares only 6.4 GB (a tenth of the device):
  //   GPU 0: 0.5·0.2 + (64/64)·(6.4/64) = 0.1 + 0.1     = 0.2    → GPU 0
  //   GPU 1: 0.9·0.2 + (16/64)·(6.4/64) = 0.18 + 0.025  = 0.205
  // Without the request's factor the free memory alone would count (0.1 + 1 vs 0.18 + 0.25) and pick GPU 1.
  FakeClusterView view = two_gpus_500_milli_and_48_gb_used();
  const auto j = view.add_job(make_job(1, 200, 100, 6.4 * GB));
  auto declared = make_policy("dot-product:memory=declared");
  CHECK(placements(view.submit(*declared, {j})) == std::map<JobIndex, Devices>{{j, {0}}});
}
