#include "models/SoloUtilisation.hpp"

#include <algorithm>
#include <cmath>

namespace colocsim {

namespace {
double utilisation(const ResourceSignature& s)
{
  return std::max({s.vec_util, s.xmx_util, SoloUtilisationInterference::U_FLOOR});
}
} // namespace

double SoloUtilisationInterference::share(const ResourceSignature& job, const ResourceSignature& other) const
{
  const double uj = std::pow(utilisation(job), p_.gamma);
  const double ui = std::pow(utilisation(other), p_.gamma);
  return ui / (ui + uj);
}

bool SoloUtilisationInterference::gives_total_slowdown(SharingMode mode) const
{
  return mode == SharingMode::TIME_SLICE || mode == SharingMode::MPS;
}

double SoloUtilisationInterference::factor(const ResourceSignature& job,
                                           std::span<const ResourceSignature* const> others,
                                           SharingMode mode) const
{
  if (!gives_total_slowdown(mode) || others.empty()) return 1.0;
  double pair = 1.0 + p_.eta;
  // The engine's bound: time-slice Σ d (kernels never overlap), mps Σ d · c (SM demand).
  const auto demand = [&](const ResourceSignature& s) {
    return mode == SharingMode::MPS ? s.duty_cycle * s.compute_share : s.duty_cycle;
  };
  double floor = demand(job);
  for (const auto* o : others) {
    pair += p_.theta * share(job, *o);
    floor += demand(*o);
  }
  return std::max({1.0, floor, pair});
}

} // namespace colocsim
