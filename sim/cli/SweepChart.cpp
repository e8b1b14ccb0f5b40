// `colocsim plot SWEEPDIR`: the chart of one metric of a sweep (sim/cli/SweepChart.hpp). Layout rule: every
// text's box (width 0.6 × font size per character, a conservative estimate for sans-serif) is placed so
// that no two overlap; values are never printed on the marks (a legend box says what the marks are).
#include "sim/cli/SweepChart.hpp"

#include "models/Errors.hpp"
#include "models/Units.hpp"
#include "sim/Outputs.hpp"
#include "sim/cli/CliCommands.hpp"
#include "sim/cli/Svg.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
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

  const auto c_status = column_of(sweep, "status"), c_metric = column_of(sweep, metric);
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
  for (std::size_t r = 0; r < sweep.rows.size(); ++r) {
    const auto& row = sweep.rows[r];
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
    else
      values[it->second].push_back(cell_number(sweep, r, c_metric));
  }
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

std::string sweep_chart(const SweepTable& sweep, const std::string& metric, const SweepChartOptions& options)
{
  const SweepSeries s = sweep_series(sweep, metric, options);
  const std::string unit_suffix = s.unit.empty() ? "" : " (" + s.unit + ")";
  const std::string unit_space = s.unit.empty() ? "" : " " + s.unit;

  // Series: one colour per colour value, one dash pattern per combination of the other axes.
  std::vector<std::string> colour_values, styles, x_values;
  const auto slot = [](std::vector<std::string>& list, const std::string& v) {
    const auto it = std::find(list.begin(), list.end(), v);
    if (it != list.end()) return static_cast<std::size_t>(it - list.begin());
    list.push_back(v);
    return list.size() - 1;
  };
  std::size_t failed = 0, runs_max = 0, runs_min = std::numeric_limits<std::size_t>::max();
  double lo = 0, hi = 0;
  for (const auto& p : s.points) {
    slot(colour_values, p.colour_value);
    slot(styles, p.style);
    slot(x_values, p.x_value);
    failed += p.failed;
    if (p.runs == 0) continue;
    runs_max = std::max(runs_max, p.runs);
    runs_min = std::min(runs_min, p.runs);
    lo = std::min(lo, p.min);
    hi = std::max(hi, p.max);
  }
  if (s.numeric_x)
    std::stable_sort(x_values.begin(), x_values.end(),
                     [](const auto& a, const auto& b) { return *parse_double(a) < *parse_double(b); });

  // y axis: from 0 (or below, for negative values) to a round value at or above the largest.
  if (!(hi > lo)) hi = lo + 1;
  const double ystep = tick_step(hi - lo, 5);
  const double y_lo = std::floor(lo / ystep) * ystep, y_hi = std::ceil(hi / ystep - 1e-9) * ystep;
  std::vector<std::string> ytick_text;
  std::vector<double> ytick_value;
  double ytick_w = 0;
  for (int k = 0; y_lo + k * ystep <= y_hi + 1e-9 * ystep; ++k) {
    ytick_value.push_back(y_lo + k * ystep);
    ytick_text.push_back(num(ytick_value.back(), decimals(ystep)));
    ytick_w = std::max(ytick_w, text_width(ytick_text.back(), 11));
  }

  // x axis: numbers on a linear scale with round ticks, or categories in evenly spaced slots.
  const double top = 48, plot_h = 340, left = 36 + ytick_w;
  double x_lo = 0, x_hi = 1, plot_w = 560, slot_w = 0, xstep = 1;
  double xlabel_w = 0;
  for (const auto& v : x_values)
    xlabel_w = std::max(xlabel_w, text_width(v.empty() ? "all runs" : v, 11));
  if (s.numeric_x) {
    x_lo = *parse_double(x_values.front());
    x_hi = *parse_double(x_values.back());
    const double pad =
        x_hi > x_lo ? 0.06 * (x_hi - x_lo) : std::max(1e-9, 0.5 * std::fabs(x_lo) + (x_lo == 0));
    x_lo -= pad;
    x_hi += pad;
    for (int target = 8; target >= 1; --target) {
      xstep = tick_step(x_hi - x_lo, target);
      double w = 0;
      for (double v = std::ceil(x_lo / xstep) * xstep; v <= x_hi; v += xstep)
        w = std::max(w, text_width(num(v, decimals(xstep)), 11));
      if (xstep / (x_hi - x_lo) * plot_w >= w + 10) break;
    }
  } else {
    slot_w = std::max(90.0, xlabel_w + 16);
    plot_w = std::max(480.0, slot_w * static_cast<double>(x_values.size()));
    slot_w = plot_w / static_cast<double>(x_values.size());
  }
  const double bottom = top + plot_h;
  const auto px = [&](double v) { return left + (v - x_lo) / (x_hi - x_lo) * plot_w; };
  const auto py = [&](double v) { return bottom - (v - y_lo) / (y_hi - y_lo) * plot_h; };

  Doc doc;
  // Grid, ticks and axis titles.
  for (std::size_t k = 0; k < ytick_value.size(); ++k) {
    const double y = py(ytick_value[k]);
    doc.line(left, y, left + plot_w, y, "#e6e6e6", 1, " class=\"ytick\"");
    doc.text(left - 6, y + 4, ytick_text[k], "end", 11, " class=\"ytick-label\"");
  }
  if (s.numeric_x) {
    for (double v = std::ceil(x_lo / xstep) * xstep; v <= x_hi + 1e-9 * xstep; v += xstep) {
      doc.line(px(v), top, px(v), bottom, "#f0f0f0", 1);
      doc.text(px(v), bottom + 20, num(v, decimals(xstep)), "middle", 11);
    }
  } else
    for (std::size_t i = 0; i < x_values.size(); ++i)
      doc.text(left + (static_cast<double>(i) + 0.5) * slot_w, bottom + 20,
               x_values[i].empty() ? "all runs" : x_values[i], "middle", 11);
  doc.line(left, bottom, left + plot_w, bottom, "#666", 1);
  doc.line(left, top, left, bottom, "#666", 1);
  const std::string y_title = s.label + unit_suffix;
  doc.text(20, top + plot_h / 2, y_title, "middle", 12,
           " class=\"axis-title\" transform=\"rotate(-90 20 " + num(top + plot_h / 2) + ")\"");
  if (!s.x_axis.empty())
    doc.text(left + plot_w / 2, bottom + 42, s.x_axis, "middle", 12, " class=\"axis-title\"");

  // Marks: a line through each series' means (numeric x), then per point its min–max bar and its mean.
  struct Placed {
    const SweepSeries::Point* p;
    double x;
  };
  std::vector<Placed> placed;
  std::map<std::string, std::size_t> at_slot; // points already placed per categorical slot
  std::vector<std::size_t> per_slot(x_values.size(), 0);
  for (const auto& p : s.points)
    if (p.runs > 0) ++per_slot[slot(x_values, p.x_value)];
  for (const auto& p : s.points) {
    if (p.runs == 0) continue;
    const auto i = slot(x_values, p.x_value);
    // Points of several series at one x value stand side by side (6 px apart on a numeric axis, up to
    // 14 px in a category's slot), so that their bars do not hide each other.
    const double n = static_cast<double>(per_slot[i]), k = static_cast<double>(at_slot[p.x_value]++);
    double x = 0;
    if (s.numeric_x)
      x = px(*parse_double(p.x_value)) + (k - (n - 1) / 2) * 6;
    else {
      const double gap = std::min(14.0, 0.7 * slot_w / std::max(1.0, n));
      x = left + (static_cast<double>(i) + 0.5) * slot_w + (k - (n - 1) / 2) * gap;
    }
    placed.push_back({&p, x});
  }
  if (s.numeric_x)
    for (const auto& c : colour_values)
      for (const auto& st : styles) {
        std::vector<std::pair<double, double>> xy;
        for (const auto& pl : placed)
          if (pl.p->colour_value == c && pl.p->style == st) xy.emplace_back(pl.x, py(pl.p->mean));
        if (xy.size() < 2) continue;
        std::sort(xy.begin(), xy.end());
        doc.body << "<polyline class=\"trend\" fill=\"none\" stroke=\"" << colour(slot(colour_values, c))
                 << "\" stroke-width=\"1.5\"";
        if (*dash(slot(styles, st))) doc.body << " stroke-dasharray=\"" << dash(slot(styles, st)) << "\"";
        doc.body << " points=\"";
        for (std::size_t k = 0; k < xy.size(); ++k)
          doc.body << (k ? " " : "") << num(xy[k].first) << "," << num(xy[k].second);
        doc.body << "\"/>\n";
      }
  for (const auto& pl : placed) {
    const auto& p = *pl.p;
    const std::string fill = colour(slot(colour_values, p.colour_value));
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
                    (p.failed ? ", " + std::to_string(p.failed) + " failed" : ""))
             << "</title>\n";
    doc.line(pl.x, py(p.min), pl.x, py(p.max), fill, 1.5, " class=\"range\"");
    doc.line(pl.x - 4, py(p.min), pl.x + 4, py(p.min), fill, 1.5, " class=\"cap\"");
    doc.line(pl.x - 4, py(p.max), pl.x + 4, py(p.max), fill, 1.5, " class=\"cap\"");
    doc.body << "<circle class=\"mean\" cx=\"" << num(pl.x) << "\" cy=\"" << num(py(p.mean))
             << "\" r=\"4\" fill=\"" << fill << "\" stroke=\"white\" stroke-width=\"1\"/>\n</g>\n";
  }

  // Legend box, right of the plot: the colours, the dash patterns, what a point and a bar are.
  const double lx = left + plot_w + 28;
  double ly = top + 12, legend_w = 0;
  std::ostringstream legend;
  Doc entries;
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
    for (std::size_t i = 0; i < colour_values.size(); ++i) {
      entries.body << "<circle cx=\"" << num(lx + 6) << "\" cy=\"" << num(ly - 4) << "\" r=\"5\" fill=\""
                   << colour(i) << "\"/>\n";
      entry(colour_values[i], 18);
    }
    ly += 6;
  }
  if (styles.size() > 1) {
    heading("line");
    for (std::size_t i = 0; i < styles.size(); ++i) {
      entries.line(lx, ly - 4, lx + 24, ly - 4, "#333", 1.5,
                   *dash(i) ? std::string(" stroke-dasharray=\"") + dash(i) + "\"" : std::string());
      entry(styles[i], 32);
    }
    ly += 6;
  }
  const std::string seeds = runs_min == runs_max ? std::to_string(runs_max)
                                                 : std::to_string(runs_min) + "–" + std::to_string(runs_max);
  entries.body << "<circle cx=\"" << num(lx + 6) << "\" cy=\"" << num(ly - 4)
               << "\" r=\"4\" fill=\"#555\"/>\n";
  entry("mean over seeds (" + seeds + " run(s) each)", 18);
  entries.line(lx + 6, ly - 12, lx + 6, ly + 4, "#555", 1.5);
  entries.line(lx + 2, ly - 12, lx + 10, ly - 12, "#555", 1.5);
  entries.line(lx + 2, ly + 4, lx + 10, ly + 4, "#555", 1.5);
  entry("bar: min–max over seeds", 18);
  if (failed) entry(std::to_string(failed) + " failed run(s) left out", 0);
  const double legend_bottom = ly - 6;
  legend_w += 16;

  const std::string title =
      s.label + (s.x_axis.empty() ? std::string(" over seeds") : " by " + s.x_axis) +
      (!s.colour_axis.empty() && s.colour_axis != s.x_axis ? " and " + s.colour_axis : std::string());
  const double width = std::max(lx + legend_w + 16, left + text_width(title, 15) + 16);
  const double height = std::max(bottom + 56, legend_bottom + 24);
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
     << num(width) << "\" height=\"" << num(height) << "\" viewBox=\"0 0 " << num(width) << " " << num(height)
     << "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  doc.text(left, 26, title, "start", 15, " font-weight=\"bold\" class=\"title\"");
  os << doc.body.str();
  os << "<rect class=\"legend-box\" x=\"" << num(lx - 10) << "\" y=\"" << num(top - 6) << "\" width=\""
     << num(legend_w + 4) << "\" height=\"" << num(legend_bottom - top + 18)
     << "\" fill=\"white\" stroke=\"#bbb\"/>\n";
  os << entries.body.str() << "</svg>\n";
  return os.str();
}

} // namespace colocsim
