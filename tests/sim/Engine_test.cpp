// Engine tests: the real SimGrid engine on small scenarios whose schedules and energies are computed by
// hand (fixtures in tests/data/sim/). Several runs share one process; the engine keeps its own time base.
//
// Fixture numbers (calibration-test.yaml, profiles-test.yaml, device-test.yaml):
//   power P = 100 + [resident]·20 + 1^2·(100·u_vec + 50·u_xmx) + 40·u_bw   (f_default = f_max)
//   node baseline 500 W; time-slice θ = 1, ε = 0; table C|C = 1.25, all else 1
//   busy: class C, duty 1, vec 0.5, 10 GB;  light: class L, duty 0.25, vec 0.1, 2 GB;
//   huge: class X, duty 1, xmx 0.5, bw 0.5, 40 GB.  Tiles have 64 GB.
#include "tests/CatchCompat.hpp"
#include "tests/sim/EngineTestSupport.hpp"

#include "sim/Engine.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"
#include "sim/engine/EngineEvents.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace colocsim;
using namespace colocsim::test;

namespace {

const std::string& DATA = SIM_DATA;

RunOutcome run_fixture(const std::string& trace, std::vector<std::string> sets = {},
                       const std::string& policy = {})
{
  if (!trace.empty()) sets.push_back("workload.trace=" + trace); // empty: the sets say what to run
  return run_scenario(DATA + "base.yaml", sets, policy);
}

} // namespace

TEST_CASE("two jobs sharing one tile with a known table slowdown", "[engine]")
{
  // Both jobs on tile 0 at t=0. Slowdown = time-slice max(1, Σd=2, 1+1·1·1=2) × table (1 + (1.25−1)) = 2.5,
  // so each progresses at 0.4 and 100 s of work ends at t = 250 s.
  const auto o = run_fixture("pair.csv");
  REQUIRE(o.jobs.size() == 2);
  for (const char* id : {"a", "b"}) {
    const auto& r = o.jobs.at(id);
    CHECK(r.status == JobStatus::COMPLETED);
    CHECK(r.devices == std::vector<DeviceIndex>{0});
    CHECK_THAT(r.end_s, WithinAbs(250.0, 1e-6));
    CHECK_THAT(r.slowdown, WithinAbs(2.5, 1e-9));
    // Energy per job: static (100+20)/2 = 60 W + dynamic 100·0.5·0.4 = 20 W → 80 W × 250 s = 20,000 J.
    CHECK_THAT(r.energy_j, WithinRel(20000.0, 1e-9));
  }
  CHECK_THAT(o.totals.t_end_s - o.totals.t_first_submit_s, WithinAbs(250.0, 1e-6));
  // Tile 0: u_vec = 2·0.5·0.4 = 0.4 → 100+20+40 = 160 W × 250 s = 40,000 J; tile 1 idle 100 W × 250 s.
  CHECK_THAT(o.totals.energy_device_j, WithinRel(65000.0, 1e-9));
  CHECK_THAT(o.totals.energy_node_j, WithinRel(125000.0, 1e-9)); // 500 W × 250 s
  CHECK(o.totals.completed == 2);
  CHECK(o.totals.oom_events == 0);
}

TEST_CASE("exclusive FCFS on a 3-job trace gives the hand-computed schedule", "[engine]")
{
  // Two tiles. j1 (100 s) → tile 0 at 0; j2 (50 s) → tile 1 at 0; j3 (30 s, submitted at 10) waits for
  // tile 1 and runs 50..80. Makespan 100 s.
  const auto o = run_fixture("three-exclusive.csv", {}, "exclusive-fcfs");
  const auto& j1 = o.jobs.at("j1");
  const auto& j2 = o.jobs.at("j2");
  const auto& j3 = o.jobs.at("j3");
  CHECK(j1.devices == std::vector<DeviceIndex>{0});
  CHECK(j2.devices == std::vector<DeviceIndex>{1});
  CHECK(j3.devices == std::vector<DeviceIndex>{1});
  CHECK_THAT(j1.start_s, WithinAbs(0.0, 1e-9));
  CHECK_THAT(j1.end_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(j2.end_s, WithinAbs(50.0, 1e-6));
  CHECK_THAT(j3.start_s, WithinAbs(50.0, 1e-6));
  CHECK_THAT(j3.end_s, WithinAbs(80.0, 1e-6));
  for (const auto* r : {&j1, &j2, &j3})
    CHECK_THAT(r->slowdown, WithinAbs(1.0, 1e-9));
  // Busy tile alone: 100+20+100·0.5 = 170 W. Tile 0: 170 × 100 = 17,000 J. Tile 1: 170 × 50 + 170 × 30 +
  // idle 100 × 20 = 15,600 J.
  CHECK_THAT(o.totals.energy_device_j, WithinRel(32600.0, 1e-9));
  CHECK_THAT(j3.energy_j, WithinRel(170.0 * 30, 1e-9));
  CHECK_THAT(o.totals.busy_device_s, WithinAbs(180.0, 1e-6));
}

TEST_CASE("a job finishing changes only its co-runners' rates", "[engine]")
{
  // j1 alone on tile 0 for 50 s (progress 50). At 50, j2 joins tile 0 and j3 starts alone on tile 1.
  // On tile 0 both run at 0.4: j1's remaining 50 takes 125 s → ends 175; j2 has done 50 by then and
  // finishes its last 50 alone → 225. j3 never shares: 50..150.
  const auto o = run_fixture("locality.csv");
  const auto& j1 = o.jobs.at("j1");
  const auto& j2 = o.jobs.at("j2");
  const auto& j3 = o.jobs.at("j3");
  CHECK(j2.devices == std::vector<DeviceIndex>{0});
  CHECK(j3.devices == std::vector<DeviceIndex>{1});
  CHECK_THAT(j1.end_s, WithinAbs(175.0, 1e-6));
  CHECK_THAT(j2.end_s, WithinAbs(225.0, 1e-6));
  CHECK_THAT(j3.end_s, WithinAbs(150.0, 1e-6));
  CHECK_THAT(j3.slowdown, WithinAbs(1.0, 1e-12));
  // Exactly two rate changes reach SimGrid: j1 when j2 joins (t=50) and j2 when j1 leaves (t=175). The
  // jobs on tile 1 are never touched.
  CHECK(o.totals.rate_updates == 2);
  // Energy. Tile 0: 170 W × 50 + 160 W × 125 + 170 W × 50 = 37,000 J. Tile 1: idle 100 × 50 + 170 × 100 +
  // idle 100 × 75 = 29,500 J. Jobs: j1 = 170 × 50 + 80 × 125 = 18,500; j2 = 80 × 125 + 170 × 50 = 18,500.
  CHECK_THAT(o.totals.energy_device_j, WithinRel(66500.0, 1e-9));
  CHECK_THAT(j1.energy_j, WithinRel(18500.0, 1e-9));
  CHECK_THAT(j2.energy_j, WithinRel(18500.0, 1e-9));
  CHECK_THAT(j3.energy_j, WithinRel(17000.0, 1e-9));
}

TEST_CASE("a gang job progresses at its slowest device's rate", "[engine]")
{
  // g (busy, 2 devices) takes tiles 0 and 1; s (light, duty 0.25) joins g on tile 0. On tile 0:
  // g: max(1, Σd=1.25, 1+1·1·0.25=1.25) = 1.25; s: max(1.25, 1+0.25·1) = 1.25; table C|L = L|C = 1.
  // g runs at min(1/1.25, 1/1) = 0.8 on both tiles; s ends at 50/0.8 = 62.5; g has done 50 and ends at
  // 62.5 + 50 = 112.5. g's rate was lowered before its execs started (same instant) and raised once on
  // each of its two execs when s left: 2 rate updates.
  const auto o = run_fixture("gang.csv");
  const auto& g = o.jobs.at("g");
  const auto& s = o.jobs.at("s");
  CHECK(g.devices == std::vector<DeviceIndex>{0, 1});
  CHECK(s.devices == std::vector<DeviceIndex>{0});
  CHECK_THAT(s.end_s, WithinAbs(62.5, 1e-6));
  CHECK_THAT(g.end_s, WithinAbs(112.5, 1e-6));
  CHECK(o.totals.rate_updates == 2);
  // Energy (idle 100 + context 20 W, 100 W per unit of vec_util at full clock; a job's activity is its rate):
  // [0, 62.5]: tile 0 draws 120 + 100·(0.5·0.8 + 0.1·0.8) = 168 W, split 60 + 40 = 100 W to g, 60 + 8 = 68 W
  // to s; tile 1 draws 120 + 100·0.5·0.8 = 160 W, all g's. [62.5, 112.5]: g alone at rate 1 on both tiles,
  // 170 W each. g: 260·62.5 + 340·50 = 33,250 J (both of its devices); s: 68·62.5 = 4,250 J; devices:
  // 168·62.5 + 160·62.5 + 2·170·50 = 37,500 J.
  CHECK_THAT(g.energy_j, WithinRel(33250.0, 1e-9));
  CHECK_THAT(s.energy_j, WithinRel(4250.0, 1e-9));
  CHECK_THAT(o.totals.energy_device_j, WithinRel(37500.0, 1e-9));
}

TEST_CASE("a gang job progresses at its slowest device's rate times its scaling efficiency", "[engine]")
{
  // As above, but g's profile has s = 0.25: e(2) = 1 / (0.25·2 + 0.75) = 0.8. On tile 0 g's slowdown is
  // 1.25, so g runs at min(1/1.25, 1/1) · 0.8 = 0.64; s runs at 0.8 and ends at 50/0.8 = 62.5, when g has
  // done 62.5 · 0.64 = 40 of its 100 s. Alone on its tiles g runs at 1 · 0.8: the remaining 60 s take 75 s,
  // so g ends at 137.5 (with e = 1 it ended at 112.5).
  // The trace's durations are declared times with perfect scaling (workload.durations_at).
  const auto o = run_fixture("gang-scaling.csv", {"workload.durations_at=perfect-scaling"});
  CHECK_THAT(o.jobs.at("s").end_s, WithinAbs(62.5, 1e-6));
  CHECK_THAT(o.jobs.at("g").end_s, WithinAbs(137.5, 1e-6));
  // slowdown of the last attempt: 137.5 / 100
  CHECK_THAT(o.jobs.at("g").slowdown, WithinAbs(1.375, 1e-9));
}

TEST_CASE("a trace's durations are times on the job's own device count: e(n) is not applied again",
          "[engine]")
{
  // The same trace replayed as traces are by default (workload.durations_at: auto = own-gpu-count): g's 100 s
  // were measured on its 2 devices, scaling losses included. Shared: g runs at min(1/1.25, 1) = 0.8 while s
  // is on tile 0 (s ends at 62.5, g has done 50), then at 1: g ends at 62.5 + 50 = 112.5, as with e = 1.
  const auto shared = run_fixture("gang-scaling.csv");
  CHECK_THAT(shared.jobs.at("g").end_s, WithinAbs(112.5, 1e-6));
  // Exclusive: g has both tiles alone [0, 100], exactly its trace duration (125 s with e(2) = 0.8 applied);
  // s then runs [100, 150].
  const auto alone = run_fixture("gang-scaling.csv", {"platform.sharing=exclusive"}, "exclusive-fcfs");
  CHECK_THAT(alone.jobs.at("g").start_s, WithinAbs(0.0, 1e-9));
  CHECK_THAT(alone.jobs.at("g").end_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(alone.jobs.at("g").slowdown, WithinAbs(1.0, 1e-9));
  CHECK_THAT(alone.jobs.at("s").end_s, WithinAbs(150.0, 1e-6));
  // Every trace format: the same gang job as an SWF row (2 processors, run time 100 s).
  const auto swf = run_fixture("gang-scaling.swf",
                               {"platform.sharing=exclusive", "workload.format=swf",
                                "workload.default_profile=scaling", "workload.profile_map=none"},
                               "exclusive-fcfs");
  CHECK_THAT(swf.jobs.at("1").end_s, WithinAbs(100.0, 1e-6));
  // The synthetic generator's durations keep the model (auto = perfect-scaling): one 2-device job of 100 s
  // on the scaling profile runs 100 / e(2) = 125 s.
  const auto syn =
      run_fixture("",
                  {"platform.sharing=exclusive", "workload.trace=", "workload.synthetic.jobs=1",
                   "workload.synthetic.duration_mean=100s", "workload.synthetic.duration_sigma=0",
                   "workload.synthetic.profile_mix=scaling:1", "workload.synthetic.devices_mix=2:1"},
                  "exclusive-fcfs");
  REQUIRE(syn.jobs.size() == 1);
  const auto& r = syn.jobs.begin()->second;
  CHECK_THAT(r.end_s - r.start_s, WithinAbs(125.0, 1e-6));
}

TEST_CASE("trace time: a start never rounds below its submit", "[engine]")
{
  // origin 95.256, submit 501.075: sim submit = 405.81899999999996, and 95.256 + that = 501.07499999999993,
  // a wait of −5.7e-14 s (printed −0.0) without the clamp.
  const double origin = 95.256, submit = 501.075;
  const double sim_submit = submit - origin;
  REQUIRE(origin + sim_submit < submit); // the rounding this guards against
  CHECK(trace_time(origin, sim_submit, submit) == submit);
  CHECK(trace_time(origin, sim_submit, submit) - submit == 0.0);
  CHECK(!std::signbit(trace_time(origin, sim_submit, submit) - submit));
  CHECK(trace_time(origin, 500.0, submit) == 595.256); // later times pass through
}

TEST_CASE("out of memory: the job that overflows fails, is requeued, then fails for good", "[engine]")
{
  // huge jobs need 40 GB each but declare 1 GB; first-fit (memory: none) puts both on the 64 GB tile 0.
  // big2 overflows at t=10 and fails 60 s later (memory.oom_delay); requeued, it lands on tile 0 again
  // and fails at 130, 190, 250: 4 attempts > max_retries 3 → failed, 4 OOM events.
  // big1 shares [10, 250] at rate 0.5 (time-slice Σd = 2, table X|X = 1): 10 + 240·0.5 = 130 done, then
  // 870 alone → ends at 1120.
  const auto o = run_fixture("oom.csv");
  const auto& big1 = o.jobs.at("big1");
  const auto& big2 = o.jobs.at("big2");
  CHECK(big2.status == JobStatus::FAILED);
  CHECK(big2.attempts == 4);
  CHECK_THAT(big2.end_s, WithinAbs(250.0, 1e-6));
  CHECK(o.totals.oom_events == 4);
  CHECK(o.totals.failed == 1);
  CHECK(big1.status == JobStatus::COMPLETED);
  CHECK_THAT(big1.end_s, WithinAbs(1120.0, 1e-6));

  SECTION("a policy that knows the real footprint avoids it")
  {
    // memory: profile → 40 + 40 GB does not fit tile 0, big2 goes to tile 1 and both run alone.
    const auto p = run_fixture("oom.csv", {"policy.params.memory=profile"});
    CHECK(p.totals.oom_events == 0);
    CHECK(p.jobs.at("big2").devices == std::vector<DeviceIndex>{1});
    CHECK_THAT(p.jobs.at("big2").end_s, WithinAbs(1010.0, 1e-6));
  }
}

TEST_CASE("the time series records cluster power after every event", "[engine]")
{
  const auto o = run_fixture("three-exclusive.csv", {}, "exclusive-fcfs");
  REQUIRE(!o.points.empty());
  const auto& first = o.points.front(); // t=0: j1 and j2 running on both tiles
  CHECK_THAT(first.t_s, WithinAbs(0.0, 1e-9));
  CHECK_THAT(first.device_power_w, WithinAbs(340.0, 1e-9));
  CHECK_THAT(first.node_power_w, WithinAbs(500.0, 1e-9));
  CHECK(first.busy_devices == 2);
  const auto& last = o.points.back(); // t=100: all done
  CHECK_THAT(last.t_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(last.device_power_w, WithinAbs(200.0, 1e-9));
  CHECK(last.running_jobs == 0);
}

TEST_CASE("allocation and fragmentation are integrated from the requested shares", "[engine][metrics]")
{
  // share-quarter.csv: 0.25 of tile 0 for 100 s on 2 tiles → allocated 25 device-s, fragmented 75 device-s.
  const auto q = run_fixture("share-quarter.csv");
  CHECK_THAT(q.totals.allocated_device_s, WithinAbs(25.0, 1e-6));
  CHECK_THAT(q.totals.fragmented_device_s, WithinAbs(75.0, 1e-6));
  // pair.csv: two whole-device requests share tile 0 for 250 s: allocation is capped at the device (1 × 250
  // s), nothing is fragmented.
  const auto p = run_fixture("pair.csv");
  CHECK_THAT(p.totals.allocated_device_s, WithinAbs(250.0, 1e-6));
  CHECK_THAT(p.totals.fragmented_device_s, WithinAbs(0.0, 1e-9));
}

TEST_CASE("an infeasible decision is an error naming the policy and the decision", "[engine]")
{
  RunInputs in = build_run(load_scenario(DATA + "base.yaml", {"workload.trace=pair.csv"}));
  in.policy = std::make_unique<PlaceOnSubmit>(std::vector<DeviceIndex>{99}); // no device 99
  in.scenario.policy = "out-of-range";
  RunObserver none;
  REQUIRE_THROWS_AS(run_simulation(in.setup(), none), DecisionError);
  RunInputs again = build_run(load_scenario(DATA + "base.yaml", {"workload.trace=pair.csv"}));
  again.policy = std::make_unique<PlaceOnSubmit>(std::vector<DeviceIndex>{99}); // no device 99
  again.scenario.policy = "out-of-range";
  REQUIRE_THROWS_WITH(run_simulation(again.setup(), none),
                      ContainsSubstring("policy 'out-of-range'") &&
                          ContainsSubstring("place job 0 on devices [99]") &&
                          ContainsSubstring("does not exist"));
}

TEST_CASE("ccs-4 through the engine: the static split slows only the saturating job", "[engine][ccs]")
{
  // One tile in ccs-4, interference none. full (c = 1): max(1, 1·4) = 4 → 100 s of work ends at 400 s.
  // small (c = 0.25): max(1, 0.25·4) = 1 → ends at 100 s, whatever runs next to it.
  const auto o = run_fixture("ccs.csv", {"platform.sharing=ccs-4", "interference=none"});
  CHECK_THAT(o.jobs.at("full").end_s, WithinAbs(400.0, 1e-6));
  CHECK_THAT(o.jobs.at("small").end_s, WithinAbs(100.0, 1e-6));
  CHECK(o.jobs.at("full").devices == o.jobs.at("small").devices);
}

TEST_CASE("ccs-4 through the engine: four triads take as long as the tile's bandwidth needs, not longer",
          "[engine][ccs]")
{
  // Four triads (c = 0.5, b = 0.95, profiles-test.yaml) of 100 s on tile 0 in ccs-4 (first-fit, 4 per
  // tile). The tile's bandwidth bounds them: 4 · 0.95 · 100 s = 380 s of the whole bandwidth.
  // contention: max(partition 0.5·4 = 2, Σb = 3.8) · 1.03 = 3.914 → 391.4 s (within 5 % of 380 s; the
  // product 2 · 3.8 · 1.03 gave 782.8 s). table (this fixture: MS|MS = 1): max(2, 1, 3.8) → 380 s (the
  // product 2 · 1 gave 200 s, faster than the bandwidth allows).
  const std::vector<std::string> sets{"platform.sharing=ccs-4", "policy.params.max_per_device=4"};
  auto with = [&](const char* model) {
    auto s = sets;
    s.push_back(std::string("interference=") + model);
    return run_fixture("four-triads.csv", s);
  };
  const auto contention = with("contention");
  const auto table = with("table");
  for (const char* id : {"t1", "t2", "t3", "t4"}) {
    CHECK(contention.jobs.at(id).devices == std::vector<DeviceIndex>{0});
    CHECK_THAT(contention.jobs.at(id).end_s, WithinAbs(391.4, 1e-6));
    CHECK(contention.jobs.at(id).end_s <= 380.0 * 1.05);
    CHECK_THAT(table.jobs.at(id).end_s, WithinAbs(380.0, 1e-6));
  }
}

namespace {
/// Puts every submitted job on device 0.
class AllOnDeviceZero final : public Policy {
public:
  std::vector<Decision> decide(const ClusterView&, std::span<const Event> events) override
  {
    std::vector<Decision> out;
    for (const auto& e : events)
      if (const auto* s = std::get_if<JobSubmitted>(&e)) out.push_back(Place{s->job, {0}});
    return out;
  }
};
} // namespace

TEST_CASE("placing a second job on an exclusive device is refused", "[engine]")
{
  // A policy that puts both jobs of the pair on tile 0 of an exclusive platform: the second placement
  // is an infeasible decision (exclusive mode allows one job per device).
  RunInputs in =
      build_run(load_scenario(DATA + "base.yaml", {"workload.trace=pair.csv", "platform.sharing=exclusive"}));
  in.policy = std::make_unique<AllOnDeviceZero>();
  in.scenario.policy = "all-on-zero";
  RunObserver none;
  REQUIRE_THROWS_WITH(
      run_simulation(in.setup(), none),
      ContainsSubstring("policy 'all-on-zero'") && ContainsSubstring("place job 1 on devices [0]") &&
          ContainsSubstring("device 0 is in exclusive mode and already runs 1 job(s), its limit"));
  // first-fit respects exclusive devices (capacity 1): the pair is spread over both tiles, 0..100 s each.
  const auto o = run_fixture("pair.csv", {"platform.sharing=exclusive"});
  CHECK(o.totals.completed == 2);
  CHECK(o.jobs.at("a").devices != o.jobs.at("b").devices);
  CHECK_THAT(o.totals.t_end_s, WithinAbs(100.0, 1e-6));
}

TEST_CASE("the engine refuses a 49th MPS client on one GPU", "[engine][mps]")
{
  RunInputs in =
      build_run(load_scenario(DATA + "base.yaml", {"workload.trace=many.csv", "platform.sharing=mps"}));
  in.policy = std::make_unique<AllOnDeviceZero>();
  in.scenario.policy = "all-on-zero";
  RunObserver none;
  REQUIRE_THROWS_WITH(run_simulation(in.setup(), none),
                      ContainsSubstring("place job 48 on devices [0]") &&
                          ContainsSubstring("mps mode and already runs 48 job(s), its limit"));
  // first-fit respects the limit: 48 on tile 0 (max_per_device 48), the 49th on tile 1.
  const auto o = run_fixture("many.csv", {"platform.sharing=mps", "policy.params.max_per_device=48"});
  CHECK(o.totals.completed == 49);
  CHECK(o.jobs.at("m49").devices == std::vector<DeviceIndex>{1});
}

namespace {
/// DVFS test policy: sets every device (or only device `only`) to `freq_hz` at the first call, then places
/// job k on device k.
class SlowClock final : public Policy {
public:
  explicit SlowClock(double freq_hz, std::optional<DeviceIndex> only = {}) : freq_hz_(freq_hz), only_(only) {}
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    std::vector<Decision> out;
    if (!set_) {
      for (DeviceIndex d = 0; d < view.device_count(); ++d)
        if (!only_ || d == *only_) out.push_back(SetFrequency{d, freq_hz_});
      set_ = true;
    }
    for (const auto& e : events)
      if (const auto* s = std::get_if<JobSubmitted>(&e))
        out.push_back(Place{s->job, {static_cast<DeviceIndex>(s->job)}});
    return out;
  }

private:
  double freq_hz_;
  std::optional<DeviceIndex> only_;
  bool set_ = false;
};
} // namespace

TEST_CASE("DVFS: time and power at half the clock", "[engine][dvfs]")
{
  // t(f) = t(f_ref)·(β·f_ref/f + 1 − β), f_ref = 1.6 GHz. compute (β = 1) at 0.8 GHz: 100 s × 2 = 200 s;
  // memory (β = 0): unchanged, 100 s.
  // Power: compute tile 100 + 20 + (0.8/1.6)^2·100·0.5 = 132.5 W for 200 s = 26,500 J; memory tile
  // 100 + 20 + 0 + 40·1 = 160 W for 100 s, then idle 100 W for 100 s: 26,000 J.
  RunInputs in = build_run(load_scenario(DATA + "base.yaml", {"workload.trace=dvfs.csv"}));
  in.policy = std::make_unique<SlowClock>(0.8e9);
  const RunOutcome o = run_collect(in);
  CHECK_THAT(o.jobs.at("compute").end_s, WithinAbs(200.0, 1e-6));
  CHECK_THAT(o.jobs.at("memory").end_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(o.jobs.at("compute").energy_j, WithinRel(26500.0, 1e-9));
  CHECK_THAT(o.totals.energy_device_j, WithinRel(52500.0, 1e-9));

  SECTION("a frequency outside the device's range is refused")
  {
    RunInputs bad = build_run(load_scenario(DATA + "base.yaml", {"workload.trace=dvfs.csv"}));
    bad.policy = std::make_unique<SlowClock>(5e9);
    RunObserver none;
    REQUIRE_THROWS_WITH(run_simulation(bad.setup(), none),
                        ContainsSubstring("set device 0 to 5000 MHz") &&
                            ContainsSubstring("outside the device's range"));
  }
}

TEST_CASE("DVFS: a clock above the default makes a job faster than its trace duration", "[engine][dvfs]")
{
  // Trace durations are times at the default clock (0.8 GHz here); the policy raises both tiles to 1.6 GHz.
  // compute (β = 1): 100 s × (1 · 0.8/1.6 + 1 − 1) = 50 s, a rate of 2 work-seconds per second; memory
  // (β = 0): 100 s. Power at f_max: compute tile 100 + 20 + 100·0.5 = 170 W for 50 s, then idle 100 W for 50
  // s (13,500 J); memory tile 100 + 20 + 40·1 = 160 W for 100 s (16,000 J).
  RunInputs in = build_run(load_scenario(
      DATA + "base.yaml", {"workload.trace=dvfs.csv", "platform.preset=platform-1x2-slow-default.yaml"}));
  in.policy = std::make_unique<SlowClock>(1.6e9);
  const RunOutcome o = run_collect(in);
  CHECK_THAT(o.jobs.at("compute").end_s, WithinAbs(50.0, 1e-6));
  CHECK_THAT(o.jobs.at("compute").slowdown, WithinAbs(0.5, 1e-9));
  CHECK_THAT(o.jobs.at("memory").end_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(o.jobs.at("compute").energy_j, WithinRel(8500.0, 1e-9));
  CHECK_THAT(o.totals.energy_device_j, WithinRel(29500.0, 1e-9));
}

TEST_CASE("card power cap: two busy tiles are throttled together", "[engine][power-cap]")
{
  // Card cap 300 W; a busy tile at f draws 120 + (f/1.6 GHz)^2·50 W. Two at full clock: 340 W > 300 W, so
  // both run at f with 2·(120 + (f/1.6)^2·50) = 300 → (f/1.6)^2 = 0.6 → f = 1.6·√0.6 GHz, and 100 s of
  // β = 1 work takes 100/√0.6 = 129.0994 s. The card draws exactly 300 W meanwhile: 38,729.8 J.
  const auto o =
      run_fixture("three-exclusive.csv", {"platform.preset=platform-lowcap.yaml"}, "exclusive-fcfs");
  // Exclusive FCFS, k = 1/√0.6: j1 (100 s) and j2 (50 s) start together, throttled; j2 ends at 50k. j3
  // (waiting since 10 s) takes tile 1 at once, so both stay throttled until j3 ends at 50k + 30k = 80k.
  // By then j1 has done 80 s of work; it finishes the last 20 s alone at full clock (170 W + idle 100 W =
  // 270 W ≤ 300 W): 80k + 20.
  const double k = 1.0 / std::sqrt(0.6);
  CHECK_THAT(o.jobs.at("j2").end_s, WithinAbs(50.0 * k, 1e-5));
  CHECK_THAT(o.jobs.at("j3").end_s, WithinAbs(50.0 * k + 30.0 * k, 1e-5));
  CHECK_THAT(o.jobs.at("j1").end_s, WithinAbs(80.0 * k + 20.0, 1e-5));
  // Card power: 300 W while both tiles are busy (0 .. 80k s), then j1 alone 170 W + idle 100 W.
  CHECK_THAT(o.totals.energy_device_j, WithinRel(300.0 * 80.0 * k + 270.0 * 20.0, 1e-7));
}

TEST_CASE("static power: an idle tile drops to its idle clock unless the site pins it", "[engine][power]")
{
  // calibration-static.yaml: P_static 40 W at freq_min 0.3 GHz, 100 W at f_max 1.6 GHz (γ 2); context 20 W,
  // vec 100 W. One `busy` job (u_vec 0.5) on tile 0 for 100 s at the default 1.6 GHz: 100 + 20 + 50 = 170 W
  // → 17,000 J. Tile 1 stays idle: unpinned at the idle clock 40 W → 4,000 J (total 21,000 J); pinned at
  // 1.6 GHz 100 W → 10,000 J (total 27,000 J). The node baseline (500 W) is separate.
  const auto unpinned =
      run_fixture("static-clock.csv", {"calibration=calibration-static.yaml"}, "exclusive-fcfs");
  CHECK_THAT(unpinned.jobs.at("a").end_s, WithinAbs(100.0, 1e-9));
  CHECK_THAT(unpinned.totals.energy_device_j, WithinRel(21000.0, 1e-12));
  const auto pinned = run_fixture(
      "static-clock.csv", {"calibration=calibration-static.yaml", "platform.preset=platform-pinned.yaml"},
      "exclusive-fcfs");
  CHECK_THAT(pinned.totals.energy_device_j, WithinRel(27000.0, 1e-12));
  // The scenario overrides the catalog: platform.clock=pinned on the unpinned device, =idle on the pinned
  // one.
  const auto forced_pin = run_fixture(
      "static-clock.csv", {"calibration=calibration-static.yaml", "platform.clock=pinned"}, "exclusive-fcfs");
  CHECK_THAT(forced_pin.totals.energy_device_j, WithinRel(27000.0, 1e-12));
  const auto forced_idle = run_fixture(
      "static-clock.csv",
      {"calibration=calibration-static.yaml", "platform.preset=platform-pinned.yaml", "platform.clock=idle"},
      "exclusive-fcfs");
  CHECK_THAT(forced_idle.totals.energy_device_j, WithinRel(21000.0, 1e-12));
  // The job's own energy is the busy tile's: 170 W × 100 s, pinned or not.
  CHECK_THAT(unpinned.jobs.at("a").energy_j, WithinRel(17000.0, 1e-12));
  CHECK_THAT(pinned.jobs.at("a").energy_j, WithinRel(17000.0, 1e-12));
}

TEST_CASE("a card power cap never raises a tile the policy set lower", "[engine][power-cap]")
{
  // Card cap 300 W; a busy tile at f draws 120 + (f/1.6 GHz)^2·50 W. Tile 0 is set to 0.8 GHz: 132.5 W.
  // Tile 1 at full clock would bring the card to 132.5 + 170 = 302.5 W > 300 W, so the cap throttles the
  // card to the f with 132.5 + 120 + (f/1.6)^2·50 = 300 → (f/1.6)^2 = 0.95; tile 0 stays at
  // min(0.8 GHz, f) = 0.8 GHz. "fast" (tile 1): 100 s of β = 1 work at √0.95 → 100/√0.95 = 102.598 s;
  // then the card draws 132.5 + 100 (idle) = 232.5 W ≤ 300 W. "slow" (tile 0): 100 s at half clock = 200 s,
  // at 132.5 W: 26,500 J. Devices: 26,500 + 167.5·T + 100·(200 − T) J with T = 100/√0.95.
  RunInputs in = build_run(load_scenario(
      DATA + "base.yaml", {"workload.trace=cap-two-busy.csv", "platform.preset=platform-lowcap.yaml"}));
  in.policy = std::make_unique<SlowClock>(0.8e9, DeviceIndex{0});
  const RunOutcome o = run_collect(in);
  const double t = 100.0 / std::sqrt(0.95);
  CHECK_THAT(o.jobs.at("fast").end_s, WithinRel(t, 1e-5));
  CHECK_THAT(o.jobs.at("slow").end_s, WithinAbs(200.0, 1e-6));
  CHECK_THAT(o.jobs.at("slow").energy_j, WithinRel(26500.0, 1e-9));
  CHECK_THAT(o.totals.energy_device_j, WithinRel(26500.0 + 167.5 * t + 100.0 * (200.0 - t), 1e-5));
}

TEST_CASE("a card cap that even the minimum clock exceeds holds the tiles at the minimum clock",
          "[engine][power-cap]")
{
  // Card cap 240 W; a busy tile at f draws 120 + (f/1.6 GHz)^2·50 W, so two busy tiles draw
  // 2·(120 + (0.3/1.6)^2·50) = 243.515625 W even at the 0.3 GHz minimum: the cap cannot be met and the
  // card runs at the minimum clock (never below, never back to full). 100 s of β = 1 work at 0.3 GHz takes
  // 100·1.6/0.3 = 533.33 s; the card draws 243.515625 W meanwhile.
  const auto o = run_fixture("cap-two-busy.csv", {"platform.preset=platform-tinycap.yaml"}, "exclusive-fcfs");
  const double t = 100.0 * 1.6 / 0.3;
  CHECK_THAT(o.jobs.at("slow").end_s, WithinRel(t, 1e-9));
  CHECK_THAT(o.jobs.at("fast").end_s, WithinRel(t, 1e-9));
  CHECK_THAT(o.totals.energy_device_j, WithinRel(243.515625 * t, 1e-9));
}

namespace {
/// Repartitions device 0 to ccs-4 at the first call and places every job there once it is ready.
class SplitThenPack final : public Policy {
public:
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    std::vector<Decision> out;
    if (!asked_) {
      out.push_back(Repartition{0, SharingMode::CCS_4});
      asked_ = true;
    }
    for (const auto& e : events) {
      if (const auto* s = std::get_if<JobSubmitted>(&e)) waiting_.push_back(s->job);
      if (const auto* r = std::get_if<DeviceRepartitioned>(&e)) {
        CHECK(r->mode == SharingMode::CCS_4);
        CHECK(view.device(0).mode == SharingMode::CCS_4);
        ready_ = true;
      }
    }
    if (ready_) {
      for (auto j : waiting_)
        out.push_back(Place{j, {0}});
      waiting_.clear();
    }
    return out;
  }

private:
  bool asked_ = false, ready_ = false;
  std::vector<JobIndex> waiting_;
};
} // namespace

TEST_CASE("repartitioning an empty tile to ccs-4 takes the delay, then four quarter jobs run unslowed",
          "[engine][ccs]")
{
  // Repartition at t=0; the tile is ready at t=5 (repartition_delay 5 s). The four jobs (c = 0.25) each
  // own one CCS: factor max(1, 0.25·4) = 1, interference none → 100 s each, all end at 105 s.
  // Under time-slicing the same four would run at max(Σd = 4, 1 + 1·1·3 = 4) → 400 s.
  RunInputs in =
      build_run(load_scenario(DATA + "base.yaml", {"workload.trace=four-quarters.csv", "interference=none"}));
  in.policy = std::make_unique<SplitThenPack>();
  const RunOutcome o = run_collect(in);
  for (const char* id : {"q1", "q2", "q3", "q4"}) {
    CHECK_THAT(o.jobs.at(id).start_s, WithinAbs(5.0, 1e-9));
    CHECK_THAT(o.jobs.at(id).end_s, WithinAbs(105.0, 1e-6));
  }
  const auto ts = run_fixture("four-quarters.csv", {"interference=none", "policy.params.max_per_device=4"});
  CHECK_THAT(ts.jobs.at("q1").end_s, WithinAbs(400.0, 1e-6));
}

namespace {
/// Places the first job on device 0, then asks to repartition device 0 while it runs.
class RepartitionBusy final : public Policy {
public:
  std::vector<Decision> decide(const ClusterView&, std::span<const Event> events) override
  {
    std::vector<Decision> out;
    for (const auto& e : events)
      if (const auto* s = std::get_if<JobSubmitted>(&e)) {
        out.push_back(Place{s->job, {0}});
        out.push_back(Repartition{0, SharingMode::CCS_2});
      }
    return out;
  }
};
} // namespace

TEST_CASE("repartitioning a busy device is refused", "[engine][ccs]")
{
  RunInputs in = build_run(load_scenario(DATA + "base.yaml", {"workload.trace=pair.csv"}));
  in.policy = std::make_unique<RepartitionBusy>();
  in.scenario.policy = "repartition-busy";
  RunObserver none;
  REQUIRE_THROWS_WITH(run_simulation(in.setup(), none), ContainsSubstring("repartition device 0 to ccs-2") &&
                                                            ContainsSubstring("drain it first"));
}

namespace {
/// Powers node 1 off at the first call, places jobs on device 0 (node 0), and powers node 1 back on when
/// the first job completes. Writes down the NodePowered events: (time, node, on, position in the call).
class PowerDown final : public Policy {
public:
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    std::vector<Decision> out;
    if (!off_) {
      out.push_back(SetNodePower{1, false});
      off_ = true;
    }
    for (std::size_t k = 0; k < events.size(); ++k) {
      const auto& e = events[k];
      if (const auto* s = std::get_if<JobSubmitted>(&e)) out.push_back(Place{s->job, {0}});
      if (std::holds_alternative<JobCompleted>(e) && !on_) {
        out.push_back(SetNodePower{1, true});
        on_ = true;
      }
      if (const auto* n = std::get_if<NodePowered>(&e)) {
        CHECK(n->node == 1);
        CHECK(view.device(2).available == n->on);
        powered.push_back({view.now(), n->on, k});
        if (n->on) ready_at_ = view.now();
      }
    }
    ++calls;
    return out;
  }
  struct Powered {
    double at;
    bool on;
    std::size_t position;
  };
  std::vector<Powered> powered;
  int calls = 0;
  double ready_at_ = -1;

private:
  bool off_ = false, on_ = false;
};
} // namespace

TEST_CASE("powering a node down saves its baseline and idle power, powering up takes the boot delay",
          "[engine][power]")
{
  // Two nodes of one card (2 tiles) each; node 1 is off from t=0. The pair (busy, 100 s each) shares
  // device 0 at slowdown 2.5 and ends at 250 s; node 1 is then powered on and boots for 50 s (drawing its
  // 500 W baseline and 2 × 100 W idle device power), ready at 300 s, the last event.
  RunInputs in = build_run(load_scenario(
      DATA + "base.yaml", {"workload.trace=pair.csv", "platform.nodes=2", "platform.node_boot=50s"}));
  auto policy = std::make_unique<PowerDown>();
  auto* p = policy.get();
  in.policy = std::move(policy);
  const RunOutcome o = run_collect(in);
  CHECK_THAT(o.jobs.at("a").end_s, WithinAbs(250.0, 1e-6));
  CHECK_THAT(p->ready_at_, WithinAbs(300.0, 1e-6));
  // The engine reports both: node 1 off first in the next call (the completions at 250 s: the off event
  // causes no call of its own at 0 s), then on at 300 s. Calls: 0 s (both submissions), 250 s, 300 s.
  CHECK(p->calls == 3);
  REQUIRE(p->powered.size() == 2);
  CHECK(!p->powered[0].on);
  CHECK(p->powered[0].position == 0);
  CHECK_THAT(p->powered[0].at, WithinAbs(250.0, 1e-6));
  CHECK(p->powered[1].on);
  CHECK_THAT(p->powered[1].at, WithinAbs(300.0, 1e-6));
  CHECK_THAT(o.totals.t_end_s, WithinAbs(300.0, 1e-6));
  // Node energy: node 0 500 W × 300 s + node 1 500 W × 50 s = 175,000 J.
  CHECK_THAT(o.totals.energy_node_j, WithinRel(175000.0, 1e-9));
  // Devices: d0 160 W × 250 + 100 W × 50 = 45,000; d1 100 W × 300 = 30,000; d2, d3 100 W × 50 each.
  CHECK_THAT(o.totals.energy_device_j, WithinRel(45000.0 + 30000.0 + 10000.0, 1e-9));
}

TEST_CASE("placing on a node that is off is refused", "[engine][power]")
{
  class OffThenPlace final : public Policy {
  public:
    std::vector<Decision> decide(const ClusterView&, std::span<const Event> events) override
    {
      std::vector<Decision> out{SetNodePower{0, false}};
      for (const auto& e : events)
        if (const auto* s = std::get_if<JobSubmitted>(&e)) out.push_back(Place{s->job, {0}});
      return out;
    }
  };
  RunInputs in = build_run(load_scenario(DATA + "base.yaml", {"workload.trace=pair.csv"}));
  in.policy = std::make_unique<OffThenPlace>();
  RunObserver none;
  REQUIRE_THROWS_WITH(run_simulation(in.setup(), none), ContainsSubstring("which is off or still booting"));
}

TEST_CASE("pair-total: two jobs on one mps GPU run exactly Gavel's measured total slower",
          "[engine][pair-total]")
{
  // Both busy jobs (class C, duty 1, compute_share 1) on tile 0 under mps. The mps sharing factor alone
  // would be max(1, 1, Σ d·c = 2) = 2; `pair-total` with Gavel's V100 table replaces it by the measured
  // total T[C][C] = 1.6006 (CycleGAN next to CycleGAN, calibration/interference/gavel-v100.yaml), not
  // 2 × 1.6006: 100 s of work ends at t = 160.06 s.
  const auto o = run_fixture(
      "pair.csv", {"platform.sharing=mps", "interference=pair-total", "interference_table=gavel-v100"});
  REQUIRE(o.jobs.size() == 2);
  for (const char* id : {"a", "b"}) {
    const auto& r = o.jobs.at(id);
    CHECK(r.devices == std::vector<DeviceIndex>{0});
    CHECK_THAT(r.slowdown, WithinAbs(1.6006, 1e-9));
    CHECK_THAT(r.end_s, WithinAbs(160.06, 1e-6));
  }
}

TEST_CASE("one scheduling pass per instant: jobs ending together are handed to the policy together",
          "[engine]")
{
  // Two exclusive tiles; a and b both end at t = 100 and w (10 s) has waited since 50. The engine applies
  // both completions, then calls the policy once: exclusive-fcfs gives w the lowest free device, 0, and w
  // runs [100, 110]. Handed over one at a time, w took whichever device SimGrid's wake-up order freed first.
  // Same start (a on 0, b on 1) and crossed (a, started first, on 1; b, started after c, on 0): the
  // schedule is the same whatever the engine's internal order.
  for (const char* trace : {"tie-same-start.csv", "tie-crossed.csv"}) {
    INFO(trace);
    const auto o = run_fixture(trace, {"platform.sharing=exclusive"}, "exclusive-fcfs");
    CHECK_THAT(o.jobs.at("a").end_s, WithinAbs(100.0, 1e-6));
    CHECK_THAT(o.jobs.at("b").end_s, WithinAbs(100.0, 1e-6));
    CHECK_THAT(o.jobs.at("w").start_s, WithinAbs(100.0, 1e-6));
    CHECK(o.jobs.at("w").devices == std::vector<DeviceIndex>{0});
  }
}

namespace {
/// Places each submitted job on the lowest free tiles, and counts the failures handed over in each call.
class CountFailures final : public Policy {
public:
  std::vector<std::size_t> failures_per_call; ///< of the calls that handed over at least one failure
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    std::vector<Decision> out;
    std::size_t failed = 0;
    for (const auto& e : events) {
      if (std::holds_alternative<JobFailed>(e)) ++failed;
      if (const auto* s = std::get_if<JobSubmitted>(&e)) {
        std::vector<DeviceIndex> devs;
        const auto wanted = static_cast<std::size_t>(view.job(s->job).devices);
        for (DeviceIndex d = 0; d < view.device_count() && devs.size() < wanted; ++d)
          if (view.residents(d).empty() && std::find(taken_.begin(), taken_.end(), d) == taken_.end())
            devs.push_back(d);
        REQUIRE(devs.size() == wanted);
        taken_.insert(taken_.end(), devs.begin(), devs.end());
        out.push_back(Place{s->job, devs});
      }
    }
    taken_.clear();
    if (failed > 0) failures_per_call.push_back(failed);
    return out;
  }

private:
  std::vector<DeviceIndex> taken_; ///< tiles placed on in this call
};
} // namespace

TEST_CASE("one scheduling pass per instant: gang jobs killed together are handed to the policy together",
          "[engine]")
{
  // Jobs of 256, 128 and 128 tiles ask for 100 s and would run 200: all three are killed at t = 100, in one
  // policy call with three failures. The first engine handed the 256-tile job over in a second call at the
  // same instant: its SimGrid actor read its 256 execs one scheduling round each after its timeout, and the
  // controller stopped waiting for it (a Theta replay of experiments/validate-easy showed it).
  RunInputs in = build_run(load_scenario(
      DATA + "base.yaml", {"workload.trace=kills-together.swf", "workload.format=swf", "platform.nodes=256",
                           "platform.sharing=exclusive", "workload.default_profile=busy",
                           "workload.profile_map=none", "workload.estimates=requested"}));
  auto policy = std::make_unique<CountFailures>();
  const auto* counts = policy.get();
  in.policy = std::move(policy);
  const RunOutcome o = run_collect(in);
  for (const char* id : {"1", "2", "3"}) {
    INFO("job " << id);
    CHECK(o.jobs.at(id).status == JobStatus::KILLED);
    CHECK_THAT(o.jobs.at(id).end_s, WithinAbs(100.0, 1e-6));
  }
  CHECK(counts->failures_per_call == std::vector<std::size_t>{3});
}

TEST_CASE("a second simulation in the same process gives the first one's times bit for bit", "[engine]")
{
  // SimGrid 3.32 kept its clock from the previous engine: the second run's times were offset by the first's
  // makespan (12881.2 s) and differed in the last bits (job-003's start 15.2 became 15.200000000000728,
  // its wait 0 became 7.3e-13: 46 of the 48 rows of jobs.csv differed from the first run's).
  // make_engine() sets the clock back to 0, so every run of the process starts like a fresh process's first.
  const auto run_default = [] {
    RunInputs in = build_run(load_scenario(DEFAULT_SCENARIO));
    return run_collect(in);
  };
  const RunOutcome first = run_default();
  const RunOutcome second = run_default();
  REQUIRE(first.jobs.size() == 48);
  REQUIRE(second.jobs.size() == first.jobs.size());
  for (const auto& [id, r] : first.jobs) {
    INFO(id);
    CHECK(second.jobs.at(id).start_s == r.start_s); // exact: no tolerance
    CHECK(second.jobs.at(id).end_s == r.end_s);
  }
  CHECK(second.totals.t_end_s == first.totals.t_end_s);
}

namespace {

/// `n` jobs of profile `busy` (one device, `duration_s` of work), job i submitted at i × `gap_s`: a trace
/// made in memory for the tests of the engine's job storage.
class SequentialJobs final : public JobReader {
public:
  SequentialJobs(int n, double gap_s, double duration_s) : n_(n), gap_s_(gap_s), duration_s_(duration_s) {}
  std::optional<Job> next() override
  {
    if (i_ == n_) return std::nullopt;
    Job job;
    job.id = "j" + std::to_string(i_);
    job.submit_s = i_ * gap_s_;
    job.duration_s = duration_s_;
    job.profile = "busy";
    job.origin = SourceLocation{"sequential", i_ + 1, 0};
    ++i_;
    return job;
  }

private:
  int n_, i_ = 0;
  double gap_s_, duration_s_;
};

/// Places each submitted job on device 0 and, at every later call, reads the first job it placed: the policy
/// that reads a job after the call that reported its end.
class ReadsEndedJob final : public Policy {
public:
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    if (placed_) (void)view.job(0).duration_s; // job 0 ended at t = 10, reported at the call of t = 10
    std::vector<Decision> out;
    for (const auto& e : events)
      if (const auto* s = std::get_if<JobSubmitted>(&e)) {
        out.push_back(Place{s->job, {0}});
        placed_ = true;
      }
    return out;
  }

private:
  bool placed_ = false;
};

} // namespace

TEST_CASE("a job's state is freed once the call that reported its end returns: a long run keeps a handful",
          "[engine][memory]")
{
  // 1,000 jobs of 150 s, one every 100 s, first-fit one job per tile on two tiles: job i runs alone over
  // [100 i, 100 i + 150], on tile i mod 2 (job i+1 arrives while it still runs on the other). By hand,
  // the jobs the engine needs at once: at t = 100 i, job i−1 (running) and job i (just read); at
  // t = 100 i + 50, job i−1 (ended in this call) and job i (running): at most 2, whatever the trace's length.
  // Kept for the whole run, the storage would hold all 1,000.
  RunInputs in = build_run(load_scenario(DATA + "base.yaml", {"policy.params.max_per_device=1"}));
  in.reader = std::make_unique<SequentialJobs>(1000, 100.0, 150.0);
  const auto o = run_collect(in);
  CHECK(o.totals.jobs_read == 1000);
  CHECK(o.totals.completed == 1000);
  CHECK(o.jobs.size() == 1000);
  CHECK(o.totals.peak_live_jobs == 2);
  CHECK(o.jobs.at("j1").devices == std::vector<DeviceIndex>{1});
  // Every job's record is still whole: job 999 alone from 99,900 s, 150 s later; its energy is its own.
  const auto& last = o.jobs.at("j999");
  CHECK_THAT(last.start_s, WithinAbs(99900.0, 1e-6));
  CHECK_THAT(last.end_s, WithinAbs(100050.0, 1e-6));
  CHECK(last.energy_j > 0);
}

TEST_CASE("a policy that reads a job ended in an earlier call gets an error naming the job",
          "[engine][memory]")
{
  // Job 0 (10 s) ends at t = 10: that call gets its JobCompleted, and may read it; job 1 arrives at t = 100,
  // and the policy's read of job 0 then must fail loudly, never return another job's data.
  RunInputs in = build_run(load_scenario(DATA + "base.yaml", {}));
  in.reader = std::make_unique<SequentialJobs>(2, 100.0, 10.0);
  in.policy = std::make_unique<ReadsEndedJob>();
  RunObserver none;
  REQUIRE_THROWS_WITH(run_simulation(in.setup(), none),
                      ContainsSubstring("job 0 has ended and its state was freed"));
}

namespace {

/// Places each submitted job alone on a free device, but only when woken: a submission gets WakeAt(now)
/// (the call at the submission's instant places nothing), the Wakeup of that same instant places. Records
/// the time and kinds of each call's events.
class PlaceWhenWoken final : public Policy {
public:
  std::vector<std::pair<double, std::string>> calls;

  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    std::string kinds;
    bool woken = false;
    for (const auto& e : events) {
      if (const auto* s = std::get_if<JobSubmitted>(&e)) {
        waiting_.push_back(s->job);
        kinds += "S";
      } else if (const auto* w = std::get_if<Wakeup>(&e)) {
        woken = true;
        kinds += "W";
        CHECK(w->at_s == view.now());
      } else {
        kinds += "o";
      }
    }
    calls.emplace_back(view.now(), kinds);
    if (!woken) return waiting_.empty() ? std::vector<Decision>{} : std::vector<Decision>{WakeAt{view.now()}};
    std::vector<Decision> out;
    for (DeviceIndex d = 0; d < view.device_count() && !waiting_.empty(); ++d)
      if (view.residents(d).empty()) {
        out.emplace_back(Place{waiting_.front(), {d}});
        waiting_.erase(waiting_.begin());
      }
    return out;
  }

private:
  std::vector<JobIndex> waiting_;
};

/// Asks to be woken at the current time at every call: time never advances.
class AlwaysWakeNow final : public Policy {
public:
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event>) override
  {
    return {WakeAt{view.now()}};
  }
};

} // namespace

TEST_CASE("WakeAt(now) calls the policy once more at the same instant, and asked forever it is an error",
          "[engine]")
{
  // pair.csv: a and b (100 s each) submitted at t=0 on two tiles. The call at t=0 asks WakeAt(0); the
  // second call at t=0 gets the Wakeup and places each job alone on a tile: both end at t=100 (alone,
  // slowdown 1), and the two completions at t=100 make the third call.
  RunInputs in = build_run(load_scenario(DATA + "base.yaml", {"workload.trace=pair.csv"}));
  auto policy = std::make_unique<PlaceWhenWoken>();
  auto* seen = policy.get();
  in.policy = std::move(policy);
  const auto o = run_collect(in);
  REQUIRE(seen->calls.size() == 3);
  CHECK(seen->calls[0] == std::pair<double, std::string>{0.0, "SS"});
  CHECK(seen->calls[1] == std::pair<double, std::string>{0.0, "W"});
  CHECK(seen->calls[2].first == 100.0);
  CHECK(o.totals.completed == 2);
  CHECK_THAT(o.jobs.at("a").end_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(o.jobs.at("b").end_s, WithinAbs(100.0, 1e-6));

  // A policy that asks for it at every call: a DecisionError, not an endless loop at t=0 (nor an abort).
  RunInputs forever = build_run(load_scenario(DATA + "base.yaml", {"workload.trace=pair.csv"}));
  forever.policy = std::make_unique<AlwaysWakeNow>();
  forever.scenario.policy = "wake-now";
  RunObserver none;
  REQUIRE_THROWS_WITH(run_simulation(forever.setup(), none),
                      ContainsSubstring("policy 'wake-now' kept simulated time from advancing at t=0") &&
                          ContainsSubstring("1000 calls of decide() in a row at this instant") &&
                          ContainsSubstring("WakeAt(now + delay)"));
}

namespace {

/// A SimGrid actor besides the engine's controller, as network flows will bring: it sleeps until 100 s and
/// then 300 s of sim time and records, at each wake-up, how many jobs the engine has ended by then.
class SecondActor final : public EngineSubscriber {
public:
  EngineEventSet events() const override
  {
    return {EngineEvent::AVAILABILITY_CHANGED, EngineEvent::JOB_ENDED};
  }
  void availability_changed(const AvailabilityChanged&) override
  {
    if (created_) return;
    created_ = true; // the platform's hosts exist now (the first event comes once the platform is built)
    simgrid::s4u::Actor::create("second", simgrid::s4u::Host::by_name("controller"), [this] {
      for (const double t : {100.0, 300.0}) {
        simgrid::s4u::this_actor::sleep_until(t);
        seen.emplace_back(simgrid::s4u::Engine::get_clock(), ended_);
      }
    });
  }
  void job_ended(const JobEnded&) override { ++ended_; }
  std::vector<std::pair<double, int>> seen; ///< (SimGrid's clock, jobs ended) at each wake-up

private:
  bool created_ = false;
  int ended_ = 0;
};

} // namespace

TEST_CASE("engine: with another SimGrid actor alive, the controller waits in SimGrid and the two interleave "
          "in time order",
          "[engine]")
{
  // pair.csv on base.yaml: jobs a and b share tile 0 and both end at 250 s ("two jobs sharing one tile").
  // The controller takes SimGrid's waits only when SimGrid has something else to run; here it has, so at
  // 100 s no job has ended and at 300 s both have. (A controller that never waited would run to the end
  // before the other actor's first wake-up, which would then see both jobs ended.)
  RunInputs in = build_run(load_scenario(SIM_DATA + "base.yaml", {"workload.trace=pair.csv"}));
  SecondActor second;
  RunSetup setup = in.setup();
  setup.subscribers.push_back(&second);
  RunObserver none;
  const RunTotals t = run_simulation(setup, none);
  CHECK(t.t_end_s - t.t_first_submit_s == 250.0);
  REQUIRE(second.seen.size() == 2);
  CHECK(second.seen[0] == std::pair<double, int>{100.0, 0});
  CHECK(second.seen[1] == std::pair<double, int>{300.0, 2});
}
