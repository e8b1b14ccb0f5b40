// `colocsim plot`: SVG figures people would rather look at than read (docs/architecture.md, Scenarios),
// drawn from the files a run or a sweep wrote — so they can be redrawn at any time without simulating again:
//   a run   (jobs.csv, timeseries.csv) → gantt.svg, power.svg, utilisation.svg (drawn by sim/PlotRun.cpp, in
//           a size bounded by their pixels: bars or a density view, exact steps or per-pixel envelopes);
//   a sweep (sweep.csv)               → sweep-<metric>.svg: the metric against the sweep's axes, mean over
//           seeds with the min–max range (sim/SweepChart.cpp).
// Plain SVG 1.1 text, no dependency; deterministic bytes for the same input files.
#include "cli/CliCommands.hpp"
#include "cli/PlotRun.hpp"

#include "base/Csv.hpp"
#include "base/Errors.hpp"
#include "base/Gzip.hpp"
#include "base/Units.hpp"
#include "cli/Svg.hpp"
#include "cli/SweepChart.hpp"
#include "workloads/CsvLines.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

namespace colocsim {

namespace {
namespace fs = std::filesystem;

const char* const PLOT_HELP = R"(usage: colocsim plot DIR [options]

Draws SVG figures from results colocsim wrote, without simulating again:
  DIR holds a run (jobs.csv, timeseries.csv)
    → DIR/gantt.svg        jobs on devices over time: a bar per job on each of its devices, jobs that share
                           a device stacked; with more than 2000 bars in the window, a density view (a heat
                           map of jobs per device, device × time, at pixel resolution)
    → DIR/power.svg        total, device and node power over time (kW/MW)
    → DIR/utilisation.svg  utilisation (busy devices ÷ devices, %; the device count from summary.json),
                           running and waiting jobs (queue length) over time
    Series with more steps than the figure has pixel columns (900) are drawn per pixel column: the min–max
    envelope of the steps (a step shorter than a column counts) and the exact mean, so a figure's size does
    not grow with the run.
  DIR holds a sweep (sweep.csv)
    → DIR/sweep-METRIC.svg METRIC against one axis of the sweep, a colour per value of another: a point at
                           the mean over seeds, a bar from min to max; in kWh, h, % ... (docs/formats/outputs.md)

options:
  -o, --output DIR     where to write the SVG files (default: DIR itself)
  --metrics A,B        sweep: the summary.json numbers to draw, one chart each (default makespan_s);
                       --metric NAME adds one
  --x AXIS             sweep: the axis along x (default: the first numeric axis other than the colour one)
  --colour AXIS        sweep: the axis in colour (default: policy if it is an axis, else the first axis
                       whose values are not numbers); --color is the same
  --colour C           run: the gantt bars' colour: job (default: a colour per job), profile, or slowdown
                       (a colour scale from 1 to the largest slowdown drawn, with its legend)
  --from T, --to T     run: the time window to draw, in seconds or with a unit (90s, 30min, 2h; default:
                       the whole run), on the trace's clock
  --devices A-B        gantt: devices A to B (or one device A; default: the first --max-devices)
  --max-devices N      gantt bars: without --devices, the first N devices (default 64)
  --view V             gantt: auto (default: bars up to 2000 bars, else density), bars or density
  --devices-per-node N gantt bars: devices N·k to N·k + N − 1 are node k's (the platform's devices per node:
                       cards_per_node × devices per card, e.g. 12 on aurora-node, 8 on dgx-a100): rows grouped
                       per node (a label nK, a band, a line between nodes), and a job on several nodes drawn
                       with a line through its bars
  --force              overwrite SVG files of an earlier plot
)";

/// A CSV file with a header, read whole (the files colocsim writes: one row per job / event / run).
struct Table {
  std::string file;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> lines;

  std::size_t column(const std::string& name) const
  {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    throw InputError(SourceLocation{file, 1}, name,
                     "missing column; expected a file written by colocsim with columns " + join(header));
  }
  double number(std::size_t row, std::size_t col) const
  {
    const auto& text = rows[row][col];
    const auto v = parse_double(text);
    if (!v)
      throw InputError(SourceLocation{file, lines[row]}, header[col], "not a number (got '" + text + "')");
    return *v;
  }
};

/// `dir`/`name`, or `dir`/`name`.gz when only the gzip-compressed file is there (outputs.compress).
fs::path result_file(const fs::path& dir, const std::string& name)
{
  std::error_code ec;
  if (!fs::exists(dir / name, ec) && fs::exists(dir / (name + ".gz"), ec)) return dir / (name + ".gz");
  return dir / name;
}

Table read_table(const fs::path& path)
{
  // A FIFO, a directory or a device is refused before it is opened (opening a FIFO waits for a writer).
  open_input_file(path.string(), "result file");
  GzipIfstream in(path.string()); // a plain file or a gzip-compressed one (jobs.csv.gz)
  if (!in.is_open()) throw InputError(SourceLocation{path.string()}, "", "cannot open for reading");
  Table t;
  t.file = path.string();
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    if (!split_csv_line(line, fields))
      throw InputError(SourceLocation{t.file, n}, "",
                       "unterminated quoted field; expected a closing '\"' on the same line");
    if (t.header.empty()) {
      t.header = std::move(fields);
      continue;
    }
    if (fields.size() != t.header.size())
      throw InputError(SourceLocation{t.file, n}, "",
                       "expected " + std::to_string(t.header.size()) + " fields as in the header (got " +
                           std::to_string(fields.size()) + ")");
    t.rows.push_back(std::move(fields));
    t.lines.push_back(n);
  }
  // A gzip stream cut short or corrupt ends the loop early: the rows read so far are not the file.
  if (in.bad() || !in.error().empty())
    throw InputError(SourceLocation{t.file}, "",
                     "gzip data cut short or corrupt after line " + std::to_string(n) +
                         " (zlib: " + (in.error().empty() ? std::string("read error") : in.error()) +
                         "); expected a complete gzip file (gzip -t checks one) or a plain CSV file");
  if (t.header.empty()) throw InputError(SourceLocation{t.file}, "", "empty file; expected a header row");
  return t;
}

using svg::colour;
using svg::num;
using svg::short_number;
using svg::tick_step;
using svg::xml;

struct Svg {
  std::ostringstream body;
  double width, height;
  Svg(double w, double h) : width(w), height(h) {}
  void text(double x, double y, const std::string& s, const char* anchor = "start", int size = 12,
            const char* extra = "")
  {
    body << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\"" << size << "\" text-anchor=\""
         << anchor << "\"" << extra << ">" << xml(s) << "</text>\n";
  }
  void line(double x1, double y1, double x2, double y2, const char* stroke = "#999", double w = 1)
  {
    body << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2) << "\" y2=\""
         << num(y2) << "\" stroke=\"" << stroke << "\" stroke-width=\"" << num(w) << "\"/>\n";
  }
  std::string str() const
  {
    std::ostringstream os;
    os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
       << num(width) << "\" height=\"" << num(height) << "\" viewBox=\"0 0 " << num(width) << " "
       << num(height)
       << "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
       << body.str() << "</svg>\n";
    return os.str();
  }
};

void write_file(const fs::path& path, const std::string& text, bool force, std::vector<fs::path>& written)
{
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status))
    throw InputError(SourceLocation{path.string()}, "",
                     "exists and is not a regular file (a directory, a FIFO, a device); expected an SVG "
                     "file or nothing there: remove it or pass -o DIR to write elsewhere");
  if (fs::exists(status) && !force)
    throw InputError(SourceLocation{path.string()}, "",
                     "exists (an earlier plot); pass --force to overwrite it or -o DIR to write elsewhere");
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw InputError(SourceLocation{path.string()}, "", "cannot write");
  written.push_back(path);
}

/// jobs.csv for the Gantt chart: columns by name, numbers checked (file:line: column: not a number).
std::vector<plot::JobRow> job_rows(const Table& jobs)
{
  const auto c_id = jobs.column("id"), c_start = jobs.column("start_s"), c_end = jobs.column("end_s"),
             c_status = jobs.column("status"), c_devices = jobs.column("devices"),
             c_profile = jobs.column("profile"), c_submit = jobs.column("submit_s"),
             c_attempts = jobs.column("attempts");
  std::optional<std::size_t> c_slowdown;
  if (std::find(jobs.header.begin(), jobs.header.end(), "slowdown") != jobs.header.end())
    c_slowdown = jobs.column("slowdown");
  std::vector<plot::JobRow> out;
  out.reserve(jobs.rows.size());
  for (std::size_t r = 0; r < jobs.rows.size(); ++r) {
    const auto& row = jobs.rows[r];
    plot::JobRow j;
    j.id = row[c_id];
    j.profile = row[c_profile];
    j.status = row[c_status];
    j.attempts = row[c_attempts];
    j.submit = jobs.number(r, c_submit);
    if (!row[c_start].empty() && !row[c_end].empty()) {
      j.start = jobs.number(r, c_start);
      j.end = jobs.number(r, c_end);
    }
    if (c_slowdown && !row[*c_slowdown].empty()) j.slowdown = jobs.number(r, *c_slowdown);
    std::stringstream ds(row[c_devices]);
    for (std::string d; std::getline(ds, d, ';');) {
      const auto v = parse_int(d);
      if (!v || *v < 0)
        throw InputError(SourceLocation{jobs.file, jobs.lines[r]}, "devices",
                         "expected device indices separated by ';' (got '" + row[c_devices] + "')");
      j.devices.push_back(static_cast<std::size_t>(*v));
    }
    out.push_back(std::move(j));
  }
  return out;
}

/// timeseries.csv by column (columns by name; others, as an interval mode may add, are left alone).
plot::Series series_of(const Table& series)
{
  const auto c_t = series.column("t_s"), c_dev = series.column("device_power_w"),
             c_node = series.column("node_power_w"), c_total = series.column("total_power_w"),
             c_busy = series.column("busy_devices"), c_run = series.column("running_jobs"),
             c_wait = series.column("waiting_jobs");
  plot::Series s;
  for (std::size_t r = 0; r < series.rows.size(); ++r) {
    s.t.push_back(series.number(r, c_t));
    if (r > 0 && s.t[r] < s.t[r - 1])
      throw InputError(SourceLocation{series.file, series.lines[r]}, "t_s",
                       "goes back in time (" + series.rows[r][c_t] + " after " + series.rows[r - 1][c_t] +
                           "); expected rows in time order");
    s.device_w.push_back(series.number(r, c_dev));
    s.node_w.push_back(series.number(r, c_node));
    s.total_w.push_back(series.number(r, c_total));
    s.busy.push_back(series.number(r, c_busy));
    s.running.push_back(series.number(r, c_run));
    s.waiting.push_back(series.number(r, c_wait));
  }
  return s;
}

/// The platform's device count for the utilisation figure: summary.json's `devices` next to the series.
/// Nothing when it is not there (a run directory without summary.json, or written before the field was):
/// the figure then shows busy devices as a count. (Deriving it from the series, as ∫busy dt ÷ (utilization ×
/// makespan), holds for every-event rows only: interval rows carry each interval's largest count.)
std::optional<double> device_count(const fs::path& summary)
{
  std::error_code ec;
  if (!fs::exists(summary, ec)) return std::nullopt;
  std::ifstream in = open_input_file(summary.string(), "summary file"); // refuses a FIFO or a directory
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str(), quoted = "\"devices\":";
  const auto p = json.find(quoted);
  if (p == std::string::npos) return std::nullopt;
  std::size_t b = p + quoted.size();
  while (b < json.size() && json[b] == ' ')
    ++b;
  std::size_t e = b;
  while (e < json.size() && json[e] != ',' && json[e] != '\n' && json[e] != '}')
    ++e;
  const auto devices = parse_double(json.substr(b, e - b));
  if (!devices || !(*devices >= 1)) return std::nullopt;
  return devices;
}

/// The command line of `colocsim plot`.
struct PlotArgs {
  std::optional<std::string> dir, output;
  std::vector<std::string> metrics;
  SweepChartOptions chart;
  std::optional<std::string> colour; ///< --colour: an axis of a sweep, or the gantt bars' colouring of a run
  plot::RunPlotOptions run;
  bool force = false, help = false;
  bool run_options = false; ///< --from, --to, --devices or --view (for a run only)
};

/// --from, --to: a time, in seconds or with a unit.
double time_option(const std::string& name, const std::string& v)
{
  const auto x = parse_quantity(v, Unit::SECONDS);
  if (!x || *x < 0)
    throw UsageError("option " + name + " expects a time, seconds or with a unit (90s, 30min, 2h) (got '" +
                     v + "')");
  return *x;
}

/// --metrics A,B,...: appended to `metrics`.
void add_metrics(const std::string& v, std::vector<std::string>& metrics)
{
  std::stringstream list(v);
  for (std::string m; std::getline(list, m, ',');)
    if (!m.empty()) metrics.push_back(m);
  if (v.empty() || v.back() == ',' || v.front() == ',' || v.find(",,") != std::string::npos)
    throw UsageError("option --metrics expects metric names separated by commas, e.g. "
                     "makespan_s,energy_total_j (got '" +
                     v + "')");
}

/// --max-devices N: 1..100000.
std::size_t max_devices_option(const std::string& v)
{
  const auto x = parse_int(v);
  if (!x || *x < 1 || *x > 100000)
    throw UsageError("option --max-devices expects a number of devices, 1..100000 (got '" + v + "')");
  return static_cast<std::size_t>(*x);
}

/// --devices-per-node N: 1..100000.
std::size_t devices_per_node_option(const std::string& v)
{
  const auto x = parse_int(v);
  if (!x || *x < 1 || *x > 100000)
    throw UsageError("option --devices-per-node expects a number of devices, 1..100000 (got '" + v + "')");
  return static_cast<std::size_t>(*x);
}

/// --devices A-B, or one device A.
std::pair<std::size_t, std::size_t> devices_option(const std::string& v)
{
  const auto dash = v.find('-');
  const auto lo = parse_int(v.substr(0, dash));
  const auto hi = dash == std::string::npos ? lo : parse_int(v.substr(dash + 1));
  if (!lo || !hi || *lo < 0 || *hi < *lo)
    throw UsageError("option --devices expects a device range A-B with 0 <= A <= B, or one device A (got '" +
                     v + "')");
  return {static_cast<std::size_t>(*lo), static_cast<std::size_t>(*hi)};
}

/// --view auto|bars|density.
plot::GanttView view_option(const std::string& v)
{
  if (v == "auto") return plot::GanttView::AUTOMATIC;
  if (v == "bars") return plot::GanttView::BARS;
  if (v == "density") return plot::GanttView::DENSITY;
  throw UsageError("option --view expects auto, bars or density (got '" + v + "')");
}

/// Reads the command line (UsageError for a bad option or value); `help` set if it asks for it.
PlotArgs parse_plot_args(const std::vector<std::string>& args)
{
  PlotArgs p;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--help" || a == "-h") {
      p.help = true;
      return p;
    }
    if (a == "-o" || a == "--output")
      p.output = next_arg(args, i);
    else if (a == "--metric")
      p.metrics.push_back(next_arg(args, i));
    else if (a == "--metrics")
      add_metrics(next_arg(args, i), p.metrics);
    else if (a == "--x")
      p.chart.x = next_arg(args, i);
    else if (a == "--colour" || a == "--color")
      p.colour = next_arg(args, i);
    else if (a == "--max-devices")
      p.run.max_devices = max_devices_option(next_arg(args, i));
    else if (a == "--from" || a == "--to") {
      (a == "--from" ? p.run.from : p.run.to) = time_option(a, next_arg(args, i));
      p.run_options = true;
    } else if (a == "--devices") {
      p.run.devices = devices_option(next_arg(args, i));
      p.run_options = true;
    } else if (a == "--devices-per-node") {
      p.run.devices_per_node = devices_per_node_option(next_arg(args, i));
      p.run_options = true;
    } else if (a == "--view") {
      p.run.view = view_option(next_arg(args, i));
      p.run_options = true;
    } else if (a == "--force")
      p.force = true;
    else if (!a.empty() && a[0] == '-')
      throw UsageError("unknown option '" + a + "' (see colocsim plot --help)");
    else if (p.dir)
      throw UsageError("more than one directory given ('" + *p.dir + "' and '" + a + "')");
    else
      p.dir = a;
  }
  if (!p.dir) throw UsageError("plot needs a run or sweep directory (see colocsim plot --help)");
  return p;
}

/// --colour names an axis of a sweep, or how a run's gantt bars are coloured.
void apply_colour(PlotArgs& p, bool is_sweep)
{
  if (!p.colour) return;
  const std::string& colour = *p.colour;
  if (is_sweep)
    p.chart.colour = colour;
  else if (colour == "job")
    p.run.colour = plot::GanttColour::JOB;
  else if (colour == "profile")
    p.run.colour = plot::GanttColour::PROFILE;
  else if (colour == "slowdown")
    p.run.colour = plot::GanttColour::SLOWDOWN;
  else
    throw UsageError("option --colour expects job, profile or slowdown (got '" + colour +
                     "'); for a sweep directory, one of its axes");
}

/// A sweep's charts, one per metric (makespan_s if none), every one drawn (and every option checked) before
/// any is written.
void plot_sweep(const fs::path& in, const fs::path& to, PlotArgs& p, std::vector<fs::path>& written)
{
  Table table = read_table(in / "sweep.csv");
  const SweepTable sweep{table.file, std::move(table.header), std::move(table.rows), std::move(table.lines)};
  if (p.metrics.empty()) p.metrics.push_back("makespan_s");
  std::vector<std::string> charts;
  for (const auto& m : p.metrics)
    charts.push_back(sweep_chart(sweep, m, p.chart));
  for (std::size_t k = 0; k < p.metrics.size(); ++k)
    write_file(to / ("sweep-" + p.metrics[k] + ".svg"), charts[k], p.force, written);
}

/// A run's figures: gantt.svg from jobs.csv, power.svg and utilisation.svg from timeseries.csv. Every figure
/// is drawn before any is written, so that a bad option or file writes none of them.
void plot_run(const fs::path& in, const fs::path& to, const PlotArgs& p, std::vector<fs::path>& written)
{
  std::error_code ec;
  const fs::path jobs_file = result_file(in, "jobs.csv"), series_file = result_file(in, "timeseries.csv");
  std::vector<std::pair<fs::path, std::string>> figures;
  if (fs::exists(jobs_file, ec))
    figures.emplace_back(to / "gantt.svg", plot::gantt_svg(job_rows(read_table(jobs_file)), p.run));
  if (fs::exists(series_file, ec)) {
    const auto series = series_of(read_table(series_file));
    figures.emplace_back(to / "power.svg", plot::power_svg(series, p.run));
    figures.emplace_back(to / "utilisation.svg",
                         plot::utilisation_svg(series, device_count(in / "summary.json"), p.run));
  }
  for (const auto& [path, text] : figures)
    write_file(path, text, p.force, written);
}

} // namespace

int cmd_plot(const std::vector<std::string>& args, std::ostream& out)
{
  PlotArgs p = parse_plot_args(args);
  if (p.help) {
    out << PLOT_HELP;
    return 0;
  }
  const fs::path in(*p.dir), to(p.output.value_or(*p.dir));
  std::error_code ec;
  if (!fs::is_directory(in, ec))
    throw InputError(SourceLocation{in.string()}, "",
                     "not a directory; expected a run's or a sweep's output directory");
  const bool is_sweep = fs::exists(in / "sweep.csv", ec);
  const bool is_run =
      fs::exists(result_file(in, "jobs.csv"), ec) || fs::exists(result_file(in, "timeseries.csv"), ec);
  if (!is_sweep && !is_run)
    throw InputError(
        SourceLocation{in.string()}, "",
        "holds no results to plot; expected jobs.csv and/or timeseries.csv (a run) or sweep.csv (a sweep)");
  if ((!p.metrics.empty() || !p.chart.x.empty()) && !is_sweep)
    throw UsageError("--metrics and --x are for sweep directories (sweep.csv)");
  if (p.run_options && !is_run)
    throw UsageError("--from, --to, --devices, --devices-per-node and --view are for run directories "
                     "(jobs.csv, timeseries.csv)");
  apply_colour(p, is_sweep);
  if (p.run.from && p.run.to && !(*p.run.from < *p.run.to))
    throw UsageError("--from " + num(*p.run.from, 3) + " s must be before --to " + num(*p.run.to, 3) + " s");
  fs::create_directories(to, ec);
  std::vector<fs::path> written;
  if (is_sweep) plot_sweep(in, to, p, written);
  plot_run(in, to, p, written);
  for (const auto& w : written)
    out << "wrote " << w.string() << "\n";
  return 0;
}

} // namespace colocsim
