// `colocsim plot DIR`: SVG figures people would rather look at than read (docs/architecture.md, Scenarios),
// drawn from the files a run or a sweep wrote — so they can be redrawn at any time without simulating again:
//   a run   (jobs.csv, timeseries.csv) → gantt.svg: one row per device, one bar per job, co-located jobs
//           stacked in lanes; power.svg: device, node and total power, running and waiting jobs over time;
//   a sweep (sweep.csv)               → sweep-<metric>.svg: the metric per combination of axis values (mean
//           over seeds, with the min–max range).
// Plain SVG 1.1 text, no dependency; deterministic bytes for the same input files.
#include "sim/cli/CliCommands.hpp"

#include "models/Csv.hpp"
#include "models/Errors.hpp"
#include "models/Units.hpp"

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
  DIR holds a run (jobs.csv, timeseries.csv)   → DIR/gantt.svg   one row per device, a bar per job, jobs that
                                                                 share a device stacked; colour = profile
                                               → DIR/power.svg   device, node and total power; running and
                                                                 waiting jobs over time
  DIR holds a sweep (sweep.csv)                → DIR/sweep-METRIC.svg  METRIC per combination of the axes
                                                                 (mean over seeds, bar = min..max)

options:
  -o, --output DIR     where to write the SVG files (default: DIR itself)
  --metric NAME        sweep: the summary.json number to draw (default makespan_s; repeatable)
  --max-devices N      gantt: draw the first N devices only (default 64; the title says how many were left out)
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

Table read_table(const fs::path& path)
{
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path.string()}, "", "cannot open for reading");
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
  if (t.header.empty()) throw InputError(SourceLocation{t.file}, "", "empty file; expected a header row");
  return t;
}

std::string xml(const std::string& s)
{
  std::string out;
  for (char c : s) {
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
      out += c;
    }
  }
  return out;
}

std::string num(double v, int precision = 2)
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

/// A value with few digits and a unit prefix for axis labels: 12,500 → "12.5k".
std::string short_number(double v)
{
  const double a = std::fabs(v);
  if (a >= 1e9) return num(v / 1e9, 2) + "G";
  if (a >= 1e6) return num(v / 1e6, 2) + "M";
  if (a >= 1e4) return num(v / 1e3, 1) + "k";
  return num(v, a >= 100 ? 0 : 2);
}

/// Round tick step for a range: 1, 2 or 5 × 10^k giving about `target` ticks.
double tick_step(double range, int target = 8)
{
  if (!(range > 0)) return 1;
  const double raw = range / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

/// Colour-blind-safe palette (Okabe–Ito), then a few more distinct hues; cycles beyond.
const char* colour(std::size_t i)
{
  static const char* const palette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
                                        "#F0E442", "#000000", "#8C564B", "#7F7F7F", "#BCBD22", "#17BECF"};
  return palette[i % (sizeof palette / sizeof palette[0])];
}

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

/// Time axis in seconds, labelled in s or h; draws ticks and vertical grid lines from y0 to y1.
struct TimeAxis {
  double t0, t1, x0, x1;
  double x(double t) const { return x0 + (t - t0) / (t1 - t0) * (x1 - x0); }
  void draw(Svg& svg, double y0, double y1) const
  {
    const bool hours = t1 - t0 >= 4 * 3600;
    const double unit = hours ? 3600 : 1;
    const double step = tick_step((t1 - t0) / unit) * unit;
    for (double t = std::ceil(t0 / step) * step; t <= t1 + 1e-9 * step; t += step) {
      svg.line(x(t), y0, x(t), y1, "#e0e0e0");
      svg.text(x(t), y1 + 14, short_number(t / unit), "middle", 11);
    }
    svg.text((x0 + x1) / 2, y1 + 30, hours ? "time (h)" : "time (s)", "middle", 12);
  }
};

void write_file(const fs::path& path, const std::string& text, bool force, std::vector<fs::path>& written)
{
  std::error_code ec;
  if (fs::exists(path, ec) && !force)
    throw InputError(SourceLocation{path.string()}, "",
                     "exists (an earlier plot); pass --force to overwrite it or -o DIR to write elsewhere");
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw InputError(SourceLocation{path.string()}, "", "cannot write");
  written.push_back(path);
}

std::string gantt(const Table& jobs, std::size_t max_devices)
{
  const auto c_id = jobs.column("id"), c_start = jobs.column("start_s"), c_end = jobs.column("end_s"),
             c_status = jobs.column("status"), c_devices = jobs.column("devices"),
             c_profile = jobs.column("profile"), c_submit = jobs.column("submit_s"),
             c_attempts = jobs.column("attempts");
  struct Bar {
    std::size_t row;
    double start, end;
  };
  std::vector<Bar> bars;
  std::map<std::string, std::size_t> profiles; // name → colour index, in name order
  std::size_t devices = 0;
  double t0 = std::numeric_limits<double>::infinity(), t1 = -t0;
  for (std::size_t r = 0; r < jobs.rows.size(); ++r) {
    t0 = std::min(t0, jobs.number(r, c_submit));
    if (jobs.rows[r][c_start].empty() || jobs.rows[r][c_end].empty()) continue; // never started
    profiles.emplace(jobs.rows[r][c_profile], 0);
    bars.push_back({r, jobs.number(r, c_start), jobs.number(r, c_end)});
    t1 = std::max(t1, bars.back().end);
    std::stringstream ds(jobs.rows[r][c_devices]);
    for (std::string d; std::getline(ds, d, ';');)
      if (const auto v = parse_int(d)) devices = std::max(devices, static_cast<std::size_t>(*v) + 1);
  }
  std::size_t next_colour = 0;
  for (auto& [name, c] : profiles)
    c = next_colour++;
  if (bars.empty()) t0 = 0, t1 = 1;
  if (!(t1 > t0)) t1 = t0 + 1;
  const std::size_t shown = std::min(devices, max_devices);

  // Lanes: on each device, a job takes the lowest lane free at its start (interval partitioning).
  struct Placed {
    std::size_t bar, device, lane;
  };
  std::vector<Placed> placed;
  std::vector<std::size_t> lanes(shown, 1);
  {
    std::vector<std::vector<std::pair<double, double>>> busy(
        shown); // per device: (start, end) per lane's last
    std::vector<std::size_t> order(bars.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](auto a, auto b) { return bars[a].start < bars[b].start; });
    for (auto i : order) {
      std::stringstream ds(jobs.rows[bars[i].row][c_devices]);
      for (std::string d; std::getline(ds, d, ';');) {
        const auto v = parse_int(d);
        if (!v || static_cast<std::size_t>(*v) >= shown) continue;
        auto& lane_end = busy[static_cast<std::size_t>(*v)];
        std::size_t lane = 0;
        while (lane < lane_end.size() && lane_end[lane].second > bars[i].start + 1e-9)
          ++lane;
        if (lane == lane_end.size()) lane_end.emplace_back();
        lane_end[lane] = {bars[i].start, bars[i].end};
        placed.push_back({i, static_cast<std::size_t>(*v), lane});
      }
    }
    for (std::size_t d = 0; d < shown; ++d)
      lanes[d] = std::max<std::size_t>(1, busy[d].size());
  }

  const double row_h = 22, left = 60, right = 220, top = 40, plot_w = 900;
  std::vector<double> row_y(shown + 1, top);
  for (std::size_t d = 0; d < shown; ++d)
    row_y[d + 1] = row_y[d] + row_h * static_cast<double>(std::min<std::size_t>(lanes[d], 4));
  const double bottom = row_y[shown];
  Svg svg(left + plot_w + right, bottom + 50);
  const TimeAxis axis{t0, t1, left, left + plot_w};
  std::string title = "Jobs on devices (" + std::to_string(bars.size()) + " jobs started";
  if (shown < devices)
    title += "; first " + std::to_string(shown) + " of " + std::to_string(devices) + " devices";
  svg.text(left, 22, title + ")", "start", 14, " font-weight=\"bold\"");
  axis.draw(svg, top, bottom);
  for (std::size_t d = 0; d < shown; ++d) {
    svg.line(left, row_y[d], left + plot_w, row_y[d], "#cccccc");
    svg.text(left - 6, (row_y[d] + row_y[d + 1]) / 2 + 4, "d" + std::to_string(d), "end", 11);
  }
  svg.line(left, bottom, left + plot_w, bottom, "#666");
  for (const auto& p : placed) {
    const auto& b = bars[p.bar];
    const auto& row = jobs.rows[b.row];
    const double lane_h = (row_y[p.device + 1] - row_y[p.device]) / static_cast<double>(lanes[p.device]);
    const double y = row_y[p.device] + lane_h * static_cast<double>(p.lane);
    const double x = axis.x(b.start), w = std::max(0.5, axis.x(b.end) - x);
    const bool failed = row[c_status] != "completed";
    svg.body << "<rect x=\"" << num(x) << "\" y=\"" << num(y + 1) << "\" width=\"" << num(w) << "\" height=\""
             << num(std::max(1.0, lane_h - 2)) << "\" fill=\"" << colour(profiles[row[c_profile]]) << "\""
             << (failed ? " fill-opacity=\"0.35\" stroke=\"#c00\"" : "")
             << (row[c_attempts] != "1" && row[c_attempts] != "0"
                     ? " stroke-dasharray=\"3,2\" stroke=\"#000\""
                     : "")
             << "><title>"
             << xml(row[c_id] + " (" + row[c_profile] + "): " + num(b.start, 1) + "–" + num(b.end, 1) +
                    " s, " + row[c_status] + ", attempts " + row[c_attempts])
             << "</title></rect>\n";
  }
  double ly = top;
  svg.text(left + plot_w + 16, ly, "profile", "start", 12, " font-weight=\"bold\"");
  for (const auto& [name, c] : profiles) {
    ly += 18;
    svg.body << "<rect x=\"" << num(left + plot_w + 16) << "\" y=\"" << num(ly - 10)
             << "\" width=\"12\" height=\"12\" fill=\"" << colour(c) << "\"/>\n";
    svg.text(left + plot_w + 34, ly, name.empty() ? "(none)" : name, "start", 11);
  }
  ly += 24;
  svg.text(left + plot_w + 16, ly, "pale, red edge: failed", "start", 10);
  svg.text(left + plot_w + 16, ly + 14, "dashed edge: retried after OOM", "start", 10);
  svg.text(left + plot_w + 16, ly + 28, "(bar: first start to end,", "start", 10);
  svg.text(left + plot_w + 16, ly + 42, " on the last attempt's devices)", "start", 10);
  return svg.str();
}

std::string power(const Table& series)
{
  const auto c_t = series.column("t_s"), c_dev = series.column("device_power_w"),
             c_node = series.column("node_power_w"), c_total = series.column("total_power_w"),
             c_run = series.column("running_jobs"), c_wait = series.column("waiting_jobs");
  const std::size_t n = series.rows.size();
  double t0 = 0, t1 = 1, pmax = 1, jmax = 1;
  if (n > 0) {
    t0 = series.number(0, c_t);
    t1 = std::max(t0 + 1, series.number(n - 1, c_t));
  }
  for (std::size_t r = 0; r < n; ++r) {
    pmax = std::max(pmax, series.number(r, c_total));
    jmax = std::max({jmax, series.number(r, c_run), series.number(r, c_wait)});
  }
  const double left = 70, right = 170, plot_w = 900, top1 = 40, h1 = 260, gap = 60, h2 = 140;
  const double top2 = top1 + h1 + gap;
  Svg svg(left + plot_w + right, top2 + h2 + 50);
  const TimeAxis axis{t0, t1, left, left + plot_w};
  svg.text(left, 22, "Power and jobs over time (piecewise constant between events)", "start", 14,
           " font-weight=\"bold\"");
  auto panel = [&](double top, double h, double ymax, const std::string& label) {
    const double step = tick_step(ymax, 5);
    for (double v = 0; v <= ymax * 1.0001; v += step) {
      const double y = top + h - v / ymax * h;
      svg.line(left, y, left + plot_w, y, "#eeeeee");
      svg.text(left - 6, y + 4, short_number(v), "end", 11);
    }
    svg.line(left, top + h, left + plot_w, top + h, "#666");
    svg.text(18, top + h / 2, label, "middle", 12,
             (" transform=\"rotate(-90 18 " + num(top + h / 2) + ")\"").c_str());
  };
  pmax *= 1.05;
  jmax = std::ceil(jmax * 1.05);
  panel(top1, h1, pmax, "power (W)");
  panel(top2, h2, jmax, "jobs");
  axis.draw(svg, top1, top1 + h1);
  axis.draw(svg, top2, top2 + h2);
  auto step_path = [&](std::size_t col, double top, double h, double ymax, const char* stroke) {
    if (n == 0) return;
    std::ostringstream d;
    for (std::size_t r = 0; r < n; ++r) {
      const double x = axis.x(series.number(r, c_t));
      const double y = top + h - series.number(r, col) / ymax * h;
      if (r == 0)
        d << "M" << num(x) << "," << num(y);
      else
        d << " H" << num(x) << " V" << num(y);
    }
    d << " H" << num(axis.x(t1));
    svg.body << "<path d=\"" << d.str() << "\" fill=\"none\" stroke=\"" << stroke
             << "\" stroke-width=\"1.5\"/>\n";
  };
  step_path(c_total, top1, h1, pmax, colour(0));
  step_path(c_dev, top1, h1, pmax, colour(1));
  step_path(c_node, top1, h1, pmax, colour(2));
  step_path(c_run, top2, h2, jmax, colour(3));
  step_path(c_wait, top2, h2, jmax, colour(4));
  auto legend = [&](double y, std::size_t c, const std::string& s) {
    svg.line(left + plot_w + 14, y - 4, left + plot_w + 34, y - 4, colour(c), 2);
    svg.text(left + plot_w + 40, y, s, "start", 11);
  };
  legend(top1 + 10, 0, "total");
  legend(top1 + 28, 1, "devices");
  legend(top1 + 46, 2, "node baseline");
  legend(top2 + 10, 3, "running");
  legend(top2 + 28, 4, "waiting");
  return svg.str();
}

std::string sweep_chart(const Table& sweep, const std::string& metric)
{
  const auto c_run = sweep.column("run"), c_status = sweep.column("status"), c_seed = sweep.column("seed");
  const auto c_metric = sweep.column(metric);
  // Axis columns: between `status` and `seed`.
  std::vector<std::size_t> axes;
  for (std::size_t c = c_status + 1; c < c_seed; ++c)
    axes.push_back(c);
  struct Group {
    std::string label;
    std::vector<double> values;
    std::size_t failed = 0;
  };
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  for (std::size_t r = 0; r < sweep.rows.size(); ++r) {
    std::string label;
    for (auto c : axes)
      label += (label.empty() ? "" : ", ") + sweep.rows[r][c];
    if (label.empty()) label = sweep.rows[r][c_run];
    auto [it, fresh] = index.emplace(label, groups.size());
    if (fresh) groups.push_back({label, {}, 0});
    auto& g = groups[it->second];
    if (sweep.rows[r][c_status] != "ok" || sweep.rows[r][c_metric].empty())
      ++g.failed;
    else
      g.values.push_back(sweep.number(r, c_metric));
  }
  double vmax = 0;
  for (const auto& g : groups)
    for (double v : g.values)
      vmax = std::max(vmax, v);
  if (!(vmax > 0)) vmax = 1;
  vmax *= 1.05;
  std::size_t label_chars = 10;
  for (const auto& g : groups)
    label_chars = std::max(label_chars, g.label.size());
  const double left = std::min(420.0, 20 + 6.5 * static_cast<double>(label_chars)), plot_w = 640, bar_h = 18,
               top = 50;
  const double bottom = top + bar_h * 1.4 * static_cast<double>(groups.size());
  Svg svg(left + plot_w + 120, bottom + 50);
  std::string axis_names;
  for (auto c : axes)
    axis_names += (axis_names.empty() ? "" : ", ") + sweep.header[c];
  svg.text(left, 22, metric + " per " + (axis_names.empty() ? std::string("run") : axis_names), "start", 14,
           " font-weight=\"bold\"");
  svg.text(left, 38, "bar: mean over seeds; whisker: min–max", "start", 11);
  const double step = tick_step(vmax, 6);
  for (double v = 0; v <= vmax; v += step) {
    const double x = left + v / vmax * plot_w;
    svg.line(x, top, x, bottom, "#eeeeee");
    svg.text(x, bottom + 14, short_number(v), "middle", 11);
  }
  svg.text(left + plot_w / 2, bottom + 32, metric, "middle", 12);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto& g = groups[i];
    const double y = top + bar_h * 1.4 * static_cast<double>(i) + bar_h * 0.2;
    svg.text(left - 8, y + bar_h * 0.75, g.label, "end", 11);
    if (g.values.empty()) {
      svg.text(left + 4, y + bar_h * 0.75, "failed", "start", 11, " fill=\"#c00\"");
      continue;
    }
    double mean = 0, lo = g.values.front(), hi = lo;
    for (double v : g.values) {
      mean += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    mean /= static_cast<double>(g.values.size());
    svg.body << "<rect x=\"" << num(left) << "\" y=\"" << num(y) << "\" width=\"" << num(mean / vmax * plot_w)
             << "\" height=\"" << num(bar_h) << "\" fill=\"" << colour(0) << "\"><title>" << xml(g.label)
             << ": " << xml(num(mean, 4)) << " (" << g.values.size() << " run(s)"
             << (g.failed ? ", " + std::to_string(g.failed) + " failed" : "") << ")</title></rect>\n";
    if (hi > lo) {
      const double ym = y + bar_h / 2;
      svg.line(left + lo / vmax * plot_w, ym, left + hi / vmax * plot_w, ym, "#000", 1.2);
      svg.line(left + lo / vmax * plot_w, ym - 4, left + lo / vmax * plot_w, ym + 4, "#000", 1.2);
      svg.line(left + hi / vmax * plot_w, ym - 4, left + hi / vmax * plot_w, ym + 4, "#000", 1.2);
    }
    svg.text(left + mean / vmax * plot_w + 6, y + bar_h * 0.75, short_number(mean) + (g.failed ? " (!)" : ""),
             "start", 11);
  }
  return svg.str();
}

} // namespace

int cmd_plot(const std::vector<std::string>& args, std::ostream& out)
{
  std::optional<std::string> dir, output;
  std::vector<std::string> metrics;
  std::size_t max_devices = 64;
  bool force = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--help" || a == "-h") {
      out << PLOT_HELP;
      return 0;
    }
    if (a == "-o" || a == "--output")
      output = next_arg(args, i);
    else if (a == "--metric")
      metrics.push_back(next_arg(args, i));
    else if (a == "--max-devices") {
      const auto v = next_arg(args, i);
      const auto x = parse_int(v);
      if (!x || *x < 1 || *x > 100000)
        throw UsageError("option --max-devices expects a number of devices, 1..100000 (got '" + v + "')");
      max_devices = static_cast<std::size_t>(*x);
    } else if (a == "--force")
      force = true;
    else if (!a.empty() && a[0] == '-')
      throw UsageError("unknown option '" + a + "' (see colocsim plot --help)");
    else if (dir)
      throw UsageError("more than one directory given ('" + *dir + "' and '" + a + "')");
    else
      dir = a;
  }
  if (!dir) throw UsageError("plot needs a run or sweep directory (see colocsim plot --help)");
  const fs::path in(*dir), to(output.value_or(*dir));
  std::error_code ec;
  if (!fs::is_directory(in, ec))
    throw InputError(SourceLocation{in.string()}, "",
                     "not a directory; expected a run's or a sweep's output directory");
  const bool is_sweep = fs::exists(in / "sweep.csv", ec);
  const bool is_run = fs::exists(in / "jobs.csv", ec) || fs::exists(in / "timeseries.csv", ec);
  if (!is_sweep && !is_run)
    throw InputError(
        SourceLocation{in.string()}, "",
        "holds no results to plot; expected jobs.csv and/or timeseries.csv (a run) or sweep.csv (a sweep)");
  if (!metrics.empty() && !is_sweep) throw UsageError("--metric is for sweep directories (sweep.csv)");
  fs::create_directories(to, ec);
  std::vector<fs::path> written;
  if (is_sweep) {
    const Table sweep = read_table(in / "sweep.csv");
    if (metrics.empty()) metrics.push_back("makespan_s");
    for (const auto& m : metrics)
      write_file(to / ("sweep-" + m + ".svg"), sweep_chart(sweep, m), force, written);
  }
  if (fs::exists(in / "jobs.csv", ec))
    write_file(to / "gantt.svg", gantt(read_table(in / "jobs.csv"), max_devices), force, written);
  if (fs::exists(in / "timeseries.csv", ec))
    write_file(to / "power.svg", power(read_table(in / "timeseries.csv")), force, written);
  for (const auto& p : written)
    out << "wrote " << p.string() << "\n";
  return 0;
}

} // namespace colocsim
