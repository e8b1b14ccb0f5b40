#include "workloads/CsvLines.hpp"

#include "models/Units.hpp"

#include <cmath>

namespace colocsim {

CsvLines::CsvLines(std::istream& in, std::string file) : in_(in), file_(std::move(file)) {}

bool CsvLines::next()
{
  while (std::getline(in_, text_)) {
    ++line_;
    if (!text_.empty() && text_.back() == '\r') text_.pop_back();
    if (text_.find_first_not_of(" \t") == std::string::npos) continue;
    count_ = 0;
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = text_.find(',', start);
      const std::size_t end = comma == std::string::npos ? text_.size() : comma;
      if (fields_.size() <= count_) {
        fields_.emplace_back();
        cols_.push_back(0);
      }
      // Trim blanks around the value; the column points at its first character.
      std::size_t b = start, e = end;
      while (b < e && (text_[b] == ' ' || text_[b] == '\t'))
        ++b;
      while (e > b && (text_[e - 1] == ' ' || text_[e - 1] == '\t'))
        --e;
      fields_[count_].assign(text_, b, e - b);
      cols_[count_] = static_cast<int>(b) + 1;
      ++count_;
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return true;
  }
  return false;
}

void CsvLines::bad(std::size_t i, std::string_view field, const std::string& what,
                   const std::string& expected, DiagnosticSink& sink) const
{
  sink.add(at(i), std::string(field), what + " (got '" + fields_[i] + "'); expected " + expected);
}

std::optional<double> CsvLines::number(std::size_t i, std::string_view field, const std::string& expected,
                                       DiagnosticSink& sink, double min, double max, bool whole) const
{
  const std::string& text = fields_[i];
  if (text.empty()) {
    bad(i, field, "empty", expected, sink);
    return std::nullopt;
  }
  const auto v = parse_double(text);
  if (!v) {
    bad(i, field, "not a number", expected, sink);
    return std::nullopt;
  }
  if (whole && std::floor(*v) != *v) {
    bad(i, field, "not a whole number", expected, sink);
    return std::nullopt;
  }
  if (*v < min || *v > max) {
    bad(i, field, "out of range", expected, sink);
    return std::nullopt;
  }
  return v;
}

int column_index(const CsvLines& header, std::string_view name)
{
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

} // namespace colocsim
