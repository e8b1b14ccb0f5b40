// NVIDIA MIG in the engine (sharing mode mig, models/Mig.hpp) and the mig-manager policy, on one A100-40GB
// (tests/data/sim/mig.yaml). Hand-computed schedules: a job on an instance with a fraction s of the whole
// GPU's SMs and m of its memory slices runs max(β·max(1, c/s) + (1 − β)·max(1, b/m), b/m, u/s, 1) times
// slower than on the whole GPU (models/Interference.hpp mig_slowdown; A100: 14 SMs per slice of the 108,
// 8 memory slices); reconfigurations take the table's 5 s; instances are isolated.
//   resnet50-infer-bs1: c = 0.25, b = 0.08, u = 0.15, β = 0.3 → on 1g.5gb (s = 14/108, m = 1/8):
//     c/s = 1.928571, u/s = 1.157143, b/m = 0.64: 0.3·1.928571 + 0.7·1 = 1.278571
//   bert-base-train-bs32: c = 0.9, b = 0.4, u = 0.5, β = 0.8, real memory 19.83 GB → on 3g.20gb
//     (s = 42/108, m = 4/8): c/s = 2.314286, u/s = 1.285714, b/m = 0.8: 0.8·2.314286 + 0.2 = 2.051429
#include "tests/CatchCompat.hpp"
#include "tests/sim/EngineTestSupport.hpp"

#include "base/Params.hpp"
#include "policies/MigManager.hpp"
#include "policies/PolicyRegistry.hpp"
#include "sim/Engine.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"

#include <map>

using namespace colocsim;
using namespace colocsim::test;

namespace {

const std::string& DATA = SIM_DATA;

RunOutcome run(std::vector<std::string> sets, const std::string& policy = {},
               std::unique_ptr<Policy> custom = {})
{
  return run_scenario(DATA + "mig.yaml", sets, policy, std::move(custom));
}

/// Places every submitted job on the given instance of device 0, and optionally asks for one change first.
class Pin final : public Policy {
public:
  std::vector<std::uint32_t> instance_of; ///< by job index
  std::optional<MigChange> change;
  std::vector<Decision> decide(const ClusterView&, std::span<const Event> events) override
  {
    std::vector<Decision> out;
    if (change) {
      out.push_back(ReconfigureMig{0, *change});
      change.reset();
    }
    for (const auto& e : events)
      if (const auto* s = std::get_if<JobSubmitted>(&e)) {
        Place p{s->job, {0}};
        p.instances = {instance_of.at(s->job)};
        out.push_back(std::move(p));
      }
    return out;
  }
};
} // namespace

TEST_CASE("mig-manager splits a whole GPU for small jobs and fuses empty instances for a big one",
          "[engine][mig][mig-manager]")
{
  // t=0: s1..s3 need 1g.5gb; the GPU is one empty 7g.40gb → FISSION into 7 × 1g.5gb, ready at 5 s; each runs
  // 100 s of work at 1.278571 → ends at 132.857 s. t=10: `big` needs 3g.20gb; 1g@4, @5, @6 are empty →
  // FUSION into 3g.20gb@4, ready at 15 s; 100 s at 2.051429 → ends at 220.143 s. Sizing by memory alone
  // (sizing=memory): by compute too, `big` would wait for a 7g.40gb (2.05 > max_slowdown 1.25).
  const auto o = run({}, "mig-manager:sizing=memory");
  for (const char* id : {"s1", "s2", "s3"}) {
    CHECK_THAT(o.jobs.at(id).start_s, WithinAbs(5.0, 1e-6));
    CHECK_THAT(o.jobs.at(id).slowdown, WithinAbs(0.3 * 0.25 * 108 / 14 + 0.7, 1e-9));
    CHECK_THAT(o.jobs.at(id).end_s, WithinAbs(5.0 + 127.857143, 1e-5));
  }
  CHECK_THAT(o.jobs.at("big").start_s, WithinAbs(15.0, 1e-6));
  CHECK_THAT(o.jobs.at("big").slowdown, WithinAbs(0.8 * 0.9 * 108 / 42 + 0.2, 1e-9));
  CHECK_THAT(o.jobs.at("big").end_s, WithinAbs(15.0 + 205.142857, 1e-5));
  CHECK(o.totals.oom_events == 0);
}

TEST_CASE("mig-manager restarts a job that ran out of memory on a larger instance, at once",
          "[engine][mig][mig-manager]")
{
  // `o` declares 4 GB but needs 19.83 GB. 1g.5gb (fission, ready 5 s) → out of memory 60 s later (65 s);
  // estimate 8 GB → 1g.10gb@6 (1g@6 destroyed, ready 70 s) → out of memory at 130 s; estimate 16 GB →
  // 3g.20gb@4 (fusion, ready 135 s) → 100 s at 2.051429 → ends at 340.143 s. Three attempts, two OOM events.
  // Sizing by memory alone (sizing=memory; by compute too, bert-base training gets a 7g.40gb at once).
  const auto o = run({"workload.trace=mig-oom.csv"}, "mig-manager:sizing=memory");
  const auto& r = o.jobs.at("o");
  CHECK(r.status == JobStatus::COMPLETED);
  CHECK(r.attempts == 3);
  CHECK_THAT(r.start_s, WithinAbs(5.0, 1e-6));
  CHECK_THAT(r.end_s, WithinAbs(135.0 + 205.142857, 1e-5));
  CHECK(o.totals.oom_events == 2);
  // The slowdown is the last attempt's: (340.142857 − 135) / 100 = 2.051429, the 3g.20gb rate; from the first
  // start it would be (340.142857 − 5) / 100 = 3.35.
  CHECK_THAT(r.last_start_s, WithinAbs(135.0, 1e-6));
  CHECK_THAT(r.slowdown, WithinAbs(2.051429, 1e-6));
}

TEST_CASE("mig-manager sizes an instance by memory and by the job's predicted slowdown on it",
          "[engine][mig][mig-manager]")
{
  // stable-diffusion-infer (5 GB; c = 0.9, b = 0.35, u = 0.6, β = 0.8) and resnet50-train-bs32 (3.94 GB;
  // c = 0.8, b = 0.35, u = 0.4, β = 0.75), 100 s each, submitted at 0 (mig-sizing.csv). Predicted slowdown
  // max(β·max(1, c/s) + (1 − β)·max(1, b/m), b/m, u/s, 1) on the profiles that hold their memory, smallest
  // first (s = SMs/108, m = memory slices/8):
  //   stable diffusion  1g.5gb  0.8·6.942857 + 0.2·2.8 = 6.114286   1g.10gb 0.8·6.942857 + 0.2·1.4 = 5.834
  //                     2g.10gb 0.8·3.471429 + 0.2·1.4 = 3.057143   3g.20gb 0.8·2.314286 + 0.2 = 2.051429
  //                     4g.20gb 0.8·1.735714 + 0.2 = 1.588571       7g.40gb c/s = 0.991837 → 1
  //   resnet50 bs32     1g.5gb  0.75·6.171429 + 0.25·2.8 = 5.328571 ... 4g.20gb 0.75·1.542857 + 0.25 =
  //                     1.407143                                    7g.40gb c/s = 0.881633 → 1
  // Default (max_slowdown 1.25): both get a 7g.40gb. SD takes the GPU's 7g.40gb at 0 (ends 100 s); the
  // ResNet waits for it and runs [100, 200]. By memory alone both went on 1g.5gb slices (fission, ready at
  // 5 s) at 6.11× and 5.33×.
  const auto o = run({"workload.trace=mig-sizing.csv"});
  CHECK_THAT(o.jobs.at("sd").start_s, WithinAbs(0.0, 1e-6));
  CHECK_THAT(o.jobs.at("sd").slowdown, WithinAbs(1.0, 1e-9));
  CHECK_THAT(o.jobs.at("sd").end_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(o.jobs.at("rn").start_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(o.jobs.at("rn").slowdown, WithinAbs(1.0, 1e-9));
  CHECK_THAT(o.jobs.at("rn").end_s, WithinAbs(200.0, 1e-6));
  // max_slowdown 1.5: SD still needs 7g.40gb (4g.20gb: 1.588571); the ResNet takes a 4g.20gb (1.407143):
  // at 100 s the empty 7g.40gb is split (one 4g.20gb fits), ready at 105 s → ends 105 + 140.714286.
  const auto b = run({"workload.trace=mig-sizing.csv"}, "mig-manager:max_slowdown=1.5");
  CHECK_THAT(b.jobs.at("sd").end_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(b.jobs.at("rn").start_s, WithinAbs(105.0, 1e-6));
  CHECK_THAT(b.jobs.at("rn").slowdown, WithinAbs(0.75 * 0.8 * 108 / 56 + 0.25, 1e-9));
  CHECK_THAT(b.jobs.at("rn").end_s, WithinAbs(245.714286, 1e-5));
  // sizing=memory: the former rule, 1g.5gb for both.
  const auto m = run({"workload.trace=mig-sizing.csv"}, "mig-manager:sizing=memory");
  CHECK_THAT(m.jobs.at("sd").slowdown, WithinAbs(0.8 * 0.9 * 108 / 14 + 0.2 * 2.8, 1e-9));
  CHECK_THAT(m.jobs.at("rn").slowdown, WithinAbs(0.75 * 0.8 * 108 / 14 + 0.25 * 2.8, 1e-9));
}

TEST_CASE("mig-manager backfills behind a waiting head only what ends before the head could start",
          "[engine][mig][mig-manager]")
{
  // mig-backfill.csv, one A100 starting as one 7g.40gb; resnet50-infer-bs1 (4 GB) runs 1.278571× slower on
  // 1g.5gb and 1g.10gb (above max_slowdown 1.25) and 1× on 2g.10gb (c/s = 0.964, u/s = 0.579, b/m = 0.32),
  // so it gets a 2g.10gb; maskrcnn-train (30 GB declared) needs the 7g.40gb (slowdown 1: c/s = 0.771).
  //   t=0   a (100 s): fission 7g.40gb → 3 × 2g.10gb, ready at 5 s; a runs [5, 105] (expected end 105).
  //   t=10  big (7g.40gb) cannot be placed: a is busy. It reserves the GPU, which drains at 105 s.
  //         s (50 s): expected end 10 + 5 (one reconfiguration, counted whatever) + 50 = 65 ≤ 105: it starts
  //         at once on an empty 2g.10gb, [10, 60]. l (200 s): 10 + 5 + 200 = 215 > 105: it waits.
  //   t=105 a ends: fusion of the three empty 2g.10gb into 7g.40gb, ready at 110; big runs [110, 210].
  //   t=210 fission for l, ready at 215; l runs [215, 415].
  // Without backfill s waits behind big: fission at 210, s runs [215, 265]; big and l are unchanged (the
  // head is not delayed by backfilling).
  const auto o = run({"workload.trace=mig-backfill.csv"});
  CHECK_THAT(o.jobs.at("a").end_s, WithinAbs(105.0, 1e-6));
  CHECK_THAT(o.jobs.at("s").start_s, WithinAbs(10.0, 1e-6));
  CHECK_THAT(o.jobs.at("s").end_s, WithinAbs(60.0, 1e-6));
  CHECK_THAT(o.jobs.at("big").start_s, WithinAbs(110.0, 1e-6));
  CHECK_THAT(o.jobs.at("big").end_s, WithinAbs(210.0, 1e-6));
  CHECK_THAT(o.jobs.at("l").start_s, WithinAbs(215.0, 1e-6));
  CHECK_THAT(o.jobs.at("l").end_s, WithinAbs(415.0, 1e-6));
  const auto strict = run({"workload.trace=mig-backfill.csv"}, "mig-manager:backfill=false");
  CHECK_THAT(strict.jobs.at("s").start_s, WithinAbs(215.0, 1e-6));
  CHECK_THAT(strict.jobs.at("s").end_s, WithinAbs(265.0, 1e-6));
  CHECK_THAT(strict.jobs.at("big").end_s, WithinAbs(210.0, 1e-6));
  CHECK_THAT(strict.jobs.at("l").end_s, WithinAbs(415.0, 1e-6));
}

/// Passes every call to the policy underneath and counts the reconfigurations it asks for, per device.
class CountChanges final : public Policy {
public:
  explicit CountChanges(std::unique_ptr<Policy> inner) : inner_(std::move(inner)) {}
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    auto out = inner_->decide(view, events);
    for (const auto& d : out)
      if (const auto* r = std::get_if<ReconfigureMig>(&d)) ++on[r->device];
    return out;
  }
  std::map<DeviceIndex, int> on;

private:
  std::unique_ptr<Policy> inner_;
};

TEST_CASE("mig-manager gives a waiting job one layout change, not one more at each decision",
          "[engine][mig][mig-manager]")
{
  // mig-wait.csv on two A100s, each one 7g.40gb; sizing=memory, so s (4 GB) needs a 1g.5gb.
  //   t=0      s: no 1g.5gb anywhere → fission of GPU 0 into 7 × 1g.5gb, ready at 5 s; s waits for it.
  //   t=1,2,3  r1..r3 arrive (2-GPU jobs: rejected); each arrival is a decision while GPU 0 reconfigures.
  //            s's change is under way and will serve it: s waits (before the fix it split GPU 1 at t=1 too,
  //            a second change for one job, whose instances nobody asked for).
  //   t=5      GPU 0 ready: s runs on a 1g.5gb, [5, 5 + 100 × 1.278571].
  // So exactly one ReconfigureMig, on GPU 0, with the indexes and with the scan, with backfill and without.
  for (const std::string params : {"sizing=memory", "sizing=memory,backfill=false"})
    for (const auto lookup : {MigManager::Lookup::INDEX, MigManager::Lookup::SCAN}) {
      DYNAMIC_SECTION(params << (lookup == MigManager::Lookup::SCAN ? " scan" : " index"))
      {
        RunInputs in = build_run(load_scenario(
            DATA + "mig.yaml", {"platform.cards_per_node=2", "workload.trace=mig-wait.csv"}, "mig-manager"));
        DiagnosticSink sink;
        const auto given = split_assignments(params, "--policy", sink);
        const auto p = parse_params(find_policy("mig-manager").params, given, "policy.params", sink);
        sink.throw_if_any();
        auto counter = std::make_unique<CountChanges>(std::make_unique<MigManager>(p, lookup));
        const CountChanges& count = *counter;
        in.policy = std::move(counter);
        const auto o = run_collect(in);
        CHECK(count.on == std::map<DeviceIndex, int>{{0, 1}});
        CHECK_THAT(o.jobs.at("s").start_s, WithinAbs(5.0, 1e-6));
        CHECK_THAT(o.jobs.at("s").end_s, WithinAbs(5.0 + 127.857143, 1e-5));
        for (const char* r : {"r1", "r2", "r3"})
          CHECK(o.jobs.at(r).status == JobStatus::REJECTED);
      }
    }
}

TEST_CASE("MIG instances are isolated: a job's speed depends only on its own instance", "[engine][mig]")
{
  // Layout 3g.20gb@0 + 1g.5gb@4. Job 0 (resnet50-infer) alone on 1g.5gb: 1.278571; with job 1 (bert
  // training) on the 3g.20gb next to it: still 1.278571, and bert runs at 2.051429 whatever its neighbour.
  auto pin = std::make_unique<Pin>();
  pin->instance_of = {1, 0};
  const auto o =
      run({"platform.mig_layout=3g.20gb,1g.5gb", "workload.trace=mig-pair.csv"}, {}, std::move(pin));
  CHECK_THAT(o.jobs.at("infer").slowdown, WithinAbs(1.278571, 1e-6));
  CHECK_THAT(o.jobs.at("train").slowdown, WithinAbs(2.051429, 1e-6));
  CHECK_THAT(o.jobs.at("infer").end_s, WithinAbs(127.857143, 1e-5));
  CHECK_THAT(o.jobs.at("train").end_s, WithinAbs(205.142857, 1e-5));
}

TEST_CASE("MIG instances share the host and PCIe link: contention adds 1 % per busy co-runner instance",
          "[engine][mig][contention]")
{
  // The isolation test's layout and jobs with `interference: contention`: each job's slowdown gets
  // 1 + 0.01 · (the duty cycle of the job on the other instance) while both run.
  //   infer (resnet50-infer-bs1 on 1g.5gb): 1.278571 · (1 + 0.01 · 0.9) = 1.290079 → ends at 129.0079 s.
  //   train (bert-base-train-bs32 on 3g.20gb, duty 0.9): 2.051429 · (1 + 0.01 · 0.35) = 2.058609 until
  //   129.0079 s (62.6675 s of work done), then alone: 37.3325 s · 2.051429 = 76.5850 s → ends at 205.5928 s.
  auto pin = std::make_unique<Pin>();
  pin->instance_of = {1, 0};
  const auto o =
      run({"platform.mig_layout=3g.20gb,1g.5gb", "workload.trace=mig-pair.csv", "interference=contention"},
          {}, std::move(pin));
  CHECK_THAT(o.jobs.at("infer").end_s, WithinAbs(129.007857, 1e-5));
  CHECK_THAT(o.jobs.at("train").end_s, WithinAbs(205.592810, 1e-5));
}

namespace {
/// In its first call: predicts train (job 1) on device 0, then infer (job 0) with train already decided
/// (`also`), and infer alone; then places both as Pin does (train on instance 0, infer on instance 1).
struct SeenPredictions {
  PlacementPrediction train, infer_after_train, infer_alone;
};
class PredictAlso final : public Policy {
public:
  explicit PredictAlso(SeenPredictions& seen) : seen_(seen) {}
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    std::vector<Decision> out;
    if (events.size() < 2) return out;
    const DeviceIndex d = 0;
    const JobIndex trainer = 1;
    seen_.train = view.predict(1, {&d, 1});
    seen_.infer_after_train = view.predict(0, {&d, 1}, {&trainer, 1});
    seen_.infer_alone = view.predict(0, {&d, 1});
    Place t{1, {0}};
    t.instances = {0};
    Place i{0, {0}};
    i.instances = {1};
    out.emplace_back(std::move(t));
    out.emplace_back(std::move(i));
    return out;
  }

private:
  SeenPredictions& seen_; ///< outlives the run (the engine destroys its policy at the end)
};
} // namespace

TEST_CASE("predict on a MIG device counts the jobs decided before in the same call (also)", "[engine][mig]")
{
  // Layout 3g.20gb@0 + 1g.5gb@4, both empty. train (bert) alone takes the largest instance, 3g.20gb:
  // 2.051429. infer with train already decided gets the instance left, 1g.5gb: 1.278571, the slowdown it
  // then runs at. Alone it would get 3g.20gb: c/s = 0.25/(42/108) = 0.643, b/m = 0.08/(4/8) = 0.16,
  // u/s = 0.386, all below 1: 1. With `interference: contention` train also adds its 1 % × duty 0.9 to
  // infer's prediction: 1.278571 × 1.009 = 1.290079, infer's slowdown in the run (the test above).
  for (const bool contention : {false, true}) {
    INFO("contention " << contention);
    SeenPredictions seen_store;
    auto policy = std::make_unique<PredictAlso>(seen_store);
    const auto* seen = &seen_store;
    std::vector<std::string> sets{"platform.mig_layout=3g.20gb,1g.5gb", "workload.trace=mig-pair.csv"};
    if (contention) sets.emplace_back("interference=contention");
    const auto o = run(sets, {}, std::move(policy));
    const double infer = contention ? 1.290079 : 1.278571;
    CHECK_THAT(seen->train.job_slowdown, WithinAbs(2.051429, 1e-6));
    CHECK_THAT(seen->infer_after_train.job_slowdown, WithinAbs(infer, 1e-6));
    CHECK(seen->infer_after_train.fits_memory);
    CHECK_THAT(seen->infer_alone.job_slowdown, WithinAbs(1.0, 1e-12));
    CHECK_THAT(o.jobs.at("infer").slowdown, WithinAbs(infer, 1e-6));
  }
}

TEST_CASE("MIG decisions the engine refuses, and layouts a scenario may not start with", "[engine][mig]")
{
  // No instance named on a mig device.
  REQUIRE_THROWS_WITH(
      run({"workload.trace=mig-pair.csv"}, {}, std::make_unique<PlaceOnSubmit>(std::vector<DeviceIndex>{0})),
      ContainsSubstring("is in mig mode: name its GPU instance"));
  // Two jobs on one instance.
  auto same = std::make_unique<Pin>();
  same->instance_of = {0, 0};
  REQUIRE_THROWS_WITH(run({"workload.trace=mig-pair.csv"}, {}, std::move(same)),
                      ContainsSubstring("MIG instance 0 (7g.40gb@0) of device 0 already runs job 0"));
  // Destroying an instance that runs a job (placed by the first decision, changed by the second).
  class PlaceThenChange final : public Policy {
  public:
    int calls = 0;
    std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
    {
      std::vector<Decision> out;
      for (const auto& e : events)
        if (const auto* s = std::get_if<JobSubmitted>(&e)) {
          if (calls++ == 0) {
            Place p{s->job, {0}};
            p.instances = {0};
            out.push_back(std::move(p));
          } else {
            const auto* geo = view.mig_geometry(0);
            out.push_back(ReconfigureMig{0, MigChange{{0}, {geo->instance("1g.5gb", 0)}}});
          }
        }
      return out;
    }
  };
  REQUIRE_THROWS_WITH(run({"workload.trace=mig-pair.csv"}, {}, std::make_unique<PlaceThenChange>()),
                      ContainsSubstring("reconfigure MIG on device 0") &&
                          ContainsSubstring("cannot destroy 7g.40gb@0: it holds jobs"));
  // Scenario layouts.
  REQUIRE_THROWS_WITH(build_run(load_scenario(DATA + "mig.yaml", {"platform.mig_layout=4g.20gb,4g.20gb"})),
                      ContainsSubstring("platform.mig_layout: no room for 4g.20gb after {4g.20gb@0}"));
  REQUIRE_THROWS_WITH(build_run(load_scenario(DATA + "mig.yaml", {"platform.mig_layout=2g.99gb"})),
                      ContainsSubstring("unknown MIG profile '2g.99gb' for a100-40gb; valid: 1g.5gb"));
  REQUIRE_THROWS_WITH(build_run(load_scenario(DATA + "mig.yaml", {"platform.preset=aurora-node"})),
                      ContainsSubstring("does not support sharing mode 'mig'"));
  REQUIRE_THROWS_WITH(
      build_run(load_scenario(DATA + "mig.yaml", {"platform.sharing=mps", "platform.mig_layout=1g.5gb"})),
      ContainsSubstring("a MIG layout needs platform.sharing: mig"));
}

TEST_CASE("a scenario's MIG layout gets the starts of a legal arrangement", "[engine][mig]")
{
  // 3g.20gb may start at 0 or 4 on an A100-40GB; at 0 the second 1g.5gb would need start 7 (not allowed),
  // so the layout is legal only as 3g.20gb@4 + 2g.10gb@0 + 1g.5gb@2 + 1g.5gb@3 (GONVML-A100 placements).
  const auto in =
      build_run(load_scenario(DATA + "mig.yaml", {"platform.mig_layout=3g.20gb,2g.10gb,1g.5gb,1g.5gb"}));
  REQUIRE(in.platform.types[0].mig);
  CHECK(in.platform.types[0].mig->describe(in.platform.types[0].mig_layout) ==
        "{3g.20gb@4, 2g.10gb@0, 1g.5gb@2, 1g.5gb@3}");
  // Eight instances never fit (7 at most): the error names the first one that has no room.
  REQUIRE_THROWS_WITH(
      build_run(
          load_scenario(DATA + "mig.yaml",
                        {"platform.mig_layout=1g.5gb,1g.5gb,1g.5gb,1g.5gb,1g.5gb,1g.5gb,1g.5gb,1g.5gb"})),
      ContainsSubstring("platform.mig_layout: no room for 1g.5gb after {1g.5gb@0, 1g.5gb@1, 1g.5gb@2, "
                        "1g.5gb@3, 1g.5gb@4, 1g.5gb@5, 1g.5gb@6}"));
}

TEST_CASE("mig-manager with reconfigure=false keeps a static layout and best-fits jobs into it",
          "[engine][mig][mig-manager]")
{
  // Layout {3g.20gb@4, 2g.10gb@0, 1g.5gb@2, 1g.5gb@3}, no reconfiguration (no 5 s latency). s1, s2 (4 GB)
  // take the two 1g.5gb (1.278571: end 127.857 s); s3 the next smallest instance holding 4 GB, 2g.10gb
  // (s = 28/108, m = 2/8: c/s = 0.964, u/s = 0.579, b/m = 0.32, all below 1: ends at 100 s); `big` (18 GB,
  // at 10 s) the 3g.20gb (2.051429: ends at 215.143 s).
  const std::string layout = "platform.mig_layout=3g.20gb,2g.10gb,1g.5gb,1g.5gb";
  const auto o = run({layout}, "mig-manager:reconfigure=false");
  for (const char* id : {"s1", "s2"}) {
    CHECK_THAT(o.jobs.at(id).start_s, WithinAbs(0.0, 1e-6));
    CHECK_THAT(o.jobs.at(id).end_s, WithinAbs(127.857143, 1e-5));
  }
  CHECK_THAT(o.jobs.at("s3").end_s, WithinAbs(100.0, 1e-6));
  CHECK_THAT(o.jobs.at("big").start_s, WithinAbs(10.0, 1e-6));
  CHECK_THAT(o.jobs.at("big").end_s, WithinAbs(215.142857, 1e-5));
  // Out of memory on a static layout: `o` (declares 4 GB, needs 19.83 GB) on 1g.5gb → OOM at 60 s; estimate
  // 8 GB → 2g.10gb (no 1g.10gb in the layout) → OOM at 120 s; 16 GB → 3g.20gb: 100 s at 2.051429 → ends at
  // 325.143 s.
  const auto oom = run({layout, "workload.trace=mig-oom.csv"}, "mig-manager:reconfigure=false");
  CHECK(oom.jobs.at("o").attempts == 3);
  CHECK_THAT(oom.jobs.at("o").end_s, WithinAbs(325.142857, 1e-5));
  CHECK(oom.totals.oom_events == 2);
  // A job no instance of the layout can hold is rejected: on 7 × 1g.5gb, `big` (18 GB).
  const auto small = run({"platform.mig_layout=1g.5gb,1g.5gb,1g.5gb,1g.5gb,1g.5gb,1g.5gb,1g.5gb"},
                         "mig-manager:reconfigure=false");
  CHECK(small.jobs.at("big").status == JobStatus::REJECTED);
  CHECK(small.totals.rejected == 1);
  CHECK(small.totals.completed == 3);
}

TEST_CASE("a job on 7g.40gb runs slower than on the whole A100: MIG exposes 98 of its 108 SMs",
          "[engine][mig]")
{
  // resnet50-train-bs128 (c = 1, b = 0.45, u = max(0.30, 0.60) = 0.6, β = 0.85), 100 s on the whole GPU.
  // On 7g.40gb: s = 98/108 = 0.907407 of the SMs (GONVML-A100, GK-A100), m = 8/8: c/s = 1.102041,
  // b/m = 0.45, u/s = 0.661; slowdown 0.85·1.102041 + 0.15·1 = 1.086735 → ends at 108.6735 s.
  // Exclusive (MIG off): factor 1 → 100 s.
  const auto mig = run({"workload.trace=mig-whole.csv"}, "mig-manager:reconfigure=false");
  CHECK_THAT(mig.jobs.at("whole").slowdown, WithinAbs(0.85 * 108.0 / 98.0 + 0.15, 1e-9));
  CHECK_THAT(mig.jobs.at("whole").end_s, WithinAbs(108.673469, 1e-5));
  const auto whole = run({"workload.trace=mig-whole.csv", "platform.sharing=exclusive"}, "exclusive-fcfs");
  CHECK_THAT(whole.jobs.at("whole").end_s, WithinAbs(100.0, 1e-6));
  CHECK(mig.jobs.at("whole").end_s > 1.05 * whole.jobs.at("whole").end_s);
}

TEST_CASE("a job's batch size picks its compute share, and a measured per-slice speed overrides the law",
          "[engine][mig][profiles]")
{
  // Four jobs of 100 s on four 1g.5gb instances (s = 14/108, m = 1/8; interference none: isolated), with
  // the profiles of tests/data/sim/mig-batch-profiles.yaml (β = 1, b = 0.05, u = 0.1):
  //   law-b8    c(8) = 0.1 + (0.9 − 0.1)·ln 8 / ln 64 = 0.5 → slowdown c/s = 0.5·108/14 = 3.857143
  //   law-none  no batch: compute_share 1 → 108/14 = 7.714286
  //   measured-none  mig_speed 1g = 0.4 → 1/0.4 = 2.5 (the law would give 7.714286)
  //   measured-b4    mig_speed_by_batch 1g: 0.8 at 1, 0.2 at 16 → 0.8 − 0.6·ln 4 / ln 16 = 0.5 → 2
  auto pin = std::make_unique<Pin>();
  pin->instance_of = {0, 1, 2, 3};
  const auto o = run({"platform.mig_layout=1g.5gb,1g.5gb,1g.5gb,1g.5gb", "workload.trace=mig-batch.csv",
                      "workload.profiles=" + DATA + "mig-batch-profiles.yaml"},
                     {}, std::move(pin));
  CHECK_THAT(o.jobs.at("law-b8").slowdown, WithinAbs(0.5 * 108.0 / 14.0, 1e-9));
  CHECK_THAT(o.jobs.at("law-b8").end_s, WithinAbs(385.714286, 1e-5));
  CHECK_THAT(o.jobs.at("law-none").slowdown, WithinAbs(108.0 / 14.0, 1e-9));
  CHECK_THAT(o.jobs.at("measured-none").slowdown, WithinAbs(2.5, 1e-9));
  CHECK_THAT(o.jobs.at("measured-none").end_s, WithinAbs(250.0, 1e-6));
  CHECK_THAT(o.jobs.at("measured-b4").slowdown, WithinAbs(2.0, 1e-9));
}
