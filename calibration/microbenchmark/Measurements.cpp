#include "calibration/microbenchmark/Measurements.hpp"

#include "base/Csv.hpp"
#include "base/Errors.hpp"
#include "base/Units.hpp"
#include "calibration/microbenchmark/Kernels.hpp"
#include "calibration/microbenchmark/Plan.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <istream>
#include <map>
#include <ostream>
#include <variant>

namespace colocsim {

namespace {

using Member = std::variant<int MeasurementRow::*, long long MeasurementRow::*, double MeasurementRow::*,
                            std::string MeasurementRow::*>;

struct Column {
  MeasurementColumn doc;
  Member member;
};

const std::vector<Column>& columns()
{
  using R = MeasurementRow;
  static const std::vector<Column> cols{
      {{"run_id", "integer", "run number, 1-based; all rows of one run share it"}, &R::run_id},
      {{"repetition", "integer", "repetition of the whole plan, 0-based"}, &R::repetition},
      {{"set", "text", "`fit` (used by `calibrate fit`) or `check` (held out for `calibrate check`)"},
       &R::set},
      {{"kind", "text",
        "`idle` (no context), `idle-context` (context open, nothing launched), `solo`, `corun`"},
       &R::kind},
      {{"date", "text", "run start, UTC, ISO 8601"}, &R::date},
      {{"host", "text", "host name"}, &R::host},
      {{"backend", "text", "`level-zero` or `opencl`"}, &R::backend},
      {{"device", "text", "device name reported by the backend"}, &R::device},
      {{"mode", "text",
        "sharing mode: `time-slice` (OpenCL: processes share the device), `ccs1`, `ccs2`, `ccs4`"},
       &R::mode},
      {{"n_procs", "integer", "processes in the run (0 for idle)"}, &R::n_procs},
      {{"rank", "integer", "this process, 0 .. n_procs-1; empty for idle rows"}, &R::rank},
      {{"kernel", "text", "kernel name (calibration/microbenchmark/kernels/); empty for idle rows"},
       &R::kernel},
      {{"n", "integer", "kernel size knob n (work-items or elements)"}, &R::n},
      {{"k", "integer", "kernel knob k (FMA rounds, passes, chase steps, FMAs per element)"}, &R::k},
      {{"m", "integer", "kernel knob m (pointer_chase cycle length), else 0"}, &R::m},
      {{"duty", "number", "requested duty cycle in (0, 1]"}, &R::duty},
      {{"sleep_s", "number", "host sleep after each launch, seconds"}, &R::sleep_s},
      {{"co_runners", "text", "the other processes of the run, `kernel@duty` separated by `;`"},
       &R::co_runners},
      {{"freq_set_mhz", "number", "pinned frequency, MHz; empty = device default"}, &R::freq_set_mhz},
      {{"freq_actual_mhz", "number", "frequency read during the window, MHz; empty = not readable"},
       &R::freq_actual_mhz},
      {{"reps", "integer", "launches completed inside the window"}, &R::reps},
      {{"t_global_s", "number", "median device time per launch, s (global/event timestamps)"},
       &R::t_global_s},
      {{"t_context_s", "number", "median device time while this context ran, s (Level Zero only)"},
       &R::t_context_s},
      {{"t_host_s", "number", "median host time from launch to completion, s"}, &R::t_host_s},
      {{"t_iter_s", "number",
        "host time per iteration (launch, wait, sleep): the median over the sub-windows of their mean, i.e. "
        "of their inverse throughput, s"},
       &R::t_iter_s},
      {{"t_iter_cv", "number", "coefficient of variation of the iteration times"}, &R::t_iter_cv},
      {{"samples", "integer",
        "sub-windows of the window with a finished launch; t_iter_s is the median of their mean iteration "
        "times "
        "(optional: older files lack it)",
        true},
       &R::samples},
      {{"t_iter_lo_s", "number", "smallest sub-window mean of the iteration times, s (optional)", true},
       &R::t_iter_lo_s},
      {{"t_iter_hi_s", "number", "largest sub-window mean of the iteration times, s (optional)", true},
       &R::t_iter_hi_s},
      {{"cpu_util", "number",
        "CPU time (user + system, all threads) of the worker process in the window / the window, in cores "
        "(optional)",
        true},
       &R::cpu_util},
      {{"duty_measured", "number", "t_global_s / t_iter_s"}, &R::duty_measured},
      {{"flops", "number", "floating-point operations per launch"}, &R::flops},
      {{"bytes", "number", "bytes read and written per launch"}, &R::bytes},
      {{"window_s", "number", "length of the measurement window, s"}, &R::window_s},
      {{"energy_j", "number", "device energy over the window (all processes), J; empty = unavailable"},
       &R::energy_j},
      {{"power_w", "number", "energy_j / window_s, W"}, &R::power_w},
      {{"energy_source", "text",
        "counter used, e.g. `zes:tile0`, `zes:card`, `rapl:package-0`; empty = none"},
       &R::energy_source},
      {{"notes", "text", "facts about the run, `;`-separated (e.g. `program=source`)"}, &R::notes},
  };
  return cols;
}

std::string format_double(double v)
{
  if (std::isnan(v)) return {};
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

} // namespace

const std::vector<MeasurementColumn>& measurement_columns()
{
  static const std::vector<MeasurementColumn> docs = [] {
    std::vector<MeasurementColumn> d;
    for (const auto& c : columns())
      d.push_back(c.doc);
    return d;
  }();
  return docs;
}

void write_measurement_header(std::ostream& out)
{
  const auto& cols = columns();
  for (std::size_t i = 0; i < cols.size(); ++i)
    out << (i ? "," : "") << cols[i].doc.name;
  out << "\n";
}

void write_measurement_row(std::ostream& out, const MeasurementRow& row)
{
  const auto& cols = columns();
  for (std::size_t i = 0; i < cols.size(); ++i) {
    if (i) out << ',';
    std::visit(
        [&](auto member) {
          using T = std::decay_t<decltype(row.*member)>;
          if constexpr (std::is_same_v<T, std::string>)
            out << csv_field(row.*member);
          else if constexpr (std::is_same_v<T, double>)
            out << format_double(row.*member);
          else if (!(cols[i].doc.name == "rank" && row.*member < 0))
            out << row.*member;
        },
        cols[i].member);
  }
  out << "\n";
}

std::vector<MeasurementRow> read_measurements(std::istream& in, const std::string& file)
{
  const auto& cols = columns();
  DiagnosticSink sink;
  std::vector<MeasurementRow> rows;
  std::vector<int> column_of; // header position → index into cols (-1 unknown)
  std::vector<std::string> fields;
  std::string line;
  int line_no = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const SourceLocation where{file, line_no, 0};
    if (!split_csv_line(line, fields)) {
      sink.add(where, "", "unterminated quoted field");
      continue;
    }
    if (!header) {
      header = true;
      std::vector<bool> seen(cols.size(), false);
      std::vector<std::string> valid;
      for (const auto& c : cols)
        valid.push_back(c.doc.name);
      for (const auto& f : fields) {
        int idx = -1;
        for (std::size_t c = 0; c < cols.size(); ++c)
          if (cols[c].doc.name == f) idx = static_cast<int>(c);
        if (idx < 0)
          sink.add(where, f, "unknown column; valid: " + join(valid));
        else if (seen[static_cast<std::size_t>(idx)])
          sink.add(where, f, "column given twice");
        else
          seen[static_cast<std::size_t>(idx)] = true;
        column_of.push_back(idx);
      }
      for (std::size_t c = 0; c < cols.size(); ++c)
        if (!seen[c] && !cols[c].doc.optional)
          sink.add(where, cols[c].doc.name, "missing column (docs/formats/measurements.md)");
      if (!sink.empty()) sink.throw_if_any();
      continue;
    }
    if (fields.size() != column_of.size()) {
      sink.add(where, "",
               "wrong number of fields (got " + std::to_string(fields.size()) + "); expected " +
                   std::to_string(column_of.size()) + ", one per header column");
      continue;
    }
    MeasurementRow row;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const auto& col = cols[static_cast<std::size_t>(column_of[i])];
      const std::string& text = fields[i];
      std::visit(
          [&](auto member) {
            using T = std::decay_t<decltype(row.*member)>;
            if constexpr (std::is_same_v<T, std::string>) {
              row.*member = text;
            } else if constexpr (std::is_same_v<T, double>) {
              if (text.empty()) {
                row.*member = MeasurementRow::UNAVAILABLE;
              } else if (auto v = parse_double(text)) {
                row.*member = *v;
              } else {
                sink.add(where, col.doc.name,
                         "not a number (got '" + text + "'); expected a number or empty");
              }
            } else {
              if (text.empty()) {
                row.*member = col.doc.name == "rank" ? -1 : 0;
              } else if (auto v = parse_int(text)) {
                row.*member = static_cast<T>(*v);
              } else {
                sink.add(where, col.doc.name, "not an integer (got '" + text + "')");
              }
            }
          },
          col.member);
    }
    if (row.set != "fit" && row.set != "check")
      sink.add(where, "set", "unknown set '" + row.set + "'; valid: fit, check");
    const auto kind = parse_run_kind(row.kind);
    if (!kind)
      sink.add(where, "kind", "unknown kind '" + row.kind + "'; valid: idle, idle-context, solo, corun");
    if (kind && (*kind == RunKind::SOLO || *kind == RunKind::CORUN)) {
      if (auto problem = check_kernel_config(KernelConfig{row.kernel, row.n, row.k, row.m}); !problem.empty())
        sink.add(where, "kernel", problem);
      if (!(row.duty > 0 && row.duty <= 1))
        sink.add(where, "duty",
                 "duty cycle out of range (got '" + format_double(row.duty) + "'); expected (0, 1]");
      if (row.rank < 0 || row.rank >= row.n_procs)
        sink.add(where, "rank",
                 "rank " + std::to_string(row.rank) + " outside 0.." + std::to_string(row.n_procs - 1));
    }
    rows.push_back(std::move(row));
  }
  if (!header) sink.add(SourceLocation{file, 0, 0}, "", "no header line (empty file?)");
  sink.throw_if_any();
  return rows;
}

std::vector<MeasurementRow> read_measurements_file(const std::string& path)
{
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "", "cannot open measurements file");
  return read_measurements(in, path);
}

} // namespace colocsim
