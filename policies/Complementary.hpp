#pragma once
// complementary: Costa et al.'s allocation from prior characterisation (SSCAD 2025, reference §3.1): pair
// waiting jobs whose resource profiles are complementary and run each pair on one device. The pairs are a
// maximum-weight matching (Edmonds' blossom algorithm, policies/MaxWeightMatching.hpp: our own, because
// Boost 1.74's leaks every blossom it forms and on dense graphs with tied weights can crash, hang or return
// a non-optimal or invalid matching) over the single-device jobs among the first `window` waiting jobs,
// with edge weight = the device time a pair saves by sharing a device instead of running one after the
// other on it:
//
//   w(a, b) = t_a + t_b − max(t_a · s_a, t_b · s_b)     (s: slowdowns the active models predict for the pair)
//
// Pairs that save nothing (w ≤ 0) are not formed; among matchings that save equally, the one whose partners
// sit closest in submission order is taken. Matched pairs, then unmatched jobs alone, take empty
// devices in submission order; multi-device jobs run alone in submission order. Devices are used only for
// the jobs this policy places together, so a device returns to the pool when its jobs have ended.
// A device left with one single-device job of ours (its partner ended, or it started alone) takes a partner
// from the same window: the waiting job j whose pair with the resident r interferes least,
// max(i_j, i_r) < 2 (i: the part of a slowdown due to sharing, PlacementPrediction::job_interference; a
// ccs-k partition's own cost is not counted, as the job pays it next to any partner; < 2: sharing beats
// taking turns, two jobs with the same time left end after max(i)·t together, after 2t one after the
// other), ties to the earliest submitted; half-empty devices in index order, after the empty ones. Without
// this a stream leaves half of every pair's device idle from its first job's end to the second's
// (experiments/repro-costa-sscad25, the stream: 1.72 jobs per busy tile against first-fit's 1.95). Cost per
// decision: O(window² · predict + window³) for the matching, plus O(window · predict) per half-empty device
// looked at (all of them, while jobs wait that none of them takes: the one cost that grows with the
// cluster), otherwise independent of the cluster size (free devices that went unavailable are moved aside
// when met, and looked at again only when a node boots or a repartitioning ends). Intent (also in `colocsim
// policies`): pairs: one complementary pair (or a lone job) per idle device; a device left with one job takes
// the waiting job that complements it best.
#include "base/Params.hpp"
#include "policies/FcfsQueue.hpp"
#include "policies/GangPlacement.hpp"
#include "policies/MaxWeightMatching.hpp"
#include "policies/Policy.hpp"

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace colocsim {

/// The parts of complementary's decision that look at jobs, not at which devices are free: also used by
/// tests/policies/ScanningReference_test.cpp, whose reference differs from Complementary only in how it
/// finds free devices.
namespace complementary {

/// Moves the devices of `from` whose availability (DeviceView::available) is `available` to `to`.
void move_devices(const ClusterView& view, std::set<DeviceIndex>& from, std::set<DeviceIndex>& to,
                  bool available);

/// The single-device jobs among the first `window` waiting, in submission order.
std::vector<JobIndex> window_singles(const ClusterView& view, const FcfsQueue& queue, std::size_t window);

/// The matching's edges between `jobs` (indexes into it): the device time a pair saves on `probe` (an
/// empty device standing for all of them), in ms, times a scale, less the pair's distance in submission
/// order; only pairs that save time, fit in memory and share a type among the `free` devices.
std::vector<WeightedEdge> pair_edges(const ClusterView& view, const std::vector<JobIndex>& jobs,
                                     DeviceIndex probe, const std::set<DeviceIndex>& free);

/// The waiting job among the first `window` that interferes least with device d's one job (`also`: that job
/// when it is not a resident yet), if sharing beats taking turns (max(i_j, i_r) < 2).
std::optional<JobIndex> best_partner(const ClusterView& view, const FcfsQueue& queue, std::size_t window,
                                     DeviceIndex d, std::span<const JobIndex> also);

/// `need` empty devices for the multi-device job `head`, chosen by `gang` (the placement rule) among those
/// take(head) gives (the lowest empty device that accepts it, taken out of `free`; node_of(d): its node);
/// the devices taken and not chosen are put back. nullopt, with every device put back, if the rule finds no
/// devices for it now.
template <class Take, class NodeOf>
std::optional<std::vector<DeviceIndex>> take_gang(std::set<DeviceIndex>& free, JobIndex head,
                                                  std::size_t need, GangPicker gang, Take take,
                                                  NodeOf node_of)
{
  if (free.size() < need) return std::nullopt;
  std::vector<DeviceIndex> taken;
  while (const auto d = take(head)) {
    taken.push_back(*d);
    if (gang.offer(*d, node_of(*d))) break;
  }
  std::vector<DeviceIndex> devices = gang.take();
  const std::set<DeviceIndex> chosen(devices.begin(), devices.end());
  for (const DeviceIndex d : taken)
    if (!chosen.contains(d)) free.insert(d);
  if (devices.size() < need) return std::nullopt; // not enough empty devices by the rule: wait, in order
  return devices;
}

/// Places the matched pairs (mate[a]: a's partner, -1 for none) and the unmatched jobs of `jobs` in
/// submission order of their first member, while `free` has devices: each on the device take(a, partner)
/// gives (nullopt: no empty device of a type both accept; it waits), with place(job, device). True if any
/// was placed.
template <class Take, class PlaceOne>
bool place_matching(const std::vector<JobIndex>& jobs, const std::vector<int>& mate,
                    const std::set<DeviceIndex>& free, Take take, PlaceOne place)
{
  bool placed = false;
  for (std::size_t a = 0; a < jobs.size() && !free.empty(); ++a) {
    const int m = mate[a];
    if (m != -1 && static_cast<std::size_t>(m) < a) continue; // placed with its partner
    const bool paired = m != -1;
    const auto partner = paired ? std::optional<JobIndex>(jobs[static_cast<std::size_t>(m)]) : std::nullopt;
    const auto d = take(jobs[a], partner);
    if (!d) continue;
    place(jobs[a], *d);
    if (paired) place(*partner, *d);
    placed = true;
  }
  return placed;
}

} // namespace complementary

class Complementary final : public Policy {
public:
  static std::vector<ParamSpec> params();
  explicit Complementary(const ParamSet& params);
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override;

private:
  /// What one decide() call has done so far: its decisions, and the single-device jobs it placed alone, by
  /// device (not residents yet: the engine applies the decisions after decide() returns).
  struct Call {
    std::vector<Decision> out;
    std::map<DeviceIndex, JobIndex> placed_alone;
  };
  void start(const ClusterView& view, std::span<const Event> events, Call& call);
  void place(Call& call, JobIndex j, std::vector<DeviceIndex> devices);
  /// The multi-device job at the head on empty devices; false if it must wait.
  bool place_gang(const ClusterView& view, Call& call, JobIndex head, std::size_t need);
  /// The single-device jobs of the window, paired; false if none was placed.
  bool place_pairs(const ClusterView& view, Call& call);
  /// Devices left with one single-device job of ours take a partner.
  void fill_half(const ClusterView& view, Call& call);
  void release(const std::vector<DeviceIndex>& devices);
  /// The lowest empty device that accepts job a (and b, if given: ClusterView::allows), taken out of the
  /// free set; nullopt if there is none.
  std::optional<DeviceIndex> take(const ClusterView& view, JobIndex a, std::optional<JobIndex> b = {});
  /// The lowest free device that is available (moving unavailable ones met first aside), or nullopt.
  std::optional<DeviceIndex> first_available(const ClusterView& view);
  void restore_available(const ClusterView& view); ///< O(aside_): back to free_ when available again
  std::size_t window_;
  bool initialised_ = false;
  FcfsQueue queue_;
  std::set<DeviceIndex> free_; ///< devices with none of our jobs, available
  NodeShape nodes_;
  std::set<DeviceIndex> aside_;          ///< devices with none of our jobs, unavailable now
  std::set<DeviceIndex> half_;           ///< devices with exactly one single-device job of ours
  std::vector<std::uint32_t> occupants_; ///< our jobs per device
};

} // namespace colocsim
