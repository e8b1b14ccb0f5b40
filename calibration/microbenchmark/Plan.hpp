#pragma once
// The experiment planner shared by every backend: which runs to make, in which order, from what the
// backend can do (its sharing modes, whether it can pin frequencies and read energy). Plain C++, no
// device: unit-tested in tests/calibration/Plan_test.cpp. The protocol follows reference §2.7 and §6.5:
//
//   1. idle baselines (only when energy is readable): no context, then a context open and idle;
//      at every pinned frequency when sweeping;
//   2. frequency sweep (Level Zero with frequency control): solo fma_fp32, fma_fp64, triad and the
//      intensity ladder at every frequency → β (time vs f), γ and the activity powers;
//   3. solo runs at the default frequency: every co-location kernel at every duty cycle (the reference
//      for slowdowns and duty cycles), plus the intensity ladder, fma_fp64, copy, empty;
//   4. time-slice co-runs (the backend's reference mode: OpenCL "time-slice", Level Zero "ccs1"): every
//      unordered pair of co-location kernels, with replacement, at each fit duty cycle (set "fit");
//   5. held-out co-runs (set "check"): mixed duty cycles (one job at 1, the other at 0.5) and three-way
//      runs, which the fit never sees — `colocsim calibrate check` predicts them;
//   6. CCS modes (Level Zero): per mode k in {2, 4}, each kernel alone in k-CCS mode (partition factor)
//      and k copies of it (per-process throughput), plus the distinct pairs in ccs2.
//
// Every repetition repeats the whole list (interleaved repetitions spread drift over all configurations).
// Invariant (checked by check_plan): every job of a co-run has a solo run with the same kernel sizes, duty
// cycle and frequency in the reference mode earlier in the plan, so its slowdown and duty cycle exist.
#include "calibration/microbenchmark/Kernels.hpp"

#include <optional>
#include <string>
#include <vector>

namespace colocsim {

enum class RunKind { IDLE, IDLE_CONTEXT, SOLO, CORUN };
std::string_view to_string(RunKind kind);
std::optional<RunKind> parse_run_kind(std::string_view text);

/// One process of a run: a kernel instance launched in a loop, sleeping between launches so that the
/// kernel keeps the device busy a fraction `duty` of the time when alone (1 = back to back).
struct PlannedJob {
  KernelConfig kernel;
  double duty = 1.0;
};

struct PlannedRun {
  int id = 0;         ///< 1-based position in the plan
  int repetition = 0; ///< 0-based
  RunKind kind = RunKind::SOLO;
  std::string set = "fit";        ///< "fit" or "check" (held out from the fit)
  std::string mode;               ///< sharing mode, e.g. "time-slice", "ccs1", "ccs4"
  std::optional<double> freq_mhz; ///< pinned frequency; nullopt = the device's default
  std::vector<PlannedJob> jobs;   ///< empty for IDLE; one job for SOLO and IDLE_CONTEXT
};

struct PlanOptions {
  bool quick = false; ///< small sizes (KernelInfo::quick)
  std::vector<std::string> kernels{"fma_fp32", "triad", "l2_triad", "pointer_chase"}; ///< co-location set
  std::vector<double> fit_duties{1.0, 0.5};     ///< duty cycles of the fit co-runs
  std::vector<std::string> modes{"time-slice"}; ///< backend's modes; the first is the reference mode
  std::vector<double> freqs_mhz;                ///< frequency sweep (empty: none)
  std::vector<long long> intensity_ladder{1, 4, 16, 64, 256}; ///< k values of the intensity kernel
  bool energy = false;                                        ///< energy readable → idle baselines
  bool extras = true;     ///< solo-only kernels (fma_fp64, copy, empty, intensity)
  bool check_runs = true; ///< held-out co-runs
  int repetitions = 1;
};

/// The kernel instance of `kernel` at the plan's size (quick or full).
KernelConfig planned_config(const std::string& kernel, bool quick);

/// The runs, ids 1..N in execution order. Throws std::invalid_argument for options it cannot plan
/// (unknown kernel, duty outside (0, 1], repetitions < 1, no mode).
std::vector<PlannedRun> plan_campaign(const PlanOptions& options);

/// Empty if the plan keeps its invariant (see the header comment), else the first violation.
std::string check_plan(const std::vector<PlannedRun>& plan);

/// "triad@0.5" (kernel and duty cycle) for labels and the co_runners column.
std::string job_label(const PlannedJob& job);

} // namespace colocsim
