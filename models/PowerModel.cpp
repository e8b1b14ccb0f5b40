#include "models/PowerModel.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace colocsim {

namespace {
struct Utilisation {
  double vec = 0, xmx = 0, bw = 0; // clamped to [0, 1]
  double vec_raw = 0, xmx_raw = 0, bw_raw = 0;
};

Utilisation utilisation(std::span<const PowerLoad> jobs)
{
  Utilisation u;
  for (const auto& j : jobs) {
    u.vec_raw += j.sig->vec_util * j.rate;
    u.xmx_raw += j.sig->xmx_util * j.rate;
    u.bw_raw += j.sig->bw_util * j.rate;
  }
  u.vec = std::min(1.0, u.vec_raw);
  u.xmx = std::min(1.0, u.xmx_raw);
  u.bw = std::min(1.0, u.bw_raw);
  return u;
}

/// x^y, remembering the last few results. The engine evaluates the power of a device at every change of its
/// residents, and each evaluation takes the same few powers (a device type's frequency ratios raised to its
/// exponent γ): std::pow was 6 % of the instructions of a million-job run. The result is std::pow's, bit for
/// bit.
double pow_memo(double x, double y)
{
  struct Entry {
    double x, y, r;
  };
  constexpr std::size_t SIZE = 4;
  thread_local std::array<Entry, SIZE> memo = [] {
    std::array<Entry, SIZE> m{};
    for (auto& e : m)
      e = {std::numeric_limits<double>::quiet_NaN(), 0.0, 1.0}; // NaN^0 = 1: an unused entry is a right one
    return m;
  }();
  thread_local std::size_t next = 0;
  for (const auto& e : memo) // bit patterns: -0.0 and 0.0 differ here
    if (std::bit_cast<std::uint64_t>(e.x) == std::bit_cast<std::uint64_t>(x) &&
        std::bit_cast<std::uint64_t>(e.y) == std::bit_cast<std::uint64_t>(y))
      return e.r;
  auto& e = memo[next];
  next = (next + 1) % SIZE;
  e = {x, y, std::pow(x, y)};
  return e.r;
}

double scale(double clamped, double raw)
{
  return raw > 0 ? clamped / raw : 0.0;
}
/// The clock the tile's static power sees: the device's frequency while a job is resident or when the
/// clock is pinned, the idle clock otherwise.
double static_ratio(const PowerParams& p, bool idle, double freq_ratio)
{
  return idle && !p.clock_pinned ? p.idle_freq_ratio : freq_ratio;
}
} // namespace

double static_power(const PowerParams& p, double freq_ratio)
{
  const double lo = p.idle_w.value, hi = p.idle_fmax_w.value;
  if (hi <= lo) return lo; // not set (0) or flat: no clock dependence
  const double ri = std::clamp(p.idle_freq_ratio, 0.0, 1.0);
  const double r = std::clamp(freq_ratio, ri, 1.0);
  const double gi = pow_memo(ri, p.gamma.value);
  if (gi >= 1.0) return hi;
  return lo + (hi - lo) * (pow_memo(r, p.gamma.value) - gi) / (1.0 - gi);
}

PowerBreakdown device_power(const PowerParams& p, std::span<const PowerLoad> jobs, double freq_ratio)
{
  const auto u = utilisation(jobs);
  PowerBreakdown b;
  b.static_w =
      static_power(p, static_ratio(p, jobs.empty(), freq_ratio)) + (jobs.empty() ? 0.0 : p.context_w.value);
  const double fscale = pow_memo(freq_ratio, p.gamma.value);
  b.total_w = b.static_w + fscale * (p.vec_w.value * u.vec + p.xmx_w.value * u.xmx) + p.bw_w.value * u.bw;
  return b;
}

void attribute_power(const PowerParams& p, std::span<const PowerLoad> jobs, double freq_ratio,
                     std::span<double> out)
{
  if (jobs.empty()) return;
  const auto u = utilisation(jobs);
  const double fscale = pow_memo(freq_ratio, p.gamma.value);
  const double static_share = (static_power(p, static_ratio(p, false, freq_ratio)) + p.context_w.value) /
                              static_cast<double>(jobs.size());
  // When the summed demand of a resource exceeds the device, each job's share is scaled down alike.
  const double sv = scale(u.vec, u.vec_raw), sx = scale(u.xmx, u.xmx_raw), sb = scale(u.bw, u.bw_raw);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& s = *jobs[i].sig;
    const double r = jobs[i].rate;
    out[i] = static_share +
             fscale * (p.vec_w.value * s.vec_util * r * sv + p.xmx_w.value * s.xmx_util * r * sx) +
             p.bw_w.value * s.bw_util * r * sb;
  }
}

} // namespace colocsim
