// Placement rules for jobs of several devices (policies/GangPlacement.hpp) through the policies that place
// them: two nodes of 8 GPUs, as two DGX A100s (devices 0-7 on node 0, 8-15 on node 1).
#include "policies/GangPlacement.hpp"
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <random>

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

namespace {

// Six nodes of 4 devices (node n: devices 4n..4n+3) partly busy: node 0 has 1, 3 free; node 1 all four
// (4-7); node 2 only 9; node 3 all four (12-15); node 4 16-18; node 5 20-22.
const Devices SIX_NODES_BUSY{0, 2, 8, 10, 11, 19, 23};

FakeClusterView six_nodes()
{
  FakeClusterView view;
  for (std::uint32_t n = 0; n < 6; ++n)
    for (int i = 0; i < 4; ++i)
      view.add_device(SharingMode::EXCLUSIVE, n);
  return view;
}

/// The devices `spec` under `rule` gives a lone job of `need` devices on six_nodes().
Devices place_on_six_nodes(const std::string& spec, GangRule rule, int need)
{
  auto view = six_nodes();
  auto policy = with_rule(spec, rule);
  for (const DeviceIndex d : SIX_NODES_BUSY)
    view.run_before(view.add_job(make_job(1)), {d});
  const auto j = view.add_job(make_job(need));
  const auto placed = placements(view.submit(*policy, {j}));
  return placed.contains(j) ? placed.at(j) : Devices{};
}

/// The same by GangPicker alone, offered the free devices in device order; `in_order`: with the promise
/// nodes_in_order(4). `stopped_at`: the device whose offer ended the offers (-1: none did).
Devices pick_on_six_nodes(GangRule rule, std::size_t need, bool in_order, int& stopped_at)
{
  const std::size_t min_nodes = (need + 3) / 4;
  GangPicker gang(rule, need, min_nodes);
  if (in_order) gang.nodes_in_order(4);
  stopped_at = -1;
  for (DeviceIndex d = 0; d < 24; ++d)
    if (std::find(SIX_NODES_BUSY.begin(), SIX_NODES_BUSY.end(), d) == SIX_NODES_BUSY.end() &&
        gang.offer(d, d / 4)) {
      stopped_at = static_cast<int>(d);
      break;
    }
  return gang.take();
}

} // namespace

TEST_CASE("gangs of 1, a node, a node + 1 and 2 nodes + 3 on partly busy nodes", "[policies][placement]")
{
  // Free per node: 2, 4, 1, 4, 3, 3 (SIX_NODES_BUSY). pack: a node's worth goes to node 1, the first
  // whole one (node 3 ties, later). 5 = node 1 whole + 1 from node 2 (the only node with exactly 1). 6 =
  // node 1 + node 0's two (exactly 2 left). 7 = node 1 + 3 from node 4 (nodes 4 and 5 both hold exactly 3:
  // the first). 11 = nodes 1 and 3 whole + node 4's 3. spread deals one per node in the order of the nodes'
  // first devices; any takes the first free devices.
  struct Case {
    int need;
    Devices pack, spread, any;
  };
  const std::vector<Case> cases{
      {1, {1}, {1}, {1}},
      {4, {4, 5, 6, 7}, {1, 4, 9, 12}, {1, 3, 4, 5}},
      {5, {4, 5, 6, 7, 9}, {1, 4, 9, 12, 16}, {1, 3, 4, 5, 6}},
      {6, {1, 3, 4, 5, 6, 7}, {1, 4, 9, 12, 16, 20}, {1, 3, 4, 5, 6, 7}},
      {7, {4, 5, 6, 7, 16, 17, 18}, {1, 3, 4, 9, 12, 16, 20}, {1, 3, 4, 5, 6, 7, 9}},
      {11,
       {4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18},
       {1, 3, 4, 5, 9, 12, 13, 16, 17, 20, 21},
       {1, 3, 4, 5, 6, 7, 9, 12, 13, 14, 15}},
  };
  for (const auto& c : cases)
    for (const auto rule : {GangRule::PACK, GangRule::SPREAD, GangRule::ANY}) {
      CAPTURE(c.need, gang_rule_name(rule));
      const Devices& want = rule == GangRule::PACK ? c.pack : rule == GangRule::SPREAD ? c.spread : c.any;
      for (const std::string spec : {"first-fit:max_per_device=1", "exclusive-fcfs", "exclusive-easy"}) {
        CAPTURE(spec);
        CHECK(place_on_six_nodes(spec, rule, c.need) == want);
      }
      int stopped_at = 0;
      CHECK(pick_on_six_nodes(rule, c.need, false, stopped_at) == want);
      CHECK(pick_on_six_nodes(rule, c.need, true, stopped_at) == want);
    }
}

TEST_CASE("pack in node order stops once the nodes passed decide a gang larger than a node",
          "[policies][placement]")
{
  // need 5: node 1 whole and a node with exactly 1 free: node 2 is decided when node 3's first device (12)
  // is offered. need 6: node 0 (exactly 2) and node 1 (whole, 4 at device 7). need 7: node 4 holds exactly 3
  // once node 5 starts (20). need 11: node 4 is the last with 3 before node 5, decided at 20 too. need 8:
  // nodes 1 and 3, the second whole at 15. Without the promise every free device is offered.
  for (const auto& [need, stop] :
       std::vector<std::pair<std::size_t, int>>{{5, 12}, {6, 7}, {7, 20}, {8, 15}, {11, 20}}) {
    CAPTURE(need);
    int stopped_at = 0;
    const Devices all = pick_on_six_nodes(GangRule::PACK, need, false, stopped_at);
    CHECK(stopped_at == -1);
    CHECK(pick_on_six_nodes(GangRule::PACK, need, true, stopped_at) == all);
    CHECK(stopped_at == stop);
  }
  // 9 = 2 whole nodes + 1: nodes 1 and 3 are whole, but node 2 (exactly 1) came before node 3 — it still
  // decides at 15.
  int stopped_at = 0;
  CHECK(pick_on_six_nodes(GangRule::PACK, 9, true, stopped_at) == Devices{4, 5, 6, 7, 9, 12, 13, 14, 15});
  CHECK(stopped_at == 15);
}

TEST_CASE("nodes_in_order refuses a node offered again after another", "[policies][placement]")
{
  GangPicker gang(GangRule::PACK, 5, 2);
  gang.nodes_in_order(4);
  CHECK_FALSE(gang.offer(0, 0));
  CHECK_FALSE(gang.offer(4, 1));
  CHECK_THROWS_AS(gang.offer(1, 0), std::logic_error);
  GangPicker over(GangRule::PACK, 5, 2);
  over.nodes_in_order(2);
  CHECK_FALSE(over.offer(0, 0));
  CHECK_FALSE(over.offer(1, 0));
  CHECK_THROWS_AS(over.offer(2, 0), std::logic_error); // a third device on a node promised at most 2
}

TEST_CASE("first-fit looks at the first nodes only for a gang larger than a node", "[policies][placement]")
{
  // 500 nodes of 2 free devices and a 4-device job: nodes 0 and 1 decide it. first-fit, exclusive-fcfs and
  // exclusive-easy offer in device order, so they ask about 4 devices, not all 1,000 (each asked one
  // allows() per device offered before the fix).
  for (const std::string spec : {"first-fit:max_per_device=1", "exclusive-fcfs", "exclusive-easy"}) {
    CAPTURE(spec);
    FakeClusterView view;
    for (std::uint32_t n = 0; n < 500; ++n)
      for (int i = 0; i < 2; ++i)
        view.add_device(SharingMode::EXCLUSIVE, n);
    auto policy = make_policy(spec);
    const auto one = view.add_job(make_job(1)), gang = view.add_job(make_job(4));
    CHECK(placements(view.submit(*policy, {one})) == std::map<JobIndex, Devices>{{one, {0}}});
    view.allows_calls = 0;
    CHECK(placements(view.submit(*policy, {gang})) == std::map<JobIndex, Devices>{{gang, {2, 3, 4, 5}}});
    CHECK(view.allows_calls < 20);
  }
}

TEST_CASE("first-fit and exclusive-fcfs count a waiting gang's devices again only on the nodes that changed",
          "[policies][placement]")
{
  // 500 nodes of 2 devices, one of each busy (no free slot under max_per_device=1 or exclusive-fcfs; under 2,
  // too little memory left for the jobs' 30 GB): a 4-device job under pack needs 2 whole nodes and waits. Its
  // first try looks at every free device; the next tries, after a submission that changes no device or a
  // completion on one node, look at that node's devices only (each looked at every free device before,
  // about 500 allows() calls per try). The gang starts once two nodes are whole, where the scan puts it.
  for (const std::string spec :
       {"first-fit:max_per_device=1", "first-fit:max_per_device=2", "exclusive-fcfs"}) {
    CAPTURE(spec);
    FakeClusterView view;
    for (std::uint32_t n = 0; n < 500; ++n)
      for (int i = 0; i < 2; ++i)
        view.add_device(SharingMode::TIME_SLICE, n, 64 * GB);
    std::vector<JobIndex> resident;
    for (DeviceIndex n = 0; n < 500; ++n) {
      resident.push_back(view.add_job(make_job(1, 1000, 100, 40 * GB)));
      view.run_before(resident.back(), {2 * n});
    }
    auto policy = make_policy(spec);
    const auto gang = view.add_job(make_job(4, 1000, 100, 30 * GB)),
               one = view.add_job(make_job(1, 1000, 100, 30 * GB)),
               two = view.add_job(make_job(1, 1000, 100, 30 * GB));
    CHECK(view.submit(*policy, {gang}).empty());
    CHECK(view.allows_calls >= 500); // the first try scans
    view.allows_calls = 0;
    CHECK(view.submit(*policy, {one}).empty()); // nothing changed: waits behind the gang
    CHECK(view.allows_calls < 20);
    view.allows_calls = 0;
    CHECK(view.complete(*policy, resident[7]).empty()); // node 7 whole: one node is not enough
    CHECK(view.allows_calls < 20);
    view.allows_calls = 0;
    CHECK(view.submit(*policy, {two}).empty());
    CHECK(view.allows_calls < 20);
    const auto placed = placements(view.complete(*policy, resident[300])); // nodes 7 and 300 whole
    CHECK(placed.at(gang) == Devices{14, 15, 600, 601});
    CHECK(placed.at(one) == Devices{1});
    CHECK(placed.at(two) == Devices{spec.ends_with("=2") ? DeviceIndex{1} : DeviceIndex{3}}); // 34 GB left
  }
}

namespace {

using Offers = std::vector<std::pair<DeviceIndex, std::uint32_t>>; // (device, node) in the order offered

/// The documented rules, written out independently of GangPicker: `offers` the acceptable devices in the
/// policy's order, `size[n]` node n's devices (all of the job's types). The devices chosen, in the order
/// offered, or none if the job waits.
/// any: the first `need` offered. spread: one device per node in turn, the nodes in the order of their first
/// offer, each giving its devices in the order offered. pack (the platform's fewest nodes for the job: 1 if a
/// node has `need` devices, else the count of the largest nodes that together have enough; on nodes of one
/// device it is any): a job that fits in a node goes to the node whose need-th offered device comes first,
/// and waits if none has `need`; a larger one, by enumeration of every choice of whole nodes W and one node
/// R for the rest, to the fewest nodes (waiting if more than the platform's fewest), W the fullest nodes
/// (the earliest offered among equals), R the node with the fewest offered devices that holds the rest (the
/// earliest offered among equals).
Devices rule_reference(GangRule rule, const Offers& offers, const std::vector<std::size_t>& size,
                       std::size_t need)
{
  if (offers.size() < need) return {};
  const std::size_t nodes = size.size();
  std::vector<std::vector<std::size_t>> at(nodes); // per node: the positions of its offers
  std::vector<std::size_t> first(nodes, offers.size());
  for (std::size_t i = 0; i < offers.size(); ++i) {
    at[offers[i].second].push_back(i);
    first[offers[i].second] = std::min(first[offers[i].second], i);
  }
  std::vector<char> chosen(offers.size(), 0);
  auto result = [&] {
    Devices devices;
    for (std::size_t i = 0; i < offers.size(); ++i)
      if (chosen[i]) devices.push_back(offers[i].first);
    return devices;
  };
  std::vector<std::size_t> sorted = size;
  std::sort(sorted.rbegin(), sorted.rend());
  std::size_t min_nodes = 0, have = 0;
  while (min_nodes < nodes && have < need)
    have += sorted[min_nodes++];
  if (rule == GangRule::ANY || need == 1 || (rule == GangRule::PACK && min_nodes >= need)) {
    for (std::size_t i = 0; i < need; ++i)
      chosen[i] = 1;
    return result();
  }
  std::vector<std::uint32_t> by_first; // nodes that offered, in the order of their first offer
  for (std::size_t i = 0; i < offers.size(); ++i)
    if (first[offers[i].second] == i) by_first.push_back(offers[i].second);
  if (rule == GangRule::SPREAD) {
    std::size_t left = need;
    for (std::size_t round = 0; left > 0; ++round)
      for (const auto n : by_first)
        if (left > 0 && at[n].size() > round) {
          chosen[at[n][round]] = 1;
          --left;
        }
    return result();
  }
  if (min_nodes <= 1) {
    std::optional<std::uint32_t> best;
    for (const auto n : by_first)
      if (at[n].size() >= need && (!best || at[n][need - 1] < at[*best][need - 1])) best = n;
    if (!best) return {};
    for (std::size_t k = 0; k < need; ++k)
      chosen[at[*best][k]] = 1;
    return result();
  }
  struct Choice {
    std::size_t used = 0;
    std::vector<std::size_t> whole_counts; // descending
    std::vector<std::size_t> whole_first;  // the whole nodes' first offers, ascending
    std::size_t rest_count = 0, rest_first = 0;
    std::uint32_t rest_node = 0;
    std::uint32_t whole = 0; // bit n: node n whole
  };
  auto better = [](const Choice& a, const Choice& b) {
    if (a.used != b.used) return a.used < b.used;
    if (a.whole_counts != b.whole_counts) return a.whole_counts > b.whole_counts; // the fullest
    if (a.whole_first != b.whole_first) return a.whole_first < b.whole_first;     // the earliest
    if (a.rest_count != b.rest_count) return a.rest_count < b.rest_count;         // the tightest
    return a.rest_first < b.rest_first;
  };
  std::optional<Choice> best;
  for (std::uint32_t w = 0; w < (1u << nodes); ++w) {
    Choice c;
    c.whole = w;
    std::size_t sum = 0;
    for (std::uint32_t n = 0; n < nodes; ++n)
      if (w >> n & 1) {
        sum += at[n].size();
        c.whole_counts.push_back(at[n].size());
        c.whole_first.push_back(first[n]);
      }
    if (sum >= need) continue;
    std::sort(c.whole_counts.rbegin(), c.whole_counts.rend());
    std::sort(c.whole_first.begin(), c.whole_first.end());
    c.used = c.whole_counts.size() + 1;
    for (std::uint32_t r = 0; r < nodes; ++r)
      if (!(w >> r & 1) && at[r].size() >= need - sum) {
        c.rest_count = at[r].size();
        c.rest_first = first[r];
        c.rest_node = r;
        if (!best || better(c, *best)) best = c;
      }
  }
  if (!best || best->used > min_nodes) return {};
  std::size_t left = need;
  for (std::uint32_t n = 0; n < nodes; ++n)
    if (best->whole >> n & 1)
      for (const auto i : at[n]) {
        chosen[i] = 1;
        --left;
      }
  for (std::size_t k = 0; k < left; ++k)
    chosen[at[best->rest_node][k]] = 1;
  return result();
}

/// Offers `offers` to `gang` until it says stop; its choice.
Devices offer_all(GangPicker gang, const Offers& offers)
{
  for (const auto& [d, n] : offers)
    if (gang.offer(d, n)) break;
  return gang.take();
}

} // namespace

TEST_CASE("the rules' choices match the rules by enumeration on random small platforms",
          "[policies][placement]")
{
  // Up to 6 nodes of 1-8 devices, each device free with a random probability, and every gang size. pack:
  // the picker offered the free devices in device order with and without the nodes_in_order promise
  // (stopping where it says), and in a random order without it; first-fit on the same platform, one size
  // per platform. spread and any: the picker in device order and in a random order. Each against
  // rule_reference.
  std::mt19937 rng(20261129);
  std::size_t compared = 0, larger_than_a_node = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t nodes = std::uniform_int_distribution<std::size_t>(1, 6)(rng);
    const std::size_t max_size = std::uniform_int_distribution<std::size_t>(1, 8)(rng);
    const double p_free = std::uniform_real_distribution<double>(0.2, 1.0)(rng);
    std::vector<std::size_t> size(nodes);
    Offers in_order;
    std::vector<std::uint32_t> node_of;
    Devices busy;
    for (std::uint32_t n = 0; n < nodes; ++n) {
      size[n] = std::uniform_int_distribution<std::size_t>(1, max_size)(rng);
      for (std::size_t i = 0; i < size[n]; ++i) {
        const auto d = static_cast<DeviceIndex>(node_of.size());
        node_of.push_back(n);
        if (std::bernoulli_distribution(p_free)(rng))
          in_order.emplace_back(d, n);
        else
          busy.push_back(d);
      }
    }
    Offers shuffled = in_order;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    const std::size_t largest = *std::max_element(size.begin(), size.end());
    FakeClusterView view;
    for (const auto n : node_of)
      view.add_device(SharingMode::EXCLUSIVE, n);
    NodeShape shape;
    shape.init(view);
    REQUIRE(shape.contiguous());
    for (std::size_t need = 2; need <= node_of.size(); ++need) {
      CAPTURE(trial, need, size, in_order, shuffled);
      const auto j = view.add_job(make_job(static_cast<int>(need)));
      CHECK(shape.largest_node(view, j) == largest);
      for (const auto rule : {GangRule::PACK, GangRule::SPREAD, GangRule::ANY}) {
        CAPTURE(gang_rule_name(rule));
        CHECK(offer_all(shape.picker(view, j, rule, need, false), in_order) ==
              rule_reference(rule, in_order, size, need));
        CHECK(offer_all(shape.picker(view, j, rule, need, false), shuffled) ==
              rule_reference(rule, shuffled, size, need));
      }
      CHECK(offer_all(shape.picker(view, j, GangRule::PACK, need, true), in_order) ==
            rule_reference(GangRule::PACK, in_order, size, need));
      ++compared;
      if (need > largest) ++larger_than_a_node;
    }
    // first-fit (device order, so the early stop) on the same platform.
    FakeClusterView ff;
    for (const auto n : node_of)
      ff.add_device(SharingMode::EXCLUSIVE, n);
    for (const DeviceIndex d : busy)
      ff.run_before(ff.add_job(make_job(1)), {d});
    const std::size_t need = std::uniform_int_distribution<std::size_t>(2, node_of.size() + 1)(rng);
    if (need > node_of.size()) continue;
    auto policy = make_policy("first-fit:max_per_device=1,memory=none");
    const auto j = ff.add_job(make_job(static_cast<int>(need)));
    const auto placed = placements(ff.submit(*policy, {j}));
    CAPTURE(trial, need, size, in_order);
    CHECK((placed.contains(j) ? placed.at(j) : Devices{}) ==
          rule_reference(GangRule::PACK, in_order, size, need));
  }
  CHECK(larger_than_a_node > 200); // the case the early stop is for is well covered
  CHECK(compared > 1000);
}

TEST_CASE("a waiting gang's kept counts give the decisions of a full scan at every try",
          "[policies][placement]")
{
  // Random platforms (contiguous nodes of 1-4 time-slice devices of 64 GB), random jobs (1-7 devices, 0-60
  // GB) submitted and completed at random, for first-fit (max_per_device 1 and 2) and exclusive-fcfs under
  // every rule. Two copies of each policy see the same calls; the reference copy also gets, at each call,
  // a NodePowered event for a node the platform lacks, which changes nothing but makes it forget the
  // waiting gang's counts and scan every time. Their decisions must be the same at every call.
  std::mt19937 rng(20261129);
  std::size_t waited = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const std::string spec =
        std::array<std::string, 3>{"first-fit:max_per_device=1", "first-fit:max_per_device=2",
                                   "exclusive-fcfs"}[static_cast<std::size_t>(trial % 3)];
    const GangRule rule = std::array<GangRule, 3>{GangRule::PACK, GangRule::SPREAD,
                                                  GangRule::ANY}[static_cast<std::size_t>(trial / 3 % 3)];
    CAPTURE(trial, spec, gang_rule_name(rule));
    FakeClusterView kept, scanned;
    const std::size_t nodes = std::uniform_int_distribution<std::size_t>(2, 12)(rng);
    for (std::uint32_t n = 0; n < nodes; ++n) {
      const int size = std::uniform_int_distribution<int>(1, 4)(rng);
      for (int i = 0; i < size; ++i) {
        kept.add_device(SharingMode::TIME_SLICE, n, 64 * GB);
        scanned.add_device(SharingMode::TIME_SLICE, n, 64 * GB);
      }
    }
    auto a = with_rule(spec, rule), b = with_rule(spec, rule);
    const Event nothing = NodePowered{1000000, true};
    std::vector<JobIndex> running;
    std::size_t waiting = 0;
    for (int step = 0; step < 300; ++step) {
      CAPTURE(step);
      std::vector<Event> events;
      if (running.empty() || std::bernoulli_distribution(0.5)(rng)) {
        const int devices = std::min<int>(std::uniform_int_distribution<int>(1, 7)(rng),
                                          static_cast<int>(kept.device_count()));
        const double mem = std::uniform_int_distribution<int>(0, 60)(rng) * GB;
        const auto j = kept.add_job(make_job(devices, 1000, 100, mem));
        REQUIRE(scanned.add_job(make_job(devices, 1000, 100, mem)) == j);
        ++waiting;
        const auto da = placements(kept.submit(*a, {j}));
        const auto db = placements(scanned.submit(*b, {j}, {nothing}));
        CHECK(da == db);
        for (const auto& [p, d] : da) {
          running.push_back(p);
          --waiting;
        }
      } else {
        const auto k = std::uniform_int_distribution<std::size_t>(0, running.size() - 1)(rng);
        const JobIndex j = running[k];
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
        const auto da = placements(kept.complete(*a, j));
        const auto db = placements(scanned.complete(*b, j, {nothing}));
        CHECK(da == db);
        for (const auto& [p, d] : da) {
          running.push_back(p);
          --waiting;
        }
      }
      waited += waiting > 0 ? 1 : 0;
    }
  }
  CHECK(waited > 1000); // most calls find a job waiting
}
