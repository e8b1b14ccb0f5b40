#pragma once
// The engine (docs/architecture.md, The engine): replays jobs from a JobReader on a Platform under a Policy,
// with the sharing/interference/power models of models/. Only sim/ includes SimGrid.
//
// Who computes what:
//  * colocsim's own event core runs the devices' work: the models decide every running job's rate
//  (work-seconds
//    of the reference device per second), each job keeps its remaining work and the time it was brought up
//    to, and a heap holds every running job's next end (completion, out-of-memory failure or time limit),
//    with lazy deletion when a rate changes. A change of a device's residents, mode or frequency recomputes
//    only that device's residents (O(co-runners) per event). No SimGrid activity per job;
//  * SimGrid holds the platform's nodes (one host each, the network's endpoints) and the clock: one
//  controller
//    actor waits in SimGrid until the next event of colocsim's own (so SimGrid's activities, such as network
//    flows, progress up to it), then takes arrivals, ends, failures and wake-ups of that instant in a fixed
//    order, calls the policy and applies its decisions; it publishes what happens
//    (sim/engine/EngineEvents.hpp) to the components that integrate energy and the other metrics exactly
//    between events, and to the run's observer and trace.
#include "models/Interference.hpp"
#include "models/PowerModel.hpp"
#include "policies/Policy.hpp"
#include "sim/Platform.hpp"
#include "sim/engine/ModelError.hpp"
#include "workloads/JobReader.hpp"
#include "workloads/ProfileCatalog.hpp"

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace colocsim {

/// BLOCKED: read, but held back until its dependencies complete (policies do not see it yet).
/// CANCELLED: one of its dependencies failed for good, was rejected or cancelled, so it never ran.
/// KILLED: still running at its requested time (Job::requested_s) when the replay uses requested times.
/// One byte: the engine keeps one per job alive (sim/Simulation.hpp, JobState).
enum class JobStatus : std::uint8_t {
  WAITING,
  RUNNING,
  COMPLETED,
  FAILED,
  REJECTED,
  NEVER_STARTED,
  BLOCKED,
  CANCELLED,
  KILLED
};
std::string_view to_string(JobStatus s);

/// The run times policies may assume (ClusterView::estimate; scenario key workload.estimates).
enum class EstimateSource {
  EXACT,     ///< the job's duration
  REQUESTED, ///< the user's requested time (Job::requested_s; the duration when none); jobs killed there
  PREDICTED, ///< Tsafrir et al. 2007: the mean of the user's last two run times, capped by the request
};

class RunTrace;
class EngineSubscriber; // sim/engine/EngineEvents.hpp

/// What a run needs. The models of each device type (power, time-slice, interference, MIG table, speed) are
/// in platform->types.
struct RunSetup {
  const Platform* platform = nullptr;
  const ProfileCatalog* profiles = nullptr;
  std::string default_profile; ///< profile for trace jobs that name none (empty: such a job is an error)
  JobReader* reader = nullptr;
  Policy* policy = nullptr;
  std::string policy_name;
  double oom_delay_s = 60.0;        ///< time an overflowing job runs before it fails out of memory
  int max_retries = 3;              ///< requeues after out-of-memory failures before the job fails for good
  double repartition_delay_s = 5.0; ///< time an empty device is unavailable while its sharing mode changes
  double node_boot_s = 300.0;       ///< time from powering a node on until it accepts jobs
  /// Jobs whose gpu_types name no device type of the platform are rejected when submitted (true), or their
  /// gpu_types are ignored (false: e.g. a trace replayed on a platform of other GPU types).
  bool honour_gpu_types = true;
  /// A job whose gpu_types name device types of the platform: its duration is its time on the first of them
  /// (true: a trace records the run time on the GPU the job asked for), or on the reference type (false).
  /// Other jobs' durations are always times on the reference type.
  bool durations_on_named_type = true;
  /// A job's duration is its run time on its own number of devices, scaling losses included (true: a trace
  /// measured it there), or its time with perfect scaling, which the profile's scaling efficiency e(n)
  /// stretches (false: synthetic workloads).
  bool durations_include_scaling = false;
  /// The models' error the world carries (scenario model_error; sim/engine/ModelError.hpp): off by default.
  ModelError model_error;
  EstimateSource estimates = EstimateSource::EXACT;
  bool record_timeseries = true;
  /// Follows every event and decision (the event log, --log-events; sim/EventLog.hpp), as a subscriber of the
  /// engine's events registered only when set. Null: off, which costs nothing.
  RunTrace* trace = nullptr;
  /// Further subscribers of the engine's events (sim/engine/EngineEvents.hpp), for tests and tools; each is
  /// called after the engine's own, in this order, and sees a job end before its dependents end.
  std::vector<EngineSubscriber*> subscribers;
  /// Wall seconds between progress lines on stderr; <= 0: never. The clock is read once every
  /// PROGRESS_CHECK_EVERY scheduling rounds, so a line may come a little later.
  double progress_interval_s = 2.0;
  /// Progress on a terminal: one line that overwrites itself ("\r"), ended by a newline at the end.
  bool progress_tty = false;
  std::uint64_t jobs_total = 0; ///< jobs the workload will give, for the progress estimate; 0: not known
  /// When set to a signal number (by a signal handler), the run stops at its next event: run_simulation
  /// throws RunInterrupted. Null: never.
  const volatile std::sig_atomic_t* stop = nullptr;
  /// Called once SimGrid's engine exists: SimGrid installs its own SIGINT handler then (it prints its
  /// internal state and exits), which the command line replaces with its own.
  void (*after_engine_created)() = nullptr;
};

/// Seconds between progress lines: on a terminal (one line overwritten), and in a log (stderr not a
/// terminal).
inline constexpr double PROGRESS_TTY_S = 0.5;
inline constexpr double PROGRESS_LOG_S = 10.0;

/// Scheduling rounds between two reads of the wall clock for the progress line.
inline constexpr std::uint64_t PROGRESS_CHECK_EVERY = 64;

/// The progress line: jobs read (of the total when known), ended, simulated time, wall time and the
/// estimated remaining wall time (wall × jobs not yet ended / jobs ended, when the total is known).
std::string progress_line(std::uint64_t read, std::uint64_t total, std::uint64_t ended, double sim_t_s,
                          double wall_s);

/// A run stopped by RunSetup::stop (Ctrl-C, SIGTERM).
struct RunInterrupted : std::runtime_error {
  RunInterrupted(int sig, const std::string& what) : std::runtime_error(what), signal(sig) {}
  int signal;
};

/// One job's outcome, reported when it ends (completed, failed, rejected or never started).
struct JobRecord {
  const Job* job = nullptr;
  JobStatus status = JobStatus::WAITING;
  /// When the job was submitted to the scheduler (trace time): the trace's submit time, or later for a job
  /// held by its dependencies (the last one's end + think time). Wait and JCT count from here.
  double submit_s = 0;
  double start_s = -1;      ///< first start (trace time); -1 if never started
  double last_start_s = -1; ///< start of the last attempt (trace time; = start_s without retries); -1 if none
  double end_s = -1;
  std::vector<DeviceIndex> devices; ///< devices of the last attempt
  double slowdown = 0;              ///< (end − start of last attempt) / duration; 0 if not completed
  double energy_j = 0;              ///< device energy attributed to the job over all attempts
  int attempts = 0;
  /// Why the job did not complete (rejected, never started, failed, cancelled); empty for a completed job.
  std::string reason;
  std::uint32_t nodes = 0; ///< distinct nodes of `devices` (0 if it never started)
  /// The whole communication slowdown of the last attempt: 1 / its communication efficiency
  /// (DevicePhysics::comm_efficiency) times, when its flows ended after its device work (link contention),
  /// (end − start) / (device work's end − start); 1 when the job did not communicate.
  double comm_slowdown = 1.0;
  bool link_contended = false; ///< its flows ended after its device work: links shared with other jobs
  bool communicated = false;   ///< the communication model applied to the last attempt
  /// The run can communicate (its platform has a network and a profile of its catalog communicates): jobs.csv
  /// and summary.json then carry the communication columns and keys (the same for every record of a run).
  bool comm_outputs = false;
};

/// Trace time of sim time `sim_s` (origin_s = trace time of sim time 0), never before `not_before_s`:
/// converting back can round a start below its submit time by an ulp; wait and JCT are never negative.
inline double trace_time(double origin_s, double sim_s, double not_before_s)
{
  return std::max(not_before_s, origin_s + sim_s);
}

/// Cluster state after an event (for timeseries.csv).
struct TimePoint {
  double t_s = 0; ///< trace time
  double device_power_w = 0;
  double node_power_w = 0; ///< node baselines
  std::uint32_t busy_devices = 0;
  std::uint32_t running_jobs = 0;
  std::uint32_t waiting_jobs = 0;
  /// The run can communicate (JobRecord::comm_outputs): timeseries.csv has the busiest_link_util column.
  bool link_outputs = false;
  /// ∫ over sim time, from the run's start to t_s, of the utilisation (bytes/s carried over capacity) of the
  /// network link busiest at each moment; its rise from one time point to the next over the time between
  /// is the mean busiest-link utilisation there (time points come at every change of the flows' rates).
  double link_util_s = 0;
};

class RunObserver {
public:
  virtual ~RunObserver() = default;
  virtual void on_job_end(const JobRecord&) {}
  virtual void on_timepoint(const TimePoint&) {}
};

/// Follows a run as the engine processes it, for the event log (RunSetup::trace). The view is the engine's,
/// valid during the call only.
class RunTrace {
public:
  virtual ~RunTrace() = default;
  /// A policy call: the events of the instant, in the order the policy gets them, before it decides;
  /// `waiting` and `running` jobs after the engine has applied them.
  virtual void on_events(const ClusterView& view, std::span<const Event> events, std::uint32_t waiting,
                         std::uint32_t running) = 0;
  /// One decision of that call, in the policy's order, just before the engine applies it (an infeasible
  /// decision is the last thing traced); `waiting` jobs at that moment.
  virtual void on_decision(const ClusterView& view, const Decision& decision, std::uint32_t waiting) = 0;
  /// A job ended (the record jobs.csv gets), when the engine ends it: its completion or failure is also
  /// an event of the next policy call, a rejection by the policy follows its Reject decision.
  virtual void on_job_end(const ClusterView& view, const JobRecord& record) = 0;
};

struct RunTotals {
  double t_first_submit_s = 0;
  double t_end_s = 0; ///< last event (trace time)
  double energy_device_j = 0;
  double energy_node_j = 0;
  double busy_device_s = 0; ///< Σ over devices of time with at least one resident
  double resident_s = 0;    ///< Σ over devices of residents × time
  /// Σ over devices of ∫ min(1, allocated share) dt: the residents' requested shares (gpu_milli / 1000; on a
  /// mig device, the SM fraction of each occupied instance).
  double allocated_device_s = 0;
  /// Σ over devices of ∫ (1 − allocated share) dt while 0 < allocated share < 1: capacity left on partly
  /// allocated devices, which no whole-device job can use (fragmented).
  double fragmented_device_s = 0;
  /// Σ over devices of the time they had no job and were available while a waiting job could have run on
  /// them (a type it accepts, memory that holds it; a gang job: enough such devices of one type).
  double idle_while_waiting_device_s = 0;
  double device_count = 0;
  std::uint64_t engine_events = 0; ///< arrivals + completions + failures + wake-ups
  /// Rate changes of running jobs that moved their end, counted once per device of the job (a co-runner's
  /// arrival or departure, a frequency or power-cap change).
  std::uint64_t rate_updates = 0;
  std::uint64_t jobs_read = 0, completed = 0, failed = 0, rejected = 0, never_started = 0, oom_events = 0;
  std::uint64_t cancelled = 0; ///< jobs whose dependency failed, was rejected or cancelled
  std::uint64_t killed = 0;    ///< jobs killed at their requested time (estimates requested or predicted)
  /// The most jobs whose state the engine kept at once (read and not yet freed: waiting, blocked, running, or
  /// ended in the policy call under way; sim/engine/JobSlots.hpp). Printed by `colocsim bench` only: the
  /// engine's memory follows the jobs alive, not the jobs read.
  std::uint64_t peak_live_jobs = 0;
  std::uint64_t dependencies_ignored = 0; ///< depends_on ids that named no earlier job of the replayed trace
  std::string first_ignored_dependency;   ///< e.g. "job 'x' (trace.csv:12)", for the warning
  std::uint64_t rejected_gpu_types =
      0; ///< of `rejected`: jobs whose gpu_types name no device type of the platform
  std::string
      first_rejected_gpu_types; ///< e.g. "job 'x' (trace.csv:12) asks for gpu_types 'T4'", for the warning
};

/// Runs one simulation. Several runs may happen in one process, one after the other. Throws InputError
/// for bad trace rows or profiles, DecisionError for an infeasible policy decision.
RunTotals run_simulation(const RunSetup& setup, RunObserver& observer);

} // namespace colocsim
