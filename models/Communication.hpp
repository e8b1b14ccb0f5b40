#pragma once
// The communication model of multi-GPU jobs (models/README.md, "Communication"): the time of a collective
// of S bytes over n = k nodes × g devices per node by an α–β model per network tier, and a job's
// communication profile, which turns that time into a step efficiency.
//
// A tier has α, the latency of one algorithm step in seconds, and β, seconds per byte (1 / bus bandwidth
// in the sense of nccl-tests: doc/PERFORMANCE.md of NVIDIA/nccl-tests). The tiers:
//   fabric  the intra-node fabric (NVLink/NVSwitch): β = 1 / the busbw one node's devices reach;
//   nic     the node's network adapters together: β = 1 / the busbw a ring across nodes reaches (NCCL runs
//           one ring per channel, each channel on its own NIC, so all of a node's NICs carry the ring's
//           inter-node hop: the busbw across nodes is the node's total NIC bandwidth, nccl-tests issue 119);
//   spine   optional: a leaf switch's uplinks together (β = 1 / their bandwidth one way), crossed when a
//           job's nodes hang off more than one leaf switch: the inter-node hop then costs α_nic + α_spine.
//           A ring over the job's nodes in order leaves each leaf once and enters it once, so its uplinks
//           carry one node's bytes each way, as a NIC does: the ring's (and the tree's) inter-node β is
//           max(β_nic, β_spine). An all-to-all sends from every node to every other: the m nodes of the
//           job under its fullest leaf send m (k−m)/k · g S across its uplinks.
//           This is a job alone on its links; jobs that share uplinks share their bandwidth in SimGrid's
//           network model (docs/architecture.md, Network), not here.
//
// The formulas follow NCCL's own cost model (NVIDIA/nccl src/graph/tuning.cc, ncclTopoTuneModel, at
// commit 01afd20; latency terms as there, bandwidth as its busBw · ratio), with x the inter-node tier
// (nic, or nic + spine) and β_b the ring's bottleneck: β_fabric on one node, β_x when g = 1, max(β_fabric,
// β_x) otherwise:
//   ring all-reduce  (2(n−1) − 2(k−1)) α_fabric + 2(k−1) α_x + 2(n−1)/n · S · β_b
//                    (2(n−1) steps, 2(k−1) of them cross nodes; each rank moves 2(n−1)/n · S bytes)
//   tree all-reduce  2 ((g−1) α_fabric + ⌊log2 k⌋ α_x) + 2 S β_b
//                    (a chain inside each node, a double binary tree across nodes; NCCL's algorithm
//                    bandwidth is half its bus bandwidth: every rank sends S up and S down)
//   all-to-all       α + max((g−1)/n · S · β_fabric, g (k−1)/k · S · β_nic, m (k−m)/k · g S · β_spine),
//                    α = α_x across nodes, else α_fabric, the last term over several switches only
//                    (the n − 1 sends of a rank go out together; a node's NICs carry the (k−1)/k · S that
//                    each of its g devices sends off the node)
// Plain C++ on base/; no SimGrid.
#include "base/Yaml.hpp"

#include <optional>
#include <string_view>

namespace colocsim {

enum class Collective { RING_ALL_REDUCE, TREE_ALL_REDUCE, ALL_TO_ALL };
std::string_view to_string(Collective c); ///< "ring-all-reduce", "tree-all-reduce", "all-to-all"
std::optional<Collective> parse_collective(std::string_view text); ///< the inverse of to_string

/// One network tier: α (seconds per algorithm step) and β (seconds per byte), each with its source.
struct CommTier {
  Sourced alpha;
  Sourced beta;
};

struct CommTiers {
  CommTier fabric;               ///< intra-node (per device)
  CommTier nic;                  ///< a node's NICs together
  std::optional<CommTier> spine; ///< a leaf switch's uplinks together (used when switches > 1)
};

/// Where a collective's ranks sit: `nodes` nodes × `per_node` devices, the nodes under `switches` leaf
/// switches, at most `per_leaf` of them under one (0: as evenly as the switches allow, ⌈nodes / switches⌉).
struct CommPlacement {
  int nodes = 1;
  int per_node = 1;
  int switches = 1;
  int per_leaf = 0;
};

/// The time in seconds of one collective of `bytes` bytes per rank (the buffer nccl-tests calls size)
/// over the placement (formulas above; 0 for one rank). Throws std::invalid_argument on bytes < 0 or not
/// finite, nodes or per_node < 1, switches < 1 or > nodes, a per_leaf that the switches cannot hold (below
/// ⌈nodes / switches⌉ or above nodes − switches + 1, 0 aside), a negative α or β, or switches > 1 without a
/// spine tier.
double collective_time(Collective c, double bytes, const CommPlacement& at, const CommTiers& tiers);

/// The bytes one node's NICs send (and receive) per collective of `bytes` bytes per rank over the placement:
/// the inter-node bandwidth term of collective_time divided by its β_x, i.e. 2(n−1)/n · S for a ring
/// all-reduce, 2 S for a tree all-reduce, g (k−1)/k · S for an all-to-all; 0 on one node. Throws
/// std::invalid_argument on bytes < 0 or not finite, or nodes or per_node < 1.
double nic_bytes(Collective c, double bytes, const CommPlacement& at);

/// nccl-tests' bus bandwidth (bytes/s) of a collective of `bytes` over `ranks` ranks that took `seconds`:
/// algbw = bytes / seconds times 2(n−1)/n for an all-reduce, (n−1)/n for an all-to-all
/// (NVIDIA/nccl-tests doc/PERFORMANCE.md). Throws std::invalid_argument on seconds ≤ 0 or ranks < 2.
double bus_bandwidth(Collective c, double bytes, double seconds, int ranks);

/// How a job communicates: per unit of work (one training step) each device computes for `compute_s`
/// seconds and then takes part in one collective of `bytes` bytes (no overlap of the two).
struct CommProfile {
  Collective collective = Collective::RING_ALL_REDUCE;
  double bytes = 0;
  double compute_s = 0;
};

/// The profile of a job that spends `fraction` (0 < fraction < 1) of a step communicating when placed at
/// `at`, with a collective of `bytes`: compute_s = T(at) · (1 − fraction) / fraction. Throws
/// std::invalid_argument on a fraction outside (0, 1), a placement of one rank, or what collective_time
/// rejects.
CommProfile comm_profile_from_fraction(Collective c, double bytes, double fraction, const CommPlacement& at,
                                       const CommTiers& tiers);

/// The step efficiency of the profile at a placement against the same work with no communication:
/// compute_s / (compute_s + T(at)) (1 for one rank). Throws std::invalid_argument on compute_s ≤ 0 or what
/// collective_time rejects.
double comm_efficiency(const CommProfile& profile, const CommPlacement& at, const CommTiers& tiers);

} // namespace colocsim
