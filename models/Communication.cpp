#include "models/Communication.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace colocsim {

std::string_view to_string(Collective c)
{
  switch (c) {
  case Collective::RING_ALL_REDUCE:
    return "ring-all-reduce";
  case Collective::TREE_ALL_REDUCE:
    return "tree-all-reduce";
  case Collective::ALL_TO_ALL:
    return "all-to-all";
  }
  return "?";
}

std::optional<Collective> parse_collective(std::string_view text)
{
  for (Collective c : {Collective::RING_ALL_REDUCE, Collective::TREE_ALL_REDUCE, Collective::ALL_TO_ALL})
    if (to_string(c) == text) return c;
  return std::nullopt;
}

namespace {

void check_tier(const CommTier& t, const char* name)
{
  if (!(t.alpha.value >= 0) || !std::isfinite(t.alpha.value) || !(t.beta.value >= 0) ||
      !std::isfinite(t.beta.value))
    throw std::invalid_argument(std::string("collective_time: tier ") + name +
                                " needs a finite alpha >= 0 and beta >= 0");
}

/// ⌊log2 k⌋ for k ≥ 1 (NCCL's log2i).
int floor_log2(int k)
{
  int r = 0;
  while (k > 1) {
    k /= 2;
    ++r;
  }
  return r;
}

} // namespace

double collective_time(Collective c, double bytes, const CommPlacement& at, const CommTiers& tiers)
{
  if (!(bytes >= 0) || !std::isfinite(bytes))
    throw std::invalid_argument("collective_time: bytes must be finite and >= 0");
  if (at.nodes < 1 || at.per_node < 1)
    throw std::invalid_argument("collective_time: nodes and per_node must be >= 1");
  if (at.switches < 1 || at.switches > at.nodes)
    throw std::invalid_argument("collective_time: switches must be in [1, nodes]");
  const int even = (at.nodes + at.switches - 1) / at.switches;
  if (at.per_leaf != 0 && (at.per_leaf < even || at.per_leaf > at.nodes - at.switches + 1))
    throw std::invalid_argument(
        "collective_time: per_leaf must be in [ceil(nodes / switches), nodes - switches + 1], or 0");
  check_tier(tiers.fabric, "fabric");
  check_tier(tiers.nic, "nic");
  if (at.switches > 1 && !tiers.spine)
    throw std::invalid_argument("collective_time: a placement over several switches needs a spine tier");
  if (tiers.spine) check_tier(*tiers.spine, "spine");

  const double k = at.nodes, g = at.per_node, n = k * g;
  if (n == 1) return 0.0;
  const double a_f = tiers.fabric.alpha.value, b_f = tiers.fabric.beta.value;
  const double b_nic = tiers.nic.beta.value;
  double a_x = tiers.nic.alpha.value, b_x = b_nic;
  if (at.switches > 1) {
    a_x += tiers.spine->alpha.value;
    b_x = std::max(b_x, tiers.spine->beta.value);
  }
  // The ring's (and the tree's) bottleneck: the fabric on one node, the network alone with one device per
  // node, the slower of the two otherwise.
  const double b_b = at.nodes == 1 ? b_f : at.per_node == 1 ? b_x : std::max(b_f, b_x);

  switch (c) {
  case Collective::RING_ALL_REDUCE: {
    const double steps = 2 * (n - 1), inter = 2 * (k - 1);
    return (steps - inter) * a_f + inter * a_x + 2 * (n - 1) / n * bytes * b_b;
  }
  case Collective::TREE_ALL_REDUCE:
    return 2 * ((g - 1) * a_f + floor_log2(at.nodes) * a_x) + 2 * bytes * b_b;
  case Collective::ALL_TO_ALL: {
    const double alpha = at.nodes > 1 ? a_x : a_f;
    const double intra = (g - 1) / n * bytes * b_f;
    double inter = g * (k - 1) / k * bytes * b_nic;
    if (at.switches > 1) {
      // The fullest leaf's m nodes each send (k−m)/k of their g devices' S out of it.
      const double m = at.per_leaf != 0 ? at.per_leaf : even;
      inter = std::max(inter, m * (k - m) / k * g * bytes * tiers.spine->beta.value);
    }
    return alpha + std::max(intra, inter);
  }
  }
  throw std::invalid_argument("collective_time: unknown collective");
}

double nic_bytes(Collective c, double bytes, const CommPlacement& at)
{
  if (!(bytes >= 0) || !std::isfinite(bytes))
    throw std::invalid_argument("nic_bytes: bytes must be finite and >= 0");
  if (at.nodes < 1 || at.per_node < 1)
    throw std::invalid_argument("nic_bytes: nodes and per_node must be >= 1");
  if (at.nodes == 1) return 0.0;
  const double k = at.nodes, g = at.per_node, n = k * g;
  switch (c) {
  case Collective::RING_ALL_REDUCE:
    return 2 * (n - 1) / n * bytes;
  case Collective::TREE_ALL_REDUCE:
    return 2 * bytes;
  case Collective::ALL_TO_ALL:
    return g * (k - 1) / k * bytes;
  }
  throw std::invalid_argument("nic_bytes: unknown collective");
}

double bus_bandwidth(Collective c, double bytes, double seconds, int ranks)
{
  if (!(seconds > 0)) throw std::invalid_argument("bus_bandwidth: seconds must be > 0");
  if (ranks < 2) throw std::invalid_argument("bus_bandwidth: needs at least 2 ranks");
  const double n = ranks;
  const double factor = c == Collective::ALL_TO_ALL ? (n - 1) / n : 2 * (n - 1) / n;
  return bytes / seconds * factor;
}

CommProfile comm_profile_from_fraction(Collective c, double bytes, double fraction, const CommPlacement& at,
                                       const CommTiers& tiers)
{
  if (!(fraction > 0 && fraction < 1))
    throw std::invalid_argument("comm_profile_from_fraction: the fraction must be in (0, 1)");
  if (static_cast<long long>(at.nodes) * at.per_node < 2)
    throw std::invalid_argument("comm_profile_from_fraction: the placement must have at least 2 ranks");
  const double t = collective_time(c, bytes, at, tiers);
  if (!(t > 0))
    throw std::invalid_argument("comm_profile_from_fraction: the collective takes no time at the placement");
  return {c, bytes, t * (1 - fraction) / fraction};
}

double comm_efficiency(const CommProfile& profile, const CommPlacement& at, const CommTiers& tiers)
{
  if (!(profile.compute_s > 0) || !std::isfinite(profile.compute_s))
    throw std::invalid_argument("comm_efficiency: compute_s must be finite and > 0");
  const double t = collective_time(profile.collective, profile.bytes, at, tiers);
  return profile.compute_s / (profile.compute_s + t);
}

} // namespace colocsim
