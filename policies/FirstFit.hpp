#pragma once
// first-fit co-location: jobs in submission order (the queue head blocks the rest); each goes to the
// lowest-index devices that still have a free slot (fewer than `max_per_device` residents; 1 on devices in
// exclusive mode) and enough free memory by the chosen memory notion. The memory notion matters: the
// trace's declared memory can understate the real footprint, which then shows as out-of-memory failures
// (the collocation pitfall of Yousefzadeh-Asl-Miandoab, ITU, reference §3.4).
// Source: first-fit bin packing as used for GPU co-location baselines (Gandiva's packing, CARMA's
// exclusive vs. collocation comparison, reference §3.4 and §3.6). O(log D) per placement via FitIndex.
#include "models/Params.hpp"
#include "policies/FcfsQueue.hpp"
#include "policies/FitIndex.hpp"
#include "policies/Policy.hpp"

namespace colocsim {

class FirstFit final : public Policy {
public:
  enum class MemoryNotion { DECLARED, PROFILE, NONE };
  static std::vector<ParamSpec> params();
  explicit FirstFit(const ParamSet& params);
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override;

private:
  void init(const ClusterView& view);
  double job_mem(const ClusterView& view, JobIndex j) const;
  void update_slot(DeviceIndex d);
  std::uint32_t capacity_for(SharingMode mode) const;
  void release(const ClusterView& view, JobIndex j, const std::vector<DeviceIndex>& devices);

  std::uint32_t max_per_device_;
  MemoryNotion memory_;
  bool initialised_ = false;
  FcfsQueue queue_;
  FitIndex index_;
  std::vector<std::uint32_t> slots_;    ///< jobs this policy has placed per device
  std::vector<std::uint32_t> capacity_; ///< slots per device
  std::vector<double> mem_free_;        ///< by the memory notion
  double max_memory_ = 0;
};

} // namespace colocsim
