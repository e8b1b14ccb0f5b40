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
//    reconfiguration per device at a time; the job waits for the table's reconfiguration latency, and
//    a job with a change under way for it waits for that one (one pending partition change per job, our
//    reading) instead of being given another on a second device at each decision, unless that device
//    can no longer serve it (its node went off, or its estimate outgrew the profile after a failure);
//  * static layouts (`reconfigure=false`, for comparison): no fission or fusion; the layout stays the
//    scenario's `platform.mig_layout` and the head goes to the smallest empty instance that holds its
//    estimate (rejected if no instance of the platform ever could);
//  * restart — a job that ran out of memory is requeued by the engine; with `early_restart` it goes to the
//    head of the queue (restarted at once on a larger instance) instead of the back.
// Intent (also in `colocsim policies`): isolates: one job per MIG instance sized to its memory estimate and
// max_slowdown.
#include "policies/FitIndex.hpp"
#include "policies/Policy.hpp"

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace colocsim {

class MigManager final : public Policy {
public:
  /// How a decision finds its instance or device. INDEX (the policy): per device class and profile, indexes
  /// of the devices with an empty ready instance, with a legal layout change and with an instance at all,
  /// kept up to date from the events and the policy's own decisions, and the devices ordered by the
  /// latest predicted end of their jobs (backfill's reservation): O(P · log D) per job tried for P
  /// profiles, so O(Q · P · log D) per decision with Q jobs waiting behind a blocked head (backfill).
  /// SCAN: every device of the platform (and every running job, for the reservation) at each lookup, as
  /// before the indexes; the same placements and reconfigurations in the same order
  /// (tests/policies/MigScanningReference_test.cpp).
  enum class Lookup { INDEX, SCAN };
  static std::vector<ParamSpec> params();
  explicit MigManager(const ParamSet& params, Lookup lookup = Lookup::INDEX);
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override;

private:
  using Slot = std::pair<DeviceIndex, std::uint32_t>; ///< a device and one of its instances
  /// The profile for an estimate: fewest compute slices, then least memory, holding `bytes`; nullopt if none.
  static std::optional<std::size_t> profile_for(const MigGeometry& geo, double bytes);
  /// Compute-aware sizing: from `memory_profile` (the smallest holding the estimate) up, the first profile
  /// of `geo` on which job j's predicted slowdown alone on device d is at most max_slowdown_.
  std::size_t size_for(const ClusterView& view, JobIndex j, DeviceIndex d, const MigGeometry& geo,
                       std::size_t memory_profile) const;
  bool place_head(const ClusterView& view, JobIndex j, std::vector<Decision>& out);
  /// Whether a reconfiguration under way for job j will give it a usable instance of `profile` of `geo` (its
  /// device still available and of that table, the change made for that profile): then j waits for it
  /// instead of starting another layout change.
  bool waits_for_change(const ClusterView& view, JobIndex j, const MigGeometry& geo,
                        std::size_t profile) const;
  bool place_static(const ClusterView& view, const MigGeometry& geo, JobIndex j, std::vector<Decision>& out);
  /// Places j on the instance and records its predicted end (placement time + ClusterView::estimate ×
  /// predicted slowdown alone / device speed) for backfill's reservation.
  void place(const ClusterView& view, JobIndex j, Slot slot, std::vector<Decision>& out);
  /// A job left its instance (completed or failed).
  void left(JobIndex j);
  /// EASY backfilling behind a head that waits (see the header comment): places later jobs of the queue.
  void backfill(const ClusterView& view, std::vector<Decision>& out);
  /// The head's reservation: of the available mig devices of its MIG table that allow it, the one whose
  /// jobs end first by their predicted ends (now if empty or past; ties: the lowest index), and that time.
  std::optional<std::pair<DeviceIndex, double>> reservation(const ClusterView& view, JobIndex head,
                                                            const MigGeometry& geo) const;
  /// Whether a lookup for a job passes over device d: the device reserved for the head (during backfill) or
  /// one whose layout changes in this call (the view does not show the change yet).
  bool passed_over(DeviceIndex d) const
  {
    return (excluded_ && d == *excluded_) || changed_now_.count(d) > 0;
  }
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
  /// The lowest available device of `geo` allowing j and not passed over (the device compute sizing
  /// predicts on); nullopt if none.
  std::optional<DeviceIndex> first_device(const ClusterView& view, JobIndex j, const MigGeometry& geo) const;
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
  /// empty ready instance of it (not taken in this call, not on a device whose layout changes in this call),
  /// with a legal change for it (not reconfiguring) and with an instance of it (value 1 in a FitIndex;
  /// availability is checked when a device is found). `open`: its devices whose layout does not change in
  /// this call. `drain`: minus the latest predicted end of the jobs on each device (+max if none), so that
  /// find_first(-now) is the lowest device that has drained by now.
  struct MigClass {
    const MigGeometry* geo = nullptr;
    std::uint16_t type = 0;
    DeviceIndex first = 0; ///< a device of the class, to ask ClusterView::allows
    FitIndex devices, open, drain;
    std::vector<FitIndex> empty, changeable, holding;
  };
  /// What the indexes hold of one device (bit p: profile p).
  struct DeviceMasks {
    int cls = -1; ///< index into classes_; -1: not in mig mode
    bool open = false;
    std::uint32_t empty = 0, changeable = 0, holding = 0;
  };
  void build_index(const ClusterView& view);
  /// Once per call, before its decisions: builds the indexes (first call) or re-reads what changed.
  void update_index(const ClusterView& view, std::span<const Event> events);
  /// Re-reads device d from the view (and taken_now_, reconfiguring_) into the indexes.
  void refresh(const ClusterView& view, DeviceIndex d);
  /// The classes of `geo` that allow job j.
  std::vector<const MigClass*> classes_for(const ClusterView& view, JobIndex j, const MigGeometry& geo) const;
  /// The lowest available device of the index with a value of at least `threshold` (FitIndex::NONE if
  /// none); skips devices whose node is off or booting and, with `skip_reserved`, the device reserved for
  /// the head during backfill.
  std::size_t first_available(const ClusterView& view, const FitIndex& index, bool skip_reserved = true,
                              double threshold = 0.5) const;
  /// Device d's latest predicted end changed: re-sorts it in by_drain_ and its class's drain index.
  void update_drain(DeviceIndex d);
  double drain_value(DeviceIndex d) const;

  double growth_;
  bool early_restart_;
  bool use_declared_;
  bool reconfigure_;
  bool size_by_compute_;
  double max_slowdown_;
  bool backfill_;
  Lookup lookup_;
  std::optional<DeviceIndex> excluded_;         ///< during backfill: the device reserved for the head
  std::map<JobIndex, double> expected_end_;     ///< predicted end of each running job (s)
  std::set<DeviceIndex> changed_now_;           ///< devices given a reconfiguration in this decide() call
  std::map<DeviceIndex, JobIndex> changed_for_; ///< the job each device's last reconfiguration was for
  std::map<DeviceIndex, std::size_t> changed_profile_;        ///< the profile it was for
  std::map<JobIndex, std::set<DeviceIndex>> changes_for_job_; ///< INDEX: reconfigurations under way per job
  /// INDEX: per device, the predicted ends of its running jobs; the devices with running jobs by their
  /// latest predicted end (then index).
  std::vector<std::vector<std::pair<JobIndex, double>>> ends_on_;
  std::vector<double> drain_of_; ///< the key of each device in by_drain_ (NaN: not in it)
  std::set<std::pair<double, DeviceIndex>> by_drain_;
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
