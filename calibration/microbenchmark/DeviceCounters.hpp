#pragma once
// Host-side arithmetic on device counters, kept free of any driver API so it is unit-tested on machines
// without a GPU: kernel-timestamp rollover and tick units (Level Zero, reference §2.4), energy-counter deltas
// with wrap-around (Sysman µJ counters and Linux powercap/RAPL, reference §2.5), and the ZEX_NUMBER_OF_CCS
// environment value for CCS modes (reference §1.7).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace colocsim {

/// Ticks from `start` to `end` of a free-running counter with `valid_bits` valid bits (1..64) that may
/// have rolled over once in between (reference §2.4: mask = 2^bits - 1; end < start →
/// (mask - start) + end + 1). Bits above valid_bits are ignored.
std::uint64_t elapsed_ticks(std::uint64_t start, std::uint64_t end, unsigned valid_bits);

/// Units of ze_device_properties_t::timerResolution: nanoseconds per tick when queried with
/// ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, cycles per second (Hz) with ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2
/// (reference §2.4 "units gotcha").
enum class TimerUnit { NS_PER_TICK, HZ };

/// Unit of a timerResolution value read with the _1_2 structure (queried_1_2) or the original one. A
/// driver that predates the 1.2 semantics returns ns/tick even for _1_2, so a "frequency" below 1 kHz is
/// taken as ns/tick (device timers run at MHz rates, e.g. 19.2 MHz = 52.08 ns/tick).
TimerUnit timer_unit_of(bool queried_1_2, double timer_resolution);

/// Seconds for `ticks` at `timer_resolution` in `unit`. Throws std::invalid_argument for a resolution <= 0.
double ticks_to_seconds(std::uint64_t ticks, double timer_resolution, TimerUnit unit);

/// Energy in µJ between two readings of a monotonic counter that wraps to 0 after `range_uj`
/// (powercap max_energy_range_uj). A counter that went backwards wrapped once: (range - before) + after.
/// With range_uj == 0 (range unknown, e.g. Sysman, whose driver already corrects one hardware wrap) a
/// backwards counter cannot be interpreted: nullopt (reported as unavailable, never guessed).
std::optional<std::uint64_t> energy_delta_uj(std::uint64_t before, std::uint64_t after,
                                             std::uint64_t range_uj);

/// Number of compute command streamers of a CCS mode name: "ccs1" → 1, "ccs2" → 2, "ccs4" → 4; nullopt
/// for anything else (e.g. "time-slice", the OpenCL backend's only mode).
std::optional<int> ccs_count(std::string_view mode);

/// Value of ZEX_NUMBER_OF_CCS putting each listed root device in `ccs` mode: {0} , 4 → "0:4";
/// {0, 1}, 2 → "0:2,1:2" (reference §1.7: `<root-device-index>:<mode>,...`, indices after
/// ZE_AFFINITY_MASK). Throws std::invalid_argument unless ccs is 1, 2 or 4 and every index is >= 0.
std::string ccs_env_value(std::span<const int> root_devices, int ccs);

/// Device selector "R" or "R.S" (root device R, sub-device S; both >= 0). nullopt when malformed.
struct DeviceSelector {
  int root = 0;
  std::optional<int> sub; ///< tile in COMPOSITE mode; absent in FLAT mode or for a whole device
  std::string to_string() const;
};
std::optional<DeviceSelector> parse_device_selector(std::string_view text);

} // namespace colocsim
