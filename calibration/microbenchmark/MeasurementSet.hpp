#pragma once
// Measurements organised for the fitter and the model check: solo references by (kernel, duty cycle,
// frequency, mode), co-runs with each job's observed slowdown and solo duty cycle, the achieved peaks,
// and one power sample per run with its activity. Both `calibrate fit` and `calibrate check` read a CSV
// through this class, so they agree on every derived number.
//
// Definitions (docs/calibration-guide.md):
// - frequency key: freq_set_mhz, 0 when the device ran at its default.
// - solo reference: median over repetitions of t_iter_s, t_global_s, duty_measured of solo rows.
// - observed slowdown of a co-run job: its t_iter_s / t_iter_s of its solo reference at the same frequency
//   in the reference mode (the first solo row's mode: `time-slice` or `ccs1`), i.e. relative to running
//   alone on the whole device, as the simulator's slowdown is defined.
// - repeated co-runs: one observation per distinct co-run, each job's slowdown the median over the
//   repetitions that were not impossible readings.
// - impossible reading: a co-run job observed faster than MIN_PLAUSIBLE_SLOWDOWN × its solo time. Sharing a
//   device never speeds a job up, so such a reading means the solo reference or the co-run was disturbed
//   (on a CPU: the host's other processes took the core during one of them); the whole run is left out of
//   fit and check, and `skipped` says so with the number.
// - job class: the kernel's catalog class; the intensity kernel is C above the measured machine balance
//   (peak fp32 flop/s ÷ peak bytes/s) and MS below it.
// - activity (power model): time-averaged over the window, u_vec = Σ flops/t_iter ÷ peak flop/s of the
//   kernel's precision at that frequency, u_bw = Σ bytes/t_iter ÷ peak bytes/s (cache-resident kernels 0),
//   both capped at 1; peaks are the best solo fma_fp32 / fma_fp64 and triad / copy rates in the file.
#include "calibration/microbenchmark/Kernels.hpp"
#include "calibration/microbenchmark/Measurements.hpp"

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace colocsim {

struct SoloStats {
  KernelConfig kernel;
  double duty = 1;
  double freq_mhz = 0;
  std::string mode;
  double t_iter_s = 0;
  double t_global_s = 0;
  double duty_measured = 1;
  double flops = 0, bytes = 0;
  int samples = 0;
};

struct CoRunJob {
  KernelConfig kernel;
  double duty = 1; ///< requested
  JobClass job_class = JobClass::C;
  double duty_solo = 1; ///< measured alone (clamped to (0, 1])
  double slowdown = 1;  ///< observed
  double t_iter_s = 0;
  std::string label; ///< "triad@0.5"
};

struct CoRunObservation {
  int run_id = 0;
  std::string set;
  std::string mode;
  double freq_mhz = 0;
  std::vector<CoRunJob> jobs; ///< in rank order
  double power_w = 0;         ///< NaN when no energy
  int repetitions = 1;        ///< runs merged into this observation (run_id: the first)
  std::string label() const;  ///< "fma_fp32@1 + triad@0.5"
};

struct PowerObservation {
  int run_id = 0;
  std::string kind;
  std::string label;
  double freq_mhz = 0; ///< frequency used for f/f_max (set, else actual, else f_max)
  double u_vec = 0, u_bw = 0;
  bool context = false; ///< a context was open (every kind but idle)
  double power_w = 0;
};

/// Co-run jobs observed faster than this fraction of their solo time are impossible readings (see above).
/// Timing noise: in four pocl campaigns on the loaded 2-core CI host (pinned workers), a solo run's fastest
/// sub-window median was within 5 % of the run's median in 9 of 10 runs (measured while t_iter_s was still a
/// median of sub-window medians; sub-window means scatter less); 20 % below 1 is four times that.
inline constexpr double MIN_PLAUSIBLE_SLOWDOWN = 0.8;

class MeasurementSet {
public:
  explicit MeasurementSet(std::vector<MeasurementRow> rows);

  const std::vector<MeasurementRow>& rows() const { return rows_; }
  const std::string& reference_mode() const { return reference_mode_; }
  static bool is_time_slice(const std::string& mode) { return mode == "time-slice" || mode == "ccs1"; }

  /// Solo reference in `mode` ("" = the reference mode), or nullptr.
  const SoloStats* solo(const KernelConfig& kernel, double duty, double freq_mhz,
                        const std::string& mode = "") const;
  const std::map<std::tuple<KernelConfig, double, double, std::string>, SoloStats>& solos() const
  {
    return solos_;
  }

  /// Co-runs of `set` ("" = all) in modes accepted by `mode_filter` (nullptr = all). Runs that cannot be
  /// used (a job without solo reference or without a finished launch, an impossible reading) are left out,
  /// and said so in `skipped`. Repetitions of the same co-run (set, mode, frequency, jobs in rank order) are
  /// merged into one observation: each job's median slowdown over them (median power too).
  std::vector<CoRunObservation> coruns(const std::string& set,
                                       bool (*mode_filter)(const std::string&) = nullptr,
                                       std::vector<std::string>* skipped = nullptr) const;

  /// One sample per run with an energy reading (idle, idle-context, solo, co-run).
  std::vector<PowerObservation> power_observations() const;

  JobClass job_class(const KernelConfig& kernel) const;
  /// compute_share c of a kernel (models/ResourceSignature.hpp) from its duty-1 solo runs in k-CCS modes:
  /// t(ccs-k) / t(reference) = max(1, c·k), so c = ratio / k where the ratio exceeds 1.02; where it does not,
  /// c <= 1/k and 1/k is returned (the same factor in that mode). nullopt without CCS solo runs.
  std::optional<double> compute_share(const KernelConfig& kernel) const;
  /// Time-averaged utilisations of one job alone at freq (from its solo reference).
  std::pair<double, double> solo_activity(const SoloStats& solo) const;

  double peak_flops(bool fp64, double freq_mhz) const; ///< NaN when unknown
  double peak_bytes_per_s() const { return peak_bw_; }
  double fmax_mhz() const { return fmax_mhz_; } ///< highest pinned frequency, 0 when none was pinned
  bool has_energy() const;

  std::string host, date, backend, device; ///< of the first row
  std::vector<std::string> warnings;       ///< rows skipped and why

private:
  double activity_flops(const KernelConfig& k, double flops_per_s, double freq_mhz) const;
  double activity_bytes(const KernelConfig& k, double bytes_per_s) const;

  std::vector<MeasurementRow> rows_;
  std::string reference_mode_;
  std::map<std::tuple<KernelConfig, double, double, std::string>, SoloStats> solos_;
  std::map<double, double> peak_fp32_, peak_fp64_; ///< by frequency key
  double peak_bw_ = 0;
  double fmax_mhz_ = 0;
};

} // namespace colocsim
