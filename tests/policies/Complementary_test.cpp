// complementary (Costa et al., SSCAD 2025): waiting jobs paired by a maximum-weight matching of the device
// time each pair saves, w(a, b) = t_a + t_b − max(t_a·s_a, t_b·s_b); pairs with w ≤ 0 are not formed.
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

using namespace colocsim;
using namespace colocsim::test;

namespace {
/// Which jobs share a device: the sorted job lists of the devices in use.
std::set<std::vector<JobIndex>> groups(const FakeClusterView& view)
{
  std::set<std::vector<JobIndex>> out;
  for (DeviceIndex d = 0; d < view.device_count(); ++d) {
    auto r = view.residents(d);
    if (r.empty()) continue;
    std::vector<JobIndex> g(r.begin(), r.end());
    std::sort(g.begin(), g.end());
    out.insert(g);
  }
  return out;
}
} // namespace

TEST_CASE("complementary pairs low-duty-cycle jobs and never two compute-bound ones",
          "[policies][complementary]")
{
  // Time-slice, θ = 1, 100 s each. Light = duty 0.25, busy = duty 1:
  //   light+light: s = max(0.5, 1 + 0.25·0.25) = 1.0625 → w = 200 − 106.25 = 93.75 > 0: paired;
  //   busy+busy:   s = max(2, 1 + 1·1) = 2 → w = 200 − 200 = 0: no edge, each runs alone.
  FakeClusterView view;
  for (int i = 0; i < 4; ++i)
    view.add_device();
  const auto b1 = view.add_job(make_job(), busy_signature());
  const auto b2 = view.add_job(make_job(), busy_signature());
  const auto l1 = view.add_job(make_job(), light_signature());
  const auto l2 = view.add_job(make_job(), light_signature());
  auto policy = make_policy("complementary");
  view.submit(*policy, {b1, b2});
  CHECK(groups(view) == std::set<std::vector<JobIndex>>{{b1}, {b2}});
  view.submit(*policy, {l1, l2});
  CHECK(groups(view) == std::set<std::vector<JobIndex>>{{b1}, {b2}, {l1, l2}});
}

TEST_CASE("complementary's matching prefers two light+busy pairs to one light+light pair",
          "[policies][complementary]")
{
  //   light+busy: s_l = max(1.25, 1 + 0.25·1) = 1.25, s_b = max(1.25, 1 + 1·0.25) = 1.25 → w = 200 − 125
  //   = 75.
  // Matchings of {b1, l1, b2, l2}: {l1–b1, l2–b2} (or the crossed one) = 150 > {l1–l2} = 93.75 (b1–b2 has
  // no edge). A greedy pairing of the best edge first would pick l1–l2 and leave b1, b2 alone.
  FakeClusterView view;
  view.add_device();
  view.add_device();
  const auto b1 = view.add_job(make_job(), busy_signature());
  const auto l1 = view.add_job(make_job(), light_signature());
  const auto b2 = view.add_job(make_job(), busy_signature());
  const auto l2 = view.add_job(make_job(), light_signature());
  auto policy = make_policy("complementary");
  view.submit(*policy, {b1, l1, b2, l2});
  const auto g = groups(view);
  REQUIRE(g.size() == 2);
  for (const auto& pair : g) {
    REQUIRE(pair.size() == 2);
    const bool one_light = (pair[0] == l1 || pair[0] == l2) != (pair[1] == l1 || pair[1] == l2);
    CHECK(one_light);
  }
}

TEST_CASE("complementary does not pair jobs whose footprints overflow the device",
          "[policies][complementary]")
{
  FakeClusterView view;
  view.add_device(SharingMode::TIME_SLICE, 0, 64e9);
  view.add_device(SharingMode::TIME_SLICE, 0, 64e9);
  const auto l1 = view.add_job(make_job(), light_signature(40e9));
  const auto l2 = view.add_job(make_job(), light_signature(40e9));
  auto policy = make_policy("complementary");
  view.submit(*policy, {l1, l2});
  CHECK(groups(view) == std::set<std::vector<JobIndex>>{{l1}, {l2}});
}

TEST_CASE("complementary prices a pair with each job's own slowdown times its own run time",
          "[policies][complementary]")
{
  // ccs-2 (no interference model on top): a job's slowdown is its own, whoever its partner is:
  // max(β·max(1, 2·c) + (1 − β), 2·u, 1) with c its compute_share and u its EU utilisation (models/README.md,
  // ccs-k). A: c = 1, u = 1, 100 s → s_A = 2 (whatever β); B: c = 0.25, u = 0.25, 300 s → s_B = 1.
  //   w(A, B) = 100 + 300 − max(100·2, 300·1) = 100 > 0: paired.
  // With the slowdowns swapped: 400 − max(100·1, 300·2) = −200, no edge, and each would run alone.
  FakeClusterView view;
  view.add_device(SharingMode::CCS_2);
  view.add_device(SharingMode::CCS_2);
  ResourceSignature quarter = busy_signature();
  quarter.compute_share = 0.25;
  quarter.vec_util = 0.25;
  const auto a = view.add_job(make_job(1, 1000, 100), busy_signature());
  const auto b = view.add_job(make_job(1, 1000, 300), quarter);
  auto policy = make_policy("complementary");
  view.submit(*policy, {a, b});
  CHECK(groups(view) == std::set<std::vector<JobIndex>>{{a, b}});
}

TEST_CASE("complementary: a device left with one job takes a waiting partner", "[policies][complementary]")
{
  // Time-slice, θ = 1 (FakeClusterView), one device. l1 + l2 (duty 0.25 each) pair on it; l3 waits. When l1
  // ends, l2 is alone and l3 joins it: interference max(0.5, 1 + 0.25·0.25) = 1.0625 < 2 (sharing beats
  // taking turns). Before the fill, l3 waited until l2 ended too.
  FakeClusterView view;
  view.add_device();
  const auto l1 = view.add_job(make_job(), light_signature());
  const auto l2 = view.add_job(make_job(), light_signature());
  const auto l3 = view.add_job(make_job(), light_signature());
  auto policy = make_policy("complementary");
  view.submit(*policy, {l1, l2});
  view.submit(*policy, {l3});
  CHECK(groups(view) == std::set<std::vector<JobIndex>>{{l1, l2}});
  view.complete(*policy, l1);
  CHECK(groups(view) == std::set<std::vector<JobIndex>>{{l2, l3}});
}

TEST_CASE("complementary: the lone job's partner is the waiting job that interferes least, not the first",
          "[policies][complementary]")
{
  // Time-slice, θ = 1, one device with light l (duty 0.25) alone; b (duty 1) and l2 (duty 0.25) wait, b
  // first.
  //   l + b:  s_l = max(1.25, 1 + 0.25·1) = 1.25, s_b = max(1.25, 1 + 1·0.25) = 1.25 → max 1.25;
  //   l + l2: max(0.5, 1 + 0.25·0.25) = 1.0625 each → l2 joins, b waits.
  // A busy job alone takes no busy partner: max(2, 1 + 1·1) = 2, not < 2 (taking turns is as fast).
  FakeClusterView view;
  view.add_device();
  const auto l = view.add_job(make_job(), light_signature());
  const auto b = view.add_job(make_job(), busy_signature());
  const auto l2 = view.add_job(make_job(), light_signature());
  auto policy = make_policy("complementary");
  view.submit(*policy, {l});
  CHECK(groups(view) == std::set<std::vector<JobIndex>>{{l}});
  view.submit(*policy, {b, l2});
  CHECK(groups(view) == std::set<std::vector<JobIndex>>{{l, l2}});

  FakeClusterView busy;
  busy.add_device();
  const auto b1 = busy.add_job(make_job(), busy_signature());
  const auto b2 = busy.add_job(make_job(), busy_signature());
  auto other = make_policy("complementary");
  busy.submit(*other, {b1});
  busy.submit(*other, {b2});
  CHECK(groups(busy) == std::set<std::vector<JobIndex>>{{b1}});
}

TEST_CASE("complementary: no partner for a lone job while a multi-device job waits for empty devices",
          "[policies][complementary]")
{
  // Two devices; l1 runs alone on one; g needs both and heads the queue. l2 would interfere little with l1
  // (1.0625), but joining l1 would keep its device busy longer and could starve g: l2 waits behind g.
  FakeClusterView view;
  view.add_device();
  view.add_device();
  const auto l1 = view.add_job(make_job(), light_signature());
  const auto g = view.add_job(make_job(2), busy_signature());
  const auto l2 = view.add_job(make_job(), light_signature());
  auto policy = make_policy("complementary");
  view.submit(*policy, {l1});
  view.submit(*policy, {g});
  view.submit(*policy, {l2});
  CHECK(groups(view) == std::set<std::vector<JobIndex>>{{l1}});
  view.complete(*policy, l1);
  CHECK(view.devices_of(g).size() == 2);
}
