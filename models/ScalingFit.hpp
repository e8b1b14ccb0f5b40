#pragma once
// Fitting a gang scaling-efficiency curve to measured times-to-train (models/README.md, "Scaling curves").
//
// The curve is ResourceSignature::scaling_efficiency: e(n) = 1 / (1 + s · (n − 1)^p), e(1) = 1 (p = 1 is
// Amdahl). Measurements rarely include one device: MLPerf Training systems start at 4 or 8 GPUs. So the
// points are efficiencies relative to a reference count n0,
//
//     e_rel(n) = n0 · T(n0) / (n · T(n)) = e(n) / e(n0),
//
// and the fit minimises the squared relative (log) residuals Σ ln²(e(n)/e(n0) / e_rel(n)) over s ∈ [0, 1]
// and p ∈ [p_min, p_max]: a relative error weighs the small efficiencies of the largest systems as much as
// the large ones of small systems (an absolute least squares leaves the largest scale off by a factor 2-4).
#include <vector>

namespace colocsim {

/// One measured efficiency relative to the reference count: e_rel(n) = n0 · T(n0) / (n · T(n)) > 0.
struct ScalingPoint {
  double n = 1;
  double e_rel = 1;
};

struct ScalingCurveFit {
  double s = 0;       ///< scaling_serial
  double p = 1;       ///< scaling_exponent
  double rms_log = 0; ///< sqrt(mean of ln²(fitted / measured)) at the optimum
};

/// e(n) = 1 / (1 + s · (n − 1)^p) for n ≥ 1 (1 below).
double scaling_curve(double s, double p, double n);

/// The (s, p) minimising Σ ln²(e(n)/e(n0) / e_rel) over the points (s in [0, 1], p in [p_min, p_max]; pass
/// p_min = p_max = 1 for Amdahl). Throws std::invalid_argument on no points, n0 < 1, a point with n < 1 or
/// e_rel ≤ 0, or 0 < p_min ≤ p_max ≤ 2 violated.
ScalingCurveFit fit_scaling_curve(const std::vector<ScalingPoint>& points, double n0, double p_min = 0.3,
                                  double p_max = 1.0);

} // namespace colocsim
