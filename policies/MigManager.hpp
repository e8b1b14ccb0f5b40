#pragma once
// mig-manager: NVIDIA MIG partition management after Saraha, Li, Porter and Pande, "Managing Multi Instance
// GPUs for High Throughput and Energy Savings" (arXiv 2508.18556, 2025; reference §3.3 [MIGMGR]: dynamic
// memory estimation, partition fusion and fission as the job mix changes, restart after out-of-memory, an
// early-restart optimisation; up to 1.59× ML and 1.43× LLM throughput on A100). Only the abstract was
// reachable; this is our reading of it, on `mig` devices (sim/Engine.cpp, models/Mig.hpp):
//
//  * memory estimation — a job's estimate starts at what the trace declares (`memory=declared`; jobs that
//    declare nothing start at the smallest instance), and grows after each out-of-memory failure to at
//    least `growth` × the estimate and more than the instance it failed on;
//  * instance choice — the profile with the fewest compute slices (then the least memory) whose memory
//    holds the estimate;
//  * placement, in submission order (the queue head blocks the rest): (1) an empty, ready instance of that
//    profile; else (2) create one in free memory slices; else (3) FISSION: split the smallest empty larger
//    instance into as many instances of the profile as fit; else (4) FUSION: destroy the fewest empty
//    instances that make room for one (MigGeometry::make_room); else wait for a job to end. One
//    reconfiguration per device at a time; the job waits for the table's reconfiguration latency;
//  * static layouts (`reconfigure=false`, for comparison): no fission or fusion; the layout stays the
//    scenario's `platform.mig_layout` and the head goes to the smallest empty instance that holds its
//    estimate (rejected if no instance of the platform ever could);
//  * restart — a job that ran out of memory is requeued by the engine; with `early_restart` it goes to the
//    head of the queue (restarted at once on a larger instance) instead of the back.
// Intent (also in `colocsim policies`): isolates: one job per MIG instance sized to its memory estimate.
#include "policies/Policy.hpp"

#include <deque>
#include <map>
#include <set>

namespace colocsim {

class MigManager final : public Policy {
public:
  static std::vector<ParamSpec> params();
  explicit MigManager(const ParamSet& params);
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override;

private:
  /// The profile for an estimate: fewest compute slices, then least memory, holding `bytes`; nullopt if none.
  static std::optional<std::size_t> profile_for(const MigGeometry& geo, double bytes);
  bool place_head(const ClusterView& view, JobIndex j, std::vector<Decision>& out);
  bool place_static(const ClusterView& view, const std::vector<DeviceIndex>& migs, const MigGeometry& geo,
                    JobIndex j, std::vector<Decision>& out);

  double growth_;
  bool early_restart_;
  bool use_declared_;
  bool reconfigure_;
  std::deque<JobIndex> queue_;
  std::map<JobIndex, double> estimate_;        ///< bytes
  std::map<JobIndex, double> failed_instance_; ///< memory of the instance the job last ran out of
  std::map<JobIndex, std::pair<DeviceIndex, std::uint32_t>> running_on_;
  std::set<DeviceIndex> reconfiguring_;                       ///< devices with a reconfiguration under way
  std::set<std::pair<DeviceIndex, std::uint32_t>> taken_now_; ///< instances placed on in this decide() call
};

} // namespace colocsim
