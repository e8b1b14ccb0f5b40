#pragma once
// Exact maximum-weight matching in a general (non-bipartite) undirected graph: Edmonds' blossom algorithm
// with dual variables, in the O(n³) form of Galil (1986), "Efficient algorithms for finding maximum
// matching in graphs", ACM Computing Surveys 18(1), §3–4. Used by the complementary policy to pair jobs.
//
// Why our own: Boost 1.74's maximum_weighted_matching (Debian 12) keeps every blossom in a shared_ptr
// cycle (a blossom owns its sub-blossoms, each sub-blossom holds a shared_ptr to its father), so every
// blossom it forms leaks; over a long simulation that is hundreds of MB. This one keeps all state in
// vectors indexed by vertex and blossom number. Upstream: the leak is boostorg/graph#461; wrong results,
// crashes and hangs on some graphs are #399, #199 and #223, fixed by the rewrite of PR #400 (Boost 1.87),
// which Debian 12 does not ship. Our tests measured the same on 1.74 (MaxWeightMatching_test.cpp).
#include <span>
#include <vector>

namespace colocsim {

/// An undirected edge {u, v} of weight `weight` (any integral unit; the complementary policy uses ms).
struct WeightedEdge {
  int u = 0;
  int v = 0;
  long long weight = 0;
};

/// A matching of maximum total weight (not of maximum cardinality: an edge that would only add pairs
/// without adding weight is not taken). Returns mate[v], the vertex matched to v, or -1 when v is single;
/// mate[mate[v]] == v. Edges with weight ≤ 0 and loops {v, v} are ignored (they never raise the weight);
/// parallel edges are allowed. Exact in integers: the slacks reach 4 × the largest weight, so a weight
/// above LLONG_MAX / 4 throws std::invalid_argument, as do n < 0 and an endpoint outside [0, n).
/// Time O(n³ + n·m), memory O(n + m).
std::vector<int> max_weight_matching(int n, std::span<const WeightedEdge> edges);

/// A maximum-weight matching with the dual solution that proves it optimal, for tests and audits: the
/// duals of Edmonds' matching polytope (vertex duals u_v, odd-set duals z_B), all ≥ 0, with
/// u_i + u_j + Σ_{B ∋ i, j} z_B ≥ w_ij for every edge and Σ_v u_v + Σ_B z_B·(|B| − 1)/2 equal to the
/// matching's weight. Weak LP duality then bounds every matching's weight by the matching's own.
struct MatchingCertificate {
  struct OddSet {
    std::vector<int> vertices; // odd count, sorted
    long long dual = 0;        // z_B
  };
  std::vector<int> mate;                 // as max_weight_matching returns it
  std::vector<long long> vertex_dual_x2; // 2·u_v (halves stay integral this way)
  std::vector<OddSet> odd_sets;          // the blossoms left at the end, nested ones included
};
MatchingCertificate max_weight_matching_certificate(int n, std::span<const WeightedEdge> edges);

} // namespace colocsim
