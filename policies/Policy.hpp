#pragma once
// The policy extension point (docs/architecture.md, Policies and the decision boundary;
// Batsim's take_decisions):
// one class, one decision method. The engine calls decide() with a plain-data view of the cluster and the
// events since the last call; the policy returns decisions. Policies never call SimGrid and never advance
// time. Needs that only some policies have become new Event/Decision alternatives, never new virtual methods.
//
// Who calls what, when: the engine calls decide() once per simulated instant at which something happened,
// in time order, after it has applied every event of that instant, and hands it all of them in this order:
// nodes powered off by earlier decisions (NodePowered{node, false}, one per SetNodePower that switched a
// node off, reported with the next call; they do not cause a call by themselves), completions and
// out-of-memory failures by job index (each completion followed by the submissions of the dependents it
// releases), submissions in trace order, nodes powered on, repartitionings done, dependents released after
// their think time, wake-ups. The order SimGrid wakes its actors in plays no part. The engine applies the
// returned decisions in order before time advances (a decision that makes something happen at this same
// instant, e.g. WakeAt(now), leads to one more call at it; 1,000 in a row at one instant: DecisionError).
// Every decision is checked; an infeasible one raises DecisionError naming the policy and the decision.
#include "models/DeviceSpec.hpp"
#include "models/Job.hpp"
#include "models/Mig.hpp"
#include "models/ResourceSignature.hpp"
#include "policies/GangRule.hpp"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace colocsim {

using JobIndex = std::uint32_t;    ///< dense index of a job in submission order
using DeviceIndex = std::uint32_t; ///< dense index of a device (tile / GPU) in platform order

/// A device as policies see it (a copy; cheap).
struct DeviceView {
  DeviceIndex index = 0;
  std::uint32_t node = 0;
  std::uint32_t card = 0; ///< global card index (devices of one card share its power budget)
  SharingMode mode = SharingMode::EXCLUSIVE;
  double memory_bytes = 0;     ///< capacity
  std::uint32_t residents = 0; ///< jobs currently placed on it
  double power_w = 0;          ///< current power draw
  double freq_hz = 0;          ///< effective frequency (the policy's setting, lowered by the card power cap)
  bool available = true;       ///< false while the device is being repartitioned or its node is off/booting
  double freq_min_hz = 0;      ///< the range SetFrequency accepts (the device's pstates)
  double freq_max_hz = 0;
  std::uint16_t type = 0; ///< the device's type in the platform (0 on a single-type platform)
  /// Speed relative to the platform's reference device type, on which trace durations are taken (1 on a
  /// single-type platform; 0.5 on a type half as fast). PlacementPrediction slowdowns leave it out.
  double speed = 1.0;
  /// Changes, and never comes back, whenever anything ClusterView::predict reads of the device changes: its
  /// residents, their memory, its mode and MIG instances, its effective frequency (also when the card's power
  /// cap moves it, as the load of another device of the card changes) and its power. So a prediction for a
  /// job on this device alone, with nothing placed before it in the same call (`also` empty), stays what it
  /// was while `version` does, except on a `mig` device, where it also depends on the time (instances
  /// becoming ready). 0: the view does not keep it (nothing may be concluded from it).
  std::uint64_t version = 0;
};

/// One GPU instance of a device in `mig` mode, as policies see it.
struct MigSlot {
  MigInstance gi;              ///< profile (index into the device's MigGeometry) and start memory slice
  std::optional<JobIndex> job; ///< the job on it (one per instance), if any
  bool ready = true;           ///< false while the reconfiguration that created it is still running
};

/// What the active models (sharing mode, interference, power) predict if a job were placed now.
struct PlacementPrediction {
  double job_slowdown = 1;          ///< the job's slowdown (on its slowest device)
  double max_corunner_slowdown = 1; ///< worst slowdown among the devices' current residents afterwards
  /// The part of the slowdowns due to sharing with others: slowdown ÷ the slowdown the same job would have
  /// alone on the device in its current mode (a compute-saturating job alone in one ccs-2 partition is 2×
  /// slower than on the whole tile, but its interference is 1). Both ≥ 1.
  double job_interference = 1;          ///< the new job's, on its worst device
  double max_corunner_interference = 1; ///< the worst among the current residents afterwards
  double added_power_w = 0;             ///< increase of the devices' power draw
  /// The rate the job would progress at (seconds of its duration per second), exactly as the engine sets
  /// it: the slowest device's speed relative to the type its duration was taken on ÷ its slowdown there
  /// (frequency included), times the gang scaling efficiency e(n) when the duration leaves it out. It runs
  /// duration_s / job_rate seconds if nothing else changes.
  double job_rate = 1;
  bool fits_memory = true; ///< the real footprints stay within every device's memory
};

/// Read-only view of the cluster, implemented by the engine.
class ClusterView {
public:
  virtual ~ClusterView() = default;
  virtual double now() const = 0;
  virtual std::size_t device_count() const = 0;
  virtual DeviceView device(DeviceIndex d) const = 0;
  virtual const Job& job(JobIndex j) const = 0;
  /// Jobs currently resident on device d.
  virtual std::span<const JobIndex> residents(DeviceIndex d) const = 0;
  /// Job j's behaviour from its profile (prior characterisation, as in Costa et al.): class, duty cycle,
  /// utilisations and the real memory footprint (what decides out-of-memory). Policies that should only
  /// know what the trace declares use job(j).mem_request_bytes instead.
  virtual const ResourceSignature& signature(JobIndex j) const = 0;
  /// Prediction for placing waiting job j on `devices` now (O(residents of those devices)). `also`: jobs
  /// the policy has already decided, in this same decide() call, to place on each of these devices (the
  /// engine applies decisions only after decide() returns, so they are not residents yet).
  /// It depends on job j only through signature(j), except job_rate, which also depends on the device type
  /// the job's duration was taken on and on its communication.
  virtual PlacementPrediction predict(JobIndex j, std::span<const DeviceIndex> devices,
                                      std::span<const JobIndex> also = {}) const = 0;
  /// Devices in `mig` mode: the GPU's MIG geometry (profiles, legal layouts and changes) and its current
  /// instances, in layout order (Place::instances and ReconfigureMig index into it). Others: none.
  /// For a mig device, predict() assumes the largest empty, ready instance.
  virtual const MigGeometry* mig_geometry(DeviceIndex) const { return nullptr; }
  virtual std::vector<MigSlot> mig_instances(DeviceIndex) const { return {}; }
  /// Whether job j may run on device d: its device type is one of those the job's gpu_types name (any type
  /// when it names none). The engine refuses a Place on a device that does not allow the job. O(1).
  virtual bool allows(JobIndex, DeviceIndex) const { return true; }
  /// The run time the policy may assume for job j, in the units of Job::duration_s (scenario key
  /// workload.estimates): its duration (exact), the time its user requested, or a prediction from the
  /// user's history (Tsafrir, Etsion & Feitelson, IEEE TPDS 2007). Its value may change as jobs end. O(1).
  virtual double estimate(JobIndex j) const { return job(j).duration_s; }
  /// Seconds after its start at which the engine kills job j if it is still running (its requested time
  /// when the replay uses requested times); infinity if never.
  virtual double time_limit(JobIndex) const { return std::numeric_limits<double>::infinity(); }
  /// The slowdown job j would run at alone on a GPU instance of `profile` (an index into mig_geometry(d)'s
  /// profiles) of mig device d, against the whole GPU with MIG off: models/Interference.hpp mig_slowdown
  /// with the instance's share of the device's SMs and memory slices (a profile's measured `mig_speed`
  /// where it gives one). 1 where unknown (a device not in mig mode, a view that does not know the device's
  /// SMs). O(1).
  virtual double mig_slowdown_alone(JobIndex, DeviceIndex, std::size_t) const { return 1.0; }
};

// ---- events (engine → policy) ----
struct JobSubmitted {
  JobIndex job;
};
struct JobCompleted {
  JobIndex job;
  std::vector<DeviceIndex> devices;
};
/// The job failed (out of memory) and freed its devices. If requeued, it waits again for a decision.
struct JobFailed {
  JobIndex job;
  std::vector<DeviceIndex> devices;
  std::string reason;
  bool requeued = false;
};
/// A wake-up the policy asked for with WakeAt.
struct Wakeup {
  double at_s;
};
/// A repartitioning the policy asked for is done: the device accepts jobs again, in `mode`.
struct DeviceRepartitioned {
  DeviceIndex device;
  SharingMode mode;
};
/// A node finished powering on (after the boot delay; `on`), or was powered off by a SetNodePower decision
/// (`!on`; reported first in the next call, so that a policy wrapped by the one that decided it, e.g.
/// power-aware's inner policy, can take the node's devices out of its indexes).
struct NodePowered {
  std::uint32_t node;
  bool on;
};
using Event = std::variant<JobSubmitted, JobCompleted, JobFailed, Wakeup, DeviceRepartitioned, NodePowered>;

// ---- decisions (policy → engine) ----
/// Start a waiting job on these devices (exactly job.devices distinct devices).
struct Place {
  JobIndex job;
  std::vector<DeviceIndex> devices;
  /// On mps devices: the job's active-thread fraction (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE / 100), [0.01, 1].
  double thread_share = 1.0;
  /// On mig devices: the GPU instance (index into ClusterView::mig_instances) on each of `devices`; it must
  /// be empty and ready. Empty for devices in other modes.
  std::vector<std::uint32_t> instances = {};
};
/// Refuse a waiting job for good (it is reported as rejected).
struct Reject {
  JobIndex job;
  std::string reason;
};
/// Call decide() again at this simulated time (with a Wakeup event), even if nothing else happens.
struct WakeAt {
  double at_s;
};
/// DVFS: run the device at this frequency (within its [freq_min, freq_max]) from now on. The card power
/// cap may still lower the effective frequency.
struct SetFrequency {
  DeviceIndex device;
  double freq_hz;
};
/// Change how an empty device is shared (e.g. time-slice → ccs-4). The device must have no jobs (drain it
/// first); it is unavailable for the platform's repartition delay, then DeviceRepartitioned is sent.
struct Repartition {
  DeviceIndex device;
  SharingMode mode;
};
/// Power a node off (all its devices must be empty; it then draws nothing) or on (it draws its baseline and
/// idle device power from now, and accepts jobs after the platform's boot delay, when NodePowered is sent).
struct SetNodePower {
  std::uint32_t node;
  bool on;
};
/// Reconfigure the MIG layout of a `mig` device (models/Mig.hpp MigChange: destroy these instances, create
/// those). Legal only if MigGeometry::check_change accepts it (the destroyed instances are empty, the result
/// is a legal layout); the created instances become ready after the table's reconfiguration latency, when
/// DeviceRepartitioned{device, mig} is sent; the other instances keep running.
struct ReconfigureMig {
  DeviceIndex device;
  MigChange change;
};
using Decision = std::variant<Place, Reject, WakeAt, SetFrequency, Repartition, SetNodePower, ReconfigureMig>;

std::string describe(const Decision& d); ///< for error messages: "place job 3 on devices [1, 2]"

class Policy {
public:
  virtual ~Policy() = default;
  virtual std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) = 0;
  /// The scenario's rule for jobs of more than one device (policy.placement), set once before the first
  /// decide(). A run setting rather than a need of some policies, so a method and not an Event: built-in
  /// policies follow it through policies/GangPlacement.hpp; a policy that wraps another passes it on; other
  /// policies (Python, plugins) may ignore it.
  virtual void set_gang_rule(GangRule rule) { gang_rule_ = rule; }
  GangRule gang_rule() const { return gang_rule_; }

protected:
  GangRule gang_rule_ = GangRule::PACK;
};

} // namespace colocsim
