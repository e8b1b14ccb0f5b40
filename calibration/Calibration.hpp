#pragma once
// A calibration: the coefficients of the power curve, the time-slice sharing model, the pairwise
// interference table and the node baseline power for one device type, each with its provenance.
// Device *facts* (EUs, memory, clocks, TDP) live in the device catalog (models/devices/); a calibration
// names the catalog entry it applies to. Bundled calibrations are in calibration/data/; the default
// Max 1550 one is built from published figures (docs/sources.md) and labelled so in `status`
// until microbenchmark measurements replace it. File format: docs/formats/calibration.md.
#include "base/Yaml.hpp"
#include "models/Interference.hpp"
#include "models/PowerModel.hpp"

#include <array>
#include <string>
#include <string_view>

namespace colocsim {

/// Valid ranges, checked by load_calibration (also quoted in docs/formats/calibration.md).
inline constexpr double CALIBRATION_GAMMA_MIN = 0.5;     ///< power.gamma lower bound
inline constexpr double CALIBRATION_GAMMA_MAX = 4.0;     ///< power.gamma upper bound
inline constexpr double CALIBRATION_COLLISION_MAX = 2.0; ///< time_slice.collision (θ) in [0, 2]
inline constexpr double CALIBRATION_OVERHEAD_MAX = 1.0;  ///< time_slice.switch_overhead (ε) in [0, 1]

struct Calibration {
  std::string name;    ///< e.g. "max1550-aurora-default"
  std::string device;  ///< device catalog name it applies to, e.g. "max1550-aurora-tile"
  std::string status;  ///< e.g. "estimates from published figures (docs/sources.md) until microbenchmark
                       ///< measurements replace them"
  std::string created; ///< date, host or "reference digest"
  PowerParams power;   ///< watts per device; gamma dimensionless (models/PowerModel.hpp)
  TimeSliceParams time_slice; ///< θ and ε, dimensionless (models/Interference.hpp)
  /// Pairwise slowdowns T[row][col] >= 1, indexed by JobClass: row = slowed job, column = co-runner.
  TableInterference::Table table{};
  std::string table_source;                     ///< provenance of the table as a whole
  Evidence table_evidence = Evidence::ESTIMATE; ///< evidence tag of the table as a whole
  /// Sharing modes the table applies in (interference.modes; default: the modes where kernels overlap).
  std::vector<SharingMode> table_modes = TableInterference::overlapping_modes();
  /// Per-entry provenance where an entry was written `{value, tag, source}`; an empty source means the
  /// entry is a bare number and table_source / table_evidence apply to it.
  std::array<std::array<Sourced, JOB_CLASS_COUNT>, JOB_CLASS_COUNT> table_entries{};
  Sourced node_baseline_w; ///< node power besides devices (CPUs, DRAM, NICs), watts per node
};

/// Parses a calibration file (YAML text, format colocsim-calibration/1). `file` is used in messages.
/// Throws InputError listing every problem found as `file:line:col: yaml.path: ...`.
Calibration load_calibration(std::string_view yaml_text, const std::string& file);

/// Reads and parses a calibration file from disk; an unreadable file is an InputError too.
Calibration load_calibration_file(const std::string& path);

/// The `table` interference model of a calibration.
TableInterference make_table_interference(const Calibration& calibration);

} // namespace colocsim
