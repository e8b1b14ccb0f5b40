// Device physics (sim/engine/DevicePhysics.hpp) alone, without SimGrid or the engine: rates, power, the card
// cap and predictions on a hand-made platform, each value worked out by hand in the comments.
//
// The platform: one node, one card of two tiles in time-slice mode; 1.6 GHz maximum and default, 0.8 GHz
// minimum; 64 GB each. Power: 100 W static at every clock (idle_fmax = idle), +20 W with a context, 200 W
// with every vector unit busy at f_max, γ = 2. Time slicing with θ = 1, ε = 0 and no interference model:
// two jobs of duty cycle d share the engine with factor max(Σd, 1 + θ·d_j·Σ_{i≠j} d_i).
#include "tests/CatchCompat.hpp"

#include "sim/engine/DevicePhysics.hpp"

#include <bit>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace colocsim;
using colocsim::test::WithinAbs;
using colocsim::test::WithinRel;

namespace {

Sourced src(double v)
{
  return Sourced{v, Evidence::ESTIMATE, "test"};
}

Platform two_tiles(double card_tdp_w)
{
  auto spec = std::make_shared<DeviceSpec>();
  spec->name = "test-tile";
  spec->devices_per_card = 2;
  spec->compute_units = src(100);
  spec->memory_bytes = src(64e9);
  spec->freq_max_hz = src(1.6e9);
  spec->freq_default_hz = src(1.6e9);
  spec->freq_min_hz = src(0.8e9);
  spec->card_tdp_w = src(card_tdp_w);
  spec->sharing_modes = {SharingMode::TIME_SLICE};
  DeviceType t;
  t.spec = spec;
  t.power.idle_w = src(100);
  t.power.idle_fmax_w = src(100);
  t.power.context_w = src(20);
  t.power.vec_w = src(200);
  t.power.xmx_w = src(0);
  t.power.bw_w = src(0);
  t.power.gamma = src(2);
  t.power.idle_freq_ratio = 0.5;
  t.time_slice.collision = src(1);
  t.time_slice.switch_overhead = src(0);
  t.interference = std::make_shared<NoInterference>();
  Platform p;
  p.name = "test";
  p.types.push_back(t);
  p.add_nodes(0, 1, 1, SharingMode::TIME_SLICE, 0);
  return p;
}

ResourceSignature job(double duty, double vec, double mem_gb = 10)
{
  ResourceSignature s;
  s.duty_cycle = duty;
  s.vec_util = vec;
  s.mem_bytes = mem_gb * 1e9;
  s.freq_sensitive = 1;
  return s;
}

/// Records what device physics announces, and checks that a rate change is announced while the old rate is
/// still in place.
class Recorder final : public PhysicsListener {
public:
  const DevicePhysics* phys = nullptr;
  std::vector<std::uint32_t> slot_of; ///< by job index, for the old-rate check
  std::vector<std::string> log;
  void device_changing(DeviceIndex d) override { log.push_back("device " + std::to_string(d)); }
  void rate_changing(JobIndex j, double rate) override
  {
    log.push_back("rate " + std::to_string(j) + " " + std::to_string(rate) + " from " +
                  std::to_string(phys->rate(slot_of.at(j))));
  }
  void rates_settled() override { log.push_back("settled"); }
};

std::uint32_t start(DevicePhysics& phys, Recorder& rec, JobIndex j, const ResourceSignature& sig,
                    std::vector<DeviceIndex> devices, bool* oom = nullptr)
{
  const auto slot = phys.begin(j, JobPhysics{&sig, 1.0}, 1.0, 1.0, devices, {});
  if (rec.slot_of.size() <= j) rec.slot_of.resize(j + 1);
  rec.slot_of[j] = slot;
  bool over = false;
  for (std::uint32_t pos = 0; pos < devices.size(); ++pos)
    over = phys.join(slot, pos) || over;
  if (oom) *oom = over;
  phys.update(slot);
  return slot;
}

} // namespace

TEST_CASE("device physics: time-sliced co-runners, their rates, power and shares", "[engine][physics]")
{
  const Platform platform = two_tiles(1000);
  Recorder rec;
  DevicePhysics phys(platform, false, rec);
  rec.phys = &phys;
  // Idle: 100 W each (static, no context).
  CHECK_THAT(phys.total_power_w(), WithinRel(200.0, 1e-12));

  const auto a_sig = job(0.5, 0.5), b_sig = job(0.5, 0.5);
  const auto a = start(phys, rec, 0, a_sig, {0});
  // Alone: slowdown 1, rate 1; power 100 + 20 + 200 · 0.5 = 220 W, all of it A's.
  CHECK(phys.rate(a) == 1.0);
  CHECK_THAT(phys.power_w(0), WithinRel(220.0, 1e-12));
  CHECK_THAT(phys.share_w(0)[0], WithinRel(220.0, 1e-12));
  CHECK_THAT(phys.total_power_w(), WithinRel(320.0, 1e-12));

  // What B would see next to A: max(0.5 + 0.5, 1 + 1 · 0.5 · 0.5) = 1.25, rate 0.8; both at 0.8 of their
  // activity: 120 + 200 · (0.5 · 0.8 + 0.5 · 0.8) = 280 W, 60 W more.
  const auto p = phys.predict(JobPhysics{&b_sig, 1.0}, std::vector<DeviceIndex>{0}, {}, 0);
  CHECK_THAT(p.job_slowdown, WithinRel(1.25, 1e-12));
  CHECK_THAT(p.job_rate, WithinRel(0.8, 1e-12));
  CHECK_THAT(p.job_interference, WithinRel(1.25, 1e-12));
  CHECK_THAT(p.max_corunner_slowdown, WithinRel(1.25, 1e-12));
  CHECK_THAT(p.added_power_w, WithinRel(60.0, 1e-12));
  CHECK(p.fits_memory);
  // With C (duty 1) decided before it in the same call: max(0.5 + 1 + 0.5, 1 + 0.5 · 1.5) = 2, rate 0.5.
  const auto c_sig = job(1.0, 0.5);
  const ResourceSignature* also[] = {&c_sig};
  const auto p2 = phys.predict(JobPhysics{&b_sig, 1.0}, std::vector<DeviceIndex>{0}, also, 0);
  CHECK_THAT(p2.job_slowdown, WithinRel(2.0, 1e-12));
  CHECK_THAT(p2.job_rate, WithinRel(0.5, 1e-12));

  rec.log.clear();
  const auto b = start(phys, rec, 1, b_sig, {0});
  // Exactly what predict said, and the order the engine relies on: the device announced before B joins,
  // each rate change before the rate moves (A from 1, B from 0) and before its device changes, once settled.
  CHECK(phys.rate(a) == p.job_rate);
  CHECK(phys.rate(b) == p.job_rate);
  CHECK_THAT(phys.power_w(0) - 220.0, WithinRel(p.added_power_w, 1e-12));
  CHECK_THAT(phys.share_w(0)[0], WithinRel(140.0, 1e-12));
  CHECK_THAT(phys.share_w(0)[1], WithinRel(140.0, 1e-12));
  CHECK(rec.log == std::vector<std::string>{"device 0", "rate 0 0.800000 from 1.000000", "device 0",
                                            "rate 1 0.800000 from 0.000000", "device 0", "settled"});

  // B leaves: A is alone again at rate 1 and 220 W; the slot is reused by the next job.
  rec.log.clear();
  phys.leave(b, 0);
  phys.update(b);
  CHECK(phys.rate(a) == 1.0);
  CHECK(phys.residents(0).size() == 1);
  CHECK_THAT(phys.power_w(0), WithinRel(220.0, 1e-12));
  CHECK(rec.log ==
        std::vector<std::string>{"device 0", "rate 0 1.000000 from 0.800000", "device 0", "settled"});
  const auto c = start(phys, rec, 2, c_sig, {1});
  CHECK(c == b);
}

TEST_CASE("device physics: memory overflow, frequency, and a gang's slowest device", "[engine][physics]")
{
  const Platform platform = two_tiles(1000);
  Recorder rec;
  DevicePhysics phys(platform, false, rec);
  rec.phys = &phys;
  // 40 + 30 GB on 64 GB: the second job's arrival overflows; the first's did not.
  const auto big = job(0.5, 0.5, 40), mid = job(0.5, 0.5, 30);
  bool oom = true;
  const auto a = start(phys, rec, 0, big, {0}, &oom);
  CHECK_FALSE(oom);
  CHECK_FALSE(phys.predict(JobPhysics{&mid, 1.0}, std::vector<DeviceIndex>{0}, {}, 0).fits_memory);
  start(phys, rec, 1, mid, {0}, &oom);
  CHECK(oom);

  // A gang of two with s = 0.1 (Amdahl): e(2) = 1 / (0.1 · 2 + 0.9) = 1/1.1. Its slowest device is tile 0
  // (three jobs of duty 0.5: max(1.5, 1 + 0.5 · 1.0) = 1.5), so it runs at (1/1.5)/1.1 = 0.60606.
  auto gang_sig = job(0.5, 0.5, 1);
  gang_sig.scaling_serial = 0.1;
  const auto g = start(phys, rec, 2, gang_sig, {0, 1});
  CHECK_THAT(phys.rate(g), WithinRel(1.0 / 1.5 / 1.1, 1e-12));
  CHECK_THAT(phys.rate(a), WithinRel(1.0 / 1.5, 1e-12));
  // On tile 1 it is alone but only as active as its pace: 120 + 200 · 0.5 · 0.60606 = 180.606 W.
  CHECK_THAT(phys.power_w(1), WithinRel(120.0 + 200.0 * 0.5 / 1.5 / 1.1, 1e-12));

  // Tile 1 at 0.8 GHz (β = 1: time factor 1.6/0.8 = 2): its rate there is 0.5, now the slowest of the gang:
  // 0.5/1.1. Tile 1's power: 120 + (0.5)² · 200 · 0.5 · (its activity at that clock: 0.5/1.1 · 2) = 142.727
  // W.
  phys.set_frequency(1, 0.8e9);
  CHECK(phys.freq_hz(1) == 0.8e9);
  CHECK_THAT(phys.rate(g), WithinRel(0.5 / 1.1, 1e-12));
  CHECK_THAT(phys.power_w(1), WithinRel(120.0 + 0.25 * 200.0 * 0.5 * (0.5 / 1.1 * 2), 1e-12));
  // The prediction for a job alone on tile 1 says the same time factor: slowdown 2 with frequency, rate 0.5.
  const auto solo = job(1.0, 0.5);
  phys.leave(g, 0);
  phys.leave(g, 1);
  phys.update(g);
  const auto p = phys.predict(JobPhysics{&solo, 1.0}, std::vector<DeviceIndex>{1}, {}, 0);
  CHECK_THAT(p.job_slowdown, WithinRel(2.0, 1e-12));
  CHECK_THAT(p.job_rate, WithinRel(0.5, 1e-12));
}

TEST_CASE("device physics: a card over its power limit throttles both tiles to the highest clock that fits",
          "[engine][physics]")
{
  // Card limit 400 W; one saturating job per tile (duty 1, vector 1): 120 + 200 = 320 W each at 1.6 GHz, 640
  // W in all. At clock ratio r each draws 120 + 200 · r² (activity 1: slowdown 1 at any clock), so the cap
  // holds at 2 · (120 + 200 r²) = 400: r = √0.4 = 0.63246, f = 1.0119 GHz (above the 0.8 GHz floor), and the
  // jobs (β = 1) run at rate r.
  const Platform platform = two_tiles(400);
  Recorder rec;
  DevicePhysics phys(platform, false, rec);
  rec.phys = &phys;
  const auto hot = job(1.0, 1.0);
  const auto a = start(phys, rec, 0, hot, {0});
  const auto b = start(phys, rec, 1, hot, {1});
  const double r = std::sqrt(0.4);
  CHECK_THAT(phys.freq_hz(0), WithinRel(1.6e9 * r, 2e-6));
  CHECK_THAT(phys.freq_hz(1), WithinRel(1.6e9 * r, 2e-6));
  CHECK(phys.freq_set_hz(0) == 1.6e9);
  CHECK_THAT(phys.rate(a), WithinRel(r, 2e-6));
  CHECK_THAT(phys.rate(b), WithinRel(r, 2e-6));
  CHECK(phys.total_power_w() <= 400.0);
  CHECK_THAT(phys.total_power_w(), WithinRel(400.0, 1e-5));
  // One job leaves: 320 W on tile 0 and 100 W idle on tile 1 (static power here does not depend on the clock)
  // are still over 400 W: 220 + 200 r² = 400 at r = √0.9 = 0.94868, 1.5179 GHz.
  phys.leave(b, 0);
  phys.update(b);
  const double r1 = std::sqrt(0.9);
  CHECK_THAT(phys.freq_hz(0), WithinRel(1.6e9 * r1, 2e-6));
  CHECK_THAT(phys.rate(a), WithinRel(r1, 2e-6));
  CHECK(phys.total_power_w() <= 400.0);
  CHECK_THAT(phys.total_power_w(), WithinRel(400.0, 1e-5));
}

TEST_CASE("device physics: a gang that communicates, its rate and its prediction",
          "[engine][physics][network]")
{
  // Two nodes of one card of two tiles (devices 0-1 on node 0, 2-3 on node 1), a network of round numbers:
  // fabric α 1 ms, β 1e-10 s/B; NIC α 5 ms, β 1e-9 s/B. Per step the job computes 2 s, then all-reduces
  // 1 GB by a ring. Alone on its devices its device rate is 1 (no co-runner, default frequency).
  Platform platform = two_tiles(1000);
  platform.devices.clear();
  platform.node_baseline_w.clear();
  platform.nodes = 0;
  platform.add_nodes(0, 2, 1, SharingMode::TIME_SLICE, 0);
  Network net;
  net.tiers.fabric = CommTier{src(1e-3), src(1e-10)};
  net.tiers.nic = CommTier{src(5e-3), src(1e-9)};
  platform.network = net;
  ProfileCommunication comm;
  comm.collective = Collective::RING_ALL_REDUCE;
  comm.bytes = src(1e9);
  comm.compute_s = src(2);
  const auto sig = job(1, 0.5);
  const JobPhysics talk{&sig, 1.0, &comm};
  Recorder rec;
  DevicePhysics phys(platform, false, rec);
  rec.phys = &phys;
  // Across the nodes (devices 0 and 2, k = 2, g = 1): T = 2·(k−1)·α_nic + 2(n−1)/n · S · β_nic = 0.01 + 1 =
  // 1.01 s, efficiency 2 / 3.01. On one node (0 and 1, k = 1, g = 2): T = 2·α_fabric + S·β_fabric = 0.002 +
  // 0.1 = 0.102 s, efficiency 2 / 2.102.
  const std::vector<DeviceIndex> across{0, 2}, inside{0, 1};
  CHECK_THAT(phys.comm_efficiency(talk, across), WithinRel(2.0 / 3.01, 1e-12));
  CHECK_THAT(phys.comm_efficiency(talk, inside), WithinRel(2.0 / 2.102, 1e-12));
  const auto predicted = phys.predict(talk, across, {}, 0);
  CHECK_THAT(predicted.job_rate, WithinRel(2.0 / 3.01, 1e-12));
  CHECK_THAT(phys.predict(talk, inside, {}, 0).job_rate, WithinRel(2.0 / 2.102, 1e-12));
  // The job then gets exactly the predicted rate.
  const auto slot = phys.begin(0, talk, 1.0, 1.0, across, {});
  rec.slot_of = {slot};
  CHECK_FALSE(phys.join(slot, 0));
  CHECK_FALSE(phys.join(slot, 1));
  phys.update(slot);
  CHECK(phys.rate(slot) == predicted.job_rate);
  // One device, or no network, or durations that include the scaling: no factor.
  CHECK(phys.comm_efficiency(talk, std::vector<DeviceIndex>{3}) == 1.0);
  DevicePhysics measured(platform, true, rec);
  CHECK(measured.comm_efficiency(talk, across) == 1.0);
  platform.network.reset();
  DevicePhysics bare(platform, false, rec);
  CHECK(bare.comm_efficiency(talk, across) == 1.0);
  CHECK_THAT(bare.predict(talk, across, {}, 0).job_rate, WithinRel(1.0, 1e-12));
}

TEST_CASE("device physics: a tile throttled by its card sibling's load has a new version",
          "[engine][physics]")
{
  // Card limit 400 W. Tile 0 stays empty, drawing 100 W at any clock (the idle clock, idle_fmax = idle);
  // a saturating job on tile 1 draws 120 + 200 r² at clock ratio r, so the card holds its 400 W at r² = 0.9
  // and throttles both tiles to 1.6 GHz · √0.9. Nothing of tile 0 but its clock changes, and with it what a
  // job would see there (β = 1: slowdown 1/√0.9 instead of 1): its version must change.
  const Platform platform = two_tiles(400);
  Recorder rec;
  DevicePhysics phys(platform, false, rec);
  rec.phys = &phys;
  const auto probe = job(1.0, 0.5);
  const auto before = phys.version(0);
  CHECK(phys.predict(JobPhysics{&probe, 1.0}, std::vector<DeviceIndex>{0}, {}, 0).job_slowdown == 1.0);
  const auto hot = job(1.0, 1.0);
  start(phys, rec, 0, hot, {1});
  CHECK_THAT(phys.freq_hz(0), WithinRel(1.6e9 * std::sqrt(0.9), 2e-6));
  CHECK(phys.power_w(0) == 100.0);
  CHECK_THAT(phys.predict(JobPhysics{&probe, 1.0}, std::vector<DeviceIndex>{0}, {}, 0).job_slowdown,
             WithinRel(1.0 / std::sqrt(0.9), 2e-6));
  CHECK(phys.version(0) != before);
}

TEST_CASE("device physics: a device's predictions stay the same while its version does (random changes)",
          "[engine][physics]")
{
  // Two cards of two tiles, each card limited to 400 W: a saturating job on one tile (320 W) throttles its
  // card, the empty sibling included (100 W). 3,000 random changes from a fixed seed: jobs of four signatures
  // start on one tile or as gangs of two (across cards too) and end, tiles get a clock of their own, empty
  // tiles are switched off and on or change their sharing mode. After each, every field of the prediction for
  // three probe jobs alone on each tile is compared, bit for bit, with the one made after the last change at
  // which the tile's version was the same. The prediction itself is the reference: no change may alter it
  // without changing the version.
  Platform platform = two_tiles(400);
  platform.add_nodes(0, 1, 1, SharingMode::TIME_SLICE, 0);
  REQUIRE(platform.devices.size() == 4);
  Recorder rec;
  DevicePhysics phys(platform, false, rec);
  rec.phys = &phys;
  auto gang = job(0.6, 0.6, 12);
  gang.scaling_serial = 0.1;
  const std::vector<ResourceSignature> kinds{job(1.0, 1.0, 20), job(0.3, 0.2, 5), job(0.7, 0.5, 30), gang};
  const std::vector<ResourceSignature> probes{job(1.0, 0.5, 10), job(0.2, 0.1, 1), job(0.5, 1.0, 40)};
  std::mt19937 rng(20261129);
  auto pick = [&rng](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  struct Running {
    std::uint32_t slot;
    std::vector<DeviceIndex> devices;
  };
  std::vector<Running> running;
  std::vector<bool> powered(4, true);
  JobIndex next = 0;
  const auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
  auto same = [&](const PlacementPrediction& a, const PlacementPrediction& b) {
    return bits(a.job_slowdown) == bits(b.job_slowdown) &&
           bits(a.max_corunner_slowdown) == bits(b.max_corunner_slowdown) &&
           bits(a.job_interference) == bits(b.job_interference) &&
           bits(a.max_corunner_interference) == bits(b.max_corunner_interference) &&
           bits(a.added_power_w) == bits(b.added_power_w) && bits(a.job_rate) == bits(b.job_rate) &&
           a.fits_memory == b.fits_memory;
  };
  std::vector<std::uint64_t> seen_version(4, 0);
  std::vector<std::vector<PlacementPrediction>> seen(4, std::vector<PlacementPrediction>(probes.size()));
  std::size_t kept = 0, throttled = 0, mismatches = 0;
  for (int step = 0; step < 3000; ++step) {
    const std::size_t op = pick(10);
    if (op < 4 && running.size() < 12) { // a job starts on one tile, or a gang on two
      const auto& sig = kinds[pick(kinds.size())];
      std::vector<DeviceIndex> on{static_cast<DeviceIndex>(pick(4))};
      if (&sig == &kinds.back()) on.push_back(static_cast<DeviceIndex>((on[0] + 1 + pick(3)) % 4));
      bool all_on = true;
      for (auto d : on)
        all_on = all_on && powered[d];
      if (!all_on) continue;
      const auto slot = start(phys, rec, next++, sig, on);
      running.push_back({slot, on});
    } else if (op < 7 && !running.empty()) { // one ends
      const auto i = pick(running.size());
      for (std::uint32_t pos = 0; pos < running[i].devices.size(); ++pos)
        phys.leave(running[i].slot, pos);
      phys.update(running[i].slot);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (op < 9) { // a tile's own clock: the minimum, the maximum or between
      const double f[] = {0.8e9, 1.2e9, 1.6e9};
      phys.set_frequency(static_cast<DeviceIndex>(pick(4)), f[pick(3)]);
    } else { // an empty tile is switched off or on, or changes between time-slice and ccs-2
      const auto d = static_cast<DeviceIndex>(pick(4));
      if (!phys.residents(d).empty()) continue;
      if (pick(2) == 0) {
        powered[d] = !powered[d];
        phys.set_powered(d, powered[d]);
      } else {
        phys.begin_repartition(d, phys.mode(d) == SharingMode::TIME_SLICE ? SharingMode::CCS_2
                                                                          : SharingMode::TIME_SLICE);
        phys.end_repartition(d);
      }
    }
    for (DeviceIndex d = 0; d < 4; ++d) {
      throttled += phys.freq_hz(d) < phys.freq_set_hz(d) ? 1 : 0;
      const bool same_version = phys.version(d) == seen_version[d];
      for (std::size_t k = 0; k < probes.size(); ++k) {
        const auto p = phys.predict(JobPhysics{&probes[k], 1.0}, std::vector<DeviceIndex>{d}, {}, 0);
        if (same_version) {
          ++kept;
          if (!same(p, seen[d][k])) ++mismatches;
        }
        seen[d][k] = p;
      }
      seen_version[d] = phys.version(d);
    }
  }
  CHECK(mismatches == 0);
  // The walk covered what it is for: predictions compared at an unchanged version, and throttled cards.
  CHECK(kept > 1000);
  CHECK(throttled > 100);
}
