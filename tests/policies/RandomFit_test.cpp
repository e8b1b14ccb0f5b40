// random (the FGD study's Random-fit): devices drawn uniformly among those that fit, from a seeded generator.
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

using namespace colocsim;
using namespace colocsim::test;

namespace {
/// Submits 40 jobs of 300 milli one by one on 32 GPUs and returns where each went.
std::vector<std::vector<DeviceIndex>> run(const std::string& spec)
{
  FakeClusterView view;
  view.check_milli = true; // every draw must fit
  for (int i = 0; i < 32; ++i)
    view.add_device(SharingMode::TIME_SLICE, static_cast<std::uint32_t>(i / 4));
  auto policy = make_policy(spec);
  std::vector<std::vector<DeviceIndex>> out;
  for (int i = 0; i < 40; ++i) {
    const auto j = view.add_job(make_job(1, 300));
    const auto placed = placements(view.submit(*policy, {j}));
    out.push_back(placed.count(j) ? placed.at(j) : std::vector<DeviceIndex>{});
  }
  return out;
}
} // namespace

TEST_CASE("random is deterministic for a seed and differs between seeds", "[policies][random]")
{
  const auto a = run("random:seed=7");
  const auto b = run("random:seed=7");
  const auto c = run("random:seed=8");
  CHECK(a == b);
  CHECK(a != c);
  // Every job found a GPU (40 · 300 milli fit on 32 GPUs), and the draws spread: first-fit would use only
  // 14 GPUs (three 300-milli jobs per GPU); 40 uniform draws over 32 GPUs hit far more.
  std::set<DeviceIndex> used;
  for (const auto& d : a) {
    REQUIRE(d.size() == 1);
    used.insert(d[0]);
  }
  CHECK(used.size() > 14);
}
