#pragma once
// gpu-clustering: the GPU Clustering baseline of the FGD study (Weng et al., USENIX ATC'23, §6.1): tasks of
// the same type go together. A task's type is the FGD simulator's GPU affinity
// (hkust-adsl/kubernetes-scheduler-simulator, gpu_clustering_score.go): a share of one GPU, or k whole GPUs.
// Preference, by the task types already running on the device's node:
//   1. only this task's type;  2. this type among others;  3. none (an idle node);  4. only other types;
// within each, the device with the least free share first (the simulator prefers the fuller node), then the
// least free memory that fits, then the lowest index. Reacts to: submissions, completions, failures
// (SlotPolicy); a node's task types move all its devices between classes.
// Intent (also in `colocsim policies`): clusters: devices of nodes running the same task type first, then
// idle nodes.
#include "policies/FractionalPolicy.hpp"

namespace colocsim {

class GpuClustering final : public FractionalPolicy {
public:
  static std::vector<ParamSpec> params() { return fractional_params(); }
  explicit GpuClustering(const ParamSet& params) : FractionalPolicy(params, true) {}

private:
  double score(const Request& r, const BucketKey& key, DeviceIndex device) const override;
};

} // namespace colocsim
