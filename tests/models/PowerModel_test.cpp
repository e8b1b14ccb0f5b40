// Power model against hand-computed values. Most cases use round coefficients with a clock-independent
// static power (the former default Max 1550 calibration, reference §6.4): idle 90 W, context 20 W,
// vec 160 W, xmx 190 W, bw 50 W, γ 2.5, per tile. The static-power cases use the current default's
// clock-dependent static power (calibration/data/max1550-aurora-default.yaml): 51.5 W at the idle clock
// 0.3 GHz, 121 W with the clock held at 1.6 GHz.
#include "models/PowerModel.hpp"
#include "tests/CatchCompat.hpp"

#include <cmath>
#include <numeric>
#include <vector>

using namespace colocsim;
using colocsim::test::WithinAbs;
using colocsim::test::WithinRel;

namespace {
PowerParams params()
{
  PowerParams p;
  p.idle_w.value = 90;
  p.context_w.value = 20;
  p.vec_w.value = 160;
  p.xmx_w.value = 190;
  p.bw_w.value = 50;
  p.gamma.value = 2.5;
  return p;
}

ResourceSignature sig(double vec, double xmx, double bw)
{
  ResourceSignature s;
  s.vec_util = vec;
  s.xmx_util = xmx;
  s.bw_util = bw;
  return s;
}

double sum(const std::vector<double>& v)
{
  return std::accumulate(v.begin(), v.end(), 0.0);
}

// Frequency factor used below: (1.5 GHz / 1.6 GHz)^2.5 = 0.9375^2.5 = exp(2.5 · ln 0.9375)
// = exp(2.5 · −0.0645385) = 0.8509973.
} // namespace

TEST_CASE("idle without context, idle with context, busy", "[power]")
{
  const auto p = params();
  // No resident job: idle only.
  const auto idle = device_power(p, {}, 1.0);
  CHECK_THAT(idle.total_w, WithinAbs(90.0, 1e-9));
  CHECK_THAT(idle.static_w, WithinAbs(90.0, 1e-9));

  // A resident job that does nothing (context open, no kernel): 90 + 20 = 110 W.
  const auto nothing = sig(0, 0, 0);
  const std::vector<PowerLoad> resident{{&nothing, 1.0}};
  const auto ctx = device_power(p, resident, 1.0);
  CHECK_THAT(ctx.total_w, WithinAbs(110.0, 1e-9));
  CHECK_THAT(ctx.static_w, WithinAbs(110.0, 1e-9));

  // Busy at f_max: all EUs with FMA and 30 % of the HBM bandwidth: 90 + 20 + 160·1 + 50·0.3 = 285 W.
  const auto fma = sig(1.0, 0, 0.3);
  const std::vector<PowerLoad> busy{{&fma, 1.0}};
  CHECK_THAT(device_power(p, busy, 1.0).total_w, WithinAbs(285.0, 1e-9));
  CHECK_THAT(device_power(p, busy, 1.0).static_w, WithinAbs(110.0, 1e-9));

  // Same at 1.5 GHz (Aurora default): only the compute term scales:
  // 110 + 0.8509973·160 + 15 = 110 + 136.159571 + 15 = 261.159571 W.
  CHECK_THAT(device_power(p, busy, 1.5 / 1.6).total_w, WithinAbs(261.159571, 1e-5));

  // XMX at 80 %: 110 + 0.8·190 = 262 W at f_max; at 1.5 GHz 110 + 0.8509973·152 = 239.351592 W.
  const auto gemm = sig(0, 0.8, 0);
  const std::vector<PowerLoad> x{{&gemm, 1.0}};
  CHECK_THAT(device_power(p, x, 1.0).total_w, WithinAbs(262.0, 1e-9));
  CHECK_THAT(device_power(p, x, 1.5 / 1.6).total_w, WithinAbs(239.351592, 1e-5));

  // Memory-bound job (vec 0.1, bw 0.9): only its 16 W compute part scales with the clock:
  // 110 + 16 + 45 = 171 W at f_max; 110 + 0.8509973·16 + 45 = 168.615957 W at 1.5 GHz.
  const auto triad = sig(0.1, 0, 0.9);
  const std::vector<PowerLoad> m{{&triad, 1.0}};
  CHECK_THAT(device_power(p, m, 1.0).total_w, WithinAbs(171.0, 1e-9));
  CHECK_THAT(device_power(p, m, 1.5 / 1.6).total_w, WithinAbs(168.615957, 1e-5));
}

TEST_CASE("card sanity checks of reference §6.4", "[power]")
{
  const auto p = params();
  // Full compute load, u_bw 0.3, at 1.6 GHz: 285 W/tile → 570 W/card, under the 600 W TDP.
  const auto fma = sig(1.0, 0, 0.3);
  const std::vector<PowerLoad> busy{{&fma, 1.0}};
  CHECK_THAT(2 * device_power(p, busy, 1.0).total_w, WithinAbs(570.0, 1e-9));
  // Light load a_vec 0.3, u_bw 0.1: 110 + 48 + 5 = 163 W/tile (the reference's 143 W + 20 W context).
  const auto light = sig(0.3, 0, 0.1);
  const std::vector<PowerLoad> l{{&light, 1.0}};
  CHECK_THAT(device_power(p, l, 1.0).total_w, WithinAbs(163.0, 1e-9));
}

TEST_CASE("summed utilisation is clamped at 1 per resource", "[power]")
{
  const auto p = params();
  // Two jobs each asking 70 % of the EUs at full rate: Σ 1.4 → 1: 110 + 160 = 270 W (not 110 + 224).
  const auto a = sig(0.7, 0, 0);
  const std::vector<PowerLoad> two{{&a, 1.0}, {&a, 1.0}};
  CHECK_THAT(device_power(p, two, 1.0).total_w, WithinAbs(270.0, 1e-9));
  std::vector<double> out(2);
  attribute_power(p, two, 1.0, out);
  // Each: 110/2 + 160·0.7·(1/1.4) = 55 + 80 = 135 W.
  CHECK_THAT(out[0], WithinAbs(135.0, 1e-9));
  CHECK_THAT(out[1], WithinAbs(135.0, 1e-9));

  // Three jobs at 50 % bandwidth: Σ 1.5 → 1: 110 + 50 = 160 W; each 110/3 + 50·0.5·(1/1.5) = 53.3333 W.
  const auto b = sig(0, 0, 0.5);
  const std::vector<PowerLoad> three{{&b, 1.0}, {&b, 1.0}, {&b, 1.0}};
  CHECK_THAT(device_power(p, three, 1.0).total_w, WithinAbs(160.0, 1e-9));
  std::vector<double> out3(3);
  attribute_power(p, three, 1.0, out3);
  for (double w : out3)
    CHECK_THAT(w, WithinAbs(160.0 / 3.0, 1e-9));
}

TEST_CASE("progress rates scale activity: a time-sliced pair", "[power]")
{
  const auto p = params();
  // Two GPU-bound jobs time-sliced: each runs at rate 1/2.02 (Interference_test), so the engine is busy
  // 2/2.02 = 0.990099 of the time: 110 + 160·0.990099 = 268.415842 W.
  const auto fma = sig(1.0, 0, 0);
  const double r = 1.0 / 2.02;
  const std::vector<PowerLoad> pair{{&fma, r}, {&fma, r}};
  CHECK_THAT(device_power(p, pair, 1.0).total_w, WithinAbs(268.415842, 1e-5));
}

TEST_CASE("attribution sums to the device total", "[power]")
{
  const auto p = params();
  // A: vec 0.5, bw 0.2 at rate 0.5; B: xmx 0.6, bw 0.4 at rate 0.5; f = 1.5 GHz.
  // u_vec = 0.25, u_xmx = 0.3, u_bw = 0.1 + 0.2 = 0.3 (no clamping).
  // total = 110 + 0.8509973·(160·0.25 + 190·0.3) + 50·0.3 = 110 + 0.8509973·97 + 15 = 207.546740 W
  // A = 55 + 0.8509973·40 + 5 = 94.039893 W;  B = 55 + 0.8509973·57 + 10 = 113.506847 W
  const auto a = sig(0.5, 0, 0.2);
  const auto b = sig(0, 0.6, 0.4);
  const std::vector<PowerLoad> jobs{{&a, 0.5}, {&b, 0.5}};
  const double f = 1.5 / 1.6;
  const auto total = device_power(p, jobs, f);
  CHECK_THAT(total.total_w, WithinAbs(207.546740, 1e-5));
  std::vector<double> out(2);
  attribute_power(p, jobs, f, out);
  CHECK_THAT(out[0], WithinAbs(94.039893, 1e-5));
  CHECK_THAT(out[1], WithinAbs(113.506847, 1e-5));
  CHECK_THAT(sum(out), WithinAbs(total.total_w, 1e-9));

  // With clamping on two resources and three jobs the shares still add up.
  const auto c = sig(0.9, 0.5, 0.8);
  const std::vector<PowerLoad> heavy{{&a, 1.0}, {&b, 1.0}, {&c, 1.0}};
  std::vector<double> out3(3);
  attribute_power(p, heavy, 1.0, out3);
  // u_vec = 0.5 + 0.9 → 1, u_xmx = 0.6 + 0.5 → 1, u_bw = 0.2 + 0.4 + 0.8 → 1: 110 + 160 + 190 + 50 = 510 W.
  CHECK_THAT(device_power(p, heavy, 1.0).total_w, WithinAbs(510.0, 1e-9));
  CHECK_THAT(sum(out3), WithinAbs(510.0, 1e-9));
}

namespace {
/// Static power of the current default (51.5 W at 0.3 GHz, 121 W at 1.6 GHz), dynamic terms refitted to HPL.
PowerParams clocked(bool pinned)
{
  PowerParams p = params();
  p.idle_w.value = 51.5;
  p.idle_fmax_w.value = 121;
  p.vec_w.value = 109;
  p.xmx_w.value = 129;
  p.idle_freq_ratio = 0.3 / 1.6;
  p.clock_pinned = pinned;
  return p;
}
} // namespace

TEST_CASE("static power follows the clock the tile holds", "[power][static]")
{
  // r_i = 0.3/1.6 = 0.1875, r_i^2.5 = 0.03515625 · sqrt(0.1875) = 0.03515625 · 0.4330127 = 0.0152230;
  // at 1.5 GHz r^2.5 = 0.8509973 (above). P_static(1.5 GHz) = 51.5 + 69.5 · (0.8509973 − 0.0152230)
  // / (1 − 0.0152230) = 51.5 + 69.5 · 0.8486940 = 51.5 + 58.98423 = 110.48423 W.
  const auto p = clocked(false);
  CHECK_THAT(static_power(p, 0.3 / 1.6), WithinAbs(51.5, 1e-9));
  CHECK_THAT(static_power(p, 1.0), WithinAbs(121.0, 1e-9));
  CHECK_THAT(static_power(p, 1.5 / 1.6), WithinAbs(110.48423, 1e-4));
  CHECK_THAT(static_power(p, 0.1), WithinAbs(51.5, 1e-9)); // below the idle clock: clamped

  // Not pinned: an idle tile drops to the idle clock whatever the set frequency: 51.5 W (was 90 W).
  CHECK_THAT(device_power(p, {}, 1.5 / 1.6).total_w, WithinAbs(51.5, 1e-9));
  // Pinned (Aurora): it holds 1.5 GHz: 110.484 W.
  const auto pin = clocked(true);
  CHECK_THAT(device_power(pin, {}, 1.5 / 1.6).total_w, WithinAbs(110.48423, 1e-4));
  CHECK_THAT(device_power(pin, {}, 1.5 / 1.6).static_w, WithinAbs(110.48423, 1e-4));

  // A resident job holds the set clock pinned or not: context open, no kernel, at 1.5 GHz:
  // 110.48423 + 20 = 130.48423 W, all of it static.
  const auto nothing = sig(0, 0, 0);
  const std::vector<PowerLoad> resident{{&nothing, 1.0}};
  for (const auto& q : {p, pin}) {
    CHECK_THAT(device_power(q, resident, 1.5 / 1.6).total_w, WithinAbs(130.48423, 1e-4));
    CHECK_THAT(device_power(q, resident, 1.5 / 1.6).static_w, WithinAbs(130.48423, 1e-4));
  }

  // Heavy XMX tile at 1.6 GHz (u_xmx 1, u_bw 0.3): 121 + 20 + 129 + 15 = 285 W; a card of two: 570 W,
  // under the 600 W cap (before the refit: 90 + 20 + 190 + 15 = 315 W, 630 W: throttled).
  const auto gemm = sig(0, 1.0, 0.3);
  const std::vector<PowerLoad> x{{&gemm, 1.0}};
  CHECK_THAT(device_power(p, x, 1.0).total_w, WithinAbs(285.0, 1e-9));
  // Attribution still adds up to the device total with a clock-dependent static part.
  const std::vector<PowerLoad> two{{&gemm, 0.5}, {&nothing, 1.0}};
  std::vector<double> out(2);
  attribute_power(p, two, 1.5 / 1.6, out);
  CHECK_THAT(sum(out), WithinAbs(device_power(p, two, 1.5 / 1.6).total_w, 1e-9));
}
