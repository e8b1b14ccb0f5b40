// max_weight_matching (Edmonds/Galil blossom algorithm): hand-computed small graphs, then random graphs
// against an exhaustive search (n ≤ 12), against the dual certificate that proves a matching optimal
// (30–60 vertices, where exhaustive search is out of reach), and against Boost.Graph's
// maximum_weighted_matching where Boost 1.74 is reliable (see the last test case).
#include "policies/MaxWeightMatching.hpp"
#include "tests/CatchCompat.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/maximum_weighted_matching.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace colocsim;

namespace {

/// The heaviest edge between each pair of vertices (0 when none or when all are ≤ 0).
std::vector<std::vector<long long>> best_weights(int n, const std::vector<WeightedEdge>& edges)
{
  std::vector<std::vector<long long>> w(static_cast<std::size_t>(n),
                                        std::vector<long long>(static_cast<std::size_t>(n), 0));
  for (const auto& e : edges)
    if (e.u != e.v) {
      auto& cell = w[static_cast<std::size_t>(e.u)][static_cast<std::size_t>(e.v)];
      cell = std::max(cell, e.weight);
      w[static_cast<std::size_t>(e.v)][static_cast<std::size_t>(e.u)] = cell;
    }
  return w;
}

/// Checks that mate is a matching over positive edges of the graph and returns its weight.
long long checked_weight(int n, const std::vector<WeightedEdge>& edges, const std::vector<int>& mate)
{
  REQUIRE(mate.size() == static_cast<std::size_t>(n));
  const auto w = best_weights(n, edges);
  long long total = 0;
  for (int v = 0; v < n; ++v) {
    const int m = mate[static_cast<std::size_t>(v)];
    if (m == -1) continue;
    REQUIRE(m >= 0);
    REQUIRE(m < n);
    REQUIRE(m != v);
    REQUIRE(mate[static_cast<std::size_t>(m)] == v);
    const long long weight = w[static_cast<std::size_t>(v)][static_cast<std::size_t>(m)];
    REQUIRE(weight > 0); // matched over an edge that exists and adds weight
    if (v < m) total += weight;
  }
  return total;
}

/// Maximum matching weight by dynamic programming over vertex subsets: best(S) pairs S's lowest vertex
/// with a neighbour in S, or leaves it single. O(2ⁿ · n).
long long brute_force_weight(int n, const std::vector<WeightedEdge>& edges)
{
  const auto w = best_weights(n, edges);
  std::vector<long long> best(std::size_t{1} << n, 0);
  for (std::uint32_t set = 1; set < (1u << n); ++set) {
    const int low = __builtin_ctz(set);
    const std::uint32_t rest = set & (set - 1);
    long long b = best[rest];
    for (int j = low + 1; j < n; ++j)
      if ((rest >> j & 1u) && w[static_cast<std::size_t>(low)][static_cast<std::size_t>(j)] > 0)
        b = std::max(b,
                     w[static_cast<std::size_t>(low)][static_cast<std::size_t>(j)] + best[rest & ~(1u << j)]);
    best[set] = b;
  }
  return best[(std::size_t{1} << n) - 1];
}

/// Checks the certificate (dual feasibility, odd sets, duality gap 0, see MatchingCertificate) and
/// returns the weight it proves maximum.
long long proven_weight(int n, const std::vector<WeightedEdge>& edges)
{
  const auto c = max_weight_matching_certificate(n, edges);
  REQUIRE(c.mate == max_weight_matching(n, edges));
  const long long weight = checked_weight(n, edges, c.mate);
  REQUIRE(c.vertex_dual_x2.size() == static_cast<std::size_t>(n));
  long long objective_x2 = 0;
  for (long long u2 : c.vertex_dual_x2) {
    REQUIRE(u2 >= 0);
    objective_x2 += u2;
  }
  std::vector<std::vector<char>> member;
  for (const auto& set : c.odd_sets) {
    REQUIRE(set.vertices.size() % 2 == 1);
    REQUIRE(set.dual >= 0);
    objective_x2 += 2 * set.dual * static_cast<long long>(set.vertices.size() / 2);
    member.emplace_back(static_cast<std::size_t>(n), 0);
    for (int v : set.vertices)
      member.back()[static_cast<std::size_t>(v)] = 1;
  }
  for (const auto& e : edges) {
    if (e.u == e.v) continue;
    long long covered_x2 =
        c.vertex_dual_x2[static_cast<std::size_t>(e.u)] + c.vertex_dual_x2[static_cast<std::size_t>(e.v)];
    for (std::size_t s = 0; s < c.odd_sets.size(); ++s)
      if (member[s][static_cast<std::size_t>(e.u)] && member[s][static_cast<std::size_t>(e.v)])
        covered_x2 += 2 * c.odd_sets[s].dual;
    REQUIRE(covered_x2 >= 2 * e.weight);
  }
  REQUIRE(objective_x2 == 2 * weight);
  return weight;
}

/// Boost.Graph's maximum-weight matching weight (simple graphs with positive weights only).
long long boost_weight(int n, const std::vector<WeightedEdge>& edges)
{
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                                      boost::property<boost::edge_weight_t, long long>>;
  if (edges.empty()) return 0; // Boost 1.74 overflows a long long on a graph without edges
  Graph g(static_cast<std::size_t>(n));
  for (const auto& e : edges)
    boost::add_edge(static_cast<std::size_t>(e.u), static_cast<std::size_t>(e.v), e.weight, g);
  std::vector<boost::graph_traits<Graph>::vertex_descriptor> mate(static_cast<std::size_t>(n));
  boost::maximum_weighted_matching(g, &mate[0]);
  return boost::matching_weight_sum(g, &mate[0]);
}

/// Random graph: each pair an edge with probability `percent`/100, weights uniform in [lo, hi]; with
/// `parallel`, some pairs get a second edge. Portable: only the engine's raw output is used.
std::vector<WeightedEdge> random_graph(std::mt19937_64& rng, int n, int percent, long long lo, long long hi,
                                       bool parallel)
{
  auto uniform = [&](long long a, long long b) {
    return a + static_cast<long long>(rng() % static_cast<std::uint64_t>(b - a + 1));
  };
  std::vector<WeightedEdge> edges;
  for (int u = 0; u < n; ++u)
    for (int v = u + 1; v < n; ++v) {
      if (uniform(0, 99) >= percent) continue;
      // Random orientation, so that neither end is always the lower vertex.
      if (rng() % 2)
        edges.push_back({u, v, uniform(lo, hi)});
      else
        edges.push_back({v, u, uniform(lo, hi)});
      if (parallel && uniform(0, 3) == 0) edges.push_back({u, v, uniform(lo, hi)});
    }
  std::shuffle(edges.begin(), edges.end(), rng);
  return edges;
}

} // namespace

TEST_CASE("max_weight_matching: a triangle takes its heaviest edge", "[policies][matching]")
{
  // Any two edges of a triangle share a vertex: the best matching is the single heaviest edge, {0, 2}.
  const std::vector<WeightedEdge> edges{{0, 1, 5}, {1, 2, 6}, {0, 2, 7}};
  CHECK(max_weight_matching(3, edges) == std::vector<int>{2, -1, 0});
}

TEST_CASE("max_weight_matching: a path where taking the heaviest edge first is wrong", "[policies][matching]")
{
  // 0 -3- 1 -4- 2 -3- 3: greedy takes {1, 2} (4); the optimum is {0, 1} + {2, 3} = 6.
  const std::vector<WeightedEdge> edges{{0, 1, 3}, {1, 2, 4}, {2, 3, 3}};
  CHECK(max_weight_matching(4, edges) == std::vector<int>{1, 0, 3, 2});
}

TEST_CASE("max_weight_matching: maximum weight, not maximum cardinality", "[policies][matching]")
{
  // 0 -1- 1 -5- 2 -1- 3: two pairs weigh 2, the middle edge alone 5.
  const std::vector<WeightedEdge> edges{{0, 1, 1}, {1, 2, 5}, {2, 3, 1}};
  CHECK(max_weight_matching(4, edges) == std::vector<int>{-1, 2, 1, -1});
}

TEST_CASE("max_weight_matching: a 5-cycle with a pendant edge needs a blossom", "[policies][matching]")
{
  // Cycle 0-1-2-3-4-0 of weight 8 each, pendant {0, 5} of weight 3. Without 5, the odd cycle holds at
  // most two pairs (16). With {0, 5} (3), the path 1-2-3-4 left takes {1, 2} + {3, 4}: 19, the unique
  // optimum. Reaching it means augmenting from 5 through 0 into the cycle the long way round, which the
  // algorithm can only do after shrinking the cycle into a blossom.
  const std::vector<WeightedEdge> edges{{0, 1, 8}, {1, 2, 8}, {2, 3, 8}, {3, 4, 8}, {4, 0, 8}, {0, 5, 3}};
  CHECK(max_weight_matching(6, edges) == std::vector<int>{5, 2, 1, 4, 3, 0});
}

TEST_CASE("max_weight_matching: a blossom inside a blossom", "[policies][matching]")
{
  // Triangle 0-1-2 (weight 10 each) inside the odd cycle {triangle} -9- 3 -9- 4 -9- {triangle} (edges
  // {2, 3}, {3, 4}, {4, 0}), and a pendant {3, 5} of weight 4. Without 5 at most two pairs fit among
  // 0..4, one of them at most a triangle edge: 10 + 9 = 19. With {3, 5}, 4 must take 0 and then 1 takes
  // 2: 4 + 9 + 10 = 23, the unique optimum. The path from 5 to it runs through the outer cycle and then
  // through the triangle, each a blossom for the algorithm, the triangle inside the outer one.
  const std::vector<WeightedEdge> edges{{0, 1, 10}, {1, 2, 10}, {0, 2, 10}, {2, 3, 9},
                                        {3, 4, 9},  {4, 0, 9},  {3, 5, 4}};
  CHECK(max_weight_matching(6, edges) == std::vector<int>{4, 2, 1, 5, 0, 3});
}

TEST_CASE("max_weight_matching: non-positive edges, loops and empty graphs are ignored",
          "[policies][matching]")
{
  CHECK(max_weight_matching(0, {}).empty());
  CHECK(max_weight_matching(3, {}) == std::vector<int>{-1, -1, -1});
  const std::vector<WeightedEdge> useless{{0, 1, 0}, {1, 2, -7}, {2, 2, 50}};
  CHECK(max_weight_matching(3, useless) == std::vector<int>{-1, -1, -1});
  // A parallel edge counts at its heavier weight: {0, 1} at 6 beats {1, 2} at 5.
  const std::vector<WeightedEdge> parallel{{0, 1, 2}, {1, 2, 5}, {1, 0, 6}};
  CHECK(max_weight_matching(3, parallel) == std::vector<int>{1, 0, -1});
  const std::vector<WeightedEdge> outside{{0, 3, 1}};
  CHECK_THROWS_AS(max_weight_matching(3, outside), std::invalid_argument);
  CHECK_THROWS_AS(max_weight_matching(-1, {}), std::invalid_argument);
  const std::vector<WeightedEdge> too_heavy{{0, 1, std::numeric_limits<long long>::max() / 4 + 1}};
  CHECK_THROWS_AS(max_weight_matching(2, too_heavy), std::invalid_argument);
}

TEST_CASE("max_weight_matching equals exhaustive search on random graphs of up to 12 vertices",
          "[policies][matching]")
{
  // Small weight ranges make many optima tie (and exercise zero-slack steps); the wide ones do not.
  // Non-positive weights and parallel edges are mixed in: both must be handled, the former ignored.
  std::mt19937_64 rng(20240611);
  struct Range {
    long long lo, hi;
  };
  const Range ranges[] = {{1, 1}, {1, 3}, {-3, 10}, {1, 1000}, {1, 1'000'000'000'000LL}};
  const int percents[] = {20, 50, 90};
  int graphs = 0;
  for (int round = 0; round < 20; ++round)
    for (int n = 0; n <= 12; ++n)
      for (const auto& r : ranges)
        for (int percent : percents) {
          const auto edges = random_graph(rng, n, percent, r.lo, r.hi, round % 2 == 1);
          const auto mate = max_weight_matching(n, edges);
          INFO("round " << round << ", n " << n << ", weights [" << r.lo << ", " << r.hi << "], " << percent
                        << "% of pairs");
          const long long brute_force = brute_force_weight(n, edges);
          REQUIRE(checked_weight(n, edges, mate) == brute_force);
          REQUIRE(proven_weight(n, edges) == brute_force);
          ++graphs;
        }
  CHECK(graphs == 20 * 13 * 5 * 3);
}

TEST_CASE(
    "max_weight_matching is proven optimal by its dual certificate on random graphs of 30 to 60 vertices",
    "[policies][matching]")
{
  std::mt19937_64 rng(19860301);
  int graphs = 0;
  for (int round = 0; round < 4; ++round)
    for (int n : {30, 45, 60})
      for (int percent : {5, 15, 60, 100}) // sparse (about 1.5 to 9 neighbours per vertex) to complete
        for (long long hi : {1LL, 5LL, 1'000'000LL}) {
          const auto edges = random_graph(rng, n, percent, 1, hi, false);
          INFO("round " << round << ", n " << n << ", " << percent << "% of pairs, weights [1, " << hi
                        << "]");
          proven_weight(n, edges);
          ++graphs;
        }
  CHECK(graphs == 4 * 3 * 4 * 3);
}

TEST_CASE("max_weight_matching equals Boost.Graph's weight on random graphs of 30 to 60 vertices",
          "[policies][matching]")
{
  // Boost 1.74 (Debian 12) is not a reliable reference on dense graphs with many equal weights. On
  // complete graphs with weights in [1, 5] (our probe, one process per graph): of 150 with 30–60
  // vertices, it aborted on a null blossom pointer or hung on 83 and returned a lighter matching on 2
  // (e.g. 102 for 105 on 43 vertices, the optimum confirmed by networkx 3.6.1); of 1,500 with 16
  // vertices, it failed on 6 and returned a mate array that is not a matching (mate[mate[v]] ≠ v) on 2.
  // On 21,305 graphs of 4 to 12 vertices it never disagreed with exhaustive search, but failed (hung or
  // crashed) on 3. Hence the reference here is sparse graphs with spread weights, where it held on 150 of
  // 150; those of this seed all complete.
  std::mt19937_64 rng(20260301);
  int graphs = 0;
  for (int round = 0; round < 10; ++round)
    for (int n : {30, 45, 60}) {
      const auto edges = random_graph(rng, n, 5, 1, 1'000'000, false);
      INFO("round " << round << ", n " << n);
      REQUIRE(proven_weight(n, edges) == boost_weight(n, edges));
      ++graphs;
    }
  CHECK(graphs == 10 * 3);
}
