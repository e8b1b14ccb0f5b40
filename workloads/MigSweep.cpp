// MIG measurement sweep import (workloads/MigSweep.hpp).
#include "workloads/MigSweep.hpp"

#include "base/Errors.hpp"
#include "base/Units.hpp"
#include "workloads/CsvLines.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <istream>
#include <map>
#include <sstream>

namespace colocsim {

namespace {

std::string trim(const std::string& s)
{
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  const auto b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

std::vector<std::string> split_trimmed(const std::string& line)
{
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ','))
    out.push_back(trim(field));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

std::string format4(double v)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

} // namespace

MigSweep read_mig_sweep(std::istream& in, const std::string& file)
{
  enum { BATCH, SLICE, THROUGHPUT, COLUMNS };
  const char* const names[COLUMNS] = {"batch", "slice", "throughput"};
  std::array<int, COLUMNS> col{-1, -1, -1};
  std::size_t header_size = 0;
  bool header = false;
  int line_no = 0;
  // batch -> slices (0 = whole, 1..7) -> (throughput, line)
  std::map<long long, std::map<unsigned, std::pair<double, int>>> seen;
  std::string line;
  LineReader lines(in); // 1 MiB line bound, any line end
  while (lines.next(line, file, line_no + 1)) {
    ++line_no;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const auto fields = split_trimmed(t);
    if (!header) {
      for (std::size_t i = 0; i < fields.size(); ++i) {
        int found = -1;
        for (int c = 0; c < COLUMNS; ++c)
          if (fields[i] == names[c]) found = c;
        if (found < 0)
          throw InputError(SourceLocation{file, line_no}, "header",
                           "unknown column '" + fields[i] + "'; expected batch, slice, throughput");
        if (col[found] >= 0)
          throw InputError(SourceLocation{file, line_no}, "header",
                           "duplicate column '" + fields[i] + "'; expected each column once");
        col[found] = static_cast<int>(i);
      }
      for (int c = 0; c < COLUMNS; ++c)
        if (col[c] < 0)
          throw InputError(SourceLocation{file, line_no}, "header",
                           std::string("missing column '") + names[c] +
                               "'; expected batch, slice, throughput");
      header_size = fields.size();
      header = true;
      continue;
    }
    const SourceLocation at{file, line_no};
    if (fields.size() != header_size)
      throw InputError(at, "",
                       "wrong number of fields (got " + std::to_string(fields.size()) + "); expected " +
                           std::to_string(header_size) + " as in the header");
    const std::string& b = fields[col[BATCH]];
    long long batch = 0;
    const auto [bp, bec] = std::from_chars(b.data(), b.data() + b.size(), batch);
    if (bec != std::errc() || bp != b.data() + b.size() || batch < 1 || batch > (1LL << 20))
      throw InputError(at, "batch", "bad batch size (got '" + b + "'); expected an integer in 1..1048576");
    const std::string& s = fields[col[SLICE]];
    unsigned g = 0;
    if (s != "whole") {
      if (s.size() < 2 || s[0] < '1' || s[0] > '7' || s[1] != 'g' || (s.size() > 2 && s[2] != '.'))
        throw InputError(
            at, "slice",
            "unknown slice (got '" + s +
                "'); expected 'whole' (MIG off) or a MIG instance profile such as 1g.10gb, 3g.40gb");
      g = static_cast<unsigned>(s[0] - '0');
    }
    const std::string& tp = fields[col[THROUGHPUT]];
    const auto q = parse_quantity(tp, Unit::NONE);
    if (!q || !(*q > 0) || !std::isfinite(*q))
      throw InputError(at, "throughput", "not a positive number (got '" + tp + "'); expected a rate > 0");
    auto [it, fresh] = seen[batch].try_emplace(g, *q, line_no);
    if (!fresh)
      throw InputError(at, "slice",
                       "batch " + b + " already has a " +
                           (g == 0 ? std::string("whole") : std::to_string(g) + "g") + " row at line " +
                           std::to_string(it->second.second) + "; expected one row per batch and slice size");
  }
  if (!header)
    throw InputError(SourceLocation{file}, "header", "no header row; expected batch,slice,throughput");
  if (seen.empty()) throw InputError(SourceLocation{file}, "", "no measurements; expected at least one row");
  MigSweep sweep;
  std::vector<unsigned> first_slices;
  for (const auto& [batch, slices] : seen) {
    const auto whole = slices.find(0);
    const auto where = SourceLocation{file, slices.begin()->second.second};
    if (whole == slices.end())
      throw InputError(where, "slice",
                       "batch " + std::to_string(batch) +
                           " has no 'whole' row; expected the throughput with MIG "
                           "off at every batch (speeds are relative to it)");
    std::vector<unsigned> gs;
    MigSpeeds speeds{};
    for (const auto& [g, v] : slices) {
      if (g == 0) continue;
      gs.push_back(g);
      double speed = v.first / whole->second.first;
      if (speed > 1.0) {
        sweep.capped.push_back("batch " + std::to_string(batch) + ", " + std::to_string(g) +
                               "g: " + format4(speed));
        speed = 1.0;
      }
      speeds[g] = speed;
    }
    if (gs.empty())
      throw InputError(where, "slice",
                       "batch " + std::to_string(batch) + " has no MIG slice rows; expected at least one");
    if (sweep.rows.empty())
      first_slices = gs;
    else if (gs != first_slices)
      throw InputError(where, "slice",
                       "batch " + std::to_string(batch) + " names different slice sizes than batch " +
                           std::to_string(static_cast<long long>(sweep.rows.front().first)) +
                           "; expected every batch to measure the same slice sizes");
    sweep.rows.emplace_back(static_cast<double>(batch), speeds);
  }
  return sweep;
}

std::string mig_sweep_yaml(const MigSweep& sweep, const std::string& source)
{
  auto speeds = [](const MigSpeeds& s) {
    std::string out = "{";
    for (std::size_t g = 1; g < s.size(); ++g)
      if (s[g] > 0) out += (out.size() > 1 ? ", " : "") + std::to_string(g) + "g: " + format4(s[g]);
    return out + "}";
  };
  std::string source_text;
  for (char c : source) {
    if (c == '"' || c == '\\') source_text += '\\';
    source_text += c;
  }
  std::ostringstream out;
  out << "# speed = throughput on the MIG instance / throughput on the whole GPU (MIG off), same batch\n";
  for (const auto& c : sweep.capped)
    out << "# faster than the whole GPU, written as 1 (" << c << ")\n";
  if (sweep.rows.size() == 1) {
    out << "mig_speed: {value: " << speeds(sweep.rows.front().second) << ", tag: measurement, source: \""
        << source_text << " (batch " << static_cast<long long>(sweep.rows.front().first) << ")\"}\n";
    return out.str();
  }
  out << "mig_speed_by_batch:\n  value:\n";
  for (const auto& [batch, s] : sweep.rows)
    out << "    " << static_cast<long long>(batch) << ": " << speeds(s) << "\n";
  out << "  tag: measurement\n  source: \"" << source_text << "\"\n";
  return out.str();
}

} // namespace colocsim
