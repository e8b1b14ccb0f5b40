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
//  * instance choice (`sizing=compute`, the default) — of the profiles whose memory holds the estimate, in
//    order of fewest compute slices then least memory, the first on which the job's predicted slowdown
//    alone (ClusterView::mig_slowdown_alone: the MIG roofline of models/README.md with the job's profile
//    characterisation c, b, u, β) is at most `max_slowdown` (1.25); if none is, the one with the least
//    predicted slowdown. The abstract says only "dynamic memory estimation" to "choose the tightest
//    slice"; how the paper weighs compute is not in the reachable text, so the slowdown bound is our
//    reading (a slice that holds a compute-bound job's memory but runs it 6× slower is not the tightest
//    slice that serves it). `sizing=memory`: memory alone (the fewest compute slices holding the estimate);
//  * backfill (`backfill=true`, our choice: the abstract does not say how jobs wait) — when the queue head
//    cannot be placed and starts no reconfiguration, it reserves the mig device that drains first (the
//    latest predicted end of the jobs on it: placement time + ClusterView::estimate × predicted slowdown);
//    the jobs behind it, in queue order, are placed as the head would be, on any other device, and on the
//    reserved one only if their predicted end (+ one reconfiguration latency) comes before that drain
//    (EASY backfilling: Lifka 1995; Mu'alem & Feitelson 2001). `backfill=false`: strict order;
//  * placement, in submission order (the head first; see backfill): (1) an empty, ready instance of that
//    profile; else (2) create one in free memory slices; else (3) FISSION: split the smallest empty larger
//    instance into as many instances of the profile as fit; else (4) FUSION: destroy the fewest empty
//    instances that make room for one (MigGeometry::make_room); else wait for a job to end. One
//    reconfiguration per device at a time; the job waits for the table's reconfiguration latency;
//  * static layouts (`reconfigure=false`, for comparison): no fission or fusion; the layout stays the
//    scenario's `platform.mig_layout` and the head goes to the smallest empty instance that holds its
//    estimate (rejected if no instance of the platform ever could);
//  * restart — a job that ran out of memory is requeued by the engine; with `early_restart` it goes to the
//    head of the queue (restarted at once on a larger instance) instead of the back.
// Intent (also in `colocsim policies`): isolates: one job per MIG instance sized to its memory estimate and
// max_slowdown.
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
  /// Compute-aware sizing: from `memory_profile` (the smallest holding the estimate) up, the first profile
  /// of `geo` on which job j's predicted slowdown alone on device d is at most max_slowdown_.
  std::size_t size_for(const ClusterView& view, JobIndex j, DeviceIndex d, const MigGeometry& geo,
                       std::size_t memory_profile) const;
  bool place_head(const ClusterView& view, JobIndex j, std::vector<Decision>& out);
  /// EASY backfilling behind a head that waits (see the header comment): places later jobs of the queue.
  void backfill(const ClusterView& view, std::vector<Decision>& out);
  /// Records the predicted end of each job placed in out[from...] (for backfill's reservation), and the
  /// device of each reconfiguration started there for job j.
  void note_placed(const ClusterView& view, JobIndex j, const std::vector<Decision>& out, std::size_t from);
  bool place_static(const ClusterView& view, const std::vector<DeviceIndex>& migs, const MigGeometry& geo,
                    JobIndex j, std::vector<Decision>& out);

  double growth_;
  bool early_restart_;
  bool use_declared_;
  bool reconfigure_;
  bool size_by_compute_;
  double max_slowdown_;
  bool backfill_;
  std::optional<DeviceIndex> excluded_;         ///< during backfill: the device reserved for the head
  std::map<JobIndex, double> expected_end_;     ///< predicted end of each placed job (s)
  std::set<DeviceIndex> changed_now_;           ///< devices given a reconfiguration in this decide() call
  std::map<DeviceIndex, JobIndex> changed_for_; ///< the job each device's last reconfiguration was for
  std::deque<JobIndex> queue_;
  std::map<JobIndex, double> estimate_;        ///< bytes
  std::map<JobIndex, double> failed_instance_; ///< memory of the instance the job last ran out of
  std::map<JobIndex, std::pair<DeviceIndex, std::uint32_t>> running_on_;
  std::set<DeviceIndex> reconfiguring_;                       ///< devices with a reconfiguration under way
  std::set<std::pair<DeviceIndex, std::uint32_t>> taken_now_; ///< instances placed on in this decide() call
};

} // namespace colocsim
