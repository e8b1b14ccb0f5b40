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
} // namespace

PowerBreakdown device_power(const PowerParams& p, std::span<const PowerLoad> jobs, double freq_ratio)
{
  const auto u = utilisation(jobs);
  PowerBreakdown b;
  b.static_w = p.idle_w.value + (jobs.empty() ? 0.0 : p.context_w.value);
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
  const double static_share = (p.idle_w.value + p.context_w.value) / static_cast<double>(jobs.size());
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
