// `colocsim plot SWEEPDIR`: the chart of one metric of a sweep (cli/SweepChart.hpp). Layout rule: every
// text's box (width 0.6 × font size per character, a conservative estimate for sans-serif) is placed so
// that no two overlap; values are never printed on the marks (a legend box says what the marks are).
#include "cli/SweepChart.hpp"

#include "base/Errors.hpp"
#include "base/Units.hpp"
#include "cli/CliCommands.hpp"
#include "cli/Svg.hpp"
#include "sim/Outputs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

namespace colocsim {

namespace {
using svg::colour;
using svg::num;
using svg::tick_step;
using svg::xml;

std::string join_names(const std::vector<std::string>& names)
{
  std::string out;
  for (const auto& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

std::size_t column_of(const SweepTable& t, const std::string& name)
{
  for (std::size_t i = 0; i < t.header.size(); ++i)
    if (t.header[i] == name) return i;
  throw InputError(SourceLocation{t.file, 1}, name,
                   "missing column; expected a sweep.csv written by colocsim sweep (docs/formats/sweep.md)");
}

double cell_number(const SweepTable& t, std::size_t row, std::size_t col)
{
  const auto& text = t.rows[row][col];
  const auto v = parse_double(text);
  if (!v)
    throw InputError(SourceLocation{t.file, t.lines[row]}, t.header[col],
                     "not a number (got '" + text + "')");
  return *v;
}

bool all_numbers(const SweepTable& t, std::size_t col)
{
  for (const auto& row : t.rows)
    if (!parse_double(row[col])) return false;
  return !t.rows.empty();
}

/// The unit to draw a summary.json unit in, for values up to `largest` (in the summary's unit).
void choose_unit(const std::string& unit, double largest, std::string& shown, double& scale)
{
  scale = 1;
  shown = unit;
  if (unit == "s" || unit == "device-s") {
    const std::string prefix = unit == "s" ? "" : "device-";
    if (largest >= 2 * 3600)
      shown = prefix + "h", scale = 1 / 3600.0;
    else if (largest >= 120)
      shown = prefix + "min", scale = 1 / 60.0;
  } else if (unit == "J") {
    if (largest >= 3.6e9)
      shown = "MWh", scale = 1 / 3.6e9;
    else if (largest >= 3.6e4)
      shown = "kWh", scale = 1 / 3.6e6;
    else if (largest >= 36)
      shown = "Wh", scale = 1 / 3600.0;
  } else if (unit == "J·s") {
    if (largest >= 1.296e8) shown = "kWh·h", scale = 1 / 1.296e10;
  } else if (unit == "fraction")
    shown = "%", scale = 100;
  else if (unit == "—")
    shown = "";
}

/// Decimals that tell ticks `step` apart.
int decimals(double step)
{
  return std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)), 0, 6);
}

/// Width of a text in pixels: 0.6 × font size per character (UTF-8 continuation bytes do not count).
double text_width(const std::string& s, double size)
{
  double n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return 0.6 * size * n;
}

struct Doc {
  std::ostringstream body;
  void text(double x, double y, const std::string& s, const char* anchor, int size,
            const std::string& extra = "")
  {
    body << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\"" << size << "\" text-anchor=\""
         << anchor << "\"" << extra << ">" << xml(s) << "</text>\n";
  }
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double w,
            const std::string& extra = "")
  {
    body << "<line" << extra << " x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2)
         << "\" y2=\"" << num(y2) << "\" stroke=\"" << stroke << "\" stroke-width=\"" << num(w) << "\"/>\n";
  }
};

const char* dash(std::size_t i)
{
  static const char* const dashes[] = {"", "6,3", "2,2", "8,3,2,3"};
  return dashes[i % 4];
}

/// The mark of a point's mean, centred on (x, y): its shape tells the series of the axes other than x and
/// colour apart (style i: circle, square, triangle, diamond, then again), so that they stay apart where no
/// line joins the points (categories on x) and in a PNG, which has no tooltips. Filled with `fill`; hollow
/// (white inside, `fill` around) when `hollow`. `r` is the circle's radius; the others have the same area.
std::string mark(std::size_t style, double x, double y, double r, const std::string& fill, bool hollow,
                 const std::string& cls)
{
  std::ostringstream o;
  const std::string paint = hollow ? "fill=\"white\" stroke=\"" + fill + "\" stroke-width=\"2\""
                                   : "fill=\"" + fill + "\" stroke=\"white\" stroke-width=\"1\"";
  const std::string c = cls.empty() ? "" : " class=\"" + cls + "\"";
  const double pi = 3.141592653589793;
  switch (style % 4) {
  case 0:
    o << "<circle" << c << " cx=\"" << num(x) << "\" cy=\"" << num(y) << "\" r=\"" << num(r) << "\" " << paint
      << "/>";
    break;
  case 1: {
    const double h = r * std::sqrt(pi) / 2;
    o << "<rect" << c << " data-shape=\"square\" x=\"" << num(x - h) << "\" y=\"" << num(y - h)
      << "\" width=\"" << num(2 * h) << "\" height=\"" << num(2 * h) << "\" " << paint << "/>";
    break;
  }
  case 2: {
    const double a = r * std::sqrt(4 * pi / std::sqrt(27.0)); // circumradius of a triangle of area π r²
    o << "<polygon" << c << " data-shape=\"triangle\" points=\"" << num(x) << "," << num(y - a) << " "
      << num(x - a * 0.866) << "," << num(y + a / 2) << " " << num(x + a * 0.866) << "," << num(y + a / 2)
      << "\" " << paint << "/>";
    break;
  }
  default: {
    const double a = r * std::sqrt(pi / 2);
    o << "<polygon" << c << " data-shape=\"diamond\" points=\"" << num(x) << "," << num(y - a) << " "
      << num(x + a) << "," << num(y) << " " << num(x) << "," << num(y + a) << " " << num(x - a) << ","
      << num(y) << "\" " << paint << "/>";
    break;
  }
  }
  return o.str();
}

} // namespace

std::vector<std::string> sweep_axes(const SweepTable& sweep)
{
  column_of(sweep, "run");
  const auto c_status = column_of(sweep, "status"), c_seed = column_of(sweep, "seed");
  std::vector<std::string> axes;
  for (std::size_t c = c_status + 1; c < c_seed; ++c)
    axes.push_back(sweep.header[c]);
  return axes;
}

std::vector<std::string> sweep_metrics(const SweepTable& sweep)
{
  std::vector<std::string> metrics;
  for (std::size_t c = column_of(sweep, "seed") + 1; c < sweep.header.size(); ++c)
    if (const auto* f = find_summary_field(sweep.header[c]); f && f->kind == SummaryFieldKind::NUMBER)
      metrics.push_back(sweep.header[c]);
  return metrics;
}

SweepSeries sweep_series(const SweepTable& sweep, const std::string& metric, const SweepChartOptions& options)
{
  const auto axes = sweep_axes(sweep);
  const auto metrics = sweep_metrics(sweep);
  if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end())
    throw UsageError("--metrics: '" + metric + "' is not a metric of " + sweep.file +
                     "; its metrics (numbers of summary.json): " + join_names(metrics));
  if (sweep.rows.empty())
    throw InputError(SourceLocation{sweep.file}, "", "holds no runs (a header only); expected a row per run");
  const auto is_axis = [&](const std::string& a) {
    return std::find(axes.begin(), axes.end(), a) != axes.end();
  };
  for (const auto& [option, value] : {std::pair{"--x", options.x}, std::pair{"--colour", options.colour}})
    if (!value.empty() && !is_axis(value))
      throw UsageError(std::string(option) + ": '" + value + "' is not an axis of " + sweep.file +
                       "; its axes: " + join_names(axes));
  if (!options.x.empty() && options.x == options.colour)
    throw UsageError("--x and --colour name the same axis '" + options.x + "'; give two different axes");

  std::map<std::string, bool> numeric;
  for (const auto& a : axes)
    numeric[a] = all_numbers(sweep, column_of(sweep, a));
  SweepSeries s;
  s.colour_axis = options.colour;
  if (s.colour_axis.empty()) {
    if (is_axis("policy") && options.x != "policy")
      s.colour_axis = "policy";
    else
      for (const auto& a : axes)
        if (!numeric[a] && a != options.x) {
          s.colour_axis = a;
          break;
        }
  }
  s.x_axis = options.x;
  if (s.x_axis.empty()) {
    for (const auto& a : axes)
      if (numeric[a] && a != s.colour_axis) {
        s.x_axis = a;
        break;
      }
    if (s.x_axis.empty())
      for (const auto& a : axes)
        if (a != s.colour_axis) {
          s.x_axis = a;
          break;
        }
    if (s.x_axis.empty()) s.x_axis = s.colour_axis; // one axis: each value its own slot and colour
  }
  s.numeric_x = !s.x_axis.empty() && numeric[s.x_axis];
  const auto c_status = column_of(sweep, "status");

  const auto c_metric = column_of(sweep, metric);
  const auto field = find_summary_field(metric);
  s.label = field->label;
  std::vector<std::size_t> style_cols;
  for (const auto& a : axes)
    if (a != s.x_axis && a != s.colour_axis) {
      const auto c = column_of(sweep, a);
      for (const auto& row : sweep.rows)
        if (row[c] != sweep.rows.front()[c]) {
          style_cols.push_back(c);
          break;
        }
    }
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;
  std::vector<std::vector<double>> values;
  const auto optional_column = [&](const std::string& name) {
    const auto it = std::find(sweep.header.begin(), sweep.header.end(), name);
    return it == sweep.header.end()
               ? std::optional<std::size_t>{}
               : std::optional<std::size_t>{static_cast<std::size_t>(it - sweep.header.begin())};
  };
  const auto c_completed = optional_column("jobs_completed"), c_read = optional_column("jobs_read");
  for (std::size_t r = 0; r < sweep.rows.size(); ++r) {
    const auto& row = sweep.rows[r];
    // A combination that cannot run, or a run a deadline left out (sweep --deadline): no point, not a
    // failure.
    if (row[c_status] == "infeasible" || row[c_status] == "deadline") continue;
    SweepSeries::Point p;
    if (!s.colour_axis.empty()) p.colour_value = row[column_of(sweep, s.colour_axis)];
    if (!s.x_axis.empty()) p.x_value = row[column_of(sweep, s.x_axis)];
    for (auto c : style_cols)
      p.style += (p.style.empty() ? "" : ", ") + sweep.header[c] + "=" + row[c];
    const auto [it, fresh] = index.emplace(std::tuple{p.colour_value, p.style, p.x_value}, s.points.size());
    if (fresh) {
      s.points.push_back(p);
      values.emplace_back();
    }
    auto& point = s.points[it->second];
    if (row[c_status] != "ok" || row[c_metric].empty())
      ++point.failed;
    else {
      values[it->second].push_back(cell_number(sweep, r, c_metric));
      if (c_completed && c_read && !row[*c_completed].empty() && !row[*c_read].empty()) {
        const double done = cell_number(sweep, r, *c_completed), read = cell_number(sweep, r, *c_read);
        point.jobs_completed += done;
        point.jobs_read += read;
        point.incomplete = point.incomplete || done < read;
      }
    }
  }
  if (s.points.empty())
    throw InputError(
        SourceLocation{sweep.file}, "status",
        "every run is infeasible (a combination that cannot run) or not run (deadline); expected "
        "some run to draw");
  double largest = 0;
  for (const auto& v : values)
    for (double x : v)
      largest = std::max(largest, std::fabs(x));
  choose_unit(field->unit, largest, s.unit, s.scale);
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    auto& p = s.points[i];
    p.runs = values[i].size();
    if (values[i].empty()) continue;
    double sum = 0;
    p.min = p.max = values[i].front() * s.scale;
    for (double v : values[i]) {
      sum += v * s.scale;
      p.min = std::min(p.min, v * s.scale);
      p.max = std::max(p.max, v * s.scale);
    }
    p.mean = sum / static_cast<double>(values[i].size());
  }
  return s;
}

namespace {

/// The index of `v` in `list`, appended if it is not there yet.
std::size_t slot(std::vector<std::string>& list, const std::string& v)
{
  const auto it = std::find(list.begin(), list.end(), v);
  if (it != list.end()) return static_cast<std::size_t>(it - list.begin());
  list.push_back(v);
  return list.size() - 1;
}

/// What the points span. Series: one colour per colour value, one dash pattern per combination of the
/// other axes; x values in order of appearance (numbers sorted); runs per point; the range of the values.
struct ChartSpan {
  std::vector<std::string> colour_values, styles, x_values;
  std::size_t failed = 0, runs_max = 0, runs_min = std::numeric_limits<std::size_t>::max();
  double lo = 0, hi = 0;
};

ChartSpan chart_span(const SweepSeries& s)
{
  ChartSpan span;
  for (const auto& p : s.points) {
    slot(span.colour_values, p.colour_value);
    slot(span.styles, p.style);
    slot(span.x_values, p.x_value);
    span.failed += p.failed;
    if (p.runs == 0) continue;
    span.runs_max = std::max(span.runs_max, p.runs);
    span.runs_min = std::min(span.runs_min, p.runs);
    span.lo = std::min(span.lo, p.min);
    span.hi = std::max(span.hi, p.max);
  }
  if (s.numeric_x)
    std::stable_sort(span.x_values.begin(), span.x_values.end(),
                     [](const auto& a, const auto& b) { return *parse_double(a) < *parse_double(b); });
  return span;
}

/// The plot area and both axes. y: from 0 (or below, for negative values) to a round value at or above the
/// largest. x: numbers on a linear scale with round ticks, or categories in evenly spaced slots.
struct ChartFrame {
  double ystep = 1, y_lo = 0, y_hi = 1;
  std::vector<std::string> ytick_text;
  std::vector<double> ytick_value;
  double top = 48, plot_h = 340, left = 36, bottom = 388;
  double x_lo = 0, x_hi = 1, plot_w = 560, slot_w = 0, xstep = 1;
  double px(double v) const { return left + (v - x_lo) / (x_hi - x_lo) * plot_w; }
  double py(double v) const { return bottom - (v - y_lo) / (y_hi - y_lo) * plot_h; }
};

ChartFrame chart_frame(const SweepSeries& s, const ChartSpan& span)
{
  ChartFrame f;
  double lo = span.lo, hi = span.hi;
  if (!(hi > lo)) hi = lo + 1;
  f.ystep = tick_step(hi - lo, 5);
  f.y_lo = std::floor(lo / f.ystep) * f.ystep;
  f.y_hi = std::ceil(hi / f.ystep - 1e-9) * f.ystep;
  double ytick_w = 0;
  for (int k = 0; f.y_lo + k * f.ystep <= f.y_hi + 1e-9 * f.ystep; ++k) {
    f.ytick_value.push_back(f.y_lo + k * f.ystep);
    f.ytick_text.push_back(num(f.ytick_value.back(), decimals(f.ystep)));
    ytick_w = std::max(ytick_w, text_width(f.ytick_text.back(), 11));
  }
  f.left = 36 + ytick_w;
  const auto& x_values = span.x_values;
  double xlabel_w = 0;
  for (const auto& v : x_values)
    xlabel_w = std::max(xlabel_w, text_width(v.empty() ? "all runs" : v, 11));
  if (s.numeric_x) {
    f.x_lo = *parse_double(x_values.front());
    f.x_hi = *parse_double(x_values.back());
    const double pad =
        f.x_hi > f.x_lo ? 0.06 * (f.x_hi - f.x_lo) : std::max(1e-9, 0.5 * std::fabs(f.x_lo) + (f.x_lo == 0));
    f.x_lo -= pad;
    f.x_hi += pad;
    for (int target = 8; target >= 1; --target) {
      f.xstep = tick_step(f.x_hi - f.x_lo, target);
      double w = 0;
      for (double v = std::ceil(f.x_lo / f.xstep) * f.xstep; v <= f.x_hi; v += f.xstep)
        w = std::max(w, text_width(num(v, decimals(f.xstep)), 11));
      if (f.xstep / (f.x_hi - f.x_lo) * f.plot_w >= w + 10) break;
    }
  } else {
    f.slot_w = std::max(90.0, xlabel_w + 16);
    f.plot_w = std::max(480.0, f.slot_w * static_cast<double>(x_values.size()));
    f.slot_w = f.plot_w / static_cast<double>(x_values.size());
  }
  f.bottom = f.top + f.plot_h;
  return f;
}

/// Grid, ticks and axis titles.
void draw_chart_axes(Doc& doc, const SweepSeries& s, const ChartFrame& f,
                     const std::vector<std::string>& x_values)
{
  for (std::size_t k = 0; k < f.ytick_value.size(); ++k) {
    const double y = f.py(f.ytick_value[k]);
    doc.line(f.left, y, f.left + f.plot_w, y, "#e6e6e6", 1, " class=\"ytick\"");
    doc.text(f.left - 6, y + 4, f.ytick_text[k], "end", 11, " class=\"ytick-label\"");
  }
  if (s.numeric_x) {
    for (double v = std::ceil(f.x_lo / f.xstep) * f.xstep; v <= f.x_hi + 1e-9 * f.xstep; v += f.xstep) {
      doc.line(f.px(v), f.top, f.px(v), f.bottom, "#f0f0f0", 1);
      doc.text(f.px(v), f.bottom + 20, num(v, decimals(f.xstep)), "middle", 11);
    }
  } else
    for (std::size_t i = 0; i < x_values.size(); ++i)
      doc.text(f.left + (static_cast<double>(i) + 0.5) * f.slot_w, f.bottom + 20,
               x_values[i].empty() ? "all runs" : x_values[i], "middle", 11);
  doc.line(f.left, f.bottom, f.left + f.plot_w, f.bottom, "#666", 1);
  doc.line(f.left, f.top, f.left, f.bottom, "#666", 1);
  const std::string y_title = s.label + (s.unit.empty() ? "" : " (" + s.unit + ")");
  doc.text(20, f.top + f.plot_h / 2, y_title, "middle", 12,
           " class=\"axis-title\" transform=\"rotate(-90 20 " + num(f.top + f.plot_h / 2) + ")\"");
  if (!s.x_axis.empty())
    doc.text(f.left + f.plot_w / 2, f.bottom + 42, s.x_axis, "middle", 12, " class=\"axis-title\"");
}

/// A point with runs, at its x position.
struct PlacedPoint {
  const SweepSeries::Point* p;
  double x;
};

/// Points of several series at one x value stand side by side (6 px apart on a numeric axis, up to 14 px in
/// a category's slot), so that their bars do not hide each other.
std::vector<PlacedPoint> place_points(const SweepSeries& s, const ChartFrame& f,
                                      std::vector<std::string>& x_values)
{
  std::vector<PlacedPoint> placed;
  std::map<std::string, std::size_t> at_slot; // points already placed per categorical slot
  std::vector<std::size_t> per_slot(x_values.size(), 0);
  for (const auto& p : s.points)
    if (p.runs > 0) ++per_slot[slot(x_values, p.x_value)];
  for (const auto& p : s.points) {
    if (p.runs == 0) continue;
    const auto i = slot(x_values, p.x_value);
    const double n = static_cast<double>(per_slot[i]), k = static_cast<double>(at_slot[p.x_value]++);
    double x = 0;
    if (s.numeric_x)
      x = f.px(*parse_double(p.x_value)) + (k - (n - 1) / 2) * 6;
    else {
      const double gap = std::min(14.0, 0.7 * f.slot_w / std::max(1.0, n));
      x = f.left + (static_cast<double>(i) + 0.5) * f.slot_w + (k - (n - 1) / 2) * gap;
    }
    placed.push_back({&p, x});
  }
  return placed;
}

/// A line through each series' means (numeric x only).
void draw_trends(Doc& doc, const ChartFrame& f, ChartSpan& span, const std::vector<PlacedPoint>& placed)
{
  for (const auto& c : span.colour_values)
    for (const auto& st : span.styles) {
      std::vector<std::pair<double, double>> xy;
      for (const auto& pl : placed)
        if (pl.p->colour_value == c && pl.p->style == st) xy.emplace_back(pl.x, f.py(pl.p->mean));
      if (xy.size() < 2) continue;
      std::sort(xy.begin(), xy.end());
      doc.body << "<polyline class=\"trend\" fill=\"none\" stroke=\"" << colour(slot(span.colour_values, c))
               << "\" stroke-width=\"1.5\"";
      if (*dash(slot(span.styles, st)))
        doc.body << " stroke-dasharray=\"" << dash(slot(span.styles, st)) << "\"";
      doc.body << " points=\"";
      for (std::size_t k = 0; k < xy.size(); ++k)
        doc.body << (k ? " " : "") << num(xy[k].first) << "," << num(xy[k].second);
      doc.body << "\"/>\n";
    }
}

/// Each point's min–max bar and its mean, with a tooltip.
void draw_points(Doc& doc, const SweepSeries& s, const ChartFrame& f, ChartSpan& span,
                 const std::vector<PlacedPoint>& placed)
{
  const std::string unit_space = s.unit.empty() ? "" : " " + s.unit;
  for (const auto& pl : placed) {
    const auto& p = *pl.p;
    const std::string fill = colour(slot(span.colour_values, p.colour_value));
    std::string what;
    if (!s.colour_axis.empty()) what = s.colour_axis + " " + p.colour_value;
    if (!s.x_axis.empty() && s.x_axis != s.colour_axis)
      what += (what.empty() ? "" : ", ") + s.x_axis + " " + p.x_value;
    if (!p.style.empty()) what += (what.empty() ? "" : ", ") + p.style;
    doc.body << "<g class=\"point\" data-colour=\"" << xml(p.colour_value) << "\" data-x=\"" << xml(p.x_value)
             << "\" data-style=\"" << xml(p.style) << "\">\n<title>"
             << xml((what.empty() ? "all runs" : what) + ": mean " + num(p.mean, 4) + unit_space +
                    ", min–max " + num(p.min, 4) + "–" + num(p.max, 4) + unit_space + ", " +
                    std::to_string(p.runs) + " run(s)" +
                    (p.failed ? ", " + std::to_string(p.failed) + " failed" : "") +
                    (p.jobs_read > 0 ? ", jobs completed " + num(p.jobs_completed, 0) + " of " +
                                           num(p.jobs_read, 0) + (p.incomplete ? " (not all)" : "")
                                     : std::string()))
             << "</title>\n";
    doc.line(pl.x, f.py(p.min), pl.x, f.py(p.max), fill, 1.5, " class=\"range\"");
    doc.line(pl.x - 4, f.py(p.min), pl.x + 4, f.py(p.min), fill, 1.5, " class=\"cap\"");
    doc.line(pl.x - 4, f.py(p.max), pl.x + 4, f.py(p.max), fill, 1.5, " class=\"cap\"");
    doc.body << mark(slot(span.styles, p.style), pl.x, f.py(p.mean), 4, fill, p.incomplete, "mean")
             << "\n</g>\n";
  }
}

/// The legend's entries, right of the plot from (lx, top + 12), and its extent.
struct ChartLegend {
  Doc entries;
  double lx = 0, width = 0, bottom = 0;
};

/// The colours, the dash patterns, what a point and a bar are.
ChartLegend chart_legend(const SweepSeries& s, const ChartSpan& span, const ChartFrame& f)
{
  ChartLegend legend;
  const double lx = f.left + f.plot_w + 28;
  double ly = f.top + 12, legend_w = 0;
  Doc& entries = legend.entries;
  const auto heading = [&](const std::string& t) {
    entries.text(lx, ly, t, "start", 11, " font-weight=\"bold\"");
    legend_w = std::max(legend_w, text_width(t, 11));
    ly += 18;
  };
  const auto entry = [&](const std::string& t, double indent) {
    entries.text(lx + indent, ly, t, "start", 11, " class=\"legend\"");
    legend_w = std::max(legend_w, indent + text_width(t, 11));
    ly += 18;
  };
  if (!s.colour_axis.empty()) {
    heading(s.colour_axis);
    for (std::size_t i = 0; i < span.colour_values.size(); ++i) {
      entries.body << "<circle cx=\"" << num(lx + 6) << "\" cy=\"" << num(ly - 4) << "\" r=\"5\" fill=\""
                   << colour(i) << "\"/>\n";
      entry(span.colour_values[i], 18);
    }
    ly += 6;
  }
  if (span.styles.size() > 1) {
    // The other axes: a mark shape each (and a dash pattern, where lines join the points).
    heading(s.numeric_x ? "mark and line" : "mark");
    for (std::size_t i = 0; i < span.styles.size(); ++i) {
      if (s.numeric_x)
        entries.line(lx, ly - 4, lx + 24, ly - 4, "#333", 1.5,
                     *dash(i) ? std::string(" stroke-dasharray=\"") + dash(i) + "\"" : std::string());
      entries.body << mark(i, lx + 12, ly - 4, 4.5, "#333", false, "") << "\n";
      entry(span.styles[i], 32);
    }
    ly += 6;
  }
  const std::string seeds = span.runs_min == span.runs_max
                                ? std::to_string(span.runs_max)
                                : std::to_string(span.runs_min) + "–" + std::to_string(span.runs_max);
  entries.body << "<circle cx=\"" << num(lx + 6) << "\" cy=\"" << num(ly - 4)
               << "\" r=\"4\" fill=\"#555\"/>\n";
  entry("mean over seeds (" + seeds + " run(s) each)", 18);
  entries.line(lx + 6, ly - 12, lx + 6, ly + 4, "#555", 1.5);
  entries.line(lx + 2, ly - 12, lx + 10, ly - 12, "#555", 1.5);
  entries.line(lx + 2, ly + 4, lx + 10, ly + 4, "#555", 1.5);
  entry("bar: min–max over seeds", 18);
  if (span.failed) entry(std::to_string(span.failed) + " failed run(s) left out", 0);
  // Points whose runs lost jobs: hollow, and listed with their jobs completed of read (a PNG has no
  // tooltips): their totals cover less work than the others'.
  std::vector<const SweepSeries::Point*> incomplete;
  for (const auto& p : s.points)
    if (p.runs > 0 && p.incomplete) incomplete.push_back(&p);
  if (!incomplete.empty()) {
    ly += 6;
    entries.body << mark(0, lx + 6, ly - 4, 4, "#555", true, "") << "\n";
    entry("hollow: not every job completed", 18);
    constexpr std::size_t LISTED = 8;
    for (std::size_t k = 0; k < std::min(LISTED, incomplete.size()); ++k) {
      const auto& p = *incomplete[k];
      std::string what = p.colour_value;
      if (!s.x_axis.empty() && s.x_axis != s.colour_axis) what += (what.empty() ? "" : ", ") + p.x_value;
      if (!p.style.empty()) what += (what.empty() ? "" : ", ") + p.style;
      entry((what.empty() ? "all runs" : what) + ": " + num(p.jobs_completed, 0) + " of " +
                num(p.jobs_read, 0) + " jobs",
            18);
    }
    if (incomplete.size() > LISTED) entry("and " + std::to_string(incomplete.size() - LISTED) + " more", 18);
  }
  legend.lx = lx;
  legend.bottom = ly - 6;
  legend.width = legend_w + 16;
  return legend;
}

} // namespace

std::string sweep_chart(const SweepTable& sweep, const std::string& metric, const SweepChartOptions& options)
{
  const SweepSeries s = sweep_series(sweep, metric, options);
  ChartSpan span = chart_span(s);
  const ChartFrame f = chart_frame(s, span);
  Doc doc;
  draw_chart_axes(doc, s, f, span.x_values);
  // Marks: a line through each series' means (numeric x), then per point its min–max bar and its mean.
  const std::vector<PlacedPoint> placed = place_points(s, f, span.x_values);
  if (s.numeric_x) draw_trends(doc, f, span, placed);
  draw_points(doc, s, f, span, placed);
  const ChartLegend legend = chart_legend(s, span, f);

  const std::string title =
      s.label + (s.x_axis.empty() ? std::string(" over seeds") : " by " + s.x_axis) +
      (!s.colour_axis.empty() && s.colour_axis != s.x_axis ? " and " + s.colour_axis : std::string());
  const double width = std::max(legend.lx + legend.width + 16, f.left + text_width(title, 15) + 16);
  const double height = std::max(f.bottom + 56, legend.bottom + 24);
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
     << num(width) << "\" height=\"" << num(height) << "\" viewBox=\"0 0 " << num(width) << " " << num(height)
     << "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  doc.text(f.left, 26, title, "start", 15, " font-weight=\"bold\" class=\"title\"");
  os << doc.body.str();
  os << "<rect class=\"legend-box\" x=\"" << num(legend.lx - 10) << "\" y=\"" << num(f.top - 6)
     << "\" width=\"" << num(legend.width + 4) << "\" height=\"" << num(legend.bottom - f.top + 18)
     << "\" fill=\"white\" stroke=\"#bbb\"/>\n";
  os << legend.entries.body.str() << "</svg>\n";
  return os.str();
}

} // namespace colocsim
