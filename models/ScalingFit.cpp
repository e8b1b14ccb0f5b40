#include "models/ScalingFit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace colocsim {

double scaling_curve(double s, double p, double n)
{
  return n <= 1 ? 1.0 : 1.0 / (1.0 + s * std::pow(n - 1.0, p));
}

namespace {

double sum_sq_log(const std::vector<ScalingPoint>& points, double n0, double s, double p)
{
  double sum = 0;
  const double e0 = scaling_curve(s, p, n0);
  for (const auto& pt : points) {
    const double r = std::log(scaling_curve(s, p, pt.n) / e0 / pt.e_rel);
    sum += r * r;
  }
  return sum;
}

/// Golden-section search for the minimum of f on [lo, hi] (f unimodal there; 120 steps shrink the bracket
/// by 0.618^120 ≈ 1e-25, below double precision).
template <class F> double golden_min(F&& f, double lo, double hi)
{
  const double g = (std::sqrt(5.0) - 1.0) / 2.0;
  for (int i = 0; i < 120; ++i) {
    const double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    if (f(a) <= f(b))
      hi = b;
    else
      lo = a;
  }
  return (lo + hi) / 2.0;
}

/// The best s for a fixed p: golden search on ln s in [ln 1e-12, 0] (s spans decades; for a fixed p the
/// sum is unimodal in s since every fitted e_rel(n), n > n0, falls monotonically with s). s = 0 is the
/// limit of the bracket's low end.
double best_s(const std::vector<ScalingPoint>& points, double n0, double p)
{
  const double x =
      golden_min([&](double ls) { return sum_sq_log(points, n0, std::exp(ls), p); }, std::log(1e-12), 0.0);
  const double s = std::exp(x);
  return sum_sq_log(points, n0, 0.0, p) <= sum_sq_log(points, n0, s, p) ? 0.0 : s;
}

} // namespace

ScalingCurveFit fit_scaling_curve(const std::vector<ScalingPoint>& points, double n0, double p_min,
                                  double p_max)
{
  if (points.empty()) throw std::invalid_argument("fit_scaling_curve: no points");
  if (!(n0 >= 1)) throw std::invalid_argument("fit_scaling_curve: the reference count n0 must be >= 1");
  if (!(p_min > 0 && p_min <= p_max && p_max <= 2))
    throw std::invalid_argument("fit_scaling_curve: expected 0 < p_min <= p_max <= 2");
  for (const auto& pt : points)
    if (!(pt.n >= 1) || !(pt.e_rel > 0) || !std::isfinite(pt.e_rel))
      throw std::invalid_argument("fit_scaling_curve: a point needs n >= 1 and a finite e_rel > 0");
  auto cost = [&](double p) { return sum_sq_log(points, n0, best_s(points, n0, p), p); };
  // The profile in p need not be unimodal: a grid of 200 steps, then golden refinement around the best cell.
  const int steps = p_max > p_min ? 200 : 0;
  double best_p = p_min, best_cost = cost(p_min);
  for (int i = 1; i <= steps; ++i) {
    const double p = p_min + (p_max - p_min) * i / steps;
    const double c = cost(p);
    if (c < best_cost) {
      best_cost = c;
      best_p = p;
    }
  }
  if (steps > 0) {
    const double cell = (p_max - p_min) / steps;
    const double p = golden_min(cost, std::max(p_min, best_p - cell), std::min(p_max, best_p + cell));
    if (cost(p) < best_cost) best_p = p;
  }
  ScalingCurveFit fit;
  fit.p = best_p;
  fit.s = best_s(points, n0, best_p);
  fit.rms_log = std::sqrt(sum_sq_log(points, n0, fit.s, fit.p) / static_cast<double>(points.size()));
  return fit;
}

} // namespace colocsim
