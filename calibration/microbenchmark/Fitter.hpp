#pragma once
// The Eigen fitter: model coefficients from microbenchmark measurements (docs/architecture.md, Calibration
// and provenance), and a calibration file built from them (`colocsim calibrate fit`). The models fitted are
// those of models/:
//
//   DVFS         t(f) = t(f_max) · (β · f_max/f + 1 − β)                       per kernel, linear LS
//   power        P = P_idle + [ctx]·P_ctx + (f/f_max)^γ · P_vec·u_vec + P_bw·u_bw
//                separable least squares: γ by a grid then golden-section search on [0.5, 4], the
//                linear coefficients by column-pivoting QR at each γ (variable projection)
//   co-runs      s_j = max(1, Σd, 1 + θ·d_j·Σ_{i≠j} d_i) · (1 + ε) · T[class_j][class_other]
//                least squares on log s over the fit set's two-job time-slice co-runs: θ by a grid then
//                golden-section search on [0, 2] with one free offset per class pair; ε = the smallest
//                pair offset (the part common to all pairs), T = the rest (≥ 1; see fit_coruns)
//
// A coefficient the data cannot identify (one frequency → no γ, no β; no energy → no power; no idle
// window → P_idle and P_ctx not separable; no two-job run with both duty cycles < 1 → no θ) is not fitted:
// it keeps the base calibration's value, tag and source, and the report says why. Fitted values are tagged
// measured-by-microbenchmark with the measurement's backend, device, host and date in their source.
#include "calibration/Calibration.hpp"
#include "calibration/microbenchmark/MeasurementSet.hpp"

#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace colocsim {

struct FitStats {
  int n = 0;
  double r2 = std::numeric_limits<double>::quiet_NaN();   ///< 1 − SS_res/SS_tot (NaN when SS_tot = 0)
  double rmse = std::numeric_limits<double>::quiet_NaN(); ///< in the unit of the fitted quantity
};

struct DvfsFit {
  double t_fmax_s = 0;
  double beta = 0;
  FitStats stats;
  std::vector<double> residuals_s;
};

/// β and t(f_max) from times at several frequency ratios f/f_max. Throws std::invalid_argument with fewer
/// than two distinct ratios or mismatched sizes.
DvfsFit fit_dvfs(std::span<const double> freq_ratio, std::span<const double> time_s);

struct PowerSample {
  double freq_ratio = 1; ///< f / f_max
  double u_vec = 0, u_bw = 0;
  bool context = true;
  double power_w = 0;
};

struct PowerFit {
  std::optional<double> idle_w, context_w, vec_w, bw_w, gamma; ///< nullopt: not identifiable from the data
  double intercept_w = 0; ///< fitted constant: idle (+ context where not separable)
  FitStats stats;
  std::vector<double> residuals_w;
  std::vector<std::string> notes;
};

/// Fits the power curve; `gamma_prior` is used (and reported) when γ is not identifiable. Throws
/// std::invalid_argument with fewer samples than identifiable coefficients.
PowerFit fit_power(std::span<const PowerSample> samples, double gamma_prior);

/// One job of a two-job time-slice co-run.
struct CoRunSample {
  std::vector<double> duties; ///< solo duty cycles of both co-runners
  std::size_t j = 0;          ///< the job observed (index into duties)
  double slowdown = 1;        ///< observed
  JobClass row = JobClass::C; ///< class of the observed job
  JobClass col = JobClass::C; ///< class of its co-runner
};

struct TableCell {
  double value = 1;
  int n = 0;
  double min = 0, max = 0; ///< of the cell's slowdown / sharing factor (with ε)
  bool floored = false;    ///< the cell's excess was below ε's: written as 1
};

struct CoRunFit {
  std::optional<double> collision; ///< θ; nullopt: not identifiable
  double switch_overhead = 0;      ///< ε
  std::map<std::pair<JobClass, JobClass>, TableCell> table;
  FitStats stats;                ///< on slowdowns, full model
  std::vector<double> predicted; ///< per sample
  std::vector<std::string> notes;
};

/// The time-slice sharing factor of models/Interference.hpp for these duty cycles.
double time_slice_factor(const std::vector<double>& duties, std::size_t j, double collision, double overhead);

/// Fits θ, ε and the table cells of the class pairs present:
///   log s = log max(1, Σd, 1 + θ·d_j·Σ_{i≠j} d_i) + c_cell,   c_cell = log(1 + ε) + log T[row][col]
/// θ minimises the within-cell residuals (a 1-D search; c_cell is the cell mean at each θ). ε and the
/// table are confounded by construction (a factor common to every pair could sit in either); colocsim
/// puts the common part in ε: ε = exp(min_cell c_cell) − 1 (0 if negative), T = exp(c_cell) / (1 + ε),
/// so the least-interfering measured pair has T = 1. `collision_prior` is used when θ is not identifiable
/// (no sample where bursts collide, i.e. two duty cycles < 1). Throws std::invalid_argument for no samples.
CoRunFit fit_coruns(std::span<const CoRunSample> samples, double collision_prior);

struct FitOptions {
  Calibration base;               ///< values kept where the data cannot identify them
  std::string name;               ///< calibration name ("" = base name + "-fitted")
  std::string device;             ///< device catalog entry ("" = base device)
  std::optional<double> fmax_mhz; ///< f_max for f/f_max ("" = highest pinned frequency)
  std::string measurements_file;  ///< for provenance text
};

struct FitResult {
  Calibration calibration;
  std::vector<std::string> header; ///< comment lines for the written file
  std::string report;              ///< human-readable: every fit, its statistics and residuals
};

/// Fits everything the measurements identify (fit set only). Throws std::invalid_argument when the
/// measurements hold no solo run at all.
FitResult fit_calibration(const MeasurementSet& data, const FitOptions& options);

} // namespace colocsim
