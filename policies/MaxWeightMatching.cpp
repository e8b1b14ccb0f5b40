#include "policies/MaxWeightMatching.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <stdexcept>
#include <string>

// Notation follows Galil (1986) §3–4: a stage grows alternating trees from every single vertex (S = even
// distance from a root, T = odd), shrinking odd cycles into blossoms, until it augments or the duals say
// the matching is already of maximum weight. Duals are kept doubled so that integral weights give integral
// arithmetic: dual_[v] = 2·u_v and an edge's slack is dual_[i] + dual_[j] − 2·w (+ 2·z_B for each blossom
// B containing both ends, which only matters inside blossoms, where edges stay tight). Every δ step moves
// S-vertex duals by −δ, T-vertex duals by +δ, and S/T-blossom duals (dual_[b] = z_B) by +δ/−δ.
//
// Why an S–S slack is always even (so δ3 = slack/2 stays integral): all single vertices are roots of S
// trees and all labelled vertices hang from a root through tight edges, so all labelled vertices share
// one parity of dual_ (tight means dual_[i] + dual_[j] = 2w, blossom duals only ever add even amounts);
// a δ step moves all of them by the same amount.

namespace colocsim {
namespace {

constexpr int NONE = -1;
enum Label : char { FREE = 0, S_LABEL = 1, T_LABEL = 2 };

// Vertices are 0..n-1 and also stand for the trivial blossom they form; non-trivial blossoms are n..2n-1.
// An arc is a directed edge: arc 2k runs from edge k's v to its u, arc 2k+1 from u to v, so a ^ 1 reverses.
class Solver {
public:
  Solver(int n, std::span<const WeightedEdge> edges) : n_(n)
  {
    for (const auto& e : edges) {
      if (e.u < 0 || e.u >= n || e.v < 0 || e.v >= n)
        throw std::invalid_argument("max_weight_matching: edge {" + std::to_string(e.u) + ", " +
                                    std::to_string(e.v) + "} has an endpoint outside [0, " +
                                    std::to_string(n) + ")");
      if (e.weight > std::numeric_limits<long long>::max() / 4)
        throw std::invalid_argument("max_weight_matching: edge {" + std::to_string(e.u) + ", " +
                                    std::to_string(e.v) + "} weighs " + std::to_string(e.weight) +
                                    "; expected at most LLONG_MAX / 4 (slacks reach 4 × the largest weight)");
      if (e.weight <= 0 || e.u == e.v) continue;
      head_.push_back(e.u);
      head_.push_back(e.v);
      weight_.push_back(e.weight);
    }
    arcs_from_.resize(static_cast<std::size_t>(n));
    for (int a = 0; a < static_cast<int>(head_.size()); ++a)
      arcs_from_[static_cast<std::size_t>(tail(a))].push_back(a);

    const auto slots = 2 * static_cast<std::size_t>(n);
    mate_arc_.assign(static_cast<std::size_t>(n), NONE);
    top_.resize(static_cast<std::size_t>(n));
    for (int v = 0; v < n; ++v)
      top_[static_cast<std::size_t>(v)] = v;
    parent_.assign(slots, NONE);
    base_.assign(slots, NONE);
    for (int v = 0; v < n; ++v)
      base_[static_cast<std::size_t>(v)] = v;
    children_.resize(slots);
    cycle_arcs_.resize(slots);
    label_.assign(slots, FREE);
    label_arc_.assign(slots, NONE);
    best_to_s_.assign(static_cast<std::size_t>(n), NONE);
    best_s_edge_.assign(slots, NONE);
    best_list_.resize(slots);
    has_best_list_.assign(slots, 0);
    mark_.assign(slots, 0);
    scratch_best_.assign(slots, NONE);
    // Galil's start: u_v = max w / 2 for every vertex (all edges feasible), no blossoms.
    const long long max_w = weight_.empty() ? 0 : *std::max_element(weight_.begin(), weight_.end());
    dual_.assign(slots, 0);
    for (int v = 0; v < n; ++v)
      dual_[static_cast<std::size_t>(v)] = max_w;
    for (int b = 2 * n - 1; b >= n; --b)
      unused_.push_back(b);
  }

  void solve()
  {
    // Each stage but the last augments, adding one pair: at most n/2 + 1 stages.
    while (run_stage()) {
    }
  }

  std::vector<int> mate()
  {
    std::vector<int> out(static_cast<std::size_t>(n_), NONE);
    for (int v = 0; v < n_; ++v)
      if (mate_arc(v) != NONE) out[at(v)] = head(mate_arc(v));
    return out;
  }

  MatchingCertificate certificate()
  {
    MatchingCertificate c;
    c.mate = mate();
    c.vertex_dual_x2.assign(dual_.begin(), dual_.begin() + n_);
    for (int b = n_; b < 2 * n_; ++b)
      if (base_[at(b)] != NONE) {
        MatchingCertificate::OddSet set;
        leaves(b, set.vertices);
        std::sort(set.vertices.begin(), set.vertices.end());
        set.dual = dual_[at(b)];
        c.odd_sets.push_back(std::move(set));
      }
    return c;
  }

private:
  static std::size_t at(int i) { return static_cast<std::size_t>(i); }
  int head(int a) const { return head_[at(a)]; }
  int tail(int a) const { return head_[at(a ^ 1)]; }
  int& mate_arc(int v) { return mate_arc_[at(v)]; }
  int& top(int v) { return top_[at(v)]; }
  long long slack(int k) const
  {
    return dual_[at(head_[at(2 * k)])] + dual_[at(head_[at(2 * k + 1)])] - 2 * weight_[at(k)];
  }
  /// The arc of edge k that leaves endpoint `from`.
  int arc_leaving(int k, int from) const { return head_[at(2 * k)] == from ? 2 * k + 1 : 2 * k; }
  bool is_top_level(int b) const
  {
    return b < n_ ? top_[at(b)] == b : base_[at(b)] != NONE && parent_[at(b)] == NONE;
  }

  void leaves(int b, std::vector<int>& out) const
  {
    std::vector<int> stack{b};
    while (!stack.empty()) {
      const int x = stack.back();
      stack.pop_back();
      if (x < n_)
        out.push_back(x);
      else
        stack.insert(stack.end(), children_[at(x)].begin(), children_[at(x)].end());
    }
  }

  /// The arc of blossom b's cycle from child i to its neighbour i + step (step ±1).
  int cycle_arc(int b, int i, int step) const
  {
    const auto& arcs = cycle_arcs_[at(b)];
    return step == 1 ? arcs[at(i)] : arcs[at(i - 1)] ^ 1;
  }

  /// Labels the top-level blossom of vertex w, reached through arc a (NONE for a root). A T blossom's base
  /// is matched (single vertices are roots), and its mate becomes S at once.
  void assign_label(int w, Label label, int a)
  {
    const int b = top(w);
    assert(label_[at(b)] == FREE);
    label_[at(b)] = label;
    label_arc_[at(b)] = a;
    if (label == S_LABEL) {
      best_s_edge_[at(b)] = NONE;
      has_best_list_[at(b)] = 0;
      leaves(b, queue_);
    } else {
      const int m = mate_arc(base_[at(b)]);
      assign_label(head(m), S_LABEL, m);
    }
  }

  /// The base of the blossom that edge {v, w} between two S vertices closes, or NONE when v and w are in
  /// different trees. Walks up both trees in turn so that the cost is the length of the shorter path to
  /// the common base (Galil §4).
  int common_base(int v, int w)
  {
    std::vector<int> marked;
    int base = NONE;
    int x = v, y = w;
    while (x != NONE || y != NONE) {
      if (x != NONE) {
        const int b = top(x);
        if (mark_[at(b)]) {
          base = base_[at(b)];
          break;
        }
        mark_[at(b)] = 1;
        marked.push_back(b);
        if (label_arc_[at(b)] == NONE)
          x = NONE;
        else {
          const int t = top(tail(label_arc_[at(b)])); // the T blossom above b
          x = tail(label_arc_[at(t)]);
        }
      }
      std::swap(x, y);
    }
    for (int b : marked)
      mark_[at(b)] = 0;
    return base;
  }

  /// Shrinks the odd cycle that arc a (between S vertices of one tree) closes through the common `base`
  /// into a new S blossom. Children are stored around the cycle from the base's blossom, and
  /// cycle_arcs_[b][i] leaves child i towards child i + 1.
  void add_blossom(int base, int a)
  {
    const int bb = top(base);
    const int b = unused_.back();
    unused_.pop_back();
    base_[at(b)] = base;
    parent_[at(b)] = NONE;
    parent_[at(bb)] = b;
    auto& kids = children_[at(b)];
    auto& arcs = cycle_arcs_[at(b)];
    kids.assign(1, bb);
    arcs.clear();
    // From v's blossom up to bb, then reversed so that the cycle runs bb → … → v.
    for (int x = top(tail(a)); x != bb; x = top(tail(label_arc_[at(x)]))) {
      parent_[at(x)] = b;
      kids.push_back(x);
      arcs.push_back(label_arc_[at(x)]);
    }
    std::reverse(kids.begin() + 1, kids.end());
    std::reverse(arcs.begin(), arcs.end());
    arcs.push_back(a);
    for (int x = top(head(a)); x != bb; x = top(tail(label_arc_[at(x)]))) {
      parent_[at(x)] = b;
      kids.push_back(x);
      arcs.push_back(label_arc_[at(x)] ^ 1);
    }
    label_[at(b)] = S_LABEL;
    label_arc_[at(b)] = label_arc_[at(bb)];
    dual_[at(b)] = 0;

    std::vector<int> members;
    leaves(b, members);
    for (int v : members) {
      if (label_[at(top(v))] == T_LABEL) queue_.push_back(v); // T vertices become S: scan them
      top(v) = b;
    }

    // The least-slack edge from b to each other S blossom, from the children's lists where they have one
    // and from all edges otherwise (Galil §4: this keeps δ3 at O(n) per step).
    std::vector<int> targets;
    for (int c : kids) {
      std::vector<int> candidates;
      if (has_best_list_[at(c)])
        candidates.swap(best_list_[at(c)]);
      else {
        std::vector<int> vs;
        leaves(c, vs);
        for (int v : vs)
          for (int arc : arcs_from_[at(v)])
            candidates.push_back(arc >> 1);
      }
      for (int k : candidates) {
        int j = head_[at(2 * k)];
        if (top(j) == b) j = head_[at(2 * k + 1)];
        const int tj = top(j);
        if (tj == b || label_[at(tj)] != S_LABEL) continue;
        int& best = scratch_best_[at(tj)];
        if (best == NONE) targets.push_back(tj);
        if (best == NONE || slack(k) < slack(best)) best = k;
      }
      best_list_[at(c)].clear();
      has_best_list_[at(c)] = 0;
      best_s_edge_[at(c)] = NONE;
    }
    auto& list = best_list_[at(b)];
    list.clear();
    best_s_edge_[at(b)] = NONE;
    for (int tj : targets) {
      const int k = scratch_best_[at(tj)];
      scratch_best_[at(tj)] = NONE;
      list.push_back(k);
      if (best_s_edge_[at(b)] == NONE || slack(k) < slack(best_s_edge_[at(b)])) best_s_edge_[at(b)] = k;
    }
    has_best_list_[at(b)] = 1;
  }

  /// Undoes blossom b: at the end of a stage (an S blossom whose dual is 0, with its zero-dual
  /// sub-blossoms), or within a stage (a T blossom whose dual reached 0, δ4). A T blossom's children on the
  /// even-length side of the cycle, from the child its label arc enters to the base, stay in the tree,
  /// T, S, …, T; the others become free. Those of them that S vertices reach are found again through
  /// best_to_s_ (δ2, possibly 0), which every scan keeps for vertices inside T blossoms too.
  void expand_blossom(int b, bool end_of_stage)
  {
    const auto& kids = children_[at(b)];
    for (int c : kids) {
      parent_[at(c)] = NONE;
      if (c < n_)
        top(c) = c;
      else if (end_of_stage && dual_[at(c)] == 0)
        expand_blossom(c, end_of_stage);
      else {
        std::vector<int> vs;
        leaves(c, vs);
        for (int v : vs)
          top(v) = c;
      }
    }
    if (!end_of_stage && label_[at(b)] == T_LABEL) {
      for (int c : kids) {
        label_[at(c)] = FREE;
        label_arc_[at(c)] = NONE;
      }
      const int size = static_cast<int>(kids.size());
      int arc = label_arc_[at(b)];
      int i = static_cast<int>(std::find(kids.begin(), kids.end(), top(head(arc))) - kids.begin());
      const int step = i % 2 == 1 ? 1 : -1; // the even-length way round to the base
      while (i != 0) {
        label_[at(kids[at(i)])] = T_LABEL;
        label_arc_[at(kids[at(i)])] = arc;
        const int matched = cycle_arc(b, i, step);
        i = (i + step + size) % size;
        assign_label(head(matched), S_LABEL, matched);
        arc = cycle_arc(b, i, step);
        i = (i + step + size) % size;
      }
      label_[at(kids[0])] = T_LABEL;
      label_arc_[at(kids[0])] = arc;
    }
    children_[at(b)].clear();
    cycle_arcs_[at(b)].clear();
    best_list_[at(b)].clear();
    has_best_list_[at(b)] = 0;
    best_s_edge_[at(b)] = NONE;
    label_[at(b)] = FREE;
    label_arc_[at(b)] = NONE;
    base_[at(b)] = NONE;
    dual_[at(b)] = 0;
    unused_.push_back(b);
  }

  /// Swaps matched and unmatched edges inside blossom b so that its vertex v becomes its base (v is
  /// matched outside b next, by the caller). Walks the even-length way from v's child to the base child.
  void augment_blossom(int b, int v)
  {
    int t = v;
    while (parent_[at(t)] != b)
      t = parent_[at(t)];
    if (t >= n_) augment_blossom(t, v);
    auto& kids = children_[at(b)];
    auto& arcs = cycle_arcs_[at(b)];
    const int size = static_cast<int>(kids.size());
    const int first = static_cast<int>(std::find(kids.begin(), kids.end(), t) - kids.begin());
    const int step = first % 2 == 1 ? 1 : -1;
    int i = first;
    while (i != 0) {
      i = (i + step + size) % size; // over the matched arc, which becomes unmatched
      const int a = cycle_arc(b, i, step);
      const int next = (i + step + size) % size;
      if (kids[at(i)] >= n_) augment_blossom(kids[at(i)], tail(a));
      if (kids[at(next)] >= n_) augment_blossom(kids[at(next)], head(a));
      mate_arc(tail(a)) = a;
      mate_arc(head(a)) = a ^ 1;
      i = next;
    }
    std::rotate(kids.begin(), kids.begin() + first, kids.end());
    std::rotate(arcs.begin(), arcs.begin() + first, arcs.end());
    base_[at(b)] = v;
  }

  /// Augments along the path root(v) … v → w … root(w) that arc a (between S vertices of two trees)
  /// closes.
  void augment(int a)
  {
    for (int arc : {a, a ^ 1}) {
      int s = tail(arc);
      int p = arc; // s is matched over p next
      for (;;) {
        const int bs = top(s);
        if (bs >= n_) augment_blossom(bs, s);
        mate_arc(s) = p;
        if (label_arc_[at(bs)] == NONE) break; // the root: was single
        const int bt = top(tail(label_arc_[at(bs)]));
        const int q = label_arc_[at(bt)]; // from an S vertex into bt
        const int entry = head(q);
        if (bt >= n_) augment_blossom(bt, entry);
        mate_arc(entry) = q ^ 1;
        s = tail(q);
        p = q;
      }
    }
  }

  /// Looks at arc a from an S vertex. Returns true when it augmented the matching.
  bool consider(int a)
  {
    const int v = tail(a), w = head(a), k = a >> 1;
    const int bv = top(v), bw = top(w);
    if (bv == bw) return false;
    const long long s = slack(k);
    if (label_[at(bw)] != S_LABEL && (best_to_s_[at(w)] == NONE || s < slack(best_to_s_[at(w)])))
      best_to_s_[at(w)] = k;
    if (s == 0) {
      if (label_[at(bw)] == FREE)
        assign_label(w, T_LABEL, a);
      else if (label_[at(bw)] == S_LABEL) {
        const int base = common_base(v, w);
        if (base == NONE) {
          augment(a);
          return true;
        }
        add_blossom(base, a);
      }
    } else if (label_[at(bw)] == S_LABEL && (best_s_edge_[at(bv)] == NONE || s < slack(best_s_edge_[at(bv)])))
      best_s_edge_[at(bv)] = k;
    return false;
  }

  /// One stage (Galil §3): grow, shrink and expand until an augmentation (returns true) or until the
  /// single vertices' duals reach 0, which proves the matching of maximum weight (returns false).
  bool run_stage()
  {
    std::fill(label_.begin(), label_.end(), FREE);
    std::fill(label_arc_.begin(), label_arc_.end(), NONE);
    std::fill(best_to_s_.begin(), best_to_s_.end(), NONE);
    std::fill(best_s_edge_.begin(), best_s_edge_.end(), NONE);
    std::fill(has_best_list_.begin(), has_best_list_.end(), 0);
    queue_.clear();
    for (int v = 0; v < n_; ++v)
      if (mate_arc(v) == NONE && label_[at(top(v))] == FREE) assign_label(v, S_LABEL, NONE);
    if (queue_.empty()) return false; // perfect matching

    bool augmented = false;
    while (!augmented) {
      while (!queue_.empty() && !augmented) {
        const int v = queue_.back();
        queue_.pop_back();
        for (int a : arcs_from_[at(v)])
          if (consider(a)) {
            augmented = true;
            break;
          }
      }
      if (augmented) break;

      // No tight edge left to follow: move the duals by the largest δ that keeps them feasible.
      enum Kind { SINGLES_ZERO, S_TO_FREE, S_TO_S, T_BLOSSOM_ZERO } kind = SINGLES_ZERO;
      long long delta = -1;
      int which = NONE;
      for (int v = 0; v < n_; ++v)
        if (label_[at(top(v))] == S_LABEL && (delta < 0 || dual_[at(v)] < delta)) delta = dual_[at(v)];
      for (int v = 0; v < n_; ++v)
        if (label_[at(top(v))] == FREE && best_to_s_[at(v)] != NONE && slack(best_to_s_[at(v)]) < delta) {
          delta = slack(best_to_s_[at(v)]);
          kind = S_TO_FREE;
          which = best_to_s_[at(v)];
        }
      for (int b = 0; b < 2 * n_; ++b) {
        if (!is_top_level(b)) continue;
        if (label_[at(b)] == S_LABEL && best_s_edge_[at(b)] != NONE) {
          const long long s = slack(best_s_edge_[at(b)]);
          assert(s % 2 == 0);
          if (s / 2 < delta) {
            delta = s / 2;
            kind = S_TO_S;
            which = best_s_edge_[at(b)];
          }
        } else if (b >= n_ && label_[at(b)] == T_LABEL && dual_[at(b)] < delta) {
          delta = dual_[at(b)];
          kind = T_BLOSSOM_ZERO;
          which = b;
        }
      }
      for (int v = 0; v < n_; ++v) {
        const auto l = label_[at(top(v))];
        if (l == S_LABEL) dual_[at(v)] -= delta;
        if (l == T_LABEL) dual_[at(v)] += delta;
      }
      for (int b = n_; b < 2 * n_; ++b)
        if (is_top_level(b)) {
          if (label_[at(b)] == S_LABEL) dual_[at(b)] += delta;
          if (label_[at(b)] == T_LABEL) dual_[at(b)] -= delta;
        }

      switch (kind) {
      case SINGLES_ZERO:
        return false;
      case S_TO_FREE:
      case S_TO_S: {
        // The edge is tight now: follow it from its S end.
        const int end_u = head_[at(2 * which)];
        augmented = consider(
            arc_leaving(which, label_[at(top(end_u))] == S_LABEL ? end_u : head_[at(2 * which + 1)]));
        break;
      }
      case T_BLOSSOM_ZERO:
        expand_blossom(which, false);
        break;
      }
    }
    // S blossoms whose dual is 0 would only constrain the next stage's trees (Galil §3, end of stage).
    for (int b = n_; b < 2 * n_; ++b)
      if (is_top_level(b) && label_[at(b)] == S_LABEL && dual_[at(b)] == 0) expand_blossom(b, true);
    return true;
  }

  int n_;
  std::vector<int> head_;                    // head_[a]: the vertex arc a enters
  std::vector<long long> weight_;            // per edge
  std::vector<std::vector<int>> arcs_from_;  // per vertex: the arcs leaving it
  std::vector<int> mate_arc_;                // per vertex: the matched arc leaving it, or NONE
  std::vector<int> top_;                     // per vertex: its top-level blossom
  std::vector<int> parent_;                  // per blossom: the blossom it is a child of, or NONE
  std::vector<int> base_;                    // per blossom: its base vertex; NONE for an unused slot
  std::vector<std::vector<int>> children_;   // per non-trivial blossom: its cycle, base child first
  std::vector<std::vector<int>> cycle_arcs_; // per non-trivial blossom: arc i leaves child i
  std::vector<Label> label_;                 // per top-level blossom, within a stage
  std::vector<int> label_arc_;               // per labelled blossom: the tree arc into it (NONE at a root)
  std::vector<int> best_to_s_;               // per non-S vertex: its least-slack edge to an S vertex
  std::vector<int> best_s_edge_;             // per S blossom: its least-slack edge to another S blossom
  std::vector<std::vector<int>> best_list_;  // per non-trivial S blossom: least-slack edge per S neighbour
  std::vector<char> has_best_list_;
  std::vector<char> mark_;        // common_base's visited marks, all 0 between calls
  std::vector<int> scratch_best_; // add_blossom's per-target minimum, all NONE between calls
  std::vector<long long> dual_;   // 2·u_v per vertex, z_B per non-trivial blossom
  std::vector<int> unused_;       // free non-trivial blossom numbers
  std::vector<int> queue_;        // S vertices whose arcs are still to be looked at
};

} // namespace

std::vector<int> max_weight_matching(int n, std::span<const WeightedEdge> edges)
{
  if (n < 0) throw std::invalid_argument("max_weight_matching: n = " + std::to_string(n) + " < 0");
  Solver solver(n, edges);
  solver.solve();
  return solver.mate();
}

MatchingCertificate max_weight_matching_certificate(int n, std::span<const WeightedEdge> edges)
{
  if (n < 0) throw std::invalid_argument("max_weight_matching: n = " + std::to_string(n) + " < 0");
  Solver solver(n, edges);
  solver.solve();
  return solver.certificate();
}

} // namespace colocsim
