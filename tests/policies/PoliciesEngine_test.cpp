// Engine tier: policies' characteristic choices on small hand-checkable scenarios, through the real engine
// (fixtures in tests/data/sim/: a 2-tile test card; calibration-test.yaml; profiles-test.yaml). The unit
// tier (FakeClusterView, no engine) is in the other *_test.cpp files here.
#include "tests/CatchCompat.hpp"

#include "policies/ExclusiveEasy.hpp"
#include "policies/PolicyRegistry.hpp"
#include "sim/Engine.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

using namespace colocsim;
using namespace colocsim::test;

namespace {
const std::string DATA = std::string(COLOCSIM_TEST_DATA) + "/sim/";

struct Collect final : RunObserver {
  std::map<std::string, JobRecord> jobs;
  void on_job_end(const JobRecord& r) override
  {
    jobs[r.job->id] = r;
    jobs[r.job->id].job = nullptr;
  }
};

std::map<std::string, JobRecord> run(const std::string& trace, const std::string& policy,
                                     std::vector<std::string> sets = {})
{
  sets.push_back("workload.trace=" + trace);
  RunInputs in = build_run(load_scenario(DATA + "base.yaml", sets, policy));
  Collect c;
  run_simulation(in.setup(), c);
  return c.jobs;
}
} // namespace

TEST_CASE("best-fit picks the tightest device, first-fit the lowest", "[policies][best-fit]")
{
  const auto ff = run("bestfit.csv", "first-fit:memory=declared");
  const auto bf = run("bestfit.csv", "best-fit:memory=declared");
  CHECK(ff.at("A").devices == std::vector<DeviceIndex>{0});
  CHECK(ff.at("B").devices == std::vector<DeviceIndex>{1});
  CHECK(bf.at("B").devices == std::vector<DeviceIndex>{1});
  CHECK(ff.at("C").devices == std::vector<DeviceIndex>{0}); // 64 − 30 = 34 GB free, the lowest index
  CHECK(bf.at("C").devices == std::vector<DeviceIndex>{1}); // 64 − 40 = 24 GB free: the tighter fit
}

TEST_CASE("EASY backfills exactly the job that does not delay the head", "[policies][easy]")
{
  // Exclusive tiles. j1 [0, 100] on tile 0; j2 (2 devices) reserves both tiles at t = 100 (the shadow
  // time, no spare device then); j3 (50 s) fits on tile 1 and ends at 52 ≤ 100: it backfills at t = 2.
  // j4 (200 s) would end at 252 > 100 and there is no spare device: it waits. j2 runs [100, 150], j4
  // [150, 350].
  const auto easy = run("easy.csv", "exclusive-easy", {"platform.sharing=exclusive"});
  CHECK_THAT(easy.at("j3").start_s, WithinAbs(2.0, 1e-9));
  CHECK_THAT(easy.at("j2").start_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(easy.at("j4").start_s, WithinAbs(150.0, 1e-6));
  CHECK_THAT(easy.at("j4").end_s, WithinAbs(350.0, 1e-6));
  // Strict FCFS keeps j3 behind j2: it starts only at 150.
  const auto fcfs = run("easy.csv", "exclusive-fcfs", {"platform.sharing=exclusive"});
  CHECK_THAT(fcfs.at("j3").start_s, WithinAbs(150.0, 1e-6));
  CHECK_THAT(fcfs.at("j2").start_s, WithinAbs(100.0, 1e-6));
}

namespace {
/// Runs exclusive-easy and records, for each queue head, the earliest reservation it held when a later job
/// was backfilled past it.
struct WatchEasy final : Policy {
  std::unique_ptr<Policy> inner;
  std::map<JobIndex, double> promised;
  std::map<JobIndex, std::string> ids;
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    auto out = inner->decide(view, events);
    if (const auto& r = dynamic_cast<const ExclusiveEasy&>(*inner).backfill_reservation()) {
      auto [it, fresh] = promised.emplace(r->head, r->shadow_s);
      if (!fresh) it->second = std::min(it->second, r->shadow_s);
      ids[r->head] = view.job(r->head).id;
    }
    return out;
  }
};
} // namespace

TEST_CASE("EASY with exact estimates never starts a head later than the reservation it held at a backfill",
          "[policies][easy]")
{
  // The defining guarantee of EASY (Mu'alem & Feitelson 2001): backfilling never delays the queue head
  // beyond its reservation. With exact estimates (exclusive tiles, no interference, no power cap reached:
  // 2 × 170 W < 600 W per card) the reservation is where it starts at the latest. Random traces of gang
  // jobs whose durations leave out their scaling losses (the `scaling` profile: e(n) = 1 / (0.25 n + 0.75))
  // check that the policy's expected ends use the rate the engine applies.
  const auto dir = std::filesystem::temp_directory_path() / "colocsim-easy-property";
  std::filesystem::create_directories(dir);
  int backfills = 0;
  for (unsigned seed = 1; seed <= 8; ++seed) {
    std::mt19937 rng(seed);
    const auto trace = dir / ("trace-" + std::to_string(seed) + ".csv");
    {
      std::ofstream f(trace);
      f << "id,submit_s,duration_s,devices,profile\n";
      double t = 0;
      for (int i = 0; i < 60; ++i) {
        t += static_cast<double>(rng() % 40);
        const int devices = 1 + static_cast<int>(rng() % 8);
        f << "j" << i << "," << t << "," << 10 + rng() % 500 << "," << devices << ","
          << (rng() % 2 ? "scaling" : "busy") << "\n";
      }
    }
    RunInputs in = build_run(load_scenario(DATA + "base.yaml",
                                           {"workload.trace=" + trace.string(), "platform.sharing=exclusive",
                                            "platform.nodes=5", "workload.durations_at=perfect-scaling"},
                                           "exclusive-easy"));
    auto watch = std::make_unique<WatchEasy>();
    watch->inner = std::move(in.policy);
    auto* w = watch.get();
    in.policy = std::move(watch);
    Collect c;
    run_simulation(in.setup(), c);
    for (const auto& [head, shadow] : w->promised) {
      const auto& r = c.jobs.at(w->ids.at(head));
      INFO("seed " << seed << ", head " << w->ids.at(head) << ": reservation " << shadow << " s, started "
                   << r.start_s << " s");
      CHECK(r.start_s <= shadow + 1e-6 * std::max(1.0, shadow));
      ++backfills;
    }
  }
  CHECK(backfills >= 20); // the traces do exercise backfilling
}

TEST_CASE("EASY sees gang jobs of different sizes that end at one instant in one pass", "[policies][easy]")
{
  // Twelve exclusive tiles. At 0: jA (8 tiles) and jB (2 tiles), 100 s each, and jF (the other 2 tiles,
  // 100,000 s). At 1: jH1 (9 tiles, 10 s), jH2 (10 tiles, 10 s), jS (1 tile, 1,000 s). At 100 jA and jB end
  // together, and one pass (policies/Policy.hpp) sees both: 10 tiles free, jH1 starts; head jH2 needs 10:
  // its shadow time is jH1's end, 110, when 1 + 9 = 10 tiles are free, none spare; jS would end at 1,100 >
  // 110: it waits. So jH2 runs [110, 120] and jS [120, 1,120]. The engine used to call the policy after
  // jB's completion alone (jA's actor was still reading its 8 execs' remaining work, one round each): jH1
  // did not fit in 2 tiles, its shadow time was 100 (jA "ending now", 2 + 8 − 9 = 1 spare tile), jS took
  // the spare tile at 100, and jH2 waited until 1,100 — past the reservation EASY promises.
  const auto dir = std::filesystem::temp_directory_path() / "colocsim-easy-tie";
  std::filesystem::create_directories(dir);
  const auto trace = dir / "tie.csv";
  {
    std::ofstream f(trace);
    f << "id,submit_s,duration_s,devices,profile\n"
         "jA,0,100,8,busy\njB,0,100,2,busy\njF,0,100000,2,busy\n"
         "jH1,1,10,9,busy\njH2,1,10,10,busy\njS,1,1000,1,busy\n";
  }
  const auto easy = run(trace.string(), "exclusive-easy", {"platform.sharing=exclusive", "platform.nodes=6"});
  CHECK_THAT(easy.at("jA").end_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(easy.at("jB").end_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(easy.at("jH1").start_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(easy.at("jH2").start_s, WithinAbs(110.0, 1e-6));
  CHECK_THAT(easy.at("jS").start_s, WithinAbs(120.0, 1e-6));
}

TEST_CASE("interference-aware refuses the pairing that slows jobs too much", "[policies][interference-aware]")
{
  // Two compute-bound jobs would each be slowed 2.5× on one tile (> 1.5): the second goes to tile 1, and
  // both end at 100 s. first-fit packs them and both end at 250 s.
  const auto ia = run("pair.csv", "interference-aware:max_slowdown=1.5");
  CHECK(ia.at("a").devices != ia.at("b").devices);
  CHECK_THAT(ia.at("b").end_s, WithinAbs(100.0, 1e-6));
  const auto ff = run("pair.csv", "first-fit");
  CHECK(ff.at("a").devices == ff.at("b").devices);
  // Two low-duty-cycle jobs: max(1, Σd = 0.5, 1 + 1·0.25·0.25) = 1.0625 ≤ 1.5, so they share tile 0 and
  // end at 106.25 s.
  const auto light = run("light-pair.csv", "interference-aware:max_slowdown=1.5");
  CHECK(light.at("l1").devices == std::vector<DeviceIndex>{0});
  CHECK(light.at("l2").devices == std::vector<DeviceIndex>{0});
  CHECK_THAT(light.at("l2").end_s, WithinAbs(106.25, 1e-6));
}

TEST_CASE("policy parameters are declared and checked", "[policies][params]")
{
  std::vector<std::string> names;
  for (const auto& p : policy_registry())
    names.push_back(p.name);
  for (const char* n : {"exclusive-fcfs", "exclusive-easy", "first-fit", "best-fit", "interference-aware"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  REQUIRE_THROWS_WITH(load_scenario(DATA + "base.yaml", {}, "interference-aware:max_slowdown=0.5"),
                      ContainsSubstring("policy.params.max_slowdown: out of range (got '0.5')"));
  REQUIRE_THROWS_WITH(load_scenario(DATA + "base.yaml", {}, "best-fit:colour=red"),
                      ContainsSubstring("policy.params.colour: unknown key; valid: max_per_device, memory"));
}

#include "tests/policies/LargestFirst.hpp"

TEST_CASE("the README's example policy compiles and runs largest jobs first, without reservations",
          "[policies][example]")
{
  // easy.csv on two tiles. Largest first, but with no reservation: j3 takes the free tile at 2; when it
  // ends at 52, j2 (2 devices) still does not fit and j4 (1 device) does, so j4 runs [52, 252] and j2 waits
  // until 252 — the starvation EASY's reservation prevents (j2 starts at 100 under exclusive-easy).
  RunInputs in =
      build_run(load_scenario(DATA + "base.yaml", {"workload.trace=easy.csv", "platform.sharing=exclusive"}));
  in.policy = std::make_unique<example::LargestFirst>();
  Collect c;
  run_simulation(in.setup(), c);
  CHECK_THAT(c.jobs.at("j3").start_s, WithinAbs(2.0, 1e-9)); // a free tile: j3 fits at once
  CHECK_THAT(c.jobs.at("j4").start_s, WithinAbs(52.0, 1e-6));
  CHECK_THAT(c.jobs.at("j2").start_s, WithinAbs(252.0, 1e-6));
  CHECK(c.jobs.at("j2").devices.size() == 2);
  CHECK(colocsim::test::read_source_file("policies/README.md")
            .find(colocsim::test::read_source_file("tests/policies/LargestFirst.hpp")) != std::string::npos);
}

TEST_CASE("complementary pairs light jobs with compute-bound ones by maximum-weight matching",
          "[policies][complementary]")
{
  // Savings w = t_a + t_b − max(t_a s_a, t_b s_b), table C|L = L|C = 1, θ = 1, ε = 0:
  //   light+light: s = max(1, 0.5, 1 + 0.25·0.25) = 1.0625 → w = 200 − 106.25 = 93.75
  //   light+busy:  s_l = max(1.25, 1 + 0.25·1) = 1.25, s_b = max(1.25, 1 + 1·0.25) = 1.25 → w = 75
  //   busy+busy:   s = 2 · 1.25 (table C|C) = 2.5 → w = 200 − 250 < 0: no edge.
  // Best matching: {l1–b1, l2–b2} = 150 > {l1–l2} = 93.75. Each tile runs a light and a busy job: all end
  // at 125 s. first-fit, in submission order, packs l1+l2 and b1+b2: the busy pair ends at 250 s.
  const auto comp = run("complementary.csv", "complementary");
  CHECK(comp.at("l1").devices == comp.at("b1").devices);
  CHECK(comp.at("l2").devices == comp.at("b2").devices);
  CHECK(comp.at("l1").devices != comp.at("l2").devices);
  for (const char* id : {"l1", "l2", "b1", "b2"})
    CHECK_THAT(comp.at(id).end_s, WithinAbs(125.0, 1e-6));
  const auto ff = run("complementary.csv", "first-fit");
  CHECK_THAT(ff.at("b2").end_s, WithinAbs(250.0, 1e-6));
}

TEST_CASE("power-aware powers an idle node off after idle_s and back on for a burst",
          "[policies][power-aware]")
{
  // Two nodes of 2 tiles, exclusive placement underneath. Idle gap: a (0..100 s) on node 0; node 1, empty
  // since 0, goes off at 600 s; node 0 stays on (min_on = 1) and runs b (2000..2050 s). Node 1 saved its
  // 500 W baseline and 2 × 100 W idle tiles from 600 to 2050 s: 725,000 J of node and 290,000 J of device
  // energy against exclusive-fcfs alone.
  const std::vector<std::string> sets{"platform.nodes=2", "platform.node_boot=300s",
                                      "workload.trace=power-idle.csv"};
  auto totals = [&](const std::string& policy) {
    RunInputs in = build_run(load_scenario(DATA + "base.yaml", sets, policy));
    Collect c;
    const auto t = run_simulation(in.setup(), c);
    return std::make_pair(t, c.jobs);
  };
  const auto [plain, plain_jobs] = totals("exclusive-fcfs");
  const auto [pa, pa_jobs] = totals("power-aware:inner=exclusive-fcfs,idle_s=600,min_on=1");
  CHECK_THAT(pa_jobs.at("b").start_s, WithinAbs(2000.0, 1e-6));
  CHECK_THAT(pa.t_end_s, WithinAbs(2050.0, 1e-6));
  CHECK_THAT(plain.energy_node_j - pa.energy_node_j, WithinRel(725000.0, 1e-9));
  CHECK_THAT(plain.energy_device_j - pa.energy_device_j, WithinRel(290000.0, 1e-9));

  // Burst: four 1000 s jobs at 2000 s; two fit on node 0, the other two wait while node 1 boots (300 s).
  const auto burst = run("power-burst.csv", "power-aware:inner=exclusive-fcfs,idle_s=600,min_on=1",
                         {"platform.nodes=2", "platform.node_boot=300s"});
  for (const char* id : {"b1", "b2"})
    CHECK_THAT(burst.at(id).start_s, WithinAbs(2000.0, 1e-6));
  for (const char* id : {"b3", "b4"}) {
    CHECK_THAT(burst.at(id).start_s, WithinAbs(2300.0, 1e-6));
    CHECK(burst.at(id).devices.front() >= 2); // on node 1
  }
}

TEST_CASE(
    "EASY with the users' requested times (SWF field 9): backfilling trusts them, the engine kills there",
    "[policies][easy][estimates]")
{
  // estimates.swf on two exclusive tiles. requested: j1 (asks 400, runs 100) on tile 0 at 0. Head j2 (2
  // tiles) reserves t = 400, j1's requested end. j3 (asks 200) on tile 1 would end by 2 + 200 = 202 ≤ 400:
  // backfilled at 2, runs [2, 152]. j1 ends at 100: the reservation moves to 202 (j3's requested end); j4
  // (asks 100) on tile 0 ends by 200 ≤ 202: backfilled at 100 and killed at 200 (it would run 500). j3
  // ends at 152; j2 gets both tiles when j4 is killed: [200, 250].
  const std::vector<std::string> swf{"platform.sharing=exclusive", "workload.format=swf",
                                     "workload.default_profile=busy", "workload.profile_map=none"};
  auto with = [&](const std::string& estimates) {
    auto sets = swf;
    sets.push_back("workload.estimates=" + estimates);
    return run("estimates.swf", "exclusive-easy", sets);
  };
  const auto req = with("requested");
  CHECK_THAT(req.at("3").start_s, WithinAbs(2.0, 1e-6));
  CHECK_THAT(req.at("3").end_s, WithinAbs(152.0, 1e-6));
  CHECK_THAT(req.at("4").start_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(req.at("4").end_s, WithinAbs(200.0, 1e-6));
  CHECK(req.at("4").status == JobStatus::KILLED);
  CHECK(req.at("3").status == JobStatus::COMPLETED);
  CHECK_THAT(req.at("2").start_s, WithinAbs(200.0, 1e-6));
  CHECK_THAT(req.at("2").end_s, WithinAbs(250.0, 1e-6));
  // exact (the default): the reservation is at j1's real end, 100; neither j3 (ends 152) nor j4 fits
  // before it. j2 [100, 150], then j3 [150, 300] and j4 [150, 650], never killed.
  const auto exact = with("exact");
  CHECK_THAT(exact.at("2").start_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(exact.at("3").start_s, WithinAbs(150.0, 1e-6));
  CHECK_THAT(exact.at("4").end_s, WithinAbs(650.0, 1e-6));
  CHECK(exact.at("4").status == JobStatus::COMPLETED);
}

namespace {
/// Runs a policy and records ClusterView::estimate of each job when it is submitted.
struct RecordEstimates final : Policy {
  std::unique_ptr<Policy> inner;
  std::map<std::string, double> at_submit;
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    for (const auto& e : events)
      if (const auto* s = std::get_if<JobSubmitted>(&e))
        at_submit[view.job(s->job).id] = view.estimate(s->job);
    return inner->decide(view, events);
  }
};
} // namespace

TEST_CASE("EASY with predicted run times: the mean of the user's last two, capped by the request",
          "[policies][easy][estimates]")
{
  // Tsafrir, Etsion & Feitelson 2007. predicted-mean.swf: user 7 ran 100 s ([0, 100]), then 10 and 32 s
  // ([100, 110] and [100, 132]). At 140 job 4 (user 8, no history: its request, 23) takes tile 0 until 163;
  // head job 5 (2 tiles) reserves 163. Job 6 (user 7, asks 1000, runs 25) is predicted (10 + 32) / 2 = 21 s:
  // 142 + 21 = 163 ≤ 163, backfilled on tile 1 [142, 167]; job 5 then runs [167, 177]. (The mean of all
  // three, 47.3 s, or the request, 1000 s, would not fit: job 5 [163, 173], job 6 [173, 198].)
  const std::vector<std::string> swf{"platform.sharing=exclusive", "workload.format=swf",
                                     "workload.default_profile=busy", "workload.profile_map=none"};
  auto with = [&](const std::string& trace, const std::string& estimates) {
    auto sets = swf;
    sets.push_back("workload.estimates=" + estimates);
    return run(trace, "exclusive-easy", sets);
  };
  const auto mean = with("predicted-mean.swf", "predicted");
  CHECK(mean.at("4").status == JobStatus::COMPLETED); // ran exactly its requested 23 s: not killed
  CHECK_THAT(mean.at("6").start_s, WithinAbs(142.0, 1e-6));
  CHECK_THAT(mean.at("6").end_s, WithinAbs(167.0, 1e-6));
  CHECK_THAT(mean.at("5").start_s, WithinAbs(167.0, 1e-6));
  const auto requested = with("predicted-mean.swf", "requested");
  CHECK_THAT(requested.at("5").start_s, WithinAbs(163.0, 1e-6));
  CHECK_THAT(requested.at("6").start_s, WithinAbs(173.0, 1e-6));
  // predicted-cap.swf: user 7 ran 10 and 32 s (mean 21); job 5 asks only 20 s. Job 3 (user 8, asks 22)
  // holds tile 0 [40, 62]; head job 4 reserves 62. Job 5's prediction min(21, 20) = 20 ends at 42 + 20 =
  // 62 ≤ 62: backfilled on tile 1 and killed at 62 (it runs 25 s); job 4 runs [62, 72]. Uncapped (21 s,
  // 63 > 62) it would have waited until 72.
  // The estimates themselves: the request until user 7 has two runs, then the mean of the last two capped
  // by the request (job 5: min((10 + 32) / 2, 20) = 20); user 8 has none (its requests).
  {
    RunInputs in = build_run(load_scenario(DATA + "base.yaml",
                                           {"workload.trace=predicted-cap.swf", "platform.sharing=exclusive",
                                            "workload.format=swf", "workload.default_profile=busy",
                                            "workload.profile_map=none", "workload.estimates=predicted"},
                                           "exclusive-easy"));
    auto rec = std::make_unique<RecordEstimates>();
    rec->inner = std::move(in.policy);
    auto* r = rec.get();
    in.policy = std::move(rec);
    Collect c;
    run_simulation(in.setup(), c);
    CHECK(r->at_submit ==
          std::map<std::string, double>{{"1", 1000}, {"2", 1000}, {"3", 22}, {"4", 10}, {"5", 20}});
  }
  const auto cap = with("predicted-cap.swf", "predicted");
  CHECK_THAT(cap.at("5").start_s, WithinAbs(42.0, 1e-6));
  CHECK_THAT(cap.at("5").end_s, WithinAbs(62.0, 1e-6));
  CHECK(cap.at("5").status == JobStatus::KILLED);
  CHECK_THAT(cap.at("4").start_s, WithinAbs(62.0, 1e-6));
  CHECK_THAT(cap.at("4").end_s, WithinAbs(72.0, 1e-6));
}
