#pragma once
// first-fit co-location: jobs in submission order (the queue head blocks the rest); each goes to the
// lowest-index devices that still have a free slot (fewer than `max_per_device` residents, within the
// sharing mode's own limit) and enough free memory by the chosen memory notion. The memory notion matters:
// the trace's declared memory can understate the real footprint, which then shows as out-of-memory
// failures (the collocation pitfall of Yousefzadeh-Asl-Miandoab, ITU, reference §3.4).
// Source: first-fit bin packing as used for GPU co-location baselines (Gandiva's packing, CARMA's
// exclusive vs. collocation comparison, reference §3.4 and §3.6). O(log D) per placement (SlotPolicy's
// FitIndex). A gang that waits is scanned once: its per-node counts of the devices it would accept are
// kept, only the nodes whose devices changed are counted again, and the full scan runs again only once
// those counts say the gang rule can place it (the same decisions, without a walk of every free device at
// each call while it waits).
// Intent (also in `colocsim policies`): packs: the lowest-index device with a free slot, so it doubles up
// before using an idle device.
#include "policies/SlotPolicy.hpp"

namespace colocsim {

class FirstFit final : public SlotPolicy {
public:
  static std::vector<ParamSpec> params() { return slot_params("2"); }
  explicit FirstFit(const ParamSet& params) : SlotPolicy(params) {}

private:
  std::vector<DeviceIndex> choose(const ClusterView& view, JobIndex j, double mem) override;
  void on_device_changed(DeviceIndex d) override;
  /// Whether device d would be offered to job j (the scan's own test).
  bool acceptable(const ClusterView& view, JobIndex j, double mem, DeviceIndex d) const;

  WaitingGang waiting_;                ///< the queue head's counts while it waits
  std::uint64_t waiting_epoch_ = 0;    ///< availability_epoch() when they were counted
  std::vector<std::uint32_t> offered_; ///< the node of each device offered by the current scan
};

} // namespace colocsim
