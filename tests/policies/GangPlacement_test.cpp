// Placement rules for jobs of several devices (policies/GangPlacement.hpp) through the policies that place
// them: two nodes of 8 GPUs, as two DGX A100s (devices 0-7 on node 0, 8-15 on node 1).
#include "policies/GangPlacement.hpp"
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

namespace {

FakeClusterView two_nodes(int per_node, SharingMode mode = SharingMode::EXCLUSIVE)
{
  FakeClusterView view;
  for (std::uint32_t n = 0; n < 2; ++n)
    for (int i = 0; i < per_node; ++i)
      view.add_device(mode, n);
  return view;
}

std::unique_ptr<Policy> with_rule(const std::string& spec, GangRule rule)
{
  auto policy = make_policy(spec);
  policy->set_gang_rule(rule);
  return policy;
}

} // namespace

TEST_CASE("pack keeps a 6-GPU job on one DGX node, any spans two", "[policies][placement]")
{
  // A, B ask 6 GPUs, C 4. pack: A takes 0-5 on node 0; node 0 keeps only 6, 7, so B takes node 1's 8-13;
  // C then finds 2 free GPUs on each node and waits (it fits in one node, so it never spans two) until A
  // ends and node 0 is free again: 0-3. any (the order alone): B takes 6-11 across both nodes, C 12-15.
  for (const std::string spec : {"exclusive-fcfs", "first-fit:max_per_device=1", "best-fit:max_per_device=1",
                                 "best-fit-frac:max_per_device=1", "exclusive-easy"}) {
    CAPTURE(spec);
    auto view = two_nodes(8, spec.find("fit") != std::string::npos ? SharingMode::TIME_SLICE
                                                                   : SharingMode::EXCLUSIVE);
    const auto a = view.add_job(make_job(6, 1000, 100)), b = view.add_job(make_job(6, 1000, 200)),
               c = view.add_job(make_job(4, 1000, 50));
    auto policy = make_policy(spec); // pack is the default
    CHECK(policy->gang_rule() == GangRule::PACK);
    CHECK(placements(view.submit(*policy, {a, b, c})) ==
          std::map<JobIndex, Devices>{{a, {0, 1, 2, 3, 4, 5}}, {b, {8, 9, 10, 11, 12, 13}}});
    view.now_s = 100;
    CHECK(placements(view.complete(*policy, a)) == std::map<JobIndex, Devices>{{c, {0, 1, 2, 3}}});
  }
  auto view = two_nodes(8);
  const auto a = view.add_job(make_job(6)), b = view.add_job(make_job(6)), c = view.add_job(make_job(4));
  auto any = with_rule("exclusive-fcfs", GangRule::ANY);
  CHECK(placements(view.submit(*any, {a, b, c})) == std::map<JobIndex, Devices>{{a, {0, 1, 2, 3, 4, 5}},
                                                                                {b, {6, 7, 8, 9, 10, 11}},
                                                                                {c, {12, 13, 14, 15}}});
}

TEST_CASE("spread deals a gang's devices one per node in turn", "[policies][placement]")
{
  // Two nodes offer devices: A gets 0, 8, then 1, 9, then 2, 10; B the next three of each node (3-5,
  // 11-13); C the two left on each (6, 7, 14, 15).
  auto view = two_nodes(8);
  const auto a = view.add_job(make_job(6)), b = view.add_job(make_job(6)), c = view.add_job(make_job(4));
  auto policy = with_rule("exclusive-fcfs", GangRule::SPREAD);
  CHECK(placements(view.submit(*policy, {a, b, c})) == std::map<JobIndex, Devices>{{a, {0, 1, 2, 8, 9, 10}},
                                                                                   {b, {3, 4, 5, 11, 12, 13}},
                                                                                   {c, {6, 7, 14, 15}}});
}

TEST_CASE("pack gives a 12-GPU job one whole node, then the fewest extra", "[policies][placement]")
{
  // X (2 GPUs) takes 0, 1. D asks 12: node 1 has 8 free, node 0 has 6. Whole node 1 first (8-15), then the
  // 4 left from node 0 (2-5): two nodes, the fewest possible. any takes 2-13 (node 0's 6, node 1's first 6),
  // leaving 14, 15: a later 4-GPU job then has no node.
  for (const auto rule : {GangRule::PACK, GangRule::ANY}) {
    auto view = two_nodes(8);
    const auto x = view.add_job(make_job(2)), d = view.add_job(make_job(12));
    auto policy = with_rule("exclusive-fcfs", rule);
    const auto placed = placements(view.submit(*policy, {x, d}));
    CHECK(placed.at(x) == Devices{0, 1});
    CHECK(placed.at(d) == (rule == GangRule::PACK ? Devices{2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15}
                                                  : Devices{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}));
  }
}

TEST_CASE("pack with three nodes: the tightest node takes what is left", "[policies][placement]")
{
  // Nodes of 8 with 8, 8 and 5 devices offered (node 2's first three busy) and a job of 12: one whole node
  // (node 0, the first offered of the two fullest) and 4 from node 2 (5 free: the fewest that hold 4),
  // leaving node 1 whole. min_nodes 2: 8 + 8 ≥ 12.
  GangPicker gang(GangRule::PACK, 12, 2);
  bool done = false;
  for (std::uint32_t n = 0; n < 3; ++n)
    for (DeviceIndex d = n * 8 + (n == 2 ? 3 : 0); d < (n + 1) * 8; ++d)
      done = gang.offer(d, n) || done;
  CHECK_FALSE(done); // a job larger than a node is offered every device
  CHECK(gang.take() == Devices{0, 1, 2, 3, 4, 5, 6, 7, 19, 20, 21, 22});
  // With only 5 + 5 + 5 offered it would need three nodes where two can hold it: it waits.
  GangPicker thin(GangRule::PACK, 12, 2);
  for (std::uint32_t n = 0; n < 3; ++n)
    for (DeviceIndex d = n * 8; d < n * 8 + 5; ++d)
      thin.offer(d, n);
  CHECK(thin.take().empty());
}

TEST_CASE("exclusive-easy counts the spare devices of the head's node under pack",
          "[policies][placement][easy]")
{
  // Two nodes of 4. A (2 GPUs, 100 s) takes 0, 1; B (2, 50 s) 2, 3; C (3, 1,000 s) node 1's 4-6. At 50 B
  // ends: 2, 3 and 7 are free. Head H (4 GPUs) fits in one node, so it waits for node 0 (whole again when A
  // ends at 100: the shadow time; node 0 has 4 devices then, 4 for H, none spare). J (1 GPU, 500 s, past
  // 100) would take 2 by the order, on node 0: it takes 7 instead, and H starts at 100 on 0-3. Counting
  // spare devices over the platform (3 free + 2 of A = 5, 1 spare) let J take 2, and H could not start at
  // 100. On one node the per-node count is that count (ExclusiveEasy_test.cpp keeps its cases).
  auto view = two_nodes(4);
  const auto a = view.add_job(make_job(2, 1000, 100)), b = view.add_job(make_job(2, 1000, 50)),
             c = view.add_job(make_job(3, 1000, 1000)), h = view.add_job(make_job(4, 1000, 10)),
             j = view.add_job(make_job(1, 1000, 500));
  auto policy = make_policy("exclusive-easy");
  CHECK(placements(view.submit(*policy, {a, b, c})) ==
        std::map<JobIndex, Devices>{{a, {0, 1}}, {b, {2, 3}}, {c, {4, 5, 6}}});
  view.now_s = 50;
  CHECK(placements(view.complete(*policy, b)).empty());
  CHECK(placements(view.submit(*policy, {h, j})) == std::map<JobIndex, Devices>{{j, {7}}});
  view.now_s = 100;
  CHECK(placements(view.complete(*policy, a)) == std::map<JobIndex, Devices>{{h, {0, 1, 2, 3}}});
}

TEST_CASE("power-aware passes the rule to the policy it wraps", "[policies][placement]")
{
  auto view = two_nodes(8);
  const auto a = view.add_job(make_job(6)), b = view.add_job(make_job(6));
  auto policy = with_rule("power-aware:inner=exclusive-fcfs", GangRule::ANY);
  CHECK(placements(view.submit(*policy, {a, b})) ==
        std::map<JobIndex, Devices>{{a, {0, 1, 2, 3, 4, 5}}, {b, {6, 7, 8, 9, 10, 11}}});
}
