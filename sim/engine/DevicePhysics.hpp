#pragma once
// Device physics (docs/architecture.md, The engine's components): what every device of the platform is doing
// and what that costs. Per device: its mode, its frequency (the policy's setting and the effective one under
// the card's power cap), its residents, their memory, its MIG instances, its power and each resident's share
// of it. Per running job: its devices and the rate it progresses at, the slowest device's rate times its
// gang scaling efficiency. The rates, the power and the card caps are computed here and nowhere else, by the
// same code for a job that runs (the engine's updates) and a job that might (ClusterView::predict).
//
// No SimGrid here, and no clock: the engine owns time. It hears of every change through a PhysicsListener
// before the change happens (a device's meters integrate up to now at the old power; a job's remaining work
// is brought up to now at its old rate), and once all rates of an update are final.
#include "models/Mig.hpp"
#include "models/PowerModel.hpp"
#include "models/ResourceSignature.hpp"
#include "policies/Policy.hpp"
#include "sim/Platform.hpp"
#include "sim/engine/MigInstances.hpp"
#include "sim/engine/ModelError.hpp"
#include "sim/engine/SmallVec.hpp"
#include "workloads/ProfileCatalog.hpp"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace colocsim {

/// What device physics tells the engine, always before the change it announces.
class PhysicsListener {
public:
  virtual ~PhysicsListener() = default;
  /// Device d is about to change (power, residents, their shares of its power, frequency): its meters
  /// integrate up to now at the state that held since its last change.
  virtual void device_changing(DeviceIndex d) = 0;
  /// Running job j's rate changes to `rate` (DevicePhysics::rate still gives the old one). Its devices'
  /// device_changing follow.
  virtual void rate_changing(JobIndex j, double rate) = 0;
  /// Every rate of the update under way is final (the engine moves the changed jobs' ends now).
  virtual void rates_settled() = 0;
};

/// The job-side inputs of a rate: its signature and the speed of the device type its duration was taken on
/// (RunSetup::durations_on_named_type; 1 otherwise).
struct JobPhysics {
  const ResourceSignature* sig = nullptr;
  double base_speed = 1.0;
  const ProfileCommunication* comm = nullptr; ///< its profile's communication; null: it does not communicate
  std::string_view profile; ///< its profile's name (what the models' error is drawn for; ModelError.hpp)
};

class DevicePhysics {
public:
  /// Every device in its platform mode at its default frequency, empty, powered. `durations_include_scaling`:
  /// trace durations are times on the job's own device count, so the gang efficiency e(n) is not applied.
  /// `model_error`: the models' error the running jobs' rates carry (none by default); predict() does not.
  DevicePhysics(const Platform& platform, bool durations_include_scaling, PhysicsListener& listener,
                ModelError model_error = {});

  // ---- devices
  std::size_t size() const { return devices_.size(); }
  SharingMode mode(DeviceIndex d) const { return devices_[d].mode; }
  double freq_hz(DeviceIndex d) const { return devices_[d].freq_hz; }         ///< effective
  double freq_set_hz(DeviceIndex d) const { return devices_[d].freq_set_hz; } ///< the policy's
  double power_w(DeviceIndex d) const { return devices_[d].power_w; }
  double total_power_w() const { return total_power_w_; } ///< Σ over devices
  double mem_used_bytes(DeviceIndex d) const { return devices_[d].mem_used_bytes; }
  bool repartitioning(DeviceIndex d) const { return devices_[d].repartitioning; }
  /// A count that changes, and never comes back, whenever anything predict() reads of device d changes: its
  /// residents and their memory, its mode and MIG instances, its effective frequency (also when the card's
  /// power cap moves it, as a sibling tile's load changes) and its power (so also when it is switched on
  /// or off). At least 1. Not counted: the time, on which a mig device's prediction also depends (instances
  /// becoming ready). Two predictions for the same job on a non-mig device d with nothing placed before it
  /// (`also` empty) are equal while version(d) is.
  std::uint64_t version(DeviceIndex d) const { return devices_[d].version; }
  std::span<const JobIndex> residents(DeviceIndex d) const { return devices_[d].residents; }
  /// The power attributed to each resident, in residents() order (models/PowerModel.hpp attribute_power).
  std::span<const double> share_w(DeviceIndex d) const { return devices_[d].share_w; }
  /// d's GPU instances (none outside mig mode).
  const MigInstances& mig(DeviceIndex d) const
  {
    return devices_[d].mig == NO_MIG ? NO_INSTANCES : migs_[devices_[d].mig];
  }

  // ---- running jobs
  /// Job j begins an attempt on `devices` (a job holds one run slot while it runs): nothing changes on the
  /// devices yet. `instances`: on mig devices, the GPU instance on each of `devices` (empty otherwise).
  /// `share`: its gpu_milli / 1000, what it requests of a device outside mig mode. Returns its run slot.
  std::uint32_t begin(JobIndex j, const JobPhysics& job, double thread_share, double share,
                      std::span<const DeviceIndex> devices, std::span<const std::uint32_t> instances);
  /// The job of run slot `slot` joins its pos-th device (announced with device_changing first). Returns
  /// whether its arrival overflows the device's memory (the instance's, in mig mode).
  bool join(std::uint32_t slot, std::uint32_t pos);
  /// It leaves the device it is on at position pos (device_changing first), with its rate set to 0.
  void leave(std::uint32_t slot, std::uint32_t pos);
  /// After join() or leave() on every device of the job: the rates, power and card caps of those devices
  /// and of whatever they affect are recomputed (listener calls), then `slot` is freed if the job left.
  void update(std::uint32_t slot);
  double rate(std::uint32_t slot) const { return jobs_[slot].rate; }
  /// The share of the pos-th device the job requests (the allocation metrics): gpu_milli / 1000, or on a
  /// mig device its instance's SMs / the largest profile's.
  double requested_share(std::uint32_t slot, std::uint32_t pos) const;

  // ---- device changes
  /// The policy's frequency for d (within the device's range, checked by the caller). The card cap may lower
  /// the effective one.
  void set_frequency(DeviceIndex d, double freq_hz);
  /// d's node was powered on or off (the caller announced device_changing): an unpowered device draws 0.
  void set_powered(DeviceIndex d, bool powered);
  /// d (empty) enters `mode` and is unavailable until end_repartition (mig: its type's initial layout).
  void begin_repartition(DeviceIndex d, SharingMode mode);
  void end_repartition(DeviceIndex d) { devices_[d].repartitioning = false; }
  /// Applies a ReconfigureMig change (checked by the caller) at sim time `now`; the residents keep their
  /// instances under their new indices.
  void reconfigure_mig(DeviceIndex d, const MigChange& change, double now);

  // ---- predictions (ClusterView)
  /// What the models predict if `job` were placed on `devices` now, with the jobs of `also` (decided earlier
  /// in the same policy call, not started) placed first; `ready_by`: MIG instances ready by then count.
  /// The models' own values, the policy's belief: the scenario's model_error is not applied here.
  PlacementPrediction predict(const JobPhysics& job, std::span<const DeviceIndex> devices,
                              std::span<const ResourceSignature* const> also, double ready_by) const;
  /// The slowdown of a job alone on one instance of `profile` of d's type (1 for no such profile).
  double mig_slowdown_alone(const ResourceSignature& sig, DeviceIndex d, std::size_t profile) const;

  /// t(f)/t(f_ref) = β·f_ref/f + 1 − β (docs/architecture.md, Progress): f_ref is the default frequency, at
  /// which trace durations are taken.
  double time_factor(const ResourceSignature& sig, DeviceIndex d) const
  {
    const double f_ref = platform_.devices[d].spec->freq_default_hz.value;
    return sig.freq_sensitive * f_ref / devices_[d].freq_hz + 1.0 - sig.freq_sensitive;
  }
  /// A job's rate on device d at slowdown `slowdown` there (frequency not included): d's speed relative to
  /// the type the job's duration was taken on ÷ (slowdown · time factor).
  double device_rate(const JobPhysics& job, DeviceIndex d, double slowdown) const
  {
    return type(d).speed / job.base_speed / (slowdown * time_factor(*job.sig, d));
  }
  /// The factor a job on n devices progresses at on top of its slowest device's rate: e(n), or 1 when
  /// durations include the scaling.
  double gang_efficiency(const ResourceSignature& sig, std::size_t n) const
  {
    return durations_include_scaling_ ? 1.0 : sig.scaling_efficiency(n);
  }
  /// The further factor of a job that communicates, on `devices`: comm_efficiency (models/Communication.hpp)
  /// of its profile at its placement (k nodes × g, g the most devices on one of them) over the platform's
  /// network tiers. 1 when the job does not communicate, runs on one device, the platform has no network, or
  /// durations include the scaling (a duration measured at the job's own scale already contains its
  /// communication).
  double comm_efficiency(const JobPhysics& job, std::span<const DeviceIndex> devices) const;
  /// The bytes each of the job's nodes sends over its NICs per work-second of the job (one step of
  /// compute_s work-seconds moves nic_bytes, models/Communication.hpp), on `devices`; 0 when
  /// comm_efficiency does not apply or the devices sit on one node. Its flows carry them (sim/README.md).
  double nic_bytes_per_work(const JobPhysics& job, std::span<const DeviceIndex> devices) const;
  /// Whether comm_efficiency applies to `job` on `devices` (the same conditions, without computing it).
  bool communicates(const JobPhysics& job, std::size_t devices) const
  {
    return job.comm && platform_.network && !durations_include_scaling_ && devices >= 2;
  }

private:
  /// Where a resident's physics is: its run slot, and this device's position in its device list.
  struct ResidentRef {
    std::uint32_t slot = 0, pos = 0;
  };
  /// One device (a platform may have 127,488). The GPU instances of a device that has been in mig mode are in
  /// migs_, by index.
  struct Device {
    // In place up to 2 residents (SmallVec.hpp): reading a device's residents reads its record only.
    SmallVec<JobIndex, 2> residents; ///< in placement order
    SmallVec<ResidentRef, 2> refs;   ///< of residents[i]
    SmallVec<double, 2> share_w;     ///< power attributed to residents[i]
    double power_w = 0;
    double mem_used_bytes = 0;  ///< real footprints of the residents
    double freq_set_hz = 0;     ///< the policy's frequency (default: the device's default)
    double freq_hz = 0;         ///< effective: freq_set_hz lowered by the card power cap
    std::uint64_t version = 1;  ///< version(): bumped by every change of what predict() reads
    std::uint32_t mig = NO_MIG; ///< index into migs_; NO_MIG if never in mig mode
    std::uint32_t card = 0;     ///< its card (platform.devices[d].card, here beside what an event reads)
    SharingMode mode = SharingMode::EXCLUSIVE;
    bool repartitioning = false;
    bool powered = true;
  };
  static constexpr std::uint32_t NO_MIG = ~std::uint32_t{0};
  static const MigInstances NO_INSTANCES;
  MigInstances& gi(DeviceIndex d) { return migs_[devices_[d].mig]; } ///< d is in mig mode
  const MigInstances& gi(DeviceIndex d) const { return migs_[devices_[d].mig]; }
  struct RunningJob {
    JobIndex job = 0;
    JobPhysics phys;
    double thread_share = 1.0; ///< MPS active-thread fraction
    double share = 1.0;        ///< gpu_milli / 1000
    std::vector<DeviceIndex> devices;
    std::vector<std::uint32_t> instances; ///< mig devices: the GPU instance on each of devices
    std::vector<double> device_rate;      ///< per device: its rate there (device_rate())
    double comm_eff = 1.0;                ///< comm_efficiency on its devices (fixed for the attempt)
    double rate = 0;                      ///< the slowest device's × e(n) × comm_eff
    std::uint32_t joined = 0;             ///< devices it is resident on
    bool left = false;                    ///< it is leaving: update() frees the slot
  };
  /// The inputs of compute_slowdowns for a device's residents (and, for a prediction, the jobs added after
  /// them), in one place for the engine's updates and predict().
  struct SlowdownInputs {
    std::vector<const ResourceSignature*> sigs;
    std::vector<double> caps, mems;
    std::vector<unsigned> slices;
    std::vector<double> slow;
    void clear()
    {
      sigs.clear();
      caps.clear();
      mems.clear();
      slices.clear();
    }
  };

  const DeviceType& type(DeviceIndex d) const { return platform_.type_of(d); }
  double freq_ratio(DeviceIndex d) const
  {
    return devices_[d].freq_hz / platform_.devices[d].spec->freq_max_hz.value;
  }
  /// Appends one job to `in`: its signature and what it holds of d (mig: `instance`; else `thread_share`).
  void add_input(SlowdownInputs& in, DeviceIndex d, const ResourceSignature* sig, double thread_share,
                 const MigInstance* instance) const;
  /// `in` := d's residents.
  void resident_inputs(DeviceIndex d, SlowdownInputs& in) const;
  void recompute(DeviceIndex d, std::vector<DeviceIndex>& dirty);
  /// inputs_.slow (d's n residents' slowdowns, as the models give them) times the models' error
  /// (ModelError.hpp): outside mig mode, with n >= 2, resident i's slowdown × the mean over its co-runners k
  /// of the interference factor of (i's profile, k's profile), never below what the sharing mode alone gives
  /// i (interference model `none`) or the model's own value where that is lower; in mig mode, each
  /// resident's × the mig factor of (its profile, its instance's profile), never below 1.
  void apply_model_error(DeviceIndex d, std::size_t n);
  void load_of(DeviceIndex d, std::vector<PowerLoad>& loads) const;
  void refresh_power(DeviceIndex d);
  void settle(std::vector<DeviceIndex>& dirty);
  void enforce_card_cap(std::uint32_t card, std::vector<DeviceIndex>& dirty);
  static double mig_allocated_share(const MigGeometry& geo, const MigInstance& gi);
  /// A communicating job's placement on `devices` (k nodes × the most on one) and its profile resolved on
  /// the platform's tiers: what comm_efficiency and nic_bytes_per_work both start from.
  struct CommAt {
    CommPlacement at;
    CommProfile profile;
  };
  CommAt comm_at(const JobPhysics& job, std::span<const DeviceIndex> devices) const;

  const Platform& platform_;
  bool durations_include_scaling_;
  PhysicsListener& listener_;
  ModelError model_error_;
  std::vector<Device> devices_;
  std::vector<MigInstances> migs_;        ///< the GPU instances of the devices that have been in mig mode
  std::vector<std::uint32_t> card_start_; ///< card c's devices: card_devices_[card_start_[c] .. [c + 1])
  std::vector<DeviceIndex> card_devices_; ///< devices card by card (a card's devices share its power cap)
  std::vector<double> card_cap_w_;        ///< each card's power cap (its devices' card_tdp_w)
  std::vector<RunningJob> jobs_;          ///< by run slot
  std::vector<std::uint32_t> free_slots_;
  double total_power_w_ = 0;
  // scratch, reused so that an update or a prediction allocates nothing (neither is ever nested)
  SlowdownInputs inputs_;
  mutable SlowdownInputs predict_inputs_;
  std::vector<PowerLoad> loads_;
  mutable std::vector<PowerLoad> predict_loads_;
  std::vector<DeviceIndex> dirty_, more_;
  std::vector<double> mode_only_; ///< apply_model_error's floors
  std::vector<std::uint32_t> cards_touched_;
};

} // namespace colocsim
