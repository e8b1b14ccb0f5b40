// The scaling-curve fit (models/ScalingFit.hpp) on hand-made points whose answer is known.
#include "models/ResourceSignature.hpp"
#include "models/ScalingFit.hpp"

#include "tests/CatchCompat.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

using namespace colocsim;
using colocsim::test::WithinAbs;
using colocsim::test::WithinRel;

TEST_CASE("scaling_curve: 1 / (1 + s (n - 1)^p), by hand", "[scaling]")
{
  // s = 0.02, p = 0.5, n = 17: (n - 1)^0.5 = 4, 1 + 0.08 = 1.08.
  CHECK_THAT(scaling_curve(0.02, 0.5, 17), WithinRel(1.0 / 1.08, 1e-15));
  CHECK(scaling_curve(0.3, 0.7, 1) == 1.0);
  // p = 1 is Amdahl: s = 0.25, n = 4: 1 / (0.25 * 4 + 0.75) = 1 / 1.75.
  CHECK_THAT(scaling_curve(0.25, 1.0, 4), WithinRel(1.0 / 1.75, 1e-15));
}

TEST_CASE("ResourceSignature::scaling_efficiency follows scaling_exponent", "[scaling]")
{
  ResourceSignature sig;
  sig.scaling_serial = 0.02;
  sig.scaling_exponent = 0.5;
  CHECK_THAT(sig.scaling_efficiency(17), WithinRel(1.0 / 1.08, 1e-15)); // as above
  CHECK(sig.scaling_efficiency(1) == 1.0);
  sig.scaling_exponent = 1.0; // Amdahl, 1 / (s n + 1 - s): s = 0.02, n = 51: 1 / 2.
  CHECK_THAT(sig.scaling_efficiency(51), WithinRel(0.5, 1e-15));
}

TEST_CASE("fit_scaling_curve: Amdahl through one point, solved by hand", "[scaling]")
{
  // One point, n0 = 8: e_rel(64) = (1 + 7 s) / (1 + 63 s) = 0.5  =>  1 + 7 s = 0.5 + 31.5 s  =>  s = 0.5
  // / 24.5.
  const auto fit = fit_scaling_curve({{64, 0.5}}, 8, 1.0, 1.0);
  CHECK(fit.p == 1.0);
  CHECK_THAT(fit.s, WithinRel(0.5 / 24.5, 1e-9));
  CHECK_THAT(fit.rms_log, WithinAbs(0.0, 1e-9));
}

TEST_CASE("fit_scaling_curve: recovers (s, p) from points made with them", "[scaling]")
{
  // Points of e(n) = 1 / (1 + 0.03 (n - 1)^0.7) relative to n0 = 8, at four counts up to 2048.
  const double s = 0.03, p = 0.7;
  auto e = [&](double n) { return 1.0 / (1.0 + s * std::pow(n - 1.0, p)); };
  std::vector<ScalingPoint> points;
  for (double n : {16.0, 64.0, 512.0, 2048.0})
    points.push_back({n, e(n) / e(8)});
  const auto fit = fit_scaling_curve(points, 8);
  CHECK_THAT(fit.s, WithinRel(s, 1e-4));
  CHECK_THAT(fit.p, WithinRel(p, 1e-4));
  CHECK(fit.rms_log < 1e-6);
}

TEST_CASE("fit_scaling_curve: the least squares is in relative (log) terms", "[scaling]")
{
  // Two points that Amdahl cannot both meet, n0 = 1 (so e_rel = e): e(2) = 1/1.5 (s = 0.5) and e(3) = 1/3
  // (s = 1). With x = ln e_rel, the optimum s minimises (ln(1 + s) - ln 1.5)^2 + (ln(1 + 2 s) - ln 3)^2;
  // brute force over s in steps of 1e-6 on [0, 1] (below) gives the same s as the fit, and the absolute
  // least squares would give another one.
  const std::vector<ScalingPoint> points{{2, 1 / 1.5}, {3, 1 / 3.0}};
  double best_s = 0, best = 1e300;
  for (int i = 0; i <= 1000000; ++i) {
    const double si = i * 1e-6;
    const double a = std::log(1 + si) - std::log(1.5), b = std::log(1 + 2 * si) - std::log(3.0);
    if (a * a + b * b < best) {
      best = a * a + b * b;
      best_s = si;
    }
  }
  const auto fit = fit_scaling_curve(points, 1, 1.0, 1.0);
  CHECK_THAT(fit.s, WithinAbs(best_s, 2e-6));
  CHECK_THAT(fit.rms_log, WithinRel(std::sqrt(best / 2), 1e-6));
}

TEST_CASE("fit_scaling_curve: bad input is refused", "[scaling]")
{
  CHECK_THROWS_AS(fit_scaling_curve({}, 8), std::invalid_argument);
  CHECK_THROWS_AS(fit_scaling_curve({{64, 0.0}}, 8), std::invalid_argument);
  CHECK_THROWS_AS(fit_scaling_curve({{64, 0.5}}, 0.5), std::invalid_argument);
  CHECK_THROWS_AS(fit_scaling_curve({{64, 0.5}}, 8, 0.0, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(fit_scaling_curve({{64, 0.5}}, 8, 1.0, 3.0), std::invalid_argument);
}
