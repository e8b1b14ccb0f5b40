#pragma once
// best-fit co-location: like first-fit (submission order, slots, memory notion), but each job goes to the
// devices whose free memory is the smallest that still fits it (ties: lowest index), keeping large holes
// for large jobs. Source: best-fit bin packing (Coffman, Garey, Johnson), the packing baseline of GPU
// co-location and fragmentation studies (FGD, Weng et al., USENIX ATC'23: "Best-fit"; reference §3).
// O(log D) per placement: devices with a free slot are kept ordered by free memory.
// Intent (also in `colocsim policies`): packs: the device with the least free memory that fits, so shared
// devices fill before idle ones.
#include "policies/SlotPolicy.hpp"

#include <set>
#include <utility>

namespace colocsim {

class BestFit final : public SlotPolicy {
public:
  static std::vector<ParamSpec> params() { return slot_params("2"); }
  explicit BestFit(const ParamSet& params) : SlotPolicy(params) {}

private:
  std::vector<DeviceIndex> choose(const ClusterView& view, JobIndex j, double mem) override;
  void on_device_changed(DeviceIndex d) override;
  void initialised(const ClusterView& view) override;
  std::set<std::pair<double, DeviceIndex>> open_; ///< (free memory, device) of devices with a free slot
  std::vector<double> key_;                       ///< each device's key in open_, or NaN if absent
};

} // namespace colocsim
