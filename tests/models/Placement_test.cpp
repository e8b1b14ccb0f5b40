// predict_device (models/Placement.hpp): the one prediction behind ClusterView::predict, which the engine and
// the policies' test double both call. Values worked out by hand from the sharing formulas
// (models/Interference.hpp), with no interference model on top and no bandwidth use (bound 1).
#include "models/Placement.hpp"
#include "tests/CatchCompat.hpp"

#include <vector>

using namespace colocsim;
using colocsim::test::WithinRel;

namespace {
ResourceSignature with_duty(double duty)
{
  ResourceSignature s;
  s.duty_cycle = duty;
  return s;
}
} // namespace

TEST_CASE("time-slice: the placed job and the worst co-runner, each against itself alone", "[placement]")
{
  // θ = 2, ε = 0; duties a 0.5, c 0.25 and the placed job b 1.0: Σd = 1.75, and for each job j
  // f_j = max(1, Σd, 1 + θ·d_j·(Σd − d_j)): b 1 + 2·1·0.75 = 2.5, a 1 + 2·0.5·1.25 = 2.25,
  // c max(1.75, 1 + 2·0.25·1.5 = 1.75) = 1.75. Alone on the device every job runs at 1.
  const TimeSliceParams ts{Sourced{2.0}, Sourced{0.0}};
  const NoInterference none;
  const ResourceSignature a = with_duty(0.5), c = with_duty(0.25), b = with_duty(1.0);
  const std::vector<const ResourceSignature*> residents{&a, &c, &b};
  std::vector<double> slow(3);
  const DevicePrediction p = predict_device(SharingMode::TIME_SLICE, ts, none, residents, {}, slow);
  CHECK_THAT(slow[0], WithinRel(2.25, 1e-12));
  CHECK_THAT(slow[1], WithinRel(1.75, 1e-12));
  CHECK_THAT(slow[2], WithinRel(2.5, 1e-12));
  CHECK_THAT(p.job_slowdown, WithinRel(2.5, 1e-12));
  CHECK_THAT(p.job_interference, WithinRel(2.5, 1e-12));
  CHECK_THAT(p.max_corunner_slowdown, WithinRel(2.25, 1e-12));
  CHECK_THAT(p.max_corunner_interference, WithinRel(2.25, 1e-12));
}

TEST_CASE("mps: a capped job's own cap is not interference, as alone means alone with its cap", "[placement]")
{
  // Resident a (duty 1, share 1, cap 1) and the placed b (duty 1, share 1, cap 0.5). Demand
  // Σ d·min(share, cap) = 1 + 0.5 = 1.5; f_j = max(1, share_j / cap_j, demand): b max(1, 2, 1.5) = 2,
  // a max(1, 1, 1.5) = 1.5. Alone: b max(1, 2, 0.5) = 2 (interference 2 / 2 = 1), a 1 (1.5 / 1).
  const TimeSliceParams ts{Sourced{1.0}, Sourced{0.0}};
  const NoInterference none;
  const ResourceSignature a = with_duty(1.0), b = with_duty(1.0);
  const std::vector<const ResourceSignature*> residents{&a, &b};
  const std::vector<double> caps{1.0, 0.5};
  std::vector<double> slow(2);
  const DevicePrediction p = predict_device(SharingMode::MPS, ts, none, residents, caps, slow);
  CHECK_THAT(p.job_slowdown, WithinRel(2.0, 1e-12));
  CHECK_THAT(p.job_interference, WithinRel(1.0, 1e-12));
  CHECK_THAT(p.max_corunner_slowdown, WithinRel(1.5, 1e-12));
  CHECK_THAT(p.max_corunner_interference, WithinRel(1.5, 1e-12));
}

TEST_CASE("a job placed alone has no co-runner and no interference", "[placement]")
{
  const TimeSliceParams ts{Sourced{1.0}, Sourced{0.05}};
  const NoInterference none;
  const ResourceSignature b = with_duty(0.7);
  const std::vector<const ResourceSignature*> residents{&b};
  std::vector<double> slow(1);
  const DevicePrediction p = predict_device(SharingMode::TIME_SLICE, ts, none, residents, {}, slow);
  CHECK(p.job_slowdown == 1.0); // one resident: no switching at all (ε applies only when shared)
  CHECK(p.job_interference == 1.0);
  CHECK(p.max_corunner_slowdown == 0.0);
  CHECK(p.max_corunner_interference == 0.0);
}
