#pragma once
// fgd: Fragmentation Gradient Descent (Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing
// Workloads with Fragmentation Gradient Descent", USENIX ATC'23, §4). Each job goes to the device whose
// fragmentation grows least when it is placed there.
//
// The paper's fragmentation of a node w.r.t. a task is the node's unallocated GPU share that task cannot
// use: the GPUs whose free share is below the task's request, or all of the node's free share if the task
// cannot run there at all. Against the target workload M (task shapes m with popularity p_m) it is the
// expectation F_n(M) = Σ_m p_m · F_n(m). Here every device is scored on its own (a one-GPU node; see
// FractionalPolicy), so with f milli-GPU free:
//
//   F(f) = Σ_m p_m · (f if f < m else 0) = f · P(M > f)
//
// and a device whose last slot (SlotPolicy) the job takes can serve no further task: all its remaining free
// share is fragment. The score of a device is Δ = F(after) − F(before) = F(f − m) − F(f) (or (f − m) − F(f)
// for a last slot); the lowest Δ wins, ties to the smaller free share.
//
// The workload M is estimated online: the per-device share (gpu_milli) of every job submitted so far, each
// job counted once (the paper uses the trace's most popular "typical" task shapes; counting every shape
// seen so far needs no look-ahead). The table F(0..1000) is rebuilt at most once per decision, O(1000).
// Reacts to: submissions (they update M), completions and failures (through SlotPolicy).
// Intent (also in `colocsim policies`): defragments: the device, shared or idle, whose fragmentation grows
// least.
#include "policies/FractionalPolicy.hpp"

#include <array>

namespace colocsim {

class Fgd final : public FractionalPolicy {
public:
  static std::vector<ParamSpec> params() { return fractional_params(); }
  explicit Fgd(const ParamSet& params) : FractionalPolicy(params, false) {}

  /// F(f) = f · P(M > f) for the workload seen so far (0 before any submission), in milli-GPU.
  double fragmentation(int free_milli) const { return table_[static_cast<std::size_t>(free_milli)]; }

private:
  void on_submitted(const ClusterView& view, JobIndex j) override;
  void prepare(const Request& r) override;
  double score(const Request& r, const BucketKey& key, DeviceIndex device) const override;

  std::array<std::uint64_t, MILLI_PER_DEVICE + 1> count_{}; ///< jobs seen by per-device share
  std::uint64_t total_ = 0;
  bool dirty_ = false;
  std::array<double, MILLI_PER_DEVICE + 1> table_{}; ///< F(f)
};

} // namespace colocsim
