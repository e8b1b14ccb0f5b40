// The solo-utilisation interference model (models/SoloUtilisation.hpp) against slowdowns worked out by hand
// from its formula: slowdown_j = max(floor, 1 + η + θ Σ_{i≠j} u_i^γ / (u_i^γ + u_j^γ)), a total in
// time-slice and mps, nothing elsewhere.
#include "models/SoloUtilisation.hpp"
#include "tests/CatchCompat.hpp"

#include <vector>

using namespace colocsim;
using colocsim::test::WithinAbs;

namespace {
ResourceSignature sig(double u, double duty = 1.0, double c = 0.0)
{
  ResourceSignature s;
  s.vec_util = u;
  s.duty_cycle = duty;
  s.compute_share = c;
  s.bw_util = 0.0;
  return s;
}

std::vector<double> slowdowns(SharingMode mode, const InterferenceModel& model,
                              const std::vector<ResourceSignature>& jobs)
{
  std::vector<const ResourceSignature*> ptrs;
  for (const auto& j : jobs)
    ptrs.push_back(&j);
  std::vector<double> out(jobs.size());
  TimeSliceParams ts{};
  compute_slowdowns(mode, ts, model, ptrs, out);
  return out;
}
} // namespace

TEST_CASE("solo-utilisation: a pair under mps, by hand", "[interference]")
{
  // θ 0.7, γ 2, η 0.25; u 0.4 and 0.1: share of the light job against the heavy one = 0.01 / 0.17 =
  // 0.0588235, so the heavy job: 1.25 + 0.7 × 0.0588235 = 1.2911765; the light one: share 0.16 / 0.17 =
  // 0.9411765, 1.25 + 0.7 × 0.9411765 = 1.9088235. MPS floor Σ d·c = 0.4 + 0.1 = 0.5 < both.
  const SoloUtilisationInterference model;
  const auto s = slowdowns(SharingMode::MPS, model, {sig(0.4, 1.0, 0.4), sig(0.1, 1.0, 0.1)});
  CHECK_THAT(s[0], WithinAbs(1.2911765, 1e-7));
  CHECK_THAT(s[1], WithinAbs(1.9088235, 1e-7));
  // Equal utilisations: share 1/2 each, 1.25 + 0.35 = 1.6 (xmx_util counts as u too).
  ResourceSignature x = sig(0.0, 1.0, 0.3);
  x.xmx_util = 0.3;
  const auto e = slowdowns(SharingMode::MPS, model, {x, x});
  CHECK_THAT(e[0], WithinAbs(1.6, 1e-12));
  CHECK_THAT(e[1], WithinAbs(1.6, 1e-12));
}

TEST_CASE("solo-utilisation: the engine's floor, 3 jobs, other modes", "[interference]")
{
  const SoloUtilisationInterference model(SoloUtilisationParams{.theta = 0.5, .gamma = 1.0, .eta = 0.1});
  // time-slice, three jobs of duty cycle 1, u 0.2 each: law 1.1 + 0.5 × (0.5 + 0.5) = 1.6, but the engine
  // is oversubscribed: floor Σd = 3 holds.
  const auto ts = slowdowns(SharingMode::TIME_SLICE, model, {sig(0.2), sig(0.2), sig(0.2)});
  CHECK_THAT(ts[0], WithinAbs(3.0, 1e-12));
  // time-slice with duty cycles 0.3: floor 0.9, law 1.6.
  const auto light = slowdowns(SharingMode::TIME_SLICE, model, {sig(0.2, 0.3), sig(0.2, 0.3), sig(0.2, 0.3)});
  CHECK_THAT(light[2], WithinAbs(1.6, 1e-12));
  // γ = 1, u 0.3 vs 0.1 and 0.6 under mps: shares 0.1/0.4 = 0.25 and 0.6/0.9 = 0.6667, 1.1 + 0.5 × 0.916667
  // = 1.5583333 (floor Σ d·c with c = 0: 0).
  const auto three = slowdowns(SharingMode::MPS, model, {sig(0.3), sig(0.1), sig(0.6)});
  CHECK_THAT(three[0], WithinAbs(1.5583333, 1e-7));
  // Alone: 1. Exclusive, mig, ccs: not this model's (factor 1, not a total).
  CHECK_THAT(slowdowns(SharingMode::MPS, model, {sig(0.3)})[0], WithinAbs(1.0, 1e-12));
  CHECK_FALSE(model.gives_total_slowdown(SharingMode::CCS_2));
  CHECK_FALSE(model.gives_total_slowdown(SharingMode::MIG));
  const auto j = sig(0.3);
  const auto o = sig(0.6);
  const std::vector<const ResourceSignature*> one{&o};
  CHECK(model.factor(j, one, SharingMode::CCS_2) == 1.0);
  // A job with no measured utilisation counts as U_FLOOR: next to u 0.6 (γ 1) its co-runner's share is 0.6 /
  // 0.601.
  CHECK_THAT(model.share(sig(0.0), o), WithinAbs(0.6 / (0.6 + 1e-3), 1e-12));
}
