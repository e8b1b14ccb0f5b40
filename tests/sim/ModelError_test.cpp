// The models' error carried by the simulated world (sim/engine/ModelError.hpp, scenario key model_error):
// the draw against numbers computed apart from the code (a Python transcription of the documented formula,
// values pasted below), and the engine's end times against the perturbed slowdown worked out by hand.
#include "tests/CatchCompat.hpp"
#include "tests/sim/EngineTestSupport.hpp"

#include "base/Errors.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"
#include "sim/engine/ModelError.hpp"

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

RunOutcome run_pair(std::vector<std::string> sets)
{
  sets.push_back("workload.trace=pair.csv");
  return run_scenario(SIM_DATA + "base.yaml", sets);
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
