#pragma once
// `colocsim calibrate check`: predicts held-out co-run measurements with a calibration and the simulator's
// own model code (models/Interference.hpp compute_slowdowns with the calibration's θ, ε and table, in the
// run's mode: time-slice for `time-slice`/`ccs1`, ccs-2/ccs-4 for `ccs2`/`ccs4`; models/PowerModel.hpp
// device_power), and reports the error per co-run job, per combination and overall. Each job's signature
// comes from its solo runs in the same file: class from the kernel (MeasurementSet::job_class), duty cycle
// = its measured solo duty cycle, vector and bandwidth activity from its solo rates, compute_share from its
// CCS-mode solo runs where there are some (MeasurementSet::compute_share).
//
// Statistics: the mean |relative error| (what `--max-error` bounds) and the median |relative error| (robust
// to a single bad reading; `--max-median-error`), and the same statistics for two trivial predictors on the
// same jobs, so that a bound can say "the model is better than guessing": no interference (every slowdown
// 1) and the mean observed slowdown of the fit set's co-run jobs (one constant for every job).
#include "calibration/Calibration.hpp"
#include "calibration/microbenchmark/MeasurementSet.hpp"
#include "models/DeviceSpec.hpp"

#include <optional>
#include <string>
#include <vector>

namespace colocsim {

struct CheckedJob {
  int run_id = 0;
  std::string job;         ///< "triad@0.5"
  std::string combination; ///< "fma_fp32@1 + triad@0.5" (all jobs of the run)
  double observed = 0, predicted = 0;
  double rel_error = 0; ///< (predicted − observed) / observed
};

struct CheckedPower {
  int run_id = 0;
  std::string combination;
  double observed_w = 0, predicted_w = 0, rel_error = 0;
};

struct ErrorSummary {
  int n = 0;
  double mape = 0;       ///< mean |relative error|
  double median_abs = 0; ///< median |relative error|
  double bias = 0;       ///< mean relative error
  double max_abs = 0;    ///< max |relative error|
  double rmse = 0;       ///< of the relative errors
};

/// A trivial predictor scored on the same jobs as the model.
struct BaselineScore {
  std::string name;      ///< "no interference"
  double prediction = 1; ///< the constant slowdown it predicts for every job
  ErrorSummary errors;
};

struct CheckReport {
  std::vector<CheckedJob> jobs;
  std::vector<std::pair<std::string, ErrorSummary>> per_combination; ///< in first-seen order
  ErrorSummary overall;
  /// No interference (1) and, when the file has fit-set co-runs, their mean observed slowdown.
  std::vector<BaselineScore> baselines;
  /// The smaller mean |error| of the baselines (NaN when there is none).
  double best_baseline_mape() const;
  std::vector<CheckedPower> power;
  ErrorSummary power_overall;
  std::vector<std::string> notes;
  std::string text() const; ///< the human-readable report
};

ErrorSummary summarise(const std::vector<double>& rel_errors);

/// The simulator's sharing mode for a measurement mode; nullopt for a mode it does not model.
std::optional<SharingMode> sharing_mode_of(const std::string& mode);

/// Checks the co-runs of set `set` ("check"; "" = every co-run). Throws std::invalid_argument when there is
/// none to check.
CheckReport check_calibration(const Calibration& calibration, const MeasurementSet& data,
                              const std::string& set, double fmax_mhz = 0);

} // namespace colocsim
