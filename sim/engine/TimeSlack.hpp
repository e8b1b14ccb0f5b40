#pragma once
// The engine's two tolerances on simulated time (docs/architecture.md, The event core): within them, times
// computed along different paths count as one instant.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace colocsim {

/// Arrivals, wake-ups, boots, repartitions and releases closer than this to an instant happen at it: 1e-9
/// relative (1e-9 s below 1 s), far above the rounding of the times the engine computes (an ulp of t is
/// 2.2e-16 · t), so rounding never splits one instant in two.
inline double time_slack(double t)
{
  return 1e-9 * std::max(1.0, std::abs(t));
}

/// Job ends closer than this to an instant happen at it: 1e-9 s (SimGrid's surf/precision, within which the
/// first engine's SimGrid activities ended together), or 8 ulps of t once that is larger (t from 2^20 s,
/// about 12 days: long traces), so that two ends computed along different paths never fall apart by
/// rounding. Ends are not merged over time_slack's 1e-9 · t: at t = 1e6 s that would move an end by 1 ms.
///
/// The ulp is 8 × (std::nextafter(|t|, ∞) − |t|), read from the exponent bits (nextafter was 2 % of a run):
/// the gap above a normal |t| is 2^(its exponent − 52). Below 2^-970 (zero and subnormals included) 8 gaps
/// are far under 1e-9, and an infinite or NaN t gave NaN, which std::max turned into 1e-9: both give 1e-9.
/// The same value as the nextafter form for every double but ±DBL_MAX, where that gap is infinite
/// (tests/sim/EngineComponents_test.cpp compares the two).
inline double end_slack(double t)
{
  const auto bits = std::bit_cast<std::uint64_t>(std::abs(t));
  const std::uint64_t exponent = bits >> 52; // biased; the sign bit is clear
  if (exponent < 53 || exponent == 0x7ff) return 1e-9;
  return std::max(1e-9, 8 * std::bit_cast<double>((exponent - 52) << 52));
}

} // namespace colocsim
