// heshare: energy-aware placement with per-job MPS shares and per-device DVFS (policies/Heshare.hpp). The
// characteristic choice: a device running a memory-bound job is clocked down, one running a compute-bound
// job stays near the maximum, and an emptied device returns to the maximum.
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

#include "policies/Heshare.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

TEST_CASE("heshare's DVFS step: the lowest frequency that keeps every resident's time factor",
          "[policies][heshare]")
{
  // f in [0.8, 1.4] GHz by 100 MHz, time factor <= 1.1. β = 0.2: 0.2·1.4/f + 0.8 <= 1.1 ⇔ f >= 0.933 GHz
  // → 1.0 GHz (0.9 GHz gives 1.111). β = 1: 1.4/f <= 1.1 ⇔ f >= 1.273 GHz → 1.3 GHz. Both on one device: 1.3
  // GHz.
  CHECK(Heshare::frequency_for({0.2}, 0.8e9, 1.4e9, 0.1e9, 1.1) == Catch::Approx(1.0e9));
  CHECK(Heshare::frequency_for({1.0}, 0.8e9, 1.4e9, 0.1e9, 1.1) == Catch::Approx(1.3e9));
  CHECK(Heshare::frequency_for({0.2, 1.0}, 0.8e9, 1.4e9, 0.1e9, 1.1) == Catch::Approx(1.3e9));
  CHECK(Heshare::frequency_for({0.0}, 0.8e9, 1.4e9, 0.1e9, 1.1) == Catch::Approx(0.8e9)); // never below f_min
  CHECK(Heshare::frequency_for({1.0}, 0.8e9, 1.4e9, 0.1e9, 1.0) == Catch::Approx(1.4e9)); // no slack: f_max
}

TEST_CASE("heshare lowers the frequency of a memory-bound device and keeps a compute-bound one high",
          "[policies][heshare]")
{
  // Both devices draw 62 W idle and 250 W more per job; the DVFS step minimises (Heshare.hpp, γ = 2.5,
  // time price 200 W) cost(f) = (62 + 250 r^2.5)·F + 200·F, r = f / 1.4 GHz, F = β·1.4/f + 1 − β ≤ 1.1.
  // Memory-bound β = 0.2: 512 at 1.4 GHz, 476.9 (1.3), 446.5 (1.2), 420.6 (1.1), 399.4 (1.0; F = 1.08);
  // 0.9 GHz is out of the bound (F = 1.111) → 1.0 GHz. Compute-bound β = 1: 512 at 1.4, (62 + 207.7 +
  // 200)·1.0769 = 505.8 at 1.3, 1.2 out of the bound (F = 1.167) → 1.3 GHz.
  FakeClusterView view;
  view.add_device(SharingMode::MPS);
  view.add_device(SharingMode::MPS);
  view.set_type(0, 0, 1.0, 62, 250);
  view.set_type(1, 0, 1.0, 62, 250);
  ResourceSignature memory_bound = light_signature();
  memory_bound.job_class = JobClass::MS;
  memory_bound.freq_sensitive = 0.2;
  memory_bound.compute_share = 0.3;
  ResourceSignature compute_bound = busy_signature();
  compute_bound.freq_sensitive = 1.0;
  compute_bound.compute_share = 0.95;
  const auto m = view.add_job(make_job(), memory_bound), c = view.add_job(make_job(), compute_bound);
  auto policy = make_policy("heshare:max_per_device=1");
  const auto out = view.submit(*policy, {m, c});
  CHECK(placements(out) == std::map<JobIndex, Devices>{{m, {0}}, {c, {1}}});
  std::map<DeviceIndex, double> freq;
  std::map<JobIndex, double> share;
  for (const auto& d : out) {
    if (const auto* f = std::get_if<SetFrequency>(&d)) freq[f->device] = f->freq_hz;
    if (const auto* p = std::get_if<Place>(&d)) share[p->job] = p->thread_share;
  }
  CHECK(freq.at(0) == Catch::Approx(1.0e9)); // memory-bound: clocked down 29 %
  CHECK(freq.at(1) == Catch::Approx(1.3e9)); // compute-bound: 7 % below the maximum
  // MPS shares: compute share + 0.1 headroom.
  CHECK(share.at(m) == Catch::Approx(0.4));
  CHECK(share.at(c) == Catch::Approx(1.0)); // 1.05 clamped
  // The memory-bound job ends: its device goes back to the maximum.
  const auto after = view.complete(*policy, m);
  REQUIRE(after.size() == 1);
  const auto* f = std::get_if<SetFrequency>(&after.front());
  REQUIRE(f);
  CHECK(f->device == 0);
  CHECK(f->freq_hz == Catch::Approx(1.4e9));
}

TEST_CASE("heshare's DVFS step weighs the power saved against the time it costs", "[policies][heshare]")
{
  // As above, worked by hand: 62 W idle, 250 W of job power, γ = 2.5, steps of 100 MHz in [0.8, 1.4] GHz,
  // time factor ≤ 1.1. At a time price of 200 W the memory-bound job (β = 0.2) gets 1.0 GHz and the
  // compute-bound one (β = 1) 1.3 GHz. At 1000 W the compute-bound one stays at the maximum: 1312 at 1.4
  // GHz, (62 + 207.7 + 1000)·1.0769 = 1367.4 at 1.3; the memory-bound one still goes down: 1312 (1.4),
  // 1289.3 (1.3), 1273.1 (1.2), 1264.2 (1.1), 1263.4 (1.0). With no job power only the time counts: f_max.
  using R = Heshare::Resident;
  CHECK(Heshare::energy_frequency({R{0.2, 250}}, 62, 0.8e9, 1.4e9, 0.1e9, 1.1, 200, 2.5) ==
        Catch::Approx(1.0e9));
  CHECK(Heshare::energy_frequency({R{1.0, 250}}, 62, 0.8e9, 1.4e9, 0.1e9, 1.1, 200, 2.5) ==
        Catch::Approx(1.3e9));
  CHECK(Heshare::energy_frequency({R{0.2, 250}}, 62, 0.8e9, 1.4e9, 0.1e9, 1.1, 1000, 2.5) ==
        Catch::Approx(1.0e9));
  CHECK(Heshare::energy_frequency({R{1.0, 250}}, 62, 0.8e9, 1.4e9, 0.1e9, 1.1, 1000, 2.5) ==
        Catch::Approx(1.4e9));
  CHECK(Heshare::energy_frequency({R{0.2, 0}}, 62, 0.8e9, 1.4e9, 0.1e9, 1.1, 200, 2.5) ==
        Catch::Approx(1.4e9));
  // Two residents: the slowest one's factor bounds the device (0.2 and 1.0 → 1.3 GHz at most down), and at
  // 1.3 GHz cost = (62 + 500·0.8309)·1.0769 + 200·(1.0154 + 1.0769) = 514.2 + 418.5 = 932.6 < (62 + 500)
  // + 200·2 = 962 at 1.4 GHz → 1.3 GHz.
  CHECK(Heshare::energy_frequency({R{0.2, 250}, R{1.0, 250}}, 62, 0.8e9, 1.4e9, 0.1e9, 1.1, 200, 2.5) ==
        Catch::Approx(1.3e9));
}

TEST_CASE("heshare's score: GPU energy plus the priced completion time", "[policies][heshare]")
{
  // A job of 1000 s on the reference type. A T4 (speed 0.43, idle 11 W, +40 W) runs it alone in 1000 / 0.43
  // = 2325.58 s: (40 + 11)·2325.58 = 118,604.7 J of GPU energy, the least; an A100 (speed 2.077, idle 62 W,
  // +227 W) in 481.46 s: (227 + 62)·481.46 = 139,143.0 J. With time priced at 200 W: T4 118,604.7 + 200 ·
  // 2325.58 = 583,720.9; A100 139,142.0 + 200·481.46 = 235,435.7: the A100 is the cheaper, 2.5×.
  PlacementPrediction t4, a100;
  t4.job_rate = 0.43;
  t4.added_power_w = 40;
  a100.job_rate = 2.077;
  a100.added_power_w = 227;
  CHECK(Heshare::score(t4, 11, 0, 1000, 0) == Catch::Approx(118'604.65).epsilon(1e-6));
  CHECK(Heshare::score(a100, 62, 0, 1000, 0) == Catch::Approx(139'142.99).epsilon(1e-6));
  CHECK(Heshare::score(t4, 11, 0, 1000, 200) == Catch::Approx(583'720.93).epsilon(1e-6));
  CHECK(Heshare::score(a100, 62, 0, 1000, 200) == Catch::Approx(235'435.72).epsilon(1e-6));
  // Next to one co-runner that it slows 1.25×, on an A100 drawing 289 W, at rate 2.077 / 1.25: t = 601.83
  // s; GPU (227 + 289 / 2)·601.83 = 223,579.7; delay 601.83·(1 − 1/1.25) = 120.37 s; 200·722.20 = 144,439.1.
  PlacementPrediction shared = a100;
  shared.job_rate = 2.077 / 1.25;
  shared.max_corunner_interference = 1.25;
  CHECK(Heshare::score(shared, 289, 1, 1000, 200) == Catch::Approx(223'579.7 + 144'439.1).epsilon(1e-6));
}

TEST_CASE("heshare sends a job that a T4 runs 4.8x slower to a free A100", "[policies][heshare]")
{
  // Device 0 is a T4 (first in index order, as first-fit would take it), device 1 an A100; the scores of
  // the test above: T4 583,720.9, A100 235,435.7 → the A100. Scoring GPU energy alone (time_price_w=0), the
  // T4 wins (118,604.7 < 139,143.0): the choice the policy made before it priced time.
  for (const double price : {200.0, 0.0}) {
    FakeClusterView view;
    view.add_device(SharingMode::MPS);
    view.add_device(SharingMode::MPS);
    view.set_type(0, 1, 0.43, 11, 40);
    view.set_type(1, 0, 2.077, 62, 227);
    const auto j = view.add_job(make_job(1, 1000, 1000));
    auto policy = make_policy("heshare:time_price_w=" + std::to_string(price));
    CHECK(placements(view.submit(*policy, {j})) ==
          std::map<JobIndex, Devices>{{j, {price > 0 ? DeviceIndex{1} : DeviceIndex{0}}}});
  }
}

TEST_CASE("heshare waits for an A100 about to free rather than start on a T4", "[policies][heshare]")
{
  // One job per device. r (light: duty 0.25, 100 s) takes the A100 at t = 0 (the test above) and runs
  // alone at rate 2.077: it ends at 48.15 s. At t = 40, j (compute-bound, 1000 s) arrives: the T4 scores
  // 583,720.9 (above); the A100, where r's predicted end leaves a wait of 8.15 s and where the MPS model
  // predicts j next to r at 1.25× (Σ duty·share = 1 + 0.25), scores 368,018.8 (the test above) + 200·8.15
  // = 369,648.1: j waits. When r ends, j takes the A100. With wait_for_faster=false it takes the T4 at once.
  for (const bool wait : {true, false}) {
    FakeClusterView view;
    view.add_device(SharingMode::MPS);
    view.add_device(SharingMode::MPS);
    view.set_type(0, 1, 0.43, 11, 40);
    view.set_type(1, 0, 2.077, 62, 227);
    const auto r = view.add_job(make_job(1, 1000, 100), light_signature());
    const auto j = view.add_job(make_job(1, 1000, 1000));
    auto policy =
        make_policy(std::string("heshare:max_per_device=1,wait_for_faster=") + (wait ? "true" : "false"));
    REQUIRE(placements(view.submit(*policy, {r})) == std::map<JobIndex, Devices>{{r, {1}}});
    view.now_s = 40;
    const auto at40 = placements(view.submit(*policy, {j}));
    if (!wait) {
      CHECK(at40 == std::map<JobIndex, Devices>{{j, {0}}});
      continue;
    }
    CHECK(at40.empty());
    view.now_s = 100 / 2.077;
    CHECK(placements(view.complete(*policy, r)) == std::map<JobIndex, Devices>{{j, {1}}});
  }
}
