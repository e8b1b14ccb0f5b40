#pragma once
// Run metrics (docs/architecture.md, Scenarios, command line and outputs): collects job outcomes as the
// engine reports them and derives the summary. Definitions (also in docs/formats/outputs.md):
//   makespan_s      last event − first submission
//   jct             end − submit, completed jobs;  wait = first start − submit, started jobs (submit: when
//                   the job reached the scheduler — later than the trace's submit time for a job that
//                   waited for its dependencies)
//   percentiles     nearest rank: the value at rank ⌈q·n⌉ (1-based) of the n sorted values
//   bounded slowdown max(1, jct / max(run, τ)), run = end − start of the last attempt, τ = 10 s
//                   (Feitelson's; wait + run = jct, time lost to failed attempts counts as waiting)
//   solo bounded    max(1, jct / max(solo duration, τ)): against the job's time alone on an idle device
//   utilization     Σ device busy time / (devices × makespan)  (busy: at least one resident job)
//   colocation_mean Σ residents × time / Σ busy time  (mean jobs per busy device)
//   allocation_mean Σ ∫ min(1, requested share of the device) dt / (devices × makespan)  (gpu_milli / 1000
//                   per job; a mig instance's SM fraction)
//   fragmented_mean Σ ∫ unallocated share of partly allocated devices dt / (devices × makespan)  (room that
//                   no whole-device job can use)
//   energy_total_j  (device energy + node baseline energy) × PUE;  edp = energy_total_j × makespan_s
//   energy_per_completed_job_j  energy_total_j / jobs completed (NaN, written null, when none completed):
//                   a run that loses jobs spends less energy in total but not per job it finished
//   idle_while_waiting_s  Σ over devices of the time a device had no job and was available while some
//                   waiting job could have run on it (RunTotals::idle_while_waiting_device_s)
#include "sim/Engine.hpp"

#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace colocsim {

struct Summary {
  std::string scenario, policy, policy_params, sharing, interference, calibration;
  std::string placement = "pack"; ///< policy.placement (policies/GangRule.hpp)
  std::string workload;           ///< where the jobs came from: format, options, transforms, profile mapping
  std::vector<std::pair<std::string, std::string>> plugins; ///< path and sha256 of each policy plugin loaded
  /// "file: key = value" for each number of a user's platform or device file given without provenance
  std::vector<std::string> user_supplied;
  long long seed = 0;
  double makespan_s = 0;
  double energy_gpu_j = 0, energy_node_j = 0, energy_total_j = 0, pue = 1;
  double edp_js = 0;
  double energy_per_completed_job_j = 0; ///< energy_total_j / jobs_completed; NaN when none completed
  std::uint64_t jobs_read = 0, jobs_completed = 0, jobs_failed = 0, jobs_rejected = 0, jobs_never_started = 0;
  std::uint64_t jobs_killed = 0; ///< killed at their requested time (workload.estimates requested|predicted)
  std::uint64_t jobs_cancelled = 0; ///< a dependency failed, was rejected or cancelled
  std::uint64_t oom_events = 0;
  /// Jobs whose trace declares no memory (Job::mem_request_bytes 0): not in summary.json, for the warning on
  /// a policy that places jobs by declared memory.
  std::uint64_t jobs_without_declared_memory = 0;
  /// Jobs that did not complete, per "status: reason" (JobRecord::reason), in text order.
  std::map<std::string, std::uint64_t> jobs_by_reason;
  double jct_mean_s = 0, jct_p50_s = 0, jct_p95_s = 0, jct_p99_s = 0;
  double wait_mean_s = 0, wait_p95_s = 0;
  double bounded_slowdown_mean = 0;      ///< Feitelson's, with the job's actual runtime
  double solo_bounded_slowdown_mean = 0; ///< the same against the job's solo duration
  double corun_slowdown_mean = 0;        ///< mean over completed jobs of runtime / duration
  std::uint64_t devices = 0; ///< the platform's devices (GPUs, tiles), the denominator of utilization
  double utilization = 0, colocation_mean = 0;
  double allocation_mean = 0, fragmented_mean = 0;
  double idle_while_waiting_s = 0; ///< device-seconds idle while a waiting job could have run there
  double throughput_jobs_per_h = 0;
  std::uint64_t engine_events = 0, rate_updates = 0;
  double wall_s = 0;
  /// A run that can communicate (JobRecord::comm_outputs): summary.json then has jobs_communicating
  /// (completed jobs whose last attempt communicated) and comm_slowdown_mean (their mean
  /// JobRecord::comm_slowdown; NaN, written null, when there is none).
  bool comm_outputs = false;
  std::uint64_t jobs_communicating = 0;
  double comm_slowdown_mean = 0;
  /// Of jobs_communicating: those whose flows ended after their device work (JobRecord::link_contended).
  std::uint64_t jobs_link_contended = 0;
};

class MetricsCollector {
public:
  void add(const JobRecord& r);
  /// Builds the summary from the collected jobs and the engine totals.
  Summary summarize(const RunTotals& totals, double pue) const;

private:
  std::vector<double> jct_, wait_;
  std::map<std::string, std::uint64_t> reasons_;
  double bsld_sum_ = 0, solo_bsld_sum_ = 0, slowdown_sum_ = 0;
  bool comm_outputs_ = false;
  std::uint64_t communicating_ = 0, link_contended_ = 0;
  double comm_slowdown_sum_ = 0;
  std::uint64_t without_memory_ = 0;
};

/// τ of the bounded slowdown: runs shorter than this count as this long, so that very short jobs do not
/// dominate the mean. 10 s as in D. G. Feitelson, L. Rudolph, U. Schwiegelshohn, K. C. Sevcik, P. Wong,
/// "Theory and practice in parallel job scheduling", JSSPP 1997, LNCS 1291 (bounded slowdown, τ = 10 s).
inline constexpr double BOUNDED_SLOWDOWN_TAU_S = 10.0;

/// Nearest-rank percentile (q in [0, 1]) of unsorted values: the value at rank ⌈q·n⌉ (1-based; rank 1 for
/// q = 0) of the sorted values; 0 for an empty set.
double percentile(std::vector<double> values, double q);
/// The nearest-rank percentiles of one set of values for ascending quantiles `qs` (the values percentile()
/// gives for each, in one copy of the values). Throws std::invalid_argument when `qs` does not ascend.
std::vector<double> percentiles(std::vector<double> values, std::span<const double> qs);

} // namespace colocsim
