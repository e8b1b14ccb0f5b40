#pragma once
// Writes a Calibration in the colocsim-calibration/1 format (docs/formats/calibration.md), so that
// load_calibration() reads back the same numbers, tags and sources. Used by `colocsim calibrate fit`.
#include "calibration/Calibration.hpp"

#include <string>
#include <vector>

namespace colocsim {

/// The file text: `header` lines as `#` comments, then every key. Powers are written in W with 6
/// significant digits, dimensionless numbers likewise; table entries whose source is empty are bare
/// numbers (they take interference.tag/source), the others {value, tag, source} maps.
std::string format_calibration(const Calibration& calibration, const std::vector<std::string>& header);

} // namespace colocsim
