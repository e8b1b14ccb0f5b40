// The experiment planner: run counts and order for the OpenCL quick plan (the CI campaign) and a Level Zero
// plan with a frequency sweep and CCS modes, the solo-before-co-run invariant, and rejected options.
#include "calibration/microbenchmark/Plan.hpp"
#include "tests/CatchCompat.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

using namespace colocsim;

namespace {
std::map<std::string, int> count_by(const std::vector<PlannedRun>& plan)
{
  std::map<std::string, int> c;
  for (const auto& r : plan)
    ++c[std::string(to_string(r.kind)) + "/" + r.set + "/" + r.mode];
  return c;
}
} // namespace

TEST_CASE("quick OpenCL plan: solos, fit pairs, held-out co-runs", "[calibration][plan]")
{
  PlanOptions o;
  o.quick = true;
  o.intensity_ladder = {1, 16};
  const auto plan = plan_campaign(o);
  REQUIRE(check_plan(plan).empty());
  // 4 kernels × duties {1, 0.5} = 8 solos + fma_fp64, copy, empty + 2 intensity = 13 solos;
  // pairs with replacement C(4+1, 2) = 10 per fit duty → 20; check: 4 mixed-duty pairs + 2 triples.
  const auto c = count_by(plan);
  CHECK(c.at("solo/fit/time-slice") == 13);
  CHECK(c.at("corun/fit/time-slice") == 20);
  CHECK(c.at("corun/check/time-slice") == 6);
  CHECK(plan.size() == 39);
  CHECK(c.count("idle/fit/time-slice") == 0); // no energy meter → no idle baselines
  for (std::size_t i = 0; i < plan.size(); ++i)
    CHECK(plan[i].id == static_cast<int>(i) + 1);
  // Held-out co-runs mix duty cycles or have three processes.
  for (const auto& r : plan)
    if (r.set == "check") CHECK((r.jobs.size() == 3 || r.jobs[0].duty != r.jobs[1].duty));
  // Quick sizes come from the catalog.
  CHECK(plan.front().jobs[0].kernel == find_kernel("fma_fp32").quick);
}

TEST_CASE("Level Zero plan: idle baselines, frequency sweep, CCS modes, repetitions", "[calibration][plan]")
{
  PlanOptions o;
  o.modes = {"ccs1", "ccs2", "ccs4"};
  o.freqs_mhz = {1600, 1200};
  o.energy = true;
  o.repetitions = 2;
  const auto plan = plan_campaign(o);
  REQUIRE(check_plan(plan).empty());
  const auto c = count_by(plan);
  // Idle and idle-context at the default frequency and at each of the 2 pinned ones.
  CHECK(c.at("idle/fit/ccs1") == 2 * 3);
  CHECK(c.at("idle-context/fit/ccs1") == 2 * 3);
  // Sweep: (fma_fp32, fma_fp64, triad + 5 intensity steps) × 2 frequencies; default-frequency solos:
  // 4 × 2 duties + fma_fp64, copy, empty (the intensity ladder is in the sweep).
  int sweep = 0;
  for (const auto& r : plan)
    if (r.kind == RunKind::SOLO && r.freq_mhz) ++sweep;
  CHECK(sweep == 2 * 2 * 8);
  CHECK(c.at("solo/fit/ccs1") == 2 * (16 + 8 + 3));
  // ccs2: 4 solos, 4 two-copy runs, 6 distinct pairs; ccs4: 4 solos, 4 four-copy runs.
  CHECK(c.at("solo/fit/ccs2") == 2 * 4);
  CHECK(c.at("corun/fit/ccs2") == 2 * (4 + 6));
  CHECK(c.at("solo/fit/ccs4") == 2 * 4);
  CHECK(c.at("corun/fit/ccs4") == 2 * 4);
  for (const auto& r : plan)
    if (r.mode == "ccs4" && r.kind == RunKind::CORUN) CHECK(r.jobs.size() == 4);
  CHECK(plan.back().repetition == 1);
  CHECK(plan.size() % 2 == 0);
}

TEST_CASE("check_plan finds a co-run without its solo reference", "[calibration][plan]")
{
  PlanOptions o;
  o.quick = true;
  auto plan = plan_campaign(o);
  // Drop the fma_fp32@0.5 solo: the fit pairs at duty 0.5 lose their reference.
  plan.erase(std::remove_if(plan.begin(), plan.end(),
                            [](const PlannedRun& r) {
                              return r.kind == RunKind::SOLO && r.jobs[0].kernel.kernel == "fma_fp32" &&
                                     r.jobs[0].duty == 0.5;
                            }),
             plan.end());
  const auto problem = check_plan(plan);
  CHECK(problem.find("fma_fp32@0.5") != std::string::npos);
  CHECK(problem.find("no earlier solo run") != std::string::npos);
}

TEST_CASE("plan options are validated", "[calibration][plan]")
{
  PlanOptions o;
  o.kernels = {"fma_fp32", "nope"};
  CHECK_THROWS_WITH(plan_campaign(o),
                    Catch::Matchers::ContainsSubstring("unknown kernel 'nope'; valid: fma_fp32"));
  o = PlanOptions{};
  o.fit_duties = {1.5};
  CHECK_THROWS_AS(plan_campaign(o), std::invalid_argument);
  o = PlanOptions{};
  o.repetitions = 0;
  CHECK_THROWS_AS(plan_campaign(o), std::invalid_argument);
  o = PlanOptions{};
  o.modes.clear();
  CHECK_THROWS_AS(plan_campaign(o), std::invalid_argument);
  CHECK(job_label(PlannedJob{find_kernel("triad").quick, 0.5}) == "triad@0.5");
}
