#include "models/PowerModel.hpp"

#include <algorithm>
#include <cmath>

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
  const double gi = std::pow(ri, p.gamma.value);
  if (gi >= 1.0) return hi;
  return lo + (hi - lo) * (std::pow(r, p.gamma.value) - gi) / (1.0 - gi);
}

PowerBreakdown device_power(const PowerParams& p, std::span<const PowerLoad> jobs, double freq_ratio)
{
  const auto u = utilisation(jobs);
  PowerBreakdown b;
  b.static_w =
      static_power(p, static_ratio(p, jobs.empty(), freq_ratio)) + (jobs.empty() ? 0.0 : p.context_w.value);
  const double fscale = std::pow(freq_ratio, p.gamma.value);
  b.total_w = b.static_w + fscale * (p.vec_w.value * u.vec + p.xmx_w.value * u.xmx) + p.bw_w.value * u.bw;
  return b;
}

void attribute_power(const PowerParams& p, std::span<const PowerLoad> jobs, double freq_ratio,
                     std::span<double> out)
{
  if (jobs.empty()) return;
  const auto u = utilisation(jobs);
  const double fscale = std::pow(freq_ratio, p.gamma.value);
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
