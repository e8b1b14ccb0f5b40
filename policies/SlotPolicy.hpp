#pragma once
// Shared bookkeeping of the co-locating policies (first-fit, best-fit, interference-aware): per device, the
// jobs this policy placed, the slots its sharing mode allows (max_per_device, capped by the mode's own
// limit) and the free memory by the chosen memory notion; the FCFS queue; and the handling of submissions,
// completions, failures and repartitions. A subclass only chooses devices (choose()).
#include "models/Params.hpp"
#include "policies/FcfsQueue.hpp"
#include "policies/FitIndex.hpp"
#include "policies/Policy.hpp"

#include <map>
#include <vector>

namespace colocsim {

class SlotPolicy : public Policy {
public:
  enum class MemoryNotion { DECLARED, PROFILE, NONE };
  /// max_per_device and memory, declared once for every co-locating policy.
  static std::vector<ParamSpec> slot_params(const std::string& default_max_per_device);

  explicit SlotPolicy(const ParamSet& params);
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) final;

protected:
  /// Devices for waiting job j (job.devices of them), or an empty list if it cannot start now.
  virtual std::vector<DeviceIndex> choose(const ClusterView& view, JobIndex j, double mem) = 0;
  /// Called whenever a device's free slots or memory change (after the base class updated them).
  virtual void on_device_changed(DeviceIndex) {}
  virtual void initialised(const ClusterView&) {}
  /// The lowest device at or after `from` with a free slot and at least `mem` free, or FitIndex::NONE:
  /// O(log D).
  std::size_t first_fitting(double mem, std::size_t from = 0) const { return index_.find_first(mem, from); }

  bool has_slot(DeviceIndex d) const { return slots_[d] < capacity_[d]; }
  /// Jobs placed on device d earlier in the current decide() call (not yet residents in the view).
  std::span<const JobIndex> placed_now(DeviceIndex d) const
  {
    auto it = placed_now_.find(d);
    return it == placed_now_.end() ? std::span<const JobIndex>() : std::span<const JobIndex>(it->second);
  }
  double mem_free(DeviceIndex d) const { return mem_free_[d]; }
  std::size_t device_count() const { return slots_.size(); }

private:
  void init(const ClusterView& view);
  double job_mem(const ClusterView& view, JobIndex j) const;
  std::uint32_t capacity_for(SharingMode mode) const;
  void occupy(const ClusterView& view, JobIndex j, const std::vector<DeviceIndex>& devices, int sign);
  void device_changed(DeviceIndex d);

  std::uint32_t max_per_device_;
  MemoryNotion memory_;
  bool initialised_ = false;
  FcfsQueue queue_;
  std::vector<std::uint32_t> slots_;                        ///< jobs this policy has placed per device
  std::vector<std::uint32_t> capacity_;                     ///< slots per device
  std::vector<double> mem_free_;                            ///< by the memory notion
  std::map<DeviceIndex, std::vector<JobIndex>> placed_now_; ///< this decide() call's placements
  double max_memory_ = 0;
  FitIndex index_; ///< free memory of devices with a free slot
};

} // namespace colocsim
