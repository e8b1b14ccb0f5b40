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
  FakeClusterView view;
  view.add_device(SharingMode::MPS);
  view.add_device(SharingMode::MPS);
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
