#pragma once
// `solo-utilisation`: the co-located speeds of NVIDIA jobs predicted from what a user measures of each job
// ALONE (nvidia-smi / DCGM: SM utilisation, duty cycle), without any pair measurement. models/README.md,
// "Interference from solo measurements"; validation: experiments/validate-interference/.
//
// The job's compute utilisation u = max(vec_util, xmx_util) (achieved fraction of the device's peak,
// DCGM PIPE_FP32_ACTIVE / PIPE_TENSOR_ACTIVE, or FLOPs per step × steps/s ÷ peak) decides how much of the
// shared engine a job takes from its co-runners: a job whose kernels are larger wins the engine more often.
// With the co-runner's share of the engine against j
//
//   share_ij = u_i^γ / (u_i^γ + u_j^γ)        (u below U_FLOOR counts as U_FLOOR)
//
// the TOTAL slowdown of j (sharing included: gives_total_slowdown in time-slice and mps) is
//
//   slowdown_j = max(floor_j, 1 + η + θ · Σ_{i≠j} share_ij)          (1 alone)
//
//   η: what any co-runner costs (host CPUs, data loaders, PCIe, context switches);
//   θ: how much of j's pace a co-runner that owns the engine takes;
//   floor_j: the engine's own bound: time-slice Σ_i d_i (kernels never overlap: the residents cannot keep
//   the engine busy for more than all of the time), mps Σ_i d_i · c_i (their SM demand).
// One co-runner gives the pair law that was fitted; 3+ add their excesses, as `table` and `pair-total` do
// (an assumption: only pairs were measured). Other modes (exclusive, mig, ccs-k): factor 1, not a total.
#include "models/Interference.hpp"

namespace colocsim {

struct SoloUtilisationParams {
  /// θ, γ, η fitted to Gavel's 611 V100 pairs (experiments/validate-interference/, least squares on the
  /// speeds over a grid; leave-one-family-out folds give the cross-validated figures there) [estimate:
  /// fitted, not measured].
  double theta = 0.7;
  double gamma = 2.0;
  double eta = 0.25;
};

class SoloUtilisationInterference final : public InterferenceModel {
public:
  /// Utilisation below this counts as this (A3C: a few MFLOPs per step; keeps 0/0 out of share_ij).
  static constexpr double U_FLOOR = 1e-3;
  explicit SoloUtilisationInterference(SoloUtilisationParams p = {}) : p_(p) {}
  std::string_view name() const override { return "solo-utilisation"; }
  double factor(const ResourceSignature& job, std::span<const ResourceSignature* const> others,
                SharingMode mode) const override;
  bool gives_total_slowdown(SharingMode mode) const override;
  /// share_ij: the co-runner's claim on the engine against `job` (see above).
  double share(const ResourceSignature& job, const ResourceSignature& other) const;
  const SoloUtilisationParams& params() const { return p_; }

private:
  SoloUtilisationParams p_;
};

} // namespace colocsim
