#pragma once
// dot-product: the DotProd baseline of the FGD study (Weng et al., USENIX ATC'23, §6.1), Tetris' alignment
// heuristic (Grandl et al., SIGCOMM'14) over the resource vectors normalised by the device's capacity:
//
//   score = (f / 1000) · (m / 1000) + (g / G) · (r / G)
//
// (f, m: the device's free and the job's milli-GPU share; g, r: the device's free and the job's memory by
// the memory notion; G: the device's memory). As in the FGD authors' simulator
// (hkust-adsl/kubernetes-scheduler-simulator, dot_product_score.go: "the larger the dot product, the lower
// the score"), the smallest product wins. With memory ignored it reduces to best fit on the GPU share.
// Reacts to: submissions, completions, failures (SlotPolicy).
// Intent (also in `colocsim policies`): packs by alignment: the smallest dot product of free share and memory
// with the request.
#include "policies/FractionalPolicy.hpp"

namespace colocsim {

class DotProduct final : public FractionalPolicy {
public:
  static std::vector<ParamSpec> params() { return fractional_params(); }
  explicit DotProduct(const ParamSet& params) : FractionalPolicy(params, false) {}

private:
  double score(const Request& r, const BucketKey& key, DeviceIndex device) const override;
};

} // namespace colocsim
