#pragma once
// best-fit-frac: the Best-fit baseline of the FGD study (Weng et al., USENIX ATC'23, §6.1): the device
// left with the least free resources after the job is placed, as the weighted sum the FGD authors'
// simulator scores (hkust-adsl/kubernetes-scheduler-simulator, best_fit_score.go: weights 0.5 / 0.5):
//
//   score = 0.5 · (f − m) / 1000 + 0.5 · (g − r) / G
//
// with f, m the device's free and the job's milli-GPU share, g, r the device's free and the job's memory by
// the memory notion, G the device's memory (the paper's second dimension is CPU; see FractionalPolicy).
// Lowest score wins. With memory ignored it is best fit on the GPU share alone. Unlike best-fit (slots and
// memory only), it counts the jobs' GPU shares. Reacts to: submissions, completions, failures (SlotPolicy).
// Intent (also in `colocsim policies`): packs: the device left with the least free share and memory.
#include "policies/FractionalPolicy.hpp"

namespace colocsim {

class BestFitFrac final : public FractionalPolicy {
public:
  static std::vector<ParamSpec> params() { return fractional_params(); }
  explicit BestFitFrac(const ParamSet& params) : FractionalPolicy(params, false) {}

private:
  double score(const Request& r, const BucketKey& key, DeviceIndex device) const override;
};

} // namespace colocsim
