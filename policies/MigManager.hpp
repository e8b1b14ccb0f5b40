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
#include "policies/FitIndex.hpp"
#include "policies/Policy.hpp"

#include <deque>
#include <map>
#include <set>

namespace colocsim {

class MigManager final : public Policy {
public:
  /// How a decision finds its instance or device. INDEX (the policy): per device class and profile, indexes
  /// of the devices with an empty ready instance, with a legal layout change and with an instance at all,
  /// kept up to date from the events and the policy's own decisions: O(P · log D) per decision for P
  /// profiles. SCAN: every device of the platform at each decision, as before the indexes; the same
  /// placements and reconfigurations in the same order (tests/policies/MigScanningReference_test.cpp).
  enum class Lookup { INDEX, SCAN };
  static std::vector<ParamSpec> params();
  explicit MigManager(const ParamSet& params, Lookup lookup = Lookup::INDEX);
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override;

private:
  using Slot = std::pair<DeviceIndex, std::uint32_t>; ///< a device and one of its instances
  /// The profile for an estimate: fewest compute slices, then least memory, holding `bytes`; nullopt if none.
  static std::optional<std::size_t> profile_for(const MigGeometry& geo, double bytes);
  bool place_head(const ClusterView& view, JobIndex j, std::vector<Decision>& out);
  bool place_static(const ClusterView& view, const MigGeometry& geo, JobIndex j, std::vector<Decision>& out);
  void place(JobIndex j, Slot slot, std::vector<Decision>& out);
  /// The layout change that makes room for `profile` on a device with these instances ((2) free slices,
  /// (3) fission, (4) fusion), legal for the instances busy now; nullopt if there is none.
  std::optional<MigChange> change_for(const MigGeometry& geo, DeviceIndex d,
                                      const std::vector<MigSlot>& slots, std::size_t profile) const;
  /// The empty, ready instance of `profile` not taken in this call on device d, lowest first.
  std::optional<std::uint32_t> empty_instance_on(const std::vector<MigSlot>& slots, DeviceIndex d,
                                                 std::size_t profile) const;

  // -- the lookups a decision makes, each by scanning every device (Lookup::SCAN) or by the indexes --
  /// The MIG table the job is placed on: that of the lowest-index available mig device that allows it.
  const MigGeometry* job_geometry(const ClusterView& view, JobIndex j) const;
  /// (1) The lowest (device, instance) of an available device of `geo` allowing j with an empty, ready
  /// instance of `profile` not taken in this call.
  std::optional<Slot> find_empty(const ClusterView& view, JobIndex j, const MigGeometry& geo,
                                 std::size_t profile) const;
  /// (2)-(4) The lowest available device of `geo` allowing j, not reconfiguring, with a layout change for
  /// `profile`, and that change.
  std::optional<std::pair<DeviceIndex, MigChange>>
  find_change(const ClusterView& view, JobIndex j, const MigGeometry& geo, std::size_t profile) const;
  /// Static layouts: the smallest (fewest compute slices, then least memory; ties: lowest device, then
  /// instance) empty, ready instance not taken in this call holding `bytes`; `any_holds` tells whether any
  /// instance of an available device allowing j holds it, empty or not.
  std::optional<Slot> find_static(const ClusterView& view, JobIndex j, const MigGeometry& geo, double bytes,
                                  bool& any_holds) const;

  // -- the indexes (Lookup::INDEX) --
  /// Devices of one device type in mig mode with one MIG table; per profile of it, the devices with an
  /// empty ready instance of it (not taken in this call), with a legal change for it (not reconfiguring) and
  /// with an instance of it (value 1 in a FitIndex; availability is checked when a device is found).
  struct MigClass {
    const MigGeometry* geo = nullptr;
    std::uint16_t type = 0;
    DeviceIndex first = 0; ///< a device of the class, to ask ClusterView::allows
    FitIndex devices;
    std::vector<FitIndex> empty, changeable, holding;
  };
  /// What the indexes hold of one device (bit p: profile p).
  struct DeviceMasks {
    int cls = -1; ///< index into classes_; -1: not in mig mode
    std::uint32_t empty = 0, changeable = 0, holding = 0;
  };
  void build_index(const ClusterView& view);
  /// Once per call, before its decisions: builds the indexes (first call) or re-reads what changed.
  void update_index(const ClusterView& view, std::span<const Event> events);
  /// Re-reads device d from the view (and taken_now_, reconfiguring_) into the indexes.
  void refresh(const ClusterView& view, DeviceIndex d);
  /// The classes of `geo` that allow job j.
  std::vector<const MigClass*> classes_for(const ClusterView& view, JobIndex j, const MigGeometry& geo) const;
  /// The lowest available device at or after `from` of the index (FitIndex::NONE if none); skips devices
  /// whose node is off or booting.
  static std::size_t first_available(const ClusterView& view, const FitIndex& index, std::size_t from = 0);

  double growth_;
  bool early_restart_;
  bool use_declared_;
  bool reconfigure_;
  Lookup lookup_;
  std::deque<JobIndex> queue_;
  std::map<JobIndex, double> estimate_;        ///< bytes
  std::map<JobIndex, double> failed_instance_; ///< memory of the instance the job last ran out of
  std::map<JobIndex, std::pair<DeviceIndex, std::uint32_t>> running_on_;
  std::set<DeviceIndex> reconfiguring_; ///< devices with a reconfiguration under way
  std::set<Slot> taken_now_;            ///< instances placed on in this decide() call
  bool indexed_ = false;
  std::vector<MigClass> classes_;
  std::vector<DeviceMasks> masks_;   ///< by device
  std::vector<DeviceIndex> touched_; ///< devices decided on in the last call: re-read at the next
};

} // namespace colocsim
