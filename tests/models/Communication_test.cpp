// The α–β communication model (models/Communication.hpp) against values worked out by hand from its
// formulas and against a row that nccl-tests itself printed.
#include "models/Communication.hpp"

#include "tests/CatchCompat.hpp"

#include <stdexcept>

using namespace colocsim;
using colocsim::test::WithinRel;

namespace {

constexpr double GIB = 1073741824.0;

CommTier tier(double alpha, double beta)
{
  return {{alpha, Evidence::ESTIMATE, "test"}, {beta, Evidence::ESTIMATE, "test"}};
}

/// α_fabric 1 µs, β_fabric 1 / 232 GB/s; α_nic 10 µs, β_nic 1 / 96 GB/s.
CommTiers two_tiers()
{
  CommTiers t;
  t.fabric = tier(1e-6, 1 / 232e9);
  t.nic = tier(10e-6, 1 / 96e9);
  return t;
}

} // namespace

TEST_CASE("ring all-reduce on one node of 8: busbw is 1/beta", "[communication]")
{
  CommTiers t;
  t.fabric = tier(0, 1 / 232e9);
  t.nic = tier(0, 1 / 24e9);
  // 2 (n - 1)/n S β = 1.75 · 1073741824 / 232e9 = 1879048192 / 232e9 s.
  const double s = collective_time(Collective::RING_ALL_REDUCE, GIB, {1, 8}, t);
  CHECK_THAT(s, WithinRel(1879048192.0 / 232e9, 1e-12));
  CHECK_THAT(bus_bandwidth(Collective::RING_ALL_REDUCE, GIB, s, 8), WithinRel(232e9, 1e-12));
  // One rank: nothing to do.
  CHECK(collective_time(Collective::RING_ALL_REDUCE, GIB, {1, 1}, t) == 0.0);
}

TEST_CASE("ring all-reduce on 2 nodes x 8: the NIC tier dominates", "[communication]")
{
  // n = 16, 30 steps, 2 across nodes: 28 · 1 µs + 2 · 10 µs = 48 µs; bandwidth: 2 · 15/16 · 2^30 / 96e9
  // = 2013265920 / 96e9 = 0.02097152 s (the NIC, 96 GB/s, is slower than the fabric, 232 GB/s).
  const double s = collective_time(Collective::RING_ALL_REDUCE, GIB, {2, 8}, two_tiers());
  CHECK_THAT(s, WithinRel(0.02097152 + 48e-6, 1e-12));
  // busbw = 1.875 · 2^30 / 0.02101952 s = 95.781 GB/s: a little under the NIC's 96 from the latency.
  CHECK_THAT(bus_bandwidth(Collective::RING_ALL_REDUCE, GIB, s, 16),
             WithinRel(2013265920.0 / 0.02101952, 1e-12));
}

TEST_CASE("ring all-reduce with one device per node uses the network alone", "[communication]")
{
  CommTiers t = two_tiers();
  t.fabric.beta.value = 1 / 1e9; // a slow fabric that a ring of 1-device nodes never crosses
  // k = 4, g = 1: 6 steps, all across nodes: 60 µs; 2 · 3/4 · 2^30 / 96e9 = 1610612736 / 96e9 s.
  CHECK_THAT(collective_time(Collective::RING_ALL_REDUCE, GIB, {4, 1}, t),
             WithinRel(60e-6 + 1610612736.0 / 96e9, 1e-12));
}

TEST_CASE("tree all-reduce: chain in the node, log-depth tree across nodes", "[communication]")
{
  // 2 × 8: 2 (7 · 1 µs + ⌊log2 2⌋ · 10 µs) = 34 µs; 2 S β_nic = 2147483648 / 96e9 s.
  CHECK_THAT(collective_time(Collective::TREE_ALL_REDUCE, GIB, {2, 8}, two_tiers()),
             WithinRel(34e-6 + 2147483648.0 / 96e9, 1e-12));
  // 8 × 8: ⌊log2 8⌋ = 3: 2 (7 + 30) µs = 74 µs, the same bandwidth term (a tree's does not grow with k).
  CHECK_THAT(collective_time(Collective::TREE_ALL_REDUCE, GIB, {8, 8}, two_tiers()),
             WithinRel(74e-6 + 2147483648.0 / 96e9, 1e-12));
  // 6 nodes: ⌊log2 6⌋ = 2.
  CHECK_THAT(collective_time(Collective::TREE_ALL_REDUCE, GIB, {6, 8}, two_tiers()),
             WithinRel(54e-6 + 2147483648.0 / 96e9, 1e-12));
}

TEST_CASE("all-to-all: (n-1)/n of the buffer leaves each rank", "[communication]")
{
  CommTiers t = two_tiers();
  // One node of 8, α = 0: T = 7/8 S β_f, busbw = 7/8 S / T = 232 GB/s.
  t.fabric.alpha.value = 0;
  const double one = collective_time(Collective::ALL_TO_ALL, GIB, {1, 8}, t);
  CHECK_THAT(one, WithinRel(939524096.0 / 232e9, 1e-12));
  CHECK_THAT(bus_bandwidth(Collective::ALL_TO_ALL, GIB, one, 8), WithinRel(232e9, 1e-12));
  // 2 × 8: α_nic 10 µs + max(7/16 S / 232e9, 8 · 1/2 · S / 96e9) = 10 µs + 4294967296 / 96e9 s.
  CHECK_THAT(collective_time(Collective::ALL_TO_ALL, GIB, {2, 8}, two_tiers()),
             WithinRel(10e-6 + 4294967296.0 / 96e9, 1e-12));
}

TEST_CASE("a job over two leaf switches pays the spine", "[communication]")
{
  CommTiers t = two_tiers();
  t.spine = tier(5e-6, 1 / 48e9);
  // 4 × 8 over 2 switches: 62 steps, 6 across nodes at 10 + 5 µs: 56 + 90 = 146 µs; bottleneck
  // max(1/232, 1/96, 1/48 GB/s) = the spine: 2 · 31/32 · 2^30 / 48e9 = 2080374784 / 48e9 s.
  CHECK_THAT(collective_time(Collective::RING_ALL_REDUCE, GIB, {4, 8, 2}, t),
             WithinRel(146e-6 + 2080374784.0 / 48e9, 1e-12));
  // Under one switch the spine is not crossed: 56 µs + 6 · 10 µs, the NIC's 96 GB/s.
  CHECK_THAT(collective_time(Collective::RING_ALL_REDUCE, GIB, {4, 8, 1}, t),
             WithinRel(116e-6 + 2080374784.0 / 96e9, 1e-12));
}

TEST_CASE("an all-to-all over leaf switches pays what its fullest leaf sends across", "[communication]")
{
  CommTiers t = two_tiers();
  t.spine = tier(5e-6, 1 / 48e9);
  // 4 nodes × 8 over 2 switches, 3 nodes under one: each rank sends S/32 to each other rank. Out of the
  // fullest leaf: 3 nodes × 8 devices × 8 ranks elsewhere × S/32 = 6 S over 48 GB/s (S / 8e9 s); a node's
  // NICs carry 8 × 24/32 S = 6 S over 96 GB/s (S / 16e9 s); the fabric 7/32 S over 232 GB/s. α: 10 + 5 µs.
  CHECK_THAT(collective_time(Collective::ALL_TO_ALL, GIB, {4, 8, 2, 3}, t),
             WithinRel(15e-6 + 1073741824.0 / 8e9, 1e-12));
  // 2 + 2 (per_leaf 0: as even as 2 switches allow): 2 × 8 × 16 × S/32 = 8 S out of a leaf, S / 6e9 s.
  CHECK_THAT(collective_time(Collective::ALL_TO_ALL, GIB, {4, 8, 2}, t),
             WithinRel(15e-6 + 1073741824.0 / 6e9, 1e-12));
  CHECK(collective_time(Collective::ALL_TO_ALL, GIB, {4, 8, 2, 2}, t) ==
        collective_time(Collective::ALL_TO_ALL, GIB, {4, 8, 2}, t));
  // A ring's uplinks carry one node's bytes whatever the split.
  CHECK(collective_time(Collective::RING_ALL_REDUCE, GIB, {4, 8, 2, 3}, t) ==
        collective_time(Collective::RING_ALL_REDUCE, GIB, {4, 8, 2}, t));
  // Two switches cannot hold 4 nodes with at most 1 under one, nor with 4 under one.
  CHECK_THROWS_AS(collective_time(Collective::ALL_TO_ALL, GIB, {4, 8, 2, 1}, t), std::invalid_argument);
  CHECK_THROWS_AS(collective_time(Collective::ALL_TO_ALL, GIB, {4, 8, 2, 4}, t), std::invalid_argument);
}

TEST_CASE("bus_bandwidth reproduces a row printed by nccl-tests", "[communication]")
{
  // NVIDIA/nccl issue 527 (p4dn.24xlarge, 8 A100, one node): 1073741824 B all-reduce in 8142.6 µs,
  // algbw 131.87 GB/s, busbw 230.77 GB/s (as printed, 2 decimals).
  CHECK_THAT(bus_bandwidth(Collective::RING_ALL_REDUCE, GIB, 8142.6e-6, 8), WithinRel(230.77e9, 1e-4));
}

TEST_CASE("a communication profile from a stated fraction", "[communication]")
{
  // 25 % of a step communicating at 2 × 8: compute = 3 · T(2 × 8) = 3 · 0.02101952 = 0.06305856 s.
  const auto p = comm_profile_from_fraction(Collective::RING_ALL_REDUCE, GIB, 0.25, {2, 8}, two_tiers());
  CHECK_THAT(p.compute_s, WithinRel(0.06305856, 1e-12));
  CHECK_THAT(comm_efficiency(p, {2, 8}, two_tiers()), WithinRel(0.75, 1e-12));
  // On one node of 8: T = 14 µs + 1879048192 / 232e9 = 0.008113345655 s; e = 0.06305856 / (0.06305856 +
  // 0.008113345655) = 0.886004.
  CHECK_THAT(comm_efficiency(p, {1, 8}, two_tiers()),
             WithinRel(0.06305856 / (0.06305856 + 0.00811334565517), 1e-10));
  CHECK(comm_efficiency(p, {1, 1}, two_tiers()) == 1.0);
}

TEST_CASE("bad arguments are refused with a reason", "[communication]")
{
  const CommTiers t = two_tiers();
  CHECK_THROWS_AS(collective_time(Collective::RING_ALL_REDUCE, -1, {1, 8}, t), std::invalid_argument);
  CHECK_THROWS_AS(collective_time(Collective::RING_ALL_REDUCE, GIB, {0, 8}, t), std::invalid_argument);
  CHECK_THROWS_AS(collective_time(Collective::RING_ALL_REDUCE, GIB, {2, 8, 3}, t), std::invalid_argument);
  CHECK_THROWS_AS(collective_time(Collective::RING_ALL_REDUCE, GIB, {2, 8, 2}, t), std::invalid_argument);
  CommTiers bad = t;
  bad.nic.beta.value = -1;
  CHECK_THROWS_AS(collective_time(Collective::RING_ALL_REDUCE, GIB, {2, 8}, bad), std::invalid_argument);
  CHECK_THROWS_AS(comm_profile_from_fraction(Collective::RING_ALL_REDUCE, GIB, 1.0, {2, 8}, t),
                  std::invalid_argument);
  CHECK_THROWS_AS(comm_profile_from_fraction(Collective::RING_ALL_REDUCE, GIB, 0.5, {1, 1}, t),
                  std::invalid_argument);
  CHECK_THROWS_AS(bus_bandwidth(Collective::RING_ALL_REDUCE, GIB, 0, 8), std::invalid_argument);
  CHECK(parse_collective("tree-all-reduce") == Collective::TREE_ALL_REDUCE);
  CHECK(!parse_collective("ring"));
}
