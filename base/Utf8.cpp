#include "base/Utf8.hpp"

namespace colocsim {

namespace {

/// The length of the valid UTF-8 sequence that starts at s[i] (1 to 4), or 0 when s[i] starts none.
std::size_t sequence_length(std::string_view s, std::size_t i)
{
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned b = byte(i);
  if (b < 0x80) return 1;
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF; // the range of the second byte (RFC 3629 §4)
  if (b >= 0xC2 && b <= 0xDF)
    n = 2;
  else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    if (b == 0xE0) lo = 0xA0; // no overlong form
    if (b == 0xED) hi = 0x9F; // no surrogate (U+D800..U+DFFF)
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    if (b == 0xF0) lo = 0x90; // no overlong form
    if (b == 0xF4) hi = 0x8F; // nothing above U+10FFFF
  } else {
    return 0; // a continuation byte, C0, C1 or F5..FF
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
  return n;
}

} // namespace

bool is_utf8(std::string_view s)
{
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string utf8_or_escaped(std::string_view s)
{
  if (is_utf8(s)) return std::string(s);
  static const char* const hex = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 16);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = sequence_length(s, i);
    if (n > 0) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    const auto b = static_cast<unsigned char>(s[i++]);
    out += "\\x";
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

} // namespace colocsim
