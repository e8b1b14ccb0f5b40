#include "calibration/CalibrationWriter.hpp"

#include <iomanip>
#include <sstream>

namespace colocsim {

namespace {

std::string number(double v)
{
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

/// A YAML double-quoted scalar.
std::string quoted(const std::string& s)
{
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      q += '\\', q += c;
    else if (c == '\n')
      q += "\\n";
    else if (c == '\t')
      q += "\\t";
    else
      q += c;
  }
  return q + '"';
}

void sourced(std::ostream& out, const std::string& indent, const std::string& key, const Sourced& s,
             const std::string& unit)
{
  out << indent << key << ":\n"
      << indent << "  value: " << number(s.value) << unit << "\n"
      << indent << "  tag: " << to_string(s.evidence) << "\n"
      << indent << "  source: " << quoted(s.source) << "\n";
}

} // namespace

std::string format_calibration(const Calibration& c, const std::vector<std::string>& header)
{
  std::ostringstream out;
  for (const auto& line : header)
    out << "# " << line << "\n";
  out << "format: colocsim-calibration/1\n"
      << "name: " << quoted(c.name) << "\n"
      << "device: " << quoted(c.device) << "\n"
      << "status: " << quoted(c.status) << "\n"
      << "created: " << quoted(c.created) << "\n\n"
      << "# P = idle + [context resident]·context + (f/f_max)^gamma·(vec·u_vec + xmx·u_xmx) + bw·u_bw  (per "
         "device)\n"
      << "power:\n";
  sourced(out, "  ", "idle", c.power.idle_w, "W");
  if (c.power.idle_fmax_w.value != c.power.idle_w.value)
    sourced(out, "  ", "idle_at_fmax", c.power.idle_fmax_w, "W");
  sourced(out, "  ", "context", c.power.context_w, "W");
  sourced(out, "  ", "vec", c.power.vec_w, "W");
  sourced(out, "  ", "xmx", c.power.xmx_w, "W");
  sourced(out, "  ", "bw", c.power.bw_w, "W");
  sourced(out, "  ", "gamma", c.power.gamma, "");
  out << "\n# time-slicing: factor = max(1, Σd, 1 + θ·d_j·Σ_{i≠j} d_i)·(1 + ε)\ntime_slice:\n";
  sourced(out, "  ", "collision", c.time_slice.collision, "");
  sourced(out, "  ", "switch_overhead", c.time_slice.switch_overhead, "");
  out << "\n";
  sourced(out, "", "node_baseline", c.node_baseline_w, "W");
  out << "\n# Row = class of the slowed job, column = class of its co-runner.\n"
      << "interference:\n"
      << "  tag: " << to_string(c.table_evidence) << "\n"
      << "  source: " << quoted(c.table_source) << "\n"
      << "  modes: [";
  for (std::size_t i = 0; i < c.table_modes.size(); ++i)
    out << (i ? ", " : "") << to_string(c.table_modes[i]);
  out << "]\n  classes: [";
  for (int i = 0; i < JOB_CLASS_COUNT; ++i)
    out << (i ? ", " : "") << to_string(static_cast<JobClass>(i));
  out << "]\n  table:\n";
  for (int r = 0; r < JOB_CLASS_COUNT; ++r) {
    const auto& row = c.table_entries[static_cast<std::size_t>(r)];
    bool bare = true;
    for (const auto& e : row)
      bare = bare && e.source.empty();
    const std::string row_name(to_string(static_cast<JobClass>(r)));
    if (bare) {
      out << "    - [";
      for (int k = 0; k < JOB_CLASS_COUNT; ++k)
        out << (k ? ", " : "") << number(c.table[static_cast<std::size_t>(r)][static_cast<std::size_t>(k)]);
      out << "]    # " << row_name << "\n";
      continue;
    }
    out << "    - # row " << row_name << "\n";
    for (int k = 0; k < JOB_CLASS_COUNT; ++k) {
      const auto& e = row[static_cast<std::size_t>(k)];
      const double v = c.table[static_cast<std::size_t>(r)][static_cast<std::size_t>(k)];
      out << "      - ";
      if (e.source.empty())
        out << number(v);
      else
        out << "{value: " << number(v) << ", tag: " << to_string(e.evidence)
            << ", source: " << quoted(e.source) << "}";
      out << "    # next to " << to_string(static_cast<JobClass>(k)) << "\n";
    }
  }
  return out.str();
}

} // namespace colocsim
