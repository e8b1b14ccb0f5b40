#pragma once
// random: the Random-fit baseline of the FGD study (Weng et al., USENIX ATC'23, §6.1): each job goes to
// devices drawn uniformly at random among those that fit it, from a generator seeded by `seed` (the same
// seed and trace give the same placements). Devices with a free slot and enough free share are drawn
// uniformly (O(B) for B buckets, see FractionalPolicy); one that lacks memory is drawn again, up to 64 times
// per device needed, then the first devices that fit in bucket order are taken — so the draw is uniform
// among the fitting devices whenever memory is not the binding constraint. Reacts to: submissions,
// completions, failures (SlotPolicy).
// Intent (also in `colocsim policies`): spreads at random: any device that fits, shared or idle, uniformly.
#include "policies/FractionalPolicy.hpp"

#include <random>

namespace colocsim {

class RandomFit final : public FractionalPolicy {
public:
  static std::vector<ParamSpec> params();
  explicit RandomFit(const ParamSet& params);

private:
  std::vector<DeviceIndex> choose(const ClusterView& view, JobIndex j, double mem) override;
  double score(const Request&, const BucketKey&, DeviceIndex) const override { return 0; }
  std::mt19937_64 rng_;
};

} // namespace colocsim
