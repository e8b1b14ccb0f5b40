#pragma once
// The engine's simulation (sim/Engine.hpp's run_simulation), private to the engine: the class and its per-job
// state, shared by its two source files, sim/Engine.cpp (the controller, the event core, arrivals, ends,
// the run) and sim/EngineDecisions.cpp (checking and applying a policy's decisions). Nothing outside them
// includes it. docs/architecture.md, The engine's components.
#include "sim/Engine.hpp"

#include "sim/engine/DependencyGraph.hpp"
#include "sim/engine/DeviceMeters.hpp"
#include "sim/engine/DevicePhysics.hpp"
#include "sim/engine/EndHeap.hpp"
#include "sim/engine/EngineEvents.hpp"
#include "sim/engine/IdleWaitMeter.hpp"
#include "sim/engine/JobSlots.hpp"
#include "sim/engine/MigInstances.hpp"
#include "sim/engine/NodePower.hpp"
#include "sim/engine/ReasonTable.hpp"
#include "sim/engine/RunReporters.hpp"
#include "sim/engine/TimeSlack.hpp"
#include "sim/engine/UserRunHistory.hpp"

#include <simgrid/s4u.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace colocsim::engine {

namespace sg4 = simgrid::s4u;

/// Policy calls in a row at one instant for something the policy made due at that instant (WakeAt(now))
/// before the run fails with DecisionError: a policy that asks for one every time never lets time advance.
constexpr std::uint32_t SAME_INSTANT_ROUNDS_MAX = 1000;

struct JobState {
  // Ordered by size (8-byte members, then 4-byte, then 1-byte) so that no padding sits between them: up to
  // 200k of these are alive at once in a million-job run, each a heap block of 528 bytes (glibc's malloc
  // rounds to 16: 520 bytes of state, 8 of header).
  Job job;
  const ResourceSignature* sig = nullptr;
  const ProfileCommunication* comm = nullptr; ///< its profile's communication, if it declares one
  std::vector<DeviceIndex> devices;
  double rate = 0; ///< effective rate: the slowest device's × e(n) (DevicePhysics sets it)
  /// Progress of the attempt under way (the engine's event core): `remaining` work-seconds were left at sim
  /// time `progressed_at`; since then the job has progressed at `rate` (it changes only at an update of one
  /// of its devices, which first brings `remaining` up to that time). All devices of a gang job progress
  /// together.
  double remaining = 0, progressed_at = 0;
  /// When the attempt ends unless it completes first: its start + the out-of-memory delay (overflowing jobs)
  /// or + its time limit (killed there); infinity when neither applies.
  double deadline = std::numeric_limits<double>::infinity();
  double first_start = -1, attempt_start = -1, end = -1;
  double submitted = 0; ///< sim time it was submitted to the policy (after its dependencies)
  std::uint64_t type_mask = ~std::uint64_t{0}; ///< bit t: the job may run on device type t (Job::gpu_types)
  double limit_s = std::numeric_limits<double>::infinity(); ///< killed this long after a start (requested)
  double base_speed =
      1.0; ///< speed of the device type its duration was taken on (RunSetup::durations_on_named_type)
  /// Its flows ended after its device work (link contention): (end − start) / (device work's end − start)
  /// of the attempt, which multiplies JobRecord::comm_slowdown; 1 otherwise.
  double link_factor = 1.0;
  std::uint32_t run_slot = 0; ///< its slot in DevicePhysics while it runs
  int attempts = 0;
  std::uint32_t deps_pending = 0; ///< BLOCKED: dependencies not yet completed
  std::uint32_t reason = 0;       ///< why it did not complete: index into Simulation::reasons_ (0: none)
  JobStatus status = JobStatus::WAITING;
  bool oom_first = false;   ///< the deadline is the out-of-memory failure (else the time limit)
  bool launched = false;    ///< running since an earlier pass (rate changes count in RunTotals::rate_updates)
  bool end_moved = false;   ///< listed in Simulation::moved_ends_
  bool oom_pending = false; ///< this attempt overflowed device memory: it will fail
  bool ending = false;      ///< its end is due at the current instant (taken from the end heap)
};
// A field more takes the block to 544 bytes: 3 MB more at a million jobs (BENCHMARKS.md, A million jobs).
static_assert(sizeof(JobState) <= 520, "a job's state fits a 528-byte heap block");

/// The network flows of a running job that communicates across nodes (sim/README.md, Flows): one per node
/// of its ring, node i → node i+1 (mod k), each carrying the bytes its NICs send over the whole attempt, at
/// most at the rate it uses when it has its links to itself (bytes_per_work × its rate). While no link they
/// cross is asked more than it carries, each runs at that bound outside SimGrid (its bytes left at any time
/// follow from `since`); otherwise they are SimGrid comms (`real`), shared by SimGrid's network model.
struct JobFlows {
  std::vector<sg4::CommPtr> comms;  ///< the flows under way (their puts); null once done or stopped
  std::vector<sg4::CommPtr> gets;   ///< the receiving side of each (kept while it runs)
  std::vector<double> left;         ///< bytes left of each when it was last (re)started
  std::vector<std::uint32_t> nodes; ///< the ring's nodes: flow i goes from nodes[i] to nodes[i + 1 (mod k)]
  /// Bytes left of each when the links were last measured (measure_links), or when it was last (re)started.
  std::vector<double> seen;
  /// SimGrid's clock before which each cannot end: its (re)start plus its bytes at its bound (sharing only
  /// slows a flow). wait_for waits only on the flows that can end before the engine's next event.
  std::vector<double> earliest_end;
  double bytes_per_work = 0;  ///< bytes a flow moves per work-second of the job
  double device_done_at = -1; ///< sim time its device work ended (held for its flows); -1 while it runs
  double bound = 0;           ///< each flow's bound (bytes/s) since its last (re)start
  double since = 0;           ///< engine time of that (re)start (outside SimGrid: left is the bytes then)
  bool real = false;          ///< its flows are SimGrid comms (a link they cross is or was overloaded)
  std::vector<std::uint8_t> loaded; ///< each flow's bound counts in its links' loads (it has bytes left)
};

enum class NoticeKind { FINISHED, OUT_OF_MEMORY, KILLED };
struct Notice {
  JobIndex job;
  NoticeKind kind;
};
static_assert(sizeof(EndHeap<NoticeKind>::Entry) == 16, "the end heap's entries: 16 bytes");

class Simulation final : public ClusterView, private DependencyOutcomes, private PhysicsListener {
public:
  Simulation(const RunSetup& setup, RunObserver& observer);

  RunTotals run();

  // ClusterView
  double now() const override { return origin_ + sim_now(); }
  std::size_t device_count() const override { return phys_.size(); }
  DeviceView device(DeviceIndex d) const override
  {
    const auto& pd = setup_.platform->devices[d];
    return DeviceView{d,
                      pd.node,
                      pd.card,
                      phys_.mode(d),
                      pd.spec->memory_bytes.value,
                      static_cast<std::uint32_t>(phys_.residents(d).size()),
                      phys_.power_w(d),
                      phys_.freq_hz(d),
                      device_available(d),
                      pd.spec->freq_min_hz.value,
                      pd.spec->freq_max_hz.value,
                      pd.type,
                      setup_.platform->types[pd.type].speed,
                      phys_.version(d)};
  }
  const Job& job(JobIndex j) const override { return jobs_[j].job; }
  std::span<const JobIndex> residents(DeviceIndex d) const override
  {
    if (d >= phys_.size()) throw std::out_of_range("device " + std::to_string(d) + " does not exist");
    return phys_.residents(d);
  }
  const ResourceSignature& signature(JobIndex j) const override { return *jobs_[j].sig; }
  PlacementPrediction predict(JobIndex j, std::span<const DeviceIndex> devices,
                              std::span<const JobIndex> also) const override;
  bool allows(JobIndex j, DeviceIndex d) const override
  {
    return (jobs_[j].type_mask >> setup_.platform->devices.at(d).type) & 1U;
  }
  double estimate(JobIndex j) const override;
  double time_limit(JobIndex j) const override { return jobs_[j].limit_s; }
  double mig_slowdown_alone(JobIndex j, DeviceIndex d, std::size_t profile) const override
  {
    if (d >= phys_.size()) throw std::out_of_range("device " + std::to_string(d) + " does not exist");
    return phys_.mig_slowdown_alone(*jobs_[j].sig, d, profile);
  }

private:
  const DeviceType& type(DeviceIndex d) const { return setup_.platform->type_of(d); }
  double sim_now() const { return now_; }

  void build_platform();
  void controller();
  // The event core: the running jobs' ends, in time order (docs/architecture.md, The event core).
  /// Brings job js's remaining work up to now at its current rate (before that rate changes).
  void advance(JobState& js) const;
  /// Sets job j's next end (completion at its current rate, or its deadline) in the end heap.
  void schedule_end(JobIndex j);
  /// Sim time of the earliest end in the heap; infinity if none.
  double next_end() const;
  /// Takes the ends due at `now` (within end_slack) into notices_ (the controller puts them in job order).
  void take_due_ends(double now);

  // events
  bool read_next_job();
  void handle_arrivals(std::vector<Event>& events);
  void handle_notice(const Notice& n, std::vector<Event>& events);
  void call_policy(const std::vector<Event>& events);
  /// Before one more round at the sim time `sim_t` for something due at it (WakeAt(now)): counts such
  /// rounds and throws DecisionError after SAME_INSTANT_ROUNDS_MAX in a row at one instant.
  void check_same_instant_rounds(double sim_t);
  void apply(const Decision& d); ///< dispatches to the apply_* of the decision's type
  [[noreturn]] void fail(const Decision& decision, const std::string& why) const;
  void apply_place(const Decision& decision, const Place& d);
  void check_place_device(const Decision& decision, const Place& d, std::size_t i) const;
  void check_mig_instance(const Decision& decision, const Place& d, std::size_t i) const;
  void apply_reject(const Decision& decision, const Reject& d);
  void apply_node_power(const Decision& decision, const SetNodePower& d);
  void apply_repartition(const Decision& decision, const Repartition& d);
  void apply_reconfigure_mig(const Decision& decision, const ReconfigureMig& d);
  void apply_frequency(const Decision& decision, const SetFrequency& d);
  void apply_wakeup(const Decision& decision, const WakeAt& d);
  void start_job(JobIndex j, const Place& place);
  void remove_job(JobIndex j);
  void record_end(JobIndex j);

  // Device physics (sim/engine/DevicePhysics.hpp) tells the engine what changes (PhysicsListener).
  void device_changing(DeviceIndex d) override { touch(d); }
  void rate_changing(JobIndex j, double rate) override;
  void rates_settled() override;
  void touch(DeviceIndex d); ///< DEVICE_CHANGING: d is about to change (its meters integrate up to now)
  JobPhysics physics_of(const JobState& js) const
  {
    return JobPhysics{js.sig, js.base_speed, js.comm, js.job.profile};
  }
  /// What a Job::gpu_types text selects: `mask`, the device types a job may run on (0 when it names only
  /// types the platform lacks); `speed`, that of the first type of the platform it names (1 if none).
  struct TypeChoice {
    std::uint64_t mask = 0;
    double speed = 1.0;
  };
  /// The choice of a gpu_types text, worked out once per distinct text (models/GpuTypes.hpp), not per job.
  const TypeChoice& type_choice(const std::string& gpu_types);
  void emit_timepoint();
  void progress(bool force);
  const RunSetup& setup_;
  /// The engine's events and their subscribers (sim/engine/EngineEvents.hpp), registered in the constructor.
  EngineEvents events_;
  DeviceMeters meters_; ///< per device: energy, busy, resident, allocated, fragmented time; per job: energy
  UserRunHistory user_runs_;            ///< each user's last two run times (workload.estimates: predicted)
  ObserverFeed observer_feed_;          ///< jobs.csv, timeseries.csv
  std::optional<TraceFeed> trace_feed_; ///< the event log (RunSetup::trace)
  DevicePhysics phys_; ///< the devices: modes, frequencies, residents, rates, power, card caps
  /// The jobs alive: read, not yet ended or ended in the current pass (sim/engine/JobSlots.hpp).
  JobSlots<JobState> jobs_;
  std::vector<JobIndex> ended_; ///< jobs ended in this pass, freed once its policy call has returned
  void release_ended();
  std::optional<Job> lookahead_;
  bool reader_done_ = false;
  double origin_ = 0; ///< trace time of sim time 0 (first submit)
  /// The engine's clock, sim time: the time of the event under way, exactly as computed (SimGrid's clock,
  /// which the controller's waits advance to it, agrees within an ulp; docs/architecture.md, One clock).
  double now_ = 0;
  NodePower nodes_; ///< node states, boots, the nodes powered off not yet reported, baseline energy
  std::vector<std::vector<DeviceIndex>> node_devices_;
  sg4::Host* controller_host_ = nullptr;                    ///< SimGrid's host of the controller actor
  void touch_nodes() { events_.nodes_changing(sim_now()); } ///< NODES_CHANGING: node baselines integrate
  bool device_available(DeviceIndex d) const
  {
    return !phys_.repartitioning(d) && nodes_.on(setup_.platform->devices[d].node);
  }
  bool idle(DeviceIndex d) const { return phys_.residents(d).empty() && device_available(d); }
  std::uint32_t busy_devices_ = 0;
  std::uint32_t running_ = 0;
  std::uint32_t waiting_ = 0;
  std::set<double> wakeups_; ///< sim times
  /// Rounds in a row at one instant for something due at it (check_same_instant_rounds), and the instant.
  std::uint32_t same_instant_rounds_ = 0;
  double same_instant_at_ = -1;
  // Dependencies (Job::depends_on), only for readers that may have them.
  bool index_ids_ = false;
  DependencyGraph deps_; ///< ids (views into jobs_[j].job.id: a deque, stable), blocked jobs, releases
  /// Signatures of jobs whose batch size picks them from a profile's batch tables, by "profile\nbatch"
  /// (Profile::signature_for_batch); unordered_map nodes are stable, so JobState::sig may point into it.
  std::unordered_map<std::string, ResourceSignature> batch_sigs_;
  std::unordered_map<std::string, TypeChoice> type_choices_; ///< type_choice's, by gpu_types text
  bool comm_outputs_ = false;                                ///< JobRecord::comm_outputs of this run
  // Flows (sim/README.md, Flows): SimGrid's hosts of the nodes when the platform has a network, and the
  // flows of the running jobs that communicate across nodes.
  std::vector<sg4::Host*> node_hosts_;
  std::map<JobIndex, JobFlows> flows_; ///< by job index: waits and ends go through them in job order
  /// The flows under way (a put in JobFlows::comms) by the SimGrid time before which each cannot end
  /// (JobFlows::earliest_end), then job and flow: wait_for reads only its head, the flows that can end
  /// before the engine's next event, instead of every flow at every event.
  std::set<std::tuple<double, JobIndex, std::size_t>> flows_by_end_;
  std::size_t held_jobs_ = 0;        ///< jobs of flows_ held for their flows (JobFlows::device_done_at >= 0)
  std::vector<sg4::CommPtr> waited_; ///< wait_for's flows that can end before its next event
  std::vector<std::tuple<double, JobIndex, std::size_t>> waited_keys_; ///< their keys in flows_by_end_
  void* flow_sink_ = nullptr; ///< where a flow's get writes (flows carry no data)
  /// A request to a relay: flow `flow` of `flows`, its get (on the flow's destination) or its put (from its
  /// source, into `to`, of `bytes` at most at `bound` bytes/s), whose CommPtr the relay stores into `flows`.
  struct FlowRequest {
    JobFlows* flows = nullptr;
    std::size_t flow = 0;
    sg4::Mailbox* to = nullptr; ///< a put's destination's inbox
    std::uint64_t bytes = 0;
    double bound = 0;
  };
  /// An actor on a node's host that starts flows there for the controller: the puts of flows leaving the
  /// node, the gets of flows entering it (docs/architecture.md, Network). Created with the node's first flow.
  struct FlowRelay {
    sg4::SemaphorePtr wake;        ///< released by the controller once per round of requests
    sg4::Mailbox* inbox = nullptr; ///< where flows into the node are put and got
    FlowRequest get;               ///< its request in a round of gets (a node is the destination of one flow
    FlowRequest put;               ///< of a job's ring) and in a round of puts (the source of one)
  };
  std::vector<std::unique_ptr<FlowRelay>> relays_; ///< by node; null until its first flow
  std::size_t relay_count_ = 0;
  bool relay_puts_ = false;      ///< the round under way starts puts (FlowRelay::put), else gets
  std::size_t relay_left_ = 0;   ///< relays of the round under way that have not stored their CommPtr yet
  sg4::SemaphorePtr relay_done_; ///< released by the round's last relay once it has stored its CommPtr
  FlowRelay& relay(std::uint32_t node); ///< node's relay, created on first use
  /// One round: each of `relays` starts its get or put (in that order, so SimGrid starts them in that
  /// order); returns once all have stored their CommPtrs.
  void start_flows(std::span<FlowRelay* const> relays, bool puts);
  /// The distinct nodes of `devices`, ascending (a job's ring, its node count in jobs.csv).
  std::vector<std::uint32_t> nodes_of(std::span<const DeviceIndex> devices) const;
  void open_flows(JobIndex j);    ///< at a start: its ring, no flow under way until its rate is known
  void restart_flows(JobIndex j); ///< its rate changed: each flow goes on with its bytes left
  /// Its flows stopped at now: the bytes left of each (read from SimGrid and cancelled there, or at their
  /// bound), off their links' loads.
  void take_flows(JobIndex j, JobFlows& f);
  /// Flow i's bytes left at engine time t while it runs at its bound outside SimGrid.
  static double free_flow_left(const JobFlows& f, std::size_t i, double t);
  /// The bytes left of each of its flows outside SimGrid brought up to now, from which they go on (since).
  void bring_free_flows_to_now(JobFlows& f) const;
  /// Adds a flow's bound to a link's load; whether that took the link over its capacity.
  bool load_link(std::uint32_t link, double bound);
  void unload_flow(JobFlows& f, std::size_t i);          ///< flow i's bound off its links' loads (if on)
  bool crosses_overloaded_link(const JobFlows& f) const; ///< a loaded flow's link asked more than it carries
  void make_overloaded_links_real(); ///< jobs outside SimGrid that cross an overloaded link go into it
  void start_real_flows(JobIndex j, JobFlows& f); ///< its loaded flows as SimGrid comms, from now
  /// Calls fn with each link half flow i crosses: its source's NIC UP, its destination's DOWN, and between
  /// leaves its source leaf's uplink UP and its destination leaf's DOWN (indices as link_capacity_).
  template <class Fn> void for_flow_links(const JobFlows& f, std::size_t i, Fn&& fn) const
  {
    const std::uint32_t from = f.nodes[i], to = f.nodes[(i + 1) % f.nodes.size()];
    fn(2 * from);
    fn(2 * to + 1);
    if (uplink_nodes_ != 0 && from / uplink_nodes_ != to / uplink_nodes_) {
      const auto uplinks = static_cast<std::uint32_t>(node_hosts_.size() * 2);
      fn(uplinks + 2 * (from / uplink_nodes_));
      fn(uplinks + 2 * (to / uplink_nodes_) + 1);
    }
  }
  void close_flows(JobIndex j); ///< it leaves its devices: its flows stop
  bool flows_done(JobIndex j);  ///< its device work ended now: whether its flows have too
  void wait_for(double next);   ///< the controller waits in SimGrid until next or a flow ends
  void sync_simgrid_clock();    ///< SimGrid's clock brought up to the engine's
  /// The nodes' hosts and links, and with a spine each leaf switch's zone and uplink, in `root`.
  void build_network(sg4::NetZone* root, std::size_t node_count);
  /// timeseries.csv's busiest link (TimePoint::link_util_s): the bytes each flow moved since the last
  /// measurement, at `t`, give each link half's mean load since then (NICs, and uplinks between leaves); the
  /// busiest one's utilisation times the time since then is added to link_util_s_. Flows keep their rates
  /// between two wake-ups of the controller, so this integrates the busiest link's utilisation exactly.
  void measure_links(double t);
  bool link_outputs_ = false; ///< the run can communicate and its time points are wanted
  double link_util_s_ = 0;    ///< ∫ of the busiest link's utilisation from 0 to links_measured_at_
  double links_measured_at_ = 0;
  /// Each link half's capacity in bytes/s: node n's NICs 2n (UP) and 2n + 1 (DOWN), then leaf l's uplinks
  /// 2N + 2l and 2N + 2l + 1 (N nodes).
  std::vector<double> link_capacity_;
  std::vector<double> link_load_;         ///< each link half's load: the bounds of the flows on it
  std::vector<std::uint32_t> link_flows_; ///< how many flows are on each
  std::uint32_t uplink_nodes_ = 0;        ///< nodes per leaf when leaves have uplinks (SimGrid links); else 0
  bool flow_woke_ = false;                ///< the last wait ended with a flow, before the engine's next event
  std::vector<double> link_bytes_;        ///< bytes through each link half (as link_capacity_) since then
  std::vector<std::uint32_t> links_loaded_; ///< the link halves with bytes in link_bytes_
  void resolve_dependencies(JobIndex j, std::vector<Event>& batch);
  /// What a job that depends on an ended job reads of it, kept once its state is freed: only for the first
  /// job of each id (the one an id names), and only when the workload may have dependencies.
  struct EndedDependency {
    JobStatus status;
    double end; ///< sim time
  };
  std::unordered_map<JobIndex, EndedDependency> ended_dependencies_;
  // DependencyOutcomes: deps_ calls them when a job ends (JOB_ENDED)
  void dependency_completed(JobIndex k) override;
  bool cancel(JobIndex b, JobIndex k) override;
  /// The events of the controller pass a completion is handled in: dependents released go there.
  std::vector<Event>* released_ = nullptr;

public:
  const MigGeometry* mig_geometry(DeviceIndex d) const override
  {
    if (d >= phys_.size()) throw std::out_of_range("device " + std::to_string(d) + " does not exist");
    return phys_.mode(d) == SharingMode::MIG ? type(d).mig.get() : nullptr;
  }
  std::vector<MigSlot> mig_instances(DeviceIndex d) const override
  {
    std::vector<MigSlot> out;
    if (d >= phys_.size()) throw std::out_of_range("device " + std::to_string(d) + " does not exist");
    if (phys_.mode(d) != SharingMode::MIG) return out;
    const auto& gi = phys_.mig(d);
    for (std::size_t i = 0; i < gi.size(); ++i) {
      MigSlot s{gi[i], std::nullopt, gi.ready(i, sim_now() + time_slack(sim_now()))};
      if (gi.job(i) >= 0) s.job = static_cast<JobIndex>(gi.job(i));
      out.push_back(s);
    }
    return out;
  }

private:
  std::set<std::pair<double, DeviceIndex>> repartitions_; ///< (sim time ready, device), in time order
  std::vector<Notice> notices_;                           ///< ends due at the current instant (take_due_ends)
  std::vector<Notice> pass_notices_; ///< the controller pass's notices (kept for its capacity)
  std::vector<Event> pass_events_;   ///< the controller pass's events (kept for its capacity)
  std::vector<Event> arrival_batch_; ///< handle_arrivals' submissions at one trace time
  /// The end heap: the next end of every running job whose end is not yet taken, earliest first (then by job
  /// index), one entry per job, moved in place when its rate changes (sim/engine/EndHeap.hpp).
  EndHeap<NoticeKind> ends_;
  std::vector<JobIndex> started_in_pass_; ///< jobs started in the current pass (launched at its end)
  std::vector<JobIndex> moved_ends_;      ///< running jobs whose rate changed in this update (settle())
  sg4::SemaphorePtr wake_controller_;
  std::exception_ptr error_;
  RunTotals totals_;
  std::chrono::steady_clock::time_point wall_start_, last_progress_;
  std::uint64_t progress_rounds_ = 0; ///< scheduling rounds since the clock was last read
  bool progress_shown_ = false;       ///< a progress line was written (a terminal's needs its newline)
  mutable std::vector<const ResourceSignature*> also_sigs_; ///< predict()'s scratch (never nested)
  // idle_while_waiting_device_s (sim/engine/IdleWaitMeter.hpp): follows devices becoming idle or busy and
  // jobs joining or leaving the queue.
  IdleWaitMeter idle_wait_;
  void availability_changed(DeviceIndex d)
  {
    events_.availability_changed(AvailabilityChanged{d, sim_now(), idle(d)});
  }
  /// The device types whose devices could take job j (one bit per type).
  std::uint64_t fitting_types(const JobState& js) const
  {
    std::uint64_t mask = 0;
    const auto& types = setup_.platform->types;
    for (std::size_t t = 0; t < types.size(); ++t)
      if (((js.type_mask >> t) & 1U) && js.sig->mem_bytes <= types[t].spec->memory_bytes.value)
        mask |= std::uint64_t{1} << t;
    return mask;
  }
  void add_waiting(JobIndex j) { change_waiting(j, true); }
  void remove_waiting(JobIndex j) { change_waiting(j, false); }
  void change_waiting(JobIndex j, bool add)
  {
    if (add)
      ++waiting_;
    else
      --waiting_;
    const auto& js = jobs_[j];
    events_.queue_changed(
        QueueChanged{j, sim_now(), add, static_cast<std::uint32_t>(js.job.devices), fitting_types(js)});
  }
  ReasonTable reasons_; ///< why jobs did not complete (JobRecord::reason), each text stored once
  std::uint32_t reason_id(const std::string& text) { return reasons_.id(text); }
  std::uint32_t dependency_reason(JobStatus dep) { return reasons_.dependency(dep); }
};

} // namespace colocsim::engine
