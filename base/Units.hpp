#pragma once
// Quantities with units, as users write them: "64GB", "600W", "1.5GHz", "30s", "2h".
// Values are returned in SI base units (bytes, watts, hertz, seconds). A bare number is accepted and
// taken in the base unit. Binary prefixes (GiB, MiB) are powers of 1024, decimal ones (GB, MB) of 1000.
#include <optional>
#include <string>
#include <string_view>

namespace colocsim {

enum class Unit { NONE, BYTES, WATTS, HERTZ, SECONDS, JOULES };

/// Name of the unit for messages, e.g. "bytes (e.g. 64GB, 512MiB)".
std::string unit_help(Unit unit);

/// Parses `text` as a quantity of `unit`; nullopt if it is not one (the caller reports the error).
std::optional<double> parse_quantity(std::string_view text, Unit unit);

/// Strict number parsing (whole string, finite); nullopt otherwise.
std::optional<double> parse_double(std::string_view text);
std::optional<long long> parse_int(std::string_view text);

/// A number as messages and written files show it: the stream's default format, 6 significant digits
/// ("4", "2.5", "1e+10").
std::string number_text(double v);

} // namespace colocsim
