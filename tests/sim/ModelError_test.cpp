// The models' error carried by the simulated world (sim/engine/ModelError.hpp, scenario key model_error):
// the draw against numbers computed apart from the code (a Python transcription of the documented formula,
// values pasted below), the engine's end times and slowdowns against the perturbed slowdown worked out by
// hand (a time-sliced pair, a MIG pair), and predict() giving the models' own values all the while.
#include "tests/CatchCompat.hpp"
#include "tests/sim/EngineTestSupport.hpp"

#include "base/Errors.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"
#include "sim/engine/ModelError.hpp"

#include <memory>
#include <string>
#include <vector>

using namespace colocsim;
using namespace colocsim::test;

namespace {

// Computed with Python 3 (integers masked to 64 bits, math.log/cos/exp) from the formula in ModelError.hpp:
//   h = sm(s ^ sm(fnv(salt) ^ sm(fnv(a) ^ sm(fnv(b))))), u1 = ((h >> 11) + 1)·2^-53,
//   u2 = (sm(h) >> 11)·2^-53, z = sqrt(-2 ln u1)·cos(2π u2), factor = exp(σz − σ²/2).
constexpr double Z_7_AB = 0.6595500683435056;      // seed 7, interference, a slowed by b
constexpr double F_05_7_AB = 1.2272489448302057;   // σ 0.5, same pair
constexpr double F_05_7_BA = 1.2275307375307114;   // σ 0.5, b slowed by a (drawn apart)
constexpr double F_03_7_MIG = 0.8596645640735658;  // σ 0.3, seed 7, mig, profile a on 1g.5gb
constexpr double F_05_4_BUSY = 0.8778953751298129; // σ 0.5, seed 4, interference, busy next to busy
constexpr double F_05_8_BUSY = 1.2792997066660707; // σ 0.5, seed 8, likewise
constexpr double F_05_1_BUSY = 0.6471714272185609; // σ 0.5, seed 1, likewise
// σ 0.3, mig: the job's profile on its instance's profile (tests/data/sim/mig-pair.csv's two jobs).
constexpr double F_03_1_INFER = 1.2809663889435752; // seed 1, resnet50-infer-bs1 on 1g.5gb
constexpr double F_03_1_TRAIN = 0.7233113895632236; // seed 1, bert-base-train-bs32 on 3g.20gb
constexpr double F_03_7_INFER = 0.4632968394019242; // seed 7, resnet50-infer-bs1 on 1g.5gb
constexpr double F_03_7_TRAIN = 0.783315089275003;  // seed 7, bert-base-train-bs32 on 3g.20gb

RunOutcome run_pair(std::vector<std::string> sets)
{
  sets.push_back("workload.trace=pair.csv");
  return run_scenario(SIM_DATA + "base.yaml", sets);
}

/// In its first call (both jobs submitted together): predicts job 0 on device 0 with job 1 decided before it
/// (`also`), then places job 1 and job 0 there (on a mig device: job 1 on instance 0, job 0 on instance 1).
class PredictThenPlace final : public Policy {
public:
  explicit PredictThenPlace(PlacementPrediction& seen) : seen_(seen) {}
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    std::vector<Decision> out;
    if (placed_ || events.size() < 2) return out;
    placed_ = true;
    const DeviceIndex d = 0;
    const JobIndex first = 1;
    seen_ = view.predict(0, {&d, 1}, {&first, 1});
    const bool mig = view.mig_geometry(d) != nullptr;
    for (const JobIndex j : {JobIndex{1}, JobIndex{0}}) {
      Place p{j, {d}};
      if (mig) p.instances = {j == 1 ? 0u : 1u};
      out.emplace_back(std::move(p));
    }
    return out;
  }

private:
  PlacementPrediction& seen_; ///< outlives the run (the engine destroys its policy at the end)
  bool placed_ = false;
};

/// Runs `scenario` with `sets` under PredictThenPlace; `seen`: the prediction it got.
RunOutcome run_predicting(const std::string& scenario, const std::vector<std::string>& sets,
                          PlacementPrediction& seen)
{
  return run_scenario(SIM_DATA + scenario, sets, {}, std::make_unique<PredictThenPlace>(seen));
}

} // namespace

TEST_CASE("model error: the draw of a pair is the documented hash → Box–Muller → lognormal formula",
          "[model-error]")
{
  CHECK_THAT(model_error_normal(7, "interference", "a", "b"), WithinRel(Z_7_AB, 1e-12));
  CHECK_THAT(model_error_factor(0.5, 7, "interference", "a", "b"), WithinRel(F_05_7_AB, 1e-12));
  CHECK_THAT(model_error_factor(0.5, 7, "interference", "b", "a"), WithinRel(F_05_7_BA, 1e-12));
  CHECK_THAT(model_error_factor(0.3, 7, "mig", "a", "1g.5gb"), WithinRel(F_03_7_MIG, 1e-12));
  CHECK(model_error_factor(0.0, 7, "interference", "a", "b") == 1.0); // σ 0: exactly the model
}

TEST_CASE("model error: a time-sliced pair ends when the perturbed slowdown says", "[model-error][engine]")
{
  // pair.csv: two `busy` jobs of 100 s on tile 0 in time-slice, model slowdown 2.5 each (time-slice
  // max(1, Σd = 2) × table 1.25; Engine_test "two jobs sharing one tile"), so both end at 250 s.
  // With model_error.interference = 0.5 both get the factor of (busy, busy): slowdown 2.5·f, never below
  // the mode's own factor 2 (the time-sharing of two fully busy jobs).
  const auto exact = run_pair({});
  const auto off = run_pair({"model_error.interference=0"});
  // seed 4: 2.5 × 0.87790 = 2.1947 → 219.47 s.
  const auto s4 = run_pair({"seed=4", "model_error.interference=0.5"});
  // seed 8: 2.5 × 1.27930 = 3.1982 → 319.82 s.
  const auto s8 = run_pair({"seed=8", "model_error.interference=0.5"});
  // seed 1: 2.5 × 0.64717 = 1.618 < 2: clamped to the mode's factor 2 → 200 s.
  const auto s1 = run_pair({"seed=1", "model_error.interference=0.5"});
  const auto s4_again = run_pair({"seed=4", "model_error.interference=0.5"});
  for (const char* id : {"a", "b"}) {
    CHECK_THAT(exact.jobs.at(id).end_s, WithinAbs(250.0, 1e-6));
    CHECK(off.jobs.at(id).end_s == exact.jobs.at(id).end_s);
    CHECK_THAT(s4.jobs.at(id).end_s, WithinRel(100.0 * 2.5 * F_05_4_BUSY, 1e-9));
    CHECK_THAT(s8.jobs.at(id).end_s, WithinRel(100.0 * 2.5 * F_05_8_BUSY, 1e-9));
    CHECK(2.5 * F_05_1_BUSY < 2.0);
    CHECK_THAT(s1.jobs.at(id).end_s, WithinAbs(200.0, 1e-6));
    CHECK(s4_again.jobs.at(id).end_s == s4.jobs.at(id).end_s); // one seed: one world
  }
  CHECK(s4.jobs.at("a").end_s != s8.jobs.at("a").end_s); // two seeds: two worlds
}

TEST_CASE("model error: out-of-range sigmas are errors naming the key", "[model-error][scenario]")
{
  REQUIRE_THROWS_WITH(load_scenario(SIM_DATA + "base.yaml", {"model_error.interference=-0.1"}),
                      ContainsSubstring("model_error.interference"));
  REQUIRE_THROWS_WITH(load_scenario(SIM_DATA + "base.yaml", {"model_error.mig=4"}),
                      ContainsSubstring("model_error.mig"));
  REQUIRE_THROWS_WITH(load_scenario(SIM_DATA + "base.yaml", {"model_error.sigma=0.5"}),
                      ContainsSubstring("model_error.sigma"));
}

TEST_CASE(
    "model error: a job on a MIG instance runs at the model's slowdown times the mig factor, at least 1",
    "[model-error][engine][mig]")
{
  // mig-pair.csv on the layout 3g.20gb + 1g.5gb, bert training on 3g.20gb and resnet50 inference on 1g.5gb
  // (Mig_test "MIG instances are isolated": model slowdowns 2.051429 and 1.278571, 100 s jobs). With
  // model_error.mig = 0.3 each job's slowdown becomes max(1, s × factor(seed, "mig", profile, instance)).
  const std::vector<std::string> layout{"platform.mig_layout=3g.20gb,1g.5gb", "workload.trace=mig-pair.csv"};
  const auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), layout.begin(), layout.end());
    PlacementPrediction ignored;
    return run_predicting("mig.yaml", extra, ignored);
  };
  const auto exact = with({"model_error.mig=0"});
  const double infer = exact.jobs.at("infer").slowdown, train = exact.jobs.at("train").slowdown;
  REQUIRE_THAT(infer, WithinAbs(1.278571, 1e-6));
  REQUIRE_THAT(train, WithinAbs(2.051429, 1e-6));
  // seed 1: infer 1.278571 × 1.28097 = 1.63780 (slower), train 2.051429 × 0.72331 = 1.48382 (faster).
  const auto s1 = with({"seed=1", "model_error.mig=0.3"});
  CHECK_THAT(s1.jobs.at("infer").slowdown, WithinRel(infer * F_03_1_INFER, 1e-9));
  CHECK_THAT(s1.jobs.at("train").slowdown, WithinRel(train * F_03_1_TRAIN, 1e-9));
  CHECK_THAT(s1.jobs.at("infer").end_s, WithinRel(100.0 * infer * F_03_1_INFER, 1e-9));
  CHECK_THAT(s1.jobs.at("train").end_s, WithinRel(100.0 * train * F_03_1_TRAIN, 1e-9));
  // seed 7: infer 1.278571 × 0.46330 = 0.592 < 1: no faster than on the whole GPU, 1; train × 0.78332.
  const auto s7 = with({"seed=7", "model_error.mig=0.3"});
  CHECK(infer * F_03_7_INFER < 1.0);
  CHECK_THAT(s7.jobs.at("infer").slowdown, WithinAbs(1.0, 1e-12));
  CHECK_THAT(s7.jobs.at("infer").end_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(s7.jobs.at("train").slowdown, WithinRel(train * F_03_7_TRAIN, 1e-9));
  // The interference σ does not reach a MIG instance (its own model is the MIG law).
  const auto interference_only = with({"seed=1", "model_error.interference=0.5"});
  for (const char* id : {"infer", "train"})
    CHECK(interference_only.jobs.at(id).end_s == exact.jobs.at(id).end_s);
}

TEST_CASE("model error: predict() keeps the models' own values while the run carries the error",
          "[model-error][engine]")
{
  // The policy asks predict() for job 0 on device 0 with job 1 decided first, then places both there. With
  // model_error on, predict() must still give the model's slowdown (the policy's belief), while the
  // slowdown the job then runs at (jobs.csv's `slowdown`) is the perturbed one.
  struct Case {
    const char* scenario;
    std::vector<std::string> sets;
    const char* on;  ///< the model_error setting that perturbs the run
    const char* job; ///< job 0's id
    double model;    ///< the model's slowdown of job 0 there
    double factor;   ///< its draw
  };
  const std::vector<Case> cases{
      // time-slice, two busy jobs: 2.5 each; seed 4, σ 0.5: × 0.87790 = 2.1947.
      {"base.yaml",
       {"workload.trace=pair.csv", "seed=4"},
       "model_error.interference=0.5",
       "a",
       2.5,
       F_05_4_BUSY},
      // mig, resnet50 inference on 1g.5gb next to bert on 3g.20gb: 1.278571; seed 1, σ 0.3: × 1.28097.
      {"mig.yaml",
       {"platform.mig_layout=3g.20gb,1g.5gb", "workload.trace=mig-pair.csv", "seed=1"},
       "model_error.mig=0.3",
       "infer",
       1.278571,
       F_03_1_INFER},
  };
  for (const auto& c : cases) {
    INFO(c.scenario << " " << c.on);
    PlacementPrediction off_seen, on_seen;
    const auto off = run_predicting(c.scenario, c.sets, off_seen);
    auto sets = c.sets;
    sets.emplace_back(c.on);
    const auto on = run_predicting(c.scenario, sets, on_seen);
    CHECK_THAT(off_seen.job_slowdown, WithinAbs(c.model, 1e-6));
    CHECK(on_seen.job_slowdown == off_seen.job_slowdown); // the belief is the model's, error or not
    CHECK(on_seen.job_rate == off_seen.job_rate);
    CHECK_THAT(off.jobs.at(c.job).slowdown, WithinAbs(c.model, 1e-6)); // exact models: the run agrees
    CHECK_THAT(on.jobs.at(c.job).slowdown, WithinRel(off.jobs.at(c.job).slowdown * c.factor, 1e-9));
    CHECK(on.jobs.at(c.job).slowdown != on_seen.job_slowdown); // the run does not
  }
}
