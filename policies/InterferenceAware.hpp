#pragma once
// interference-aware co-location: first-fit order, but a device is only used if the active models predict
// (ClusterView::predict) that sharing it would slow neither the new job nor any job already there by more
// than `max_slowdown` — relative to running alone on that device in its mode, so a static CCS partition's
// own cost does not count as interference (an empty device is always acceptable) — and (optionally) that
// the real footprints fit the device's memory. A job no device accepts waits (strict submission order).
// Source: interference-aware placement as in Gandiva's introspective packing and CARMA's monitoring-guided
// collocation (reference §3.4, §3.6), which refuse pairings that slow jobs down too much.
// Intent: pack where sharing is predicted to be harmless; a lower-index shared device that accepts the job
// wins over an idle one (first-fit order), and an idle device is always within reach.
// Cost: at most `candidates` predictions that refuse (shared devices examined, idle devices refused for
// memory) are made in first-fit order; past them, the idle devices further on come from an index of idle
// devices (SlotPolicy::next_idle, O(log D) each). So a decision costs O(candidates · log D) whatever the
// cluster size, and a job is never kept waiting by busy devices before an idle one (before this design the
// window counted every device and a large cluster's idle devices past the first 64 were never used).
// Refusals are remembered: a device that refused a job is not asked again for a job of the same signature
// until its DeviceView::version changes (the prediction would be the same; see accepts()), which makes the
// decisions after the first of a busy stretch cost a lookup per busy device examined instead of a
// prediction.
#include "policies/SlotPolicy.hpp"

#include <cstdint>
#include <vector>

namespace colocsim {

class InterferenceAware final : public SlotPolicy {
public:
  static std::vector<ParamSpec> params();
  explicit InterferenceAware(const ParamSet& params);

private:
  std::vector<DeviceIndex> choose(const ClusterView& view, JobIndex j, double mem) override;
  void initialised(const ClusterView& view) override;
  /// Whether device d (`v`: view.device(d)) accepts job j, of signature number `sig` (signature_number()):
  /// predicted, or a refusal remembered for that signature at d's current version.
  bool accepts(const ClusterView& view, JobIndex j, std::size_t sig, DeviceIndex d, const DeviceView& v);
  /// The number of signature s among those seen (equal bit for bit), from 0; NO_NUMBER past the 64 that
  /// refusals_ can hold.
  std::size_t signature_number(const ResourceSignature& s);
  static constexpr std::size_t NO_NUMBER = 64;

  double max_slowdown_;
  std::size_t candidates_;
  bool check_memory_;
  /// Per device: the signatures (bit k: signature number k) it refused while at `version`.
  struct Refusals {
    std::uint64_t version = 0;
    std::uint64_t signatures = 0;
  };
  std::vector<Refusals> refusals_;
  std::vector<ResourceSignature> signatures_; ///< by number
};

} // namespace colocsim
