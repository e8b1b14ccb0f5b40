#pragma once
// The models' measured error, made part of the simulated world (docs/formats/scenario.md, model_error): the
// engine multiplies the slowdowns the interference and MIG models predict by lognormal factors of mean 1,
// drawn deterministically from the scenario's seed and the profiles involved, so that a run is one possible
// world in which the models are as wrong as their validation measured. Policies still see the models' own
// values (ClusterView::predict is their belief); only the rates the engine applies carry the error.
//
// The draw, for a σ > 0, the seed s, a salt ("interference" or "mig") and two names a, b (the slowed job's
// profile and its co-runner's profile, or the job's profile and its MIG profile), is portable (no
// std::*_distribution; the same on every platform up to the C library's log, cos and exp):
//
//   h  = splitmix64(s ^ splitmix64(fnv1a64(salt) ^ splitmix64(fnv1a64(a) ^ splitmix64(fnv1a64(b)))))
//   u1 = ((h >> 11) + 1) · 2^-53                (in (0, 1])
//   u2 = (splitmix64(h) >> 11) · 2^-53          (in [0, 1))
//   z  = sqrt(−2 ln u1) · cos(2π u2)            (Box–Muller: a standard normal)
//   factor = exp(σ z − σ²/2)                    (lognormal, mean 1)
//
// fnv1a64 and splitmix64 are workloads/StableHash.hpp's. The pair is ordered: how much b slows a is drawn
// apart from how much a slows b.
#include "workloads/StableHash.hpp"

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string_view>

namespace colocsim {

/// The lognormal σ of each model's error; 0: that model is taken as exact (the default).
struct ModelError {
  /// σ of the co-run interference factor (the slowdown of a job that shares a device outside mig mode).
  double interference = 0;
  /// σ of the MIG slowdown (a job alone on a GPU instance against the whole GPU).
  double mig = 0;
  std::uint64_t seed = 1; ///< the scenario's seed
  bool active() const { return interference > 0 || mig > 0; }
};

/// σ that makes E|e^{σZ − σ²/2} − 1| = 2(2Φ(σ/2) − 1) equal the interference model's leave-one-family-out
/// MAPE of 45.1 % (experiments/validate-interference/README.md, the `solo-utilisation` row): σ = 0.573
/// [estimate: from that measured error, assuming it is lognormal].
inline constexpr double MEASURED_INTERFERENCE_SIGMA = 0.573;
/// The same for the MIG law's leave-one-workload-out MAPE of 7.2 % over all slices
/// (experiments/validate-mig/README.md, Results): σ = 0.090 [estimate: likewise].
inline constexpr double MEASURED_MIG_SIGMA = 0.090;

/// Where the two σ above come from, in words (advise.json, report.html).
inline constexpr const char* MODEL_ERROR_SOURCE =
    "estimate: the lognormal sigma whose mean absolute error 2(2 Phi(sigma/2) - 1) equals the measured MAPE, "
    "45.1 % for interference (experiments/validate-interference, leave one family out) and 7.2 % for MIG "
    "(experiments/validate-mig, leave one workload out)";

/// The standard normal z of (seed, salt, a, b) (the header comment's formula).
inline double model_error_normal(std::uint64_t seed, std::string_view salt, std::string_view a,
                                 std::string_view b)
{
  const std::uint64_t h =
      splitmix64(seed ^ splitmix64(fnv1a64(salt) ^ splitmix64(fnv1a64(a) ^ splitmix64(fnv1a64(b)))));
  const double u1 = static_cast<double>((h >> 11) + 1) * 0x1.0p-53;
  const double u2 = static_cast<double>(splitmix64(h) >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

/// exp(σ z − σ²/2) for (seed, salt, a, b); exactly 1 for σ = 0.
inline double model_error_factor(double sigma, std::uint64_t seed, std::string_view salt, std::string_view a,
                                 std::string_view b)
{
  if (sigma == 0) return 1.0;
  return std::exp(sigma * model_error_normal(seed, salt, a, b) - 0.5 * sigma * sigma);
}

} // namespace colocsim
