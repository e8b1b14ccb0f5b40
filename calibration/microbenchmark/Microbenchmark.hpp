#pragma once
// The microbenchmark's two processes roles (`colocsim calibrate run` and its workers).
//
// Parent (Campaign): opens the backend's host side (no device context), then for each planned run pins the
// frequency if asked, starts one worker process per job (posix_spawn of `worker_command`, normally this
// very binary: `/proc/self/exe calibrate worker ...`) with the backend's environment for the mode (e.g.
// ZEX_NUMBER_OF_CCS), waits until every worker has built its kernel and warmed up, gives all of them the
// same measurement window [start, end] on CLOCK_MONOTONIC, reads the energy counter at start and end and
// the frequency in the middle, collects each worker's summary and writes one CSV row per worker.
// Separate processes, because device sharing semantics (GuC time slices, CCS isolation, OS scheduling on
// a CPU) are per process/context (reference §2.7 step 4).
//
// Worker protocol (text lines; the worker's stderr is the parent's):
//   worker → parent   READY <tab> device name <tab> notes <tab> sleep_s
//   parent → worker   GO <start_ns> <end_ns>          (CLOCK_MONOTONIC)
//   worker → parent   RESULT <tab> key=value ...       (reps, medians, cv, samples, lo, hi) and exits 0
//   worker → parent   ERROR <tab> unavailable|failed <tab> message   (then exits 3 or 1)
// The worker launches back to back (sleeping sleep_s after each launch for duty cycles < 1) from start
// until end and keeps only the iterations that finished before end, i.e. those that overlapped the other
// workers for their whole length.
//
// Repeated timings: the window is cut into `samples` equal sub-windows; each iteration belongs to the one
// it started in. t_iter is the median of the sub-windows' MEAN iteration times, and the smallest and
// largest of those means are reported as the spread, so one disturbed stretch of the window (another
// process of the host taking the CPU for a while) moves neither the reported time nor goes unnoticed.
// Within a sub-window the mean, not the median: the simulator's slowdown is a rate (work done per unit of
// time), and back-to-back iterations cover the sub-window, so their mean is its inverse throughput. Next to
// a co-runner that takes the device in stretches the iteration times are bimodal (fast while the co-runner
// sleeps or between its turns, slow across them) and the median is the fast mode: on pocl, pointer_chase
// (1.5 ms alone) beside fma_fp32 at duty 0.5 had a median of 2.7 ms but a mean of 5.4 ms (46 iterations in
// 0.25 s), and a cache-resident chase beside fma_fp32 at duty 1 kept its solo median (0.099 ms) while it
// finished exactly half as many launches (2469 of 4938 in 0.5 s): slowdown 1 by the median, 2 by the rate.
//
// CPU devices (pocl): what processes share on a CPU is its cores, caches and memory bandwidth, and the OS
// schedules threads, not processes: a worker with two pocl threads gets twice the share of one with one.
// For the time-slice sharing the simulator models (each process gets an equal share of one device), every
// worker of a CPU device is pinned to the same core (`pin_cpu`, sched_setaffinity before pocl starts its
// threads, which inherit it) and runs one pocl thread (POCL_MAX_PTHREAD_COUNT=1): the "device" is that core
// with its private caches, time-sliced between processes by the scheduler. Each worker also becomes its
// own session and asks for a higher priority (`nice`, default -20) for it: with Linux autogroups the
// scheduler shares a core between sessions first, so on the loaded 2-core CI host a worker at plain nice
// -20 still got 23 % of its core (cpu_util 0.23, like a spin loop), the rest going to other sessions'
// builds, and that share drifted between the solo runs and the co-runs. With its own autogroup at -20 a
// worker gets the core (a spin loop: 0.99), and co-runners share it equally. Without the permission
// (CAP_SYS_NICE) workers run at normal priority. Both outcomes are written to the row's notes
// (pin=cpuN; nice=-20(autogroup), nice=-20, or nice-refused(...)); cpu_util records the share obtained.
#include "calibration/microbenchmark/Backend.hpp"
#include "calibration/microbenchmark/Measurements.hpp"
#include "calibration/microbenchmark/Plan.hpp"

#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace colocsim {

struct CampaignOptions {
  std::string backend = "opencl";
  std::string device;    ///< "" = the backend's default
  double window_s = 2.0; ///< measurement window per run
  int warmup = 5;        ///< launches before the window (not measured)
  int samples = 5;       ///< sub-windows per window (repeated timings)
  /// CPU devices: the core every worker is pinned to (nullopt: the last core this process may use; -1: no
  /// pinning, pocl's default threads).
  std::optional<int> pin_cpu;
  std::optional<int> nice = -20;           ///< scheduling priority asked for by the workers (nullopt: none)
  std::vector<std::string> worker_command; ///< argv prefix that starts a worker
  std::ostream* progress = nullptr;        ///< one line per run (stderr in the CLI)
};

class Campaign {
public:
  /// Opens the backend's host side. Throws BackendUnavailable (exit status 3), std::invalid_argument for a
  /// backend that does not exist or was not built (the CLI maps the latter to exit status 4).
  explicit Campaign(CampaignOptions options);
  ~Campaign();
  Campaign(const Campaign&) = delete;
  Campaign& operator=(const Campaign&) = delete;

  const BackendCapabilities& capabilities() const { return caps_; }
  std::string describe() const { return host_->describe(); }
  bool has_energy() const { return meter_ != nullptr; }
  /// "zes:tile0" or "unavailable: <reason>".
  std::string energy_status() const;

  /// Runs the plan, writing the header and one row per worker (flushed after each run) to csv.
  /// Returns the rows. Throws std::runtime_error when a worker fails (rows so far are written).
  std::vector<MeasurementRow> run(const std::vector<PlannedRun>& plan, std::ostream& csv);

private:
  MeasurementRow base_row(const PlannedRun& run) const;
  /// One run of the plan (of `runs`): its workers, its window, its rows (written to csv and returned).
  std::vector<MeasurementRow> measure(const PlannedRun& run, std::size_t runs, std::ostream& csv);

  CampaignOptions options_;
  std::unique_ptr<BackendHost> host_;
  std::unique_ptr<EnergyMeter> meter_;
  std::string energy_why_not_;
  BackendCapabilities caps_;
  std::string hostname_;
  /// Sleep and iteration time of solo runs, by (kernel, duty, frequency): co-runs reuse the sleep.
  std::map<std::tuple<KernelConfig, double, double>, std::pair<double, double>> solo_;
};

struct WorkerOptions {
  std::string backend;
  std::string device;
  KernelConfig kernel;
  double duty = 1.0;
  std::optional<double> sleep_s; ///< fixed sleep; without it the worker derives it from duty and its warm-up
  int warmup = 5;
  int queue_index = 0;
  bool idle = false;          ///< open the context and build the kernel, never launch (idle-with-context)
  int samples = 1;            ///< sub-windows of the window (repeated timings)
  std::optional<int> pin_cpu; ///< sched_setaffinity to this CPU before the backend starts
  std::optional<int> nice;    ///< setpriority before the backend starts (its threads inherit it)
};

/// Per sub-window mean iteration times (inverse throughputs): `start_s[i]` is when iteration i started,
/// relative to the window start, `iter_s[i]` how long it took; the window [0, window_s) is cut into
/// `samples` equal parts and each iteration counts in the part it started in. Returns the means of the
/// non-empty sub-windows, in order.
std::vector<double> sub_window_means(const std::vector<double>& start_s, const std::vector<double>& iter_s,
                                     double window_s, int samples);

/// The worker side of the protocol. Returns the process exit status (0, 1 failed, 3 unavailable).
int run_worker(const WorkerOptions& options, std::istream& in, std::ostream& out);

/// Median of the non-NaN values of xs (NaN when there is none).
double median(std::vector<double> xs);

} // namespace colocsim
