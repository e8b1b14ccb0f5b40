#pragma once
// interference-aware co-location: first-fit order, but a device is only used if the active models predict
// (ClusterView::predict) that sharing it would slow neither the new job nor any job already there by more
// than `max_slowdown` — relative to running alone on that device in its mode, so a static CCS partition's
// own cost does not count as interference (an empty device is always acceptable) — and (optionally) that
// the real footprints fit the device's memory. A job no device
// accepts waits (strict submission order). Source: interference-aware placement as in Gandiva's
// introspective packing and CARMA's monitoring-guided collocation (reference §3.4, §3.6), which refuse
// pairings that slow jobs down too much. At most `candidates` devices are examined per decision, so a
// decision costs O(candidates · log D) whatever the cluster size.
#include "policies/SlotPolicy.hpp"

namespace colocsim {

class InterferenceAware final : public SlotPolicy {
public:
  static std::vector<ParamSpec> params();
  explicit InterferenceAware(const ParamSet& params);

private:
  std::vector<DeviceIndex> choose(const ClusterView& view, JobIndex j, double mem) override;
  double max_slowdown_;
  std::size_t candidates_;
  bool check_memory_;
};

} // namespace colocsim
