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
#include "policies/SlotPolicy.hpp"

namespace colocsim {

class InterferenceAware final : public SlotPolicy {
public:
  static std::vector<ParamSpec> params();
  explicit InterferenceAware(const ParamSet& params);

private:
  std::vector<DeviceIndex> choose(const ClusterView& view, JobIndex j, double mem) override;
  bool accepts(const ClusterView& view, JobIndex j, DeviceIndex d) const;
  double max_slowdown_;
  std::size_t candidates_;
  bool check_memory_;
};

} // namespace colocsim
