#pragma once
// Energy counters read by the microbenchmark's parent process around each measurement window (reference
// §2.5, §2.7): the device's Sysman energy counter for Level Zero (LevelZeroBackend.cpp) and the Linux
// powercap (RAPL) package counters for the OpenCL backend on a CPU. A meter that cannot be read reports
// itself unavailable with the reason; the measurements then carry empty energy fields, never invented ones.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace colocsim {

/// One reading of every counter a meter sums (µJ), with the host time it was taken.
struct EnergySnapshot {
  std::vector<std::uint64_t> counters_uj;
  double host_time_s = 0; ///< CLOCK_MONOTONIC seconds
};

class EnergyMeter {
public:
  virtual ~EnergyMeter() = default;
  /// What is measured, e.g. "rapl:package-0+package-1" or "zes:tile0"; written to energy_source.
  virtual std::string source() const = 0;
  /// Reads every counter; nullopt when a read fails.
  virtual std::optional<EnergySnapshot> read() = 0;
  /// Joules between two snapshots of this meter (wrap-around handled); nullopt when it cannot be known.
  virtual std::optional<double> joules_between(const EnergySnapshot& before,
                                               const EnergySnapshot& after) const = 0;
};

/// Linux powercap RAPL: sums the top-level zones `<root>/intel-rapl:N/energy_uj` (CPU packages; their
/// DRAM and psys zones are not added), each wrapping at its max_energy_range_uj. Returns nullptr and sets
/// `why_not` when there is no zone or a counter cannot be read (since Linux 5.10 energy_uj is root-only).
std::unique_ptr<EnergyMeter> open_rapl_meter(const std::string& root, std::string& why_not);

/// CLOCK_MONOTONIC in seconds (the clock the parent and its workers share).
double monotonic_s();

} // namespace colocsim
