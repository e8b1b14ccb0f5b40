#include "calibration/microbenchmark/DeviceCounters.hpp"

#include "base/Units.hpp"

#include <stdexcept>

namespace colocsim {

std::uint64_t elapsed_ticks(std::uint64_t start, std::uint64_t end, unsigned valid_bits)
{
  if (valid_bits == 0 || valid_bits > 64)
    throw std::invalid_argument("kernel timestamp valid bits must be in 1..64 (got " +
                                std::to_string(valid_bits) + ")");
  const std::uint64_t mask = valid_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << valid_bits) - 1;
  start &= mask;
  end &= mask;
  if (end >= start) return end - start;
  return (mask - start) + end + 1; // one rollover; unsigned arithmetic wraps correctly for 64 bits too
}

TimerUnit timer_unit_of(bool queried_1_2, double timer_resolution)
{
  return queried_1_2 && timer_resolution >= 1e3 ? TimerUnit::HZ : TimerUnit::NS_PER_TICK;
}

double ticks_to_seconds(std::uint64_t ticks, double timer_resolution, TimerUnit unit)
{
  if (!(timer_resolution > 0))
    throw std::invalid_argument("timer resolution must be > 0 (got " + std::to_string(timer_resolution) +
                                ")");
  const auto t = static_cast<double>(ticks);
  return unit == TimerUnit::HZ ? t / timer_resolution : t * timer_resolution * 1e-9;
}

std::optional<std::uint64_t> energy_delta_uj(std::uint64_t before, std::uint64_t after,
                                             std::uint64_t range_uj)
{
  if (after >= before) return after - before;
  if (range_uj == 0 || before > range_uj) return std::nullopt;
  return (range_uj - before) + after;
}

std::optional<int> ccs_count(std::string_view mode)
{
  if (mode == "ccs1") return 1;
  if (mode == "ccs2") return 2;
  if (mode == "ccs4") return 4;
  return std::nullopt;
}

std::string ccs_env_value(std::span<const int> root_devices, int ccs)
{
  if (ccs != 1 && ccs != 2 && ccs != 4)
    throw std::invalid_argument("CCS mode must be 1, 2 or 4 (got " + std::to_string(ccs) + ")");
  if (root_devices.empty())
    throw std::invalid_argument("ZEX_NUMBER_OF_CCS needs at least one root device index");
  std::string s;
  for (int d : root_devices) {
    if (d < 0) throw std::invalid_argument("root device index must be >= 0 (got " + std::to_string(d) + ")");
    if (!s.empty()) s += ',';
    s += std::to_string(d) + ':' + std::to_string(ccs);
  }
  return s;
}

std::string DeviceSelector::to_string() const
{
  return std::to_string(root) + (sub ? "." + std::to_string(*sub) : std::string());
}

std::optional<DeviceSelector> parse_device_selector(std::string_view text)
{
  const auto dot = text.find('.');
  const auto root = parse_int(text.substr(0, dot));
  if (!root || *root < 0 || *root > 1'000'000) return std::nullopt;
  DeviceSelector s{static_cast<int>(*root), std::nullopt};
  if (dot != std::string_view::npos) {
    const auto sub = parse_int(text.substr(dot + 1));
    if (!sub || *sub < 0 || *sub > 1'000'000) return std::nullopt;
    s.sub = static_cast<int>(*sub);
  }
  return s;
}

} // namespace colocsim
