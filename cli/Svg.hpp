#pragma once
// Small helpers shared by the SVG figures of `colocsim plot` (cli/CliPlot.cpp, cli/SweepChart.cpp):
// escaping, number formatting, axis tick steps and the colour palette. Plain SVG 1.1 text, no dependency.
#include <cstddef>
#include <string>

namespace colocsim::svg {

/// `s` with the XML special characters (& < > ") escaped, for text and attribute values; bytes that are not
/// UTF-8 and control characters XML cannot hold written as `\xNN` (base/Utf8.hpp).
std::string xml(const std::string& s);

/// `v` in fixed notation with at most `precision` decimals, trailing zeros dropped ("-0" → "0").
std::string num(double v, int precision = 2);

/// A value with few digits and a unit prefix for axis labels: 12,500 → "12.5k".
std::string short_number(double v);

/// Round tick step for a range: 1, 2 or 5 × 10^k giving about `target` ticks.
double tick_step(double range, int target = 8);

/// Colour-blind-safe palette (Okabe–Ito), then a few more distinct hues; cycles beyond.
const char* colour(std::size_t i);

} // namespace colocsim::svg
