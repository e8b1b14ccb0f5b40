#include "cli/Svg.hpp"

#include "base/Utf8.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace colocsim::svg {

std::string xml(const std::string& s)
{
  std::string out;
  for (char c : utf8_or_escaped(s)) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
        // XML 1.0 has no other control characters, not even as references: \xNN, as for bytes not UTF-8.
        static const char* const hex = "0123456789abcdef";
        out += "\\x";
        out += hex[(c >> 4) & 15];
        out += hex[c & 15];
      } else {
        out += c;
      }
    }
  }
  return out;
}

std::string num(double v, int precision)
{
  std::ostringstream os;
  os << std::fixed << std::setprecision(precision) << v;
  std::string s = os.str();
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0')
      s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::string short_number(double v)
{
  const double a = std::fabs(v);
  if (a >= 1e9) return num(v / 1e9, 2) + "G";
  if (a >= 1e6) return num(v / 1e6, 2) + "M";
  if (a >= 1e4) return num(v / 1e3, 1) + "k";
  return num(v, a >= 100 ? 0 : 2);
}

double tick_step(double range, int target)
{
  if (!(range > 0)) return 1;
  const double raw = range / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

const char* colour(std::size_t i)
{
  static const char* const palette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
                                        "#F0E442", "#000000", "#8C564B", "#7F7F7F", "#BCBD22", "#17BECF"};
  return palette[i % (sizeof palette / sizeof palette[0])];
}

} // namespace colocsim::svg
