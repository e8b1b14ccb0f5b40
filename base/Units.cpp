#include "base/Units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>
#include <utility>

namespace colocsim {

namespace {

struct Suffix {
  std::string_view text;
  double factor;
};

constexpr std::array BYTE_SUFFIXES{Suffix{"B", 1.0},
                                   Suffix{"kB", 1e3},
                                   Suffix{"KB", 1e3},
                                   Suffix{"MB", 1e6},
                                   Suffix{"GB", 1e9},
                                   Suffix{"TB", 1e12},
                                   Suffix{"KiB", 1024.0},
                                   Suffix{"MiB", 1048576.0},
                                   Suffix{"GiB", 1073741824.0},
                                   Suffix{"TiB", 1099511627776.0}};
constexpr std::array WATT_SUFFIXES{Suffix{"W", 1.0}, Suffix{"mW", 1e-3}, Suffix{"kW", 1e3},
                                   Suffix{"MW", 1e6}};
constexpr std::array HERTZ_SUFFIXES{Suffix{"Hz", 1.0}, Suffix{"kHz", 1e3}, Suffix{"MHz", 1e6},
                                    Suffix{"GHz", 1e9}};
constexpr std::array SECOND_SUFFIXES{Suffix{"s", 1.0},    Suffix{"ms", 1e-3},  Suffix{"us", 1e-6},
                                     Suffix{"min", 60.0}, Suffix{"h", 3600.0}, Suffix{"d", 86400.0}};
constexpr std::array JOULE_SUFFIXES{Suffix{"J", 1.0}, Suffix{"kJ", 1e3}, Suffix{"MJ", 1e6},
                                    Suffix{"kWh", 3.6e6}};

std::string_view trim(std::string_view s)
{
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

template <std::size_t N>
std::optional<double> apply(std::string_view num, std::string_view suffix, const std::array<Suffix, N>& table)
{
  auto v = parse_double(num);
  if (!v) return std::nullopt;
  if (suffix.empty()) return v;
  for (const auto& s : table)
    if (s.text == suffix) return *v * s.factor;
  return std::nullopt;
}

} // namespace

std::optional<double> parse_double(std::string_view text)
{
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') {
    text.remove_prefix(1);
    if (text.empty() || text.front() == '-' || text.front() == '+') return std::nullopt;
  }
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<long long> parse_int(std::string_view text)
{
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  long long v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_quantity(std::string_view text, Unit unit)
{
  text = trim(text);
  std::size_t split = text.size();
  while (split > 0 && std::isalpha(static_cast<unsigned char>(text[split - 1])))
    --split;
  std::string_view num = trim(text.substr(0, split));
  std::string_view suffix = text.substr(split);
  switch (unit) {
  case Unit::NONE:
    return suffix.empty() ? parse_double(num) : std::nullopt;
  case Unit::BYTES:
    return apply(num, suffix, BYTE_SUFFIXES);
  case Unit::WATTS:
    return apply(num, suffix, WATT_SUFFIXES);
  case Unit::HERTZ:
    return apply(num, suffix, HERTZ_SUFFIXES);
  case Unit::SECONDS:
    return apply(num, suffix, SECOND_SUFFIXES);
  case Unit::JOULES:
    return apply(num, suffix, JOULE_SUFFIXES);
  }
  return std::nullopt;
}

std::string unit_help(Unit unit)
{
  switch (unit) {
  case Unit::NONE:
    return "a number";
  case Unit::BYTES:
    return "a size (e.g. 64GB, 512MiB; bare numbers are bytes)";
  case Unit::WATTS:
    return "a power (e.g. 600W, 1.2kW; bare numbers are watts)";
  case Unit::HERTZ:
    return "a frequency (e.g. 1.6GHz, 1500MHz; bare numbers are hertz)";
  case Unit::SECONDS:
    return "a duration (e.g. 30s, 5min, 2h; bare numbers are seconds)";
  case Unit::JOULES:
    return "an energy (e.g. 5kJ, 1kWh; bare numbers are joules)";
  }
  return "a quantity";
}

std::string number_text(double v)
{
  std::ostringstream os;
  os << v;
  return os.str();
}

} // namespace colocsim
