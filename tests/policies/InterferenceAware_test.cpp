// interference-aware: first-fit order, refusing devices where the predicted slowdown of the job or of a
// co-runner exceeds max_slowdown, or where the real footprints would not fit.
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

TEST_CASE("interference-aware refuses the pair that slows jobs too much", "[policies][interference-aware]")
{
  // Time-slice, θ = 1: two compute-bound jobs (duty cycle 1) slow each other to max(Σd, 1 + 1·1) = 2 > 1.5,
  // so the second goes to device 1; first-fit packs them on device 0.
  FakeClusterView view;
  view.add_device();
  view.add_device();
  const auto a = view.add_job(make_job(), busy_signature()), b = view.add_job(make_job(), busy_signature());
  auto policy = make_policy("interference-aware:max_slowdown=1.5");
  CHECK(placements(view.submit(*policy, {a, b})) == std::map<JobIndex, Devices>{{a, {0}}, {b, {1}}});

  FakeClusterView packed;
  packed.add_device();
  packed.add_device();
  const auto pa = packed.add_job(make_job(), busy_signature()),
             pb = packed.add_job(make_job(), busy_signature());
  auto ff = make_policy("first-fit");
  CHECK(placements(packed.submit(*ff, {pa, pb})) == std::map<JobIndex, Devices>{{pa, {0}}, {pb, {0}}});
}

TEST_CASE("interference-aware accepts a light pair and refuses one that overflows memory",
          "[policies][interference-aware]")
{
  // Two light jobs (duty 0.25): max(0.5, 1 + 0.25·0.25) = 1.0625 ≤ 1.5, so they share device 0. Two more
  // light jobs whose real footprints (40 GB each) overflow a 64 GB device are split although the trace
  // declares no memory (memory=declared sees 0; check_memory reads the prediction's real footprints).
  FakeClusterView view;
  view.add_device(SharingMode::TIME_SLICE, 0, 64 * GB);
  view.add_device(SharingMode::TIME_SLICE, 0, 64 * GB);
  view.add_device(SharingMode::TIME_SLICE, 0, 64 * GB);
  const auto l1 = view.add_job(make_job(), light_signature(1 * GB));
  const auto l2 = view.add_job(make_job(), light_signature(1 * GB));
  auto policy = make_policy("interference-aware");
  CHECK(placements(view.submit(*policy, {l1, l2})) == std::map<JobIndex, Devices>{{l1, {0}}, {l2, {0}}});
  const auto h1 = view.add_job(make_job(), light_signature(40 * GB));
  const auto h2 = view.add_job(make_job(), light_signature(40 * GB));
  // h1: device 0 now holds two light jobs; a third gives max(0.75, 1 + 0.25·0.5) = 1.125, fits 42 GB: ok.
  // h2: device 0 would hold 82 GB > 64 GB → refused; device 1 (empty) takes it.
  CHECK(placements(view.submit(*policy, {h1, h2})) == std::map<JobIndex, Devices>{{h1, {0}}, {h2, {1}}});
}

TEST_CASE(
    "interference-aware counts only what sharing adds: a static CCS partition's own cost is not refused",
    "[policies][interference-aware]")
{
  // ccs-2: a compute-saturating job gets half the EUs whatever its neighbour: slowdown max(1, 1·2) = 2 alone
  // and 2 next to another one in the other partition. Its interference is 2 / 2 = 1 ≤ 1.5, so both share
  // device 0 (bounding the absolute slowdown, 2 > 1.5, would leave them waiting for ever).
  FakeClusterView view;
  view.add_device(SharingMode::CCS_2);
  view.add_device(SharingMode::CCS_2);
  const auto a = view.add_job(make_job(), busy_signature()), b = view.add_job(make_job(), busy_signature());
  auto policy = make_policy("interference-aware:max_slowdown=1.5");
  CHECK(placements(view.submit(*policy, {a, b})) == std::map<JobIndex, Devices>{{a, {0}}, {b, {0}}});
}

TEST_CASE("interference-aware refuses a device where the job is fine but a co-runner would not be",
          "[policies][interference-aware]")
{
  // Time-slice, θ = 1, ε = 0: factor_i = max(1, Σd, 1 + d_i·(Σd − d_i)); alone every job has 1. Device 0
  // runs r1 (duty 0.8) and r2 (duty 0.1); j (duty 0.1) would make Σd = 1.0:
  //   j:  max(1, 1 + 0.1·0.9) = 1.09 ≤ 1.1   (the job itself would accept)
  //   r1: max(1, 1 + 0.8·0.2) = 1.16 > 1.1   (its co-runner would not)
  // so j goes to the empty device 1.
  FakeClusterView view;
  view.add_device();
  view.add_device();
  auto duty = [](double d) {
    ResourceSignature s = busy_signature();
    s.duty_cycle = d;
    return s;
  };
  const auto r1 = view.add_job(make_job(), duty(0.8));
  const auto r2 = view.add_job(make_job(), duty(0.1));
  view.run_before(r1, {0});
  view.run_before(r2, {0});
  const auto j = view.add_job(make_job(), duty(0.1));
  auto policy = make_policy("interference-aware:max_slowdown=1.1");
  CHECK(placements(view.submit(*policy, {j})) == std::map<JobIndex, Devices>{{j, {1}}});
}

TEST_CASE("interference-aware asks a device that refused a job again only once the device has changed",
          "[policies][interference-aware]")
{
  // Time-slice, θ = 1, ε = 0: factor_i = max(1, Σd, 1 + d_i·(Σd − d_i)). Device 0 runs a (duty 1) and l
  // (duty 0.25), device 1 runs b (duty 1). A job of duty 1 would have max(2.25, 1 + 1.25) = 2.25 on device
  // 0 and max(2, 1 + 1) = 2 on device 1, both over 1.5: c waits, after two predictions.
  FakeClusterView view;
  view.add_device();
  view.add_device();
  const auto a = view.add_job(make_job(), busy_signature());
  const auto l = view.add_job(make_job(), light_signature());
  const auto b = view.add_job(make_job(), busy_signature());
  view.run_before(a, {0});
  view.run_before(l, {0});
  view.run_before(b, {1});
  const auto c = view.add_job(make_job(), busy_signature());
  auto policy = make_policy("interference-aware:max_slowdown=1.5");
  CHECK(placements(view.submit(*policy, {c})).empty());
  CHECK(view.predict_calls == 2);
  // d (duty 1 too, its own copy of the signature) queues behind c; neither device changed, so c is refused
  // again without a prediction.
  const auto d = view.add_job(make_job(), busy_signature());
  CHECK(placements(view.submit(*policy, {d})).empty());
  CHECK(view.predict_calls == 2);
  // a ends: device 0 has changed and is asked again. Next to l alone, c has max(1.25, 1 + 1·0.25) = 1.25
  // and l 1 + 0.25·1 = 1.25: c goes there. d would have 2.25 there (predicted: c was placed on it in this
  // call) and is refused by device 1 as c was, from what c was told (device 1 has not changed): it waits.
  CHECK(placements(view.complete(*policy, a)) == std::map<JobIndex, Devices>{{c, {0}}});
  CHECK(view.predict_calls == 4);
}

TEST_CASE("interference-aware remembers a refusal for the job's signature only",
          "[policies][interference-aware]")
{
  // Device 0 runs a (duty 1); device 1 is empty. c (duty 1) is refused by device 0 (2 > 1.5) and goes to
  // device 1. e (duty 0.25) next to a: max(1.25, 1 + 0.25·1) = 1.25 and a: 1 + 1·0.25 = 1.25, so device 0,
  // unchanged since it refused c, is asked again for e's signature and takes it.
  FakeClusterView view;
  view.add_device();
  view.add_device();
  const auto a = view.add_job(make_job(), busy_signature());
  view.run_before(a, {0});
  const auto c = view.add_job(make_job(), busy_signature());
  const auto e = view.add_job(make_job(), light_signature());
  auto policy = make_policy("interference-aware:max_slowdown=1.5");
  CHECK(placements(view.submit(*policy, {c})) == std::map<JobIndex, Devices>{{c, {1}}});
  CHECK(view.predict_calls == 2);
  CHECK(placements(view.submit(*policy, {e})) == std::map<JobIndex, Devices>{{e, {0}}});
  CHECK(view.predict_calls == 3);
}
