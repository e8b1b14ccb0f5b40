#include "base/Csv.hpp"

#include "base/Utf8.hpp"

namespace colocsim {

std::string csv_field(std::string_view text)
{
  // Bytes that are not UTF-8 (a job id read from a Latin-1 trace) as \xNN, so that the file is UTF-8 text.
  const std::string valid = is_utf8(text) ? std::string() : utf8_or_escaped(text);
  const std::string_view s = valid.empty() ? text : std::string_view(valid);
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + '"';
}

bool split_csv_line(std::string_view line, std::vector<std::string>& out)
{
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  out.assign(1, std::string());
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return !quoted;
}

} // namespace colocsim
