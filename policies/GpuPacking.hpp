#pragma once
// gpu-packing: the GPU Packing baseline of the FGD study (Weng et al., USENIX ATC'23, §6.1), with the
// preference order of the FGD authors' simulator (hkust-adsl/kubernetes-scheduler-simulator,
// gpu_packing_score.go), per device:
//   1. a device already shared (some of its share allocated), the least free first;
//   2. an idle device on a node where other devices run jobs;
//   3. an idle device on an idle node.
// Ties: lowest index (after the least free memory that fits). Reacts to: submissions, completions,
// failures (SlotPolicy); a node's occupancy moves its idle devices between 2 and 3.
// Intent (also in `colocsim policies`): packs: shared devices first, then idle devices of busy nodes, then
// idle nodes.
#include "policies/FractionalPolicy.hpp"

namespace colocsim {

class GpuPacking final : public FractionalPolicy {
public:
  static std::vector<ParamSpec> params() { return fractional_params(); }
  explicit GpuPacking(const ParamSet& params) : FractionalPolicy(params, true) {}

private:
  double score(const Request& r, const BucketKey& key, DeviceIndex device) const override;
};

} // namespace colocsim
