// The run figures of `colocsim plot` (cli/PlotRun.hpp): a Gantt chart (bars or a density heat map), power
// and utilisation over time as exact steps or per-pixel-column envelopes. Plain SVG 1.1 text; the heat map
// is a PNG (written here with zlib) inside the SVG, so that its size is bounded by its pixels.
#include "cli/PlotRun.hpp"

#include "cli/CliCommands.hpp"
#include "cli/Svg.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace colocsim::plot {

namespace {

// --- colours ----------------------------------------------------------------------------------------------

struct Rgb {
  int r, g, b;
};

std::string hex(Rgb c)
{
  static const char* const digits = "0123456789abcdef";
  std::string s = "#";
  for (int v : {c.r, c.g, c.b}) {
    s += digits[(v >> 4) & 15];
    s += digits[v & 15];
  }
  return s;
}

/// The viridis colour map (perceptually uniform, colour-blind safe), 5 stops interpolated; x in [0, 1].
Rgb viridis(double x)
{
  static const std::array<Rgb, 5> stops{
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  x = std::clamp(std::isfinite(x) ? x : 0.0, 0.0, 1.0) * 4;
  const auto i = std::min<std::size_t>(3, static_cast<std::size_t>(x));
  const double f = x - static_cast<double>(i);
  auto mix = [&](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * f)); };
  return {mix(stops[i].r, stops[i + 1].r), mix(stops[i].g, stops[i + 1].g), mix(stops[i].b, stops[i + 1].b)};
}

/// A colour of its own for job number i: hues a golden angle apart (neighbours differ), two lightnesses.
std::string job_colour(std::size_t i)
{
  const double h = std::fmod(static_cast<double>(i) * 137.50776405, 360.0) / 60.0;
  const double l = i % 2 ? 0.42 : 0.58, s = 0.65;
  const double c = (1 - std::fabs(2 * l - 1)) * s, x = c * (1 - std::fabs(std::fmod(h, 2.0) - 1)),
               m = l - c / 2;
  double r = 0, g = 0, b = 0;
  switch (static_cast<int>(h)) {
  case 0:
    r = c, g = x;
    break;
  case 1:
    r = x, g = c;
    break;
  case 2:
    g = c, b = x;
    break;
  case 3:
    g = x, b = c;
    break;
  case 4:
    r = x, b = c;
    break;
  default:
    r = c, b = x;
  }
  auto byte = [&](double v) { return static_cast<int>(std::lround((v + m) * 255)); };
  return hex({byte(r), byte(g), byte(b)});
}

// --- PNG (for the density view) ---------------------------------------------------------------------------

std::string base64(const std::string& in)
{
  static const char* const abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) |
                       (static_cast<unsigned char>(in[i + 1]) << 8) | static_cast<unsigned char>(in[i + 2]);
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
    out += abc[(v >> 6) & 63];
    out += abc[v & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
    out += i + 1 < in.size() ? abc[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

/// An 8-bit palette PNG of w × h pixels: `index` (rows top to bottom, a byte a pixel) into `palette`.
std::string png(std::size_t w, std::size_t h, const std::vector<unsigned char>& index,
                const std::vector<Rgb>& palette)
{
  std::string raw;
  raw.reserve(h * (1 + w));
  for (std::size_t y = 0; y < h; ++y) {
    raw.push_back('\0'); // filter: none
    raw.append(reinterpret_cast<const char*>(index.data() + y * w), w);
  }
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string z(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(z.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
                static_cast<uLong>(raw.size()), 9) != Z_OK)
    throw std::runtime_error("zlib could not compress the density view's image");
  z.resize(size);
  std::string out = "\x89PNG\r\n\x1a\n";
  auto be32 = [](std::string& s, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8)
      s.push_back(static_cast<char>((v >> shift) & 0xff));
  };
  auto chunk = [&](const char* type, const std::string& data) {
    be32(out, static_cast<std::uint32_t>(data.size()));
    const std::string body = std::string(type, 4) + data;
    out += body;
    be32(out, static_cast<std::uint32_t>(
                  crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
  };
  std::string ihdr;
  be32(ihdr, static_cast<std::uint32_t>(w));
  be32(ihdr, static_cast<std::uint32_t>(h));
  ihdr += std::string("\x08\x03\x00\x00\x00", 5); // 8 bits, palette, deflate, no filter choice, no interlace
  chunk("IHDR", ihdr);
  std::string plte;
  for (const auto& c : palette)
    plte += {static_cast<char>(c.r), static_cast<char>(c.g), static_cast<char>(c.b)};
  chunk("PLTE", plte);
  chunk("IDAT", z);
  chunk("IEND", "");
  return out;
}

// --- drawing ----------------------------------------------------------------------------------------------

struct Canvas {
  std::ostringstream body;
  double width = 0, height = 0;
  void text(double x, double y, const std::string& s, const char* anchor = "start", int size = 12,
            const std::string& extra = "")
  {
    body << "<text x=\"" << svg::num(x) << "\" y=\"" << svg::num(y) << "\" font-size=\"" << size
         << "\" text-anchor=\"" << anchor << "\"" << extra << ">" << svg::xml(s) << "</text>\n";
  }
  void line(double x1, double y1, double x2, double y2, const std::string& stroke = "#999", double w = 1)
  {
    body << "<line x1=\"" << svg::num(x1) << "\" y1=\"" << svg::num(y1) << "\" x2=\"" << svg::num(x2)
         << "\" y2=\"" << svg::num(y2) << "\" stroke=\"" << stroke << "\" stroke-width=\"" << svg::num(w)
         << "\"/>\n";
  }
  void rect(double x, double y, double w, double h, const std::string& fill)
  {
    body << "<rect x=\"" << svg::num(x) << "\" y=\"" << svg::num(y) << "\" width=\"" << svg::num(w)
         << "\" height=\"" << svg::num(h) << "\" fill=\"" << fill << "\"/>\n";
  }
  void title(double x, const std::string& title, const std::string& subtitle)
  {
    text(x, 22, title, "start", 14, " font-weight=\"bold\"");
    if (!subtitle.empty()) text(x, 38, subtitle, "start", 11, " fill=\"#444\"");
  }
  std::string str() const
  {
    std::ostringstream os;
    os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
          "xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\""
       << svg::num(width) << "\" height=\"" << svg::num(height) << "\" viewBox=\"0 0 " << svg::num(width)
       << " " << svg::num(height)
       << "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
       << body.str() << "</svg>\n";
    return os.str();
  }
};

/// A time unit people read for a span: s up to 10 min, min up to 4 h, h up to 4 days, then days.
struct TimeUnit {
  double seconds;
  const char* name;
};
TimeUnit time_unit(double span)
{
  if (span <= 600) return {1, "s"};
  if (span <= 4 * 3600) return {60, "min"};
  if (span <= 4 * 86400) return {3600, "h"};
  return {86400, "days"};
}

std::string time_text(double t, TimeUnit u)
{
  return svg::num(t / u.seconds, u.seconds == 1 ? 1 : 2) + " " + u.name;
}

/// The time axis of the plot area [x0, x1]: ticks, grid lines from y0 to y1, labels and the axis title.
struct TimeAxis {
  double t0, t1, x0, x1;
  double x(double t) const { return x0 + (t - t0) / (t1 - t0) * (x1 - x0); }
  void draw(Canvas& c, double y0, double y1) const
  {
    const TimeUnit u = time_unit(t1 - t0);
    const double step = svg::tick_step((t1 - t0) / u.seconds, 8) * u.seconds;
    for (double k = std::ceil(t0 / step - 1e-9); k * step <= t1 + 1e-9 * step; k += 1) {
      const double t = k * step;
      c.line(x(t), y0, x(t), y1, "#e0e0e0");
      c.text(x(t), y1 + 14, svg::short_number(t / u.seconds), "middle", 11);
    }
    c.line(x0, y1, x1, y1, "#666");
    c.text((x0 + x1) / 2, y1 + 30, std::string("time (") + u.name + ")", "middle", 12);
  }
};

/// A power unit for a peak: W below 10 kW, kW below 10 MW, then MW.
std::pair<double, const char*> power_unit(double peak_w)
{
  if (peak_w < 1e4) return {1, "W"};
  if (peak_w < 1e7) return {1e3, "kW"};
  return {1e6, "MW"};
}

/// A value panel: horizontal grid lines and tick labels from 0 to ymax (display units), the axis title.
void value_axis(Canvas& c, double left, double width, double top, double h, double ymax,
                const std::string& label, const std::string& suffix = "")
{
  const double step = svg::tick_step(ymax, 5);
  for (double k = 0; k * step <= ymax * 1.0001; k += 1) {
    const double y = top + h - k * step / ymax * h;
    c.line(left, y, left + width, y, "#eeeeee");
    c.text(left - 6, y + 4, svg::short_number(k * step) + suffix, "end", 11);
  }
  c.text(20, top + h / 2, label, "middle", 12, " transform=\"rotate(-90 20 " + svg::num(top + h / 2) + ")\"");
}

/// Draws the step function (t, v) × scale over the window of `axis` in the panel [top, top + h] with values
/// 0..ymax: the exact steps if it has at most PLOT_COLUMNS rows in the window, else the envelope per pixel
/// column as a pale band (min..max) and the mean as a line. Returns true if it drew an envelope.
bool draw_series(Canvas& c, const TimeAxis& axis, const std::vector<double>& t, const std::vector<double>& v,
                 double scale, double top, double h, double ymax, const std::string& colour)
{
  if (t.empty()) return false;
  auto y = [&](double value) { return top + h - std::clamp(value * scale / ymax, 0.0, 1.05) * h; };
  const auto first = std::upper_bound(t.begin(), t.end(), axis.t0) - t.begin();
  const auto last = std::lower_bound(t.begin(), t.end(), axis.t1) - t.begin();
  const auto rows = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, last - first + 1));
  if (rows <= PLOT_COLUMNS) {
    std::ostringstream d;
    bool started = false;
    for (std::size_t k = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, first - 1)); k < t.size();
         ++k) {
      const double a = std::max(t[k], axis.t0), b = k + 1 < t.size() ? std::min(t[k + 1], axis.t1) : axis.t1;
      if (a > axis.t1) break;
      if (b < a) continue;
      if (!started)
        d << "M" << svg::num(axis.x(a)) << "," << svg::num(y(v[k]));
      else
        d << " V" << svg::num(y(v[k]));
      d << " H" << svg::num(axis.x(b));
      started = true;
    }
    if (started)
      c.body << "<path d=\"" << d.str() << "\" fill=\"none\" stroke=\"" << colour
             << "\" stroke-width=\"1.5\"/>\n";
    return false;
  }
  const auto bins = envelope(t, v, axis.t0, axis.t1, PLOT_COLUMNS);
  auto edge_x = [&](std::size_t i) {
    return axis.x0 + (axis.x1 - axis.x0) * static_cast<double>(i) / static_cast<double>(bins.size());
  };
  // The band: along the maxima left to right, back along the minima; one run of bins with values each.
  std::ostringstream band, mean;
  for (std::size_t i = 0; i < bins.size();) {
    if (!bins[i].any) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < bins.size() && bins[j].any)
      ++j;
    band << "M" << svg::num(edge_x(i)) << "," << svg::num(y(bins[i].max));
    mean << "M" << svg::num(edge_x(i)) << "," << svg::num(y(bins[i].mean));
    for (std::size_t k = i; k < j; ++k) {
      if (k > i) band << "V" << svg::num(y(bins[k].max)), mean << "V" << svg::num(y(bins[k].mean));
      band << "H" << svg::num(edge_x(k + 1));
      mean << "H" << svg::num(edge_x(k + 1));
    }
    for (std::size_t k = j; k-- > i;) {
      band << "V" << svg::num(y(bins[k].min)) << "H" << svg::num(edge_x(k));
    }
    band << "Z";
    i = j;
  }
  c.body << "<path d=\"" << band.str() << "\" fill=\"" << colour
         << "\" fill-opacity=\"0.3\" stroke=\"none\"/>\n";
  c.body << "<path d=\"" << mean.str() << "\" fill=\"none\" stroke=\"" << colour
         << "\" stroke-width=\"1.2\"/>\n";
  return true;
}

/// The window [t0, t1] of the series' figures: --from/--to, or the whole series.
std::pair<double, double> series_window(const Series& s, const RunPlotOptions& o)
{
  double t0 = s.t.empty() ? 0 : s.t.front(), t1 = s.t.empty() ? 1 : s.t.back();
  if (o.from) t0 = *o.from;
  if (o.to) t1 = *o.to;
  if (!s.t.empty() && (t0 >= s.t.back() && s.t.size() > 1 && o.from))
    throw UsageError("--from " + svg::num(t0, 3) + " is at or after the end of timeseries.csv (" +
                     svg::num(s.t.back(), 3) + " s)");
  if (!s.t.empty() && o.to && t1 <= s.t.front())
    throw UsageError("--to " + svg::num(t1, 3) + " is at or before the start of timeseries.csv (" +
                     svg::num(s.t.front(), 3) + " s)");
  if (!(t1 > t0)) t1 = t0 + 1;
  return {t0, t1};
}

std::size_t rows_in(const std::vector<double>& t, double t0, double t1)
{
  return static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), t1) -
                                  std::lower_bound(t.begin(), t.end(), t0));
}

/// "d12" (built by appending: GCC 12 warns, wrongly, on "d" + std::to_string(...) with -Wrestrict).
std::string device_label(std::size_t d)
{
  std::string s(1, 'd');
  s += std::to_string(d);
  return s;
}

const double LEFT = 80, PLOT_W = static_cast<double>(PLOT_COLUMNS), RIGHT = 200;

void legend_line(Canvas& c, double y, const std::string& colour, const std::string& label)
{
  c.line(LEFT + PLOT_W + 14, y - 4, LEFT + PLOT_W + 34, y - 4, colour, 2);
  c.text(LEFT + PLOT_W + 40, y, label, "start", 11);
}

std::string resolution_note(bool enveloped, std::size_t rows)
{
  return enveloped ? std::to_string(rows) + " steps; per pixel column: band = min–max, line = mean"
                   : std::to_string(rows) + " steps, drawn exactly (constant between events)";
}

/// A vertical colour-scale legend (viridis, `reversed` for light-to-dark) for values lo..hi.
void colour_scale(Canvas& c, double x, double top, double h, double lo, double hi, bool reversed,
                  const std::string& title)
{
  c.text(x, top - 8, title, "start", 11, " font-weight=\"bold\"");
  const int steps = 40;
  for (int i = 0; i < steps; ++i) {
    const double f = (i + 0.5) / steps; // bottom (lo) to top (hi)
    c.rect(x, top + h - (i + 1) * h / steps, 14, h / steps + 0.3, hex(viridis(reversed ? 1 - f : f)));
  }
  const double step = svg::tick_step(hi - lo, 4);
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; k += 1) {
    const double y = top + h - (k * step - lo) / (hi - lo) * h;
    c.line(x + 14, y, x + 18, y, "#000");
    c.text(x + 21, y + 4, svg::short_number(k * step), "start", 10);
  }
}

} // namespace

std::vector<Bin> envelope(const std::vector<double>& t, const std::vector<double>& v, double t0, double t1,
                          std::size_t bins)
{
  std::vector<Bin> out(bins);
  if (bins == 0 || t.empty() || !(t1 > t0)) return out;
  std::vector<double> covered(bins, 0.0);
  const double nb = static_cast<double>(bins);
  auto edge = [&](std::size_t i) { return i >= bins ? t1 : t0 + (t1 - t0) * static_cast<double>(i) / nb; };
  auto bin_of = [&](double x) { // the bin holding x in [t0, t1]: the last i with edge(i) <= x
    const double f = (x - t0) / (t1 - t0) * nb;
    std::size_t i = f <= 0 ? 0 : std::min(bins - 1, static_cast<std::size_t>(f));
    while (i > 0 && edge(i) > x)
      --i;
    while (i + 1 < bins && edge(i + 1) <= x)
      ++i;
    return i;
  };
  auto see = [&](std::size_t i, double value) {
    auto& b = out[i];
    if (!b.any)
      b.min = b.max = value, b.any = true;
    else
      b.min = std::min(b.min, value), b.max = std::max(b.max, value);
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < t.size(); ++k) {
    const double a = t[k], b = k + 1 < t.size() ? t[k + 1] : inf; // v[k] holds on [a, b)
    const double lo = std::max(a, t0), hi = std::min(b, t1);
    if (lo < hi) {
      const std::size_t first = bin_of(lo);
      std::size_t last = bin_of(hi);
      if (last > first && edge(last) >= hi) --last; // [lo, hi) ends at the bin's left edge
      for (std::size_t i = first; i <= last; ++i) {
        see(i, v[k]);
        const double piece = std::min(hi, edge(i + 1)) - std::max(lo, edge(i));
        out[i].mean += v[k] * piece;
        covered[i] += piece;
      }
    } else if (lo == t1 && a <= t1 && t1 < b) {
      see(bins - 1, v[k]); // the value at t1 itself (the last bin is closed)
    }
    if (a > t1) break;
  }
  for (std::size_t i = 0; i < bins; ++i) {
    if (!out[i].any) continue;
    out[i].mean = covered[i] > 0 ? out[i].mean / covered[i] : out[i].max;
  }
  return out;
}

std::string power_svg(const Series& s, const RunPlotOptions& o)
{
  const auto [t0, t1] = series_window(s, o);
  double peak = 1;
  for (std::size_t k = 0; k < s.t.size(); ++k)
    peak = std::max(peak, s.total_w[k]);
  const auto [unit, unit_name] = power_unit(peak);
  const double ymax = peak / unit * 1.05;
  const double top = 56, h = 300;
  Canvas c;
  c.width = LEFT + PLOT_W + RIGHT;
  c.height = top + h + 46;
  const TimeAxis axis{t0, t1, LEFT, LEFT + PLOT_W};
  const std::size_t rows = rows_in(s.t, t0, t1);
  value_axis(c, LEFT, PLOT_W, top, h, ymax, std::string("power (") + unit_name + ")");
  axis.draw(c, top, top + h);
  bool env = draw_series(c, axis, s.t, s.total_w, 1 / unit, top, h, ymax, svg::colour(0));
  env = draw_series(c, axis, s.t, s.device_w, 1 / unit, top, h, ymax, svg::colour(1)) || env;
  env = draw_series(c, axis, s.t, s.node_w, 1 / unit, top, h, ymax, svg::colour(2)) || env;
  c.title(LEFT,
          "Power over time, " + time_text(t0, time_unit(t1 - t0)) + " to " +
              time_text(t1, time_unit(t1 - t0)),
          resolution_note(env, rows) + "; peak " + svg::num(peak / unit, 2) + " " + unit_name);
  legend_line(c, top + 10, svg::colour(0), "total");
  legend_line(c, top + 28, svg::colour(1), "devices");
  legend_line(c, top + 46, svg::colour(2), "node baseline");
  return c.str();
}

std::string utilisation_svg(const Series& s, std::optional<double> devices, const RunPlotOptions& o)
{
  const auto [t0, t1] = series_window(s, o);
  double jobs_max = 1;
  for (std::size_t k = 0; k < s.t.size(); ++k)
    jobs_max = std::max({jobs_max, s.running[k], s.waiting[k]});
  const double top1 = 56, h1 = 200, gap = 56, h2 = 200, top2 = top1 + h1 + gap;
  Canvas c;
  c.width = LEFT + PLOT_W + RIGHT;
  c.height = top2 + h2 + 46;
  const TimeAxis axis{t0, t1, LEFT, LEFT + PLOT_W};
  bool env = false;
  if (devices && *devices > 0) {
    value_axis(c, LEFT, PLOT_W, top1, h1, 100, "utilisation (%)", "%");
    env = draw_series(c, axis, s.t, s.busy, 100 / *devices, top1, h1, 100, svg::colour(0));
    legend_line(c, top1 + 10, svg::colour(0), "busy devices ÷ " + svg::num(*devices, 0));
  } else {
    double busy_max = 1;
    for (double b : s.busy)
      busy_max = std::max(busy_max, b);
    const double ymax = std::ceil(busy_max * 1.05);
    value_axis(c, LEFT, PLOT_W, top1, h1, ymax, "busy devices");
    env = draw_series(c, axis, s.t, s.busy, 1, top1, h1, ymax, svg::colour(0));
    legend_line(c, top1 + 10, svg::colour(0), "busy devices");
    c.text(LEFT + PLOT_W + 14, top1 + 30, "(device count unknown:", "start", 10);
    c.text(LEFT + PLOT_W + 14, top1 + 43, " no summary.json)", "start", 10);
  }
  axis.draw(c, top1, top1 + h1);
  const double jmax = std::ceil(jobs_max * 1.05);
  value_axis(c, LEFT, PLOT_W, top2, h2, jmax, "jobs");
  axis.draw(c, top2, top2 + h2);
  env = draw_series(c, axis, s.t, s.running, 1, top2, h2, jmax, svg::colour(3)) || env;
  env = draw_series(c, axis, s.t, s.waiting, 1, top2, h2, jmax, svg::colour(4)) || env;
  legend_line(c, top2 + 10, svg::colour(3), "running");
  legend_line(c, top2 + 28, svg::colour(4), "waiting (queue)");
  const TimeUnit u = time_unit(t1 - t0);
  c.title(LEFT, "Utilisation and queue over time, " + time_text(t0, u) + " to " + time_text(t1, u),
          resolution_note(env, rows_in(s.t, t0, t1)));
  return c.str();
}

Density density(const std::vector<JobRow>& jobs, double t0, double t1, std::size_t first_device,
                std::size_t last_device, std::size_t cols)
{
  Density out;
  if (last_device < first_device || cols == 0 || !(t1 > t0)) return out;
  const std::size_t nd = last_device - first_device + 1, g = nd <= 600 ? 1 : (nd + 599) / 600;
  out.group = g;
  out.rows = (nd + g - 1) / g;
  out.cols = cols;
  const std::size_t rows = out.rows;
  auto& value = out.value;
  value.assign(rows * cols, 0.0);
  std::vector<double> full(rows * (cols + 1), 0.0); // whole columns a job covers, as differences
  const double nb = static_cast<double>(cols);
  auto edge = [&](std::size_t i) { return i >= cols ? t1 : t0 + (t1 - t0) * static_cast<double>(i) / nb; };
  auto bin_of = [&](double x) {
    const double f = (x - t0) / (t1 - t0) * nb;
    std::size_t i = f <= 0 ? 0 : std::min(cols - 1, static_cast<std::size_t>(f));
    while (i > 0 && edge(i) > x)
      --i;
    while (i + 1 < cols && edge(i + 1) <= x)
      ++i;
    return i;
  };
  for (const auto& j : jobs) {
    if (!j.start || !j.end) continue;
    const double s = std::max(*j.start, t0), e = std::min(*j.end, t1);
    if (!(e > s)) continue;
    const std::size_t first = bin_of(s);
    std::size_t last = bin_of(e);
    if (last > first && edge(last) >= e) --last;
    for (auto d : j.devices) {
      if (d < first_device || d > last_device) continue;
      const std::size_t r = (d - first_device) / g;
      if (first == last) {
        value[r * cols + first] += e - s;
        continue;
      }
      value[r * cols + first] += edge(first + 1) - s;
      value[r * cols + last] += e - edge(last);
      full[r * (cols + 1) + first + 1] += 1; // whole columns first+1 .. last-1
      full[r * (cols + 1) + last] -= 1;
    }
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const double devices_in_row = static_cast<double>(std::min(g, nd - r * g));
    double whole = 0;
    for (std::size_t i = 0; i < cols; ++i) {
      whole += full[r * (cols + 1) + i];
      const double width = edge(i + 1) - edge(i);
      auto& v = value[r * cols + i];
      v = (v + whole * width) / (width * devices_in_row);
    }
  }
  return out;
}

namespace {

/// The Gantt chart's extent: its time window and the devices jobs.csv names, checked against --from, --to
/// and --devices.
struct GanttWindow {
  double t0 = 0, t1 = 1;
  std::size_t device_count = 0, last_device = 0;
};

GanttWindow gantt_window(const std::vector<JobRow>& jobs, const RunPlotOptions& o)
{
  // The run's extent: first submission to last end; the devices jobs.csv names.
  double run0 = std::numeric_limits<double>::infinity(), run1 = -run0;
  std::size_t device_count = 0;
  for (const auto& j : jobs) {
    run0 = std::min(run0, j.submit);
    if (!j.start || !j.end) continue;
    run1 = std::max(run1, *j.end);
    for (auto d : j.devices)
      device_count = std::max(device_count, d + 1);
  }
  if (!(run1 >= run0)) run0 = 0, run1 = 1;
  if (o.from && *o.from >= run1)
    throw UsageError("--from " + svg::num(*o.from, 3) + " is at or after the last job's end in jobs.csv (" +
                     svg::num(run1, 3) + " s)");
  if (o.to && *o.to <= run0)
    throw UsageError("--to " + svg::num(*o.to, 3) + " is at or before the first submission in jobs.csv (" +
                     svg::num(run0, 3) + " s)");
  const double t0 = o.from.value_or(run0), t1 = std::max(o.to.value_or(run1), t0 + 1e-9);
  if (o.devices && o.devices->first >= device_count) {
    std::string range = "--devices " + std::to_string(o.devices->first);
    range += "-" + std::to_string(o.devices->second);
    throw UsageError(range + (device_count == 0 ? std::string(": jobs.csv places no job on any device")
                                                : ": jobs.csv places jobs on devices 0-" +
                                                      std::to_string(device_count - 1) + " only"));
  }
  return {.t0 = t0,
          .t1 = t1,
          .device_count = device_count,
          .last_device = device_count > 0 ? device_count - 1 : 0};
}

/// A started job's bar on one of its devices, in lane `lane` of the device's row.
struct Placed {
  std::size_t job, device, lane = 0;
};

/// The bars on devices a..b: a started job's placement on each of its devices in the range, if it runs
/// during the window (a job of no duration counts if it is inside it).
std::vector<Placed> bars_in(const std::vector<JobRow>& jobs, double t0, double t1, std::size_t a,
                            std::size_t b)
{
  std::vector<Placed> out;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    if (!j.start || !j.end) continue;
    const double s = *j.start, e = *j.end;
    if (!((s < t1 && e > t0) || (s == e && s >= t0 && s <= t1))) continue;
    for (auto d : j.devices)
      if (d >= a && d <= b) out.push_back({i, d});
  }
  return out;
}

/// What the chart shows: the window, devices a..b, their bars, the view, and the title and subtitle.
struct GanttFrame {
  double t0 = 0, t1 = 1;
  std::size_t a = 0, b = 0, nd = 1;
  std::vector<Placed> placed;
  bool dense = false;
  std::string title, subtitle;
};

GanttFrame gantt_frame(const std::vector<JobRow>& jobs, const RunPlotOptions& o, const GanttWindow& w)
{
  GanttFrame f;
  f.t0 = w.t0;
  f.t1 = w.t1;
  f.b = std::min(w.last_device, o.max_devices - 1);
  if (o.devices) f.a = o.devices->first, f.b = std::min(o.devices->second, w.last_device);
  f.placed = bars_in(jobs, f.t0, f.t1, f.a, f.b);
  f.dense =
      o.view == GanttView::DENSITY || (o.view == GanttView::AUTOMATIC && f.placed.size() > GANTT_MAX_BARS);
  if (f.dense && !o.devices && f.b < w.last_device) {
    f.b = w.last_device; // the density view is bounded whatever the devices: all of them
    f.placed = bars_in(jobs, f.t0, f.t1, f.a, f.b);
  }
  f.nd = f.b - f.a + 1;
  const TimeUnit u = time_unit(f.t1 - f.t0);
  std::set<std::size_t> job_set;
  for (const auto& p : f.placed)
    job_set.insert(p.job);
  f.title = "Jobs on devices " + std::to_string(f.a) + "–" + std::to_string(f.b) + ", " + time_text(f.t0, u) +
            " to " + time_text(f.t1, u) + " (" + std::to_string(job_set.size()) + " jobs";
  f.title += f.dense ? ")" : ", " + std::to_string(f.placed.size()) + " bars)";
  if (!o.devices && !f.dense && f.b < w.last_device)
    f.subtitle = "first " + std::to_string(f.nd) + " of " + std::to_string(w.device_count) +
                 " devices (--devices A-B); ";
  return f;
}

/// The Gantt chart's top margin.
constexpr double GANTT_TOP = 56;

/// The density view: mean jobs per device, a row per device (or group of devices), a column per pixel.
std::string gantt_density(const std::vector<JobRow>& jobs, const RunPlotOptions& o, const GanttFrame& f)
{
  Canvas c;
  const double top = GANTT_TOP;
  c.width = LEFT + PLOT_W + RIGHT;
  const Density grid = density(jobs, f.t0, f.t1, f.a, f.b, PLOT_COLUMNS);
  const std::size_t g = grid.group, rows = grid.rows, cols = grid.cols;
  const auto& value = grid.value;
  const double row_px = std::clamp(std::floor(600.0 / static_cast<double>(rows)), 1.0, 22.0);
  const double h = row_px * static_cast<double>(rows);
  double vmax = 0;
  for (double v : value)
    vmax = std::max(vmax, v);
  const double scale = std::max(1.0, vmax);
  // 64 levels and white (idle): a byte a pixel, so the image is at most 900 × 600 bytes before zlib.
  const int levels = 64;
  std::vector<Rgb> palette{{255, 255, 255}};
  for (int i = 0; i < levels; ++i)
    palette.push_back(viridis(1 - (i + 0.5) / levels));
  // At the figure's own pixels (a row repeated row_px times; h ≤ 600), so no renderer blurs the rows.
  const auto px = static_cast<std::size_t>(row_px);
  std::vector<unsigned char> index(rows * px * cols, 0);
  for (std::size_t i = 0; i < rows * cols; ++i)
    if (value[i] > 0) {
      const auto level =
          static_cast<unsigned char>(1 + std::min(levels - 1, static_cast<int>(value[i] / scale * levels)));
      for (std::size_t k = 0; k < px; ++k)
        index[((i / cols) * px + k) * cols + i % cols] = level;
    }
  c.height = top + h + 46;
  const TimeAxis axis{f.t0, f.t1, LEFT, LEFT + PLOT_W};
  axis.draw(c, top, top + h);
  c.body << "<image x=\"" << svg::num(LEFT) << "\" y=\"" << svg::num(top) << "\" width=\"" << svg::num(PLOT_W)
         << "\" height=\"" << svg::num(h)
         << "\" preserveAspectRatio=\"none\" image-rendering=\"optimizeSpeed\" "
         << "xlink:href=\"data:image/png;base64," << base64(png(cols, rows * px, index, palette)) << "\"/>\n";
  const double dstep = std::max(1.0, svg::tick_step(static_cast<double>(f.nd), 8));
  for (double k = 0; k < static_cast<double>(f.nd); k += dstep) {
    const double y = top + (k + 0.5) / static_cast<double>(f.nd) * h;
    c.line(LEFT - 4, y, LEFT, y, "#000");
    c.text(LEFT - 6, y + 4, device_label(f.a + static_cast<std::size_t>(k)), "end", 11);
  }
  c.text(20, top + h / 2, "device", "middle", 12,
         " transform=\"rotate(-90 20 " + svg::num(top + h / 2) + ")\"");
  colour_scale(c, LEFT + PLOT_W + 16, top + 24, 200, 0, scale, true, "mean jobs per device");
  c.text(LEFT + PLOT_W + 16, top + 250, "white: idle", "start", 10);
  c.text(LEFT + PLOT_W + 16, top + 264,
         g > 1 ? "a row: " + std::to_string(g) + " devices" : "a row: a device", "start", 10);
  c.title(LEFT, f.title,
          f.subtitle + (o.view == GanttView::DENSITY
                            ? std::string("density view (--view density)")
                            : "density view: " + std::to_string(f.placed.size()) + " bars > " +
                                  std::to_string(GANTT_MAX_BARS) +
                                  " (--view bars draws them; --from/--to/--devices zoom in)"));
  return c.str();
}

/// Lanes: on each device, a job takes the lowest lane free at its start (interval partitioning). Sorts
/// `placed` by start and sets each bar's lane; returns the lanes of each device (at least 1).
std::vector<std::size_t> assign_lanes(std::vector<Placed>& placed, const std::vector<JobRow>& jobs,
                                      std::size_t a, std::size_t nd)
{
  std::vector<std::size_t> lanes(nd, 1);
  std::vector<std::vector<double>> lane_end(nd);
  std::stable_sort(placed.begin(), placed.end(),
                   [&](const Placed& x, const Placed& y) { return *jobs[x.job].start < *jobs[y.job].start; });
  for (auto& p : placed) {
    auto& ends = lane_end[p.device - a];
    std::size_t lane = 0;
    while (lane < ends.size() && ends[lane] > *jobs[p.job].start + 1e-9)
      ++lane;
    if (lane == ends.size()) ends.emplace_back();
    ends[lane] = *jobs[p.job].end;
    p.lane = lane;
  }
  for (std::size_t d = 0; d < nd; ++d)
    lanes[d] = std::max<std::size_t>(1, lane_end[d].size());
  return lanes;
}

/// The bars' colours (--colour): one per job, per profile (in name order) or by slowdown (1 to smax).
struct BarColours {
  GanttColour mode;
  std::map<std::string, std::size_t> profiles; ///< name → colour index, in name order
  double smax = 1;

  BarColours(const std::vector<JobRow>& jobs, const std::vector<Placed>& placed, GanttColour colour)
      : mode(colour)
  {
    for (const auto& p : placed) {
      profiles.emplace(jobs[p.job].profile, 0);
      if (jobs[p.job].slowdown) smax = std::max(smax, *jobs[p.job].slowdown);
    }
    std::size_t next = 0;
    for (auto& [name, i] : profiles)
      i = next++;
    if (!(smax > 1)) smax = 2;
  }
  std::string fill(const std::vector<JobRow>& jobs, std::size_t job) const
  {
    const auto& j = jobs[job];
    switch (mode) {
    case GanttColour::PROFILE:
      return svg::colour(profiles.at(j.profile));
    case GanttColour::SLOWDOWN:
      return j.slowdown ? hex(viridis((*j.slowdown - 1) / (smax - 1))) : "#bbbbbb";
    default:
      return job_colour(job);
    }
  }
};

/// The bars view's legend, right of the plot from `top`: the colours, then what a bar's edges mean.
void gantt_legend(Canvas& c, const BarColours& colours, double top)
{
  const double lx = LEFT + PLOT_W + 16;
  double ly = top;
  if (colours.mode == GanttColour::PROFILE) {
    c.text(lx, ly, "profile", "start", 12, " font-weight=\"bold\"");
    for (const auto& [name, i] : colours.profiles) {
      ly += 18;
      c.rect(lx, ly - 10, 12, 12, svg::colour(i));
      c.text(lx + 18, ly, name.empty() ? "(none)" : name, "start", 11);
    }
    ly += 24;
  } else if (colours.mode == GanttColour::SLOWDOWN) {
    colour_scale(c, lx, ly + 24, 160, 1, colours.smax, false, "slowdown");
    ly += 200;
    c.rect(lx, ly - 10, 12, 12, "#bbbbbb");
    c.text(lx + 18, ly, "none (not completed)", "start", 10);
    ly += 24;
  } else {
    c.text(lx, ly, "colour: one per job", "start", 11, " font-weight=\"bold\"");
    c.text(lx, ly + 14, "(--colour profile|slowdown)", "start", 10);
    ly += 38;
  }
  c.text(lx, ly, "pale, red edge: failed", "start", 10);
  c.text(lx, ly + 14, "dashed edge: retried after OOM", "start", 10);
  c.text(lx, ly + 28, "(bar: first start to end,", "start", 10);
  c.text(lx, ly + 42, " on the last attempt's devices)", "start", 10);
}

/// The bars view: a row per device, its jobs stacked in lanes (up to 4 lanes' height).
std::string gantt_bars(const std::vector<JobRow>& jobs, const RunPlotOptions& o, GanttFrame& f)
{
  Canvas c;
  const double top = GANTT_TOP;
  c.width = LEFT + PLOT_W + RIGHT;
  const std::size_t nd = f.nd, a = f.a;
  const std::vector<std::size_t> lanes = assign_lanes(f.placed, jobs, a, nd);
  const BarColours colours(jobs, f.placed, o.colour);
  const double row_h = 22;
  std::vector<double> row_y(nd + 1, top);
  for (std::size_t d = 0; d < nd; ++d)
    row_y[d + 1] = row_y[d] + row_h * static_cast<double>(std::min<std::size_t>(lanes[d], 4));
  const double bottom = row_y[nd];
  c.height = std::max(bottom + 46, top + 330);
  const TimeAxis axis{f.t0, f.t1, LEFT, LEFT + PLOT_W};
  axis.draw(c, top, bottom);
  // --devices-per-node: a group per node, its rows on a band (shaded every other node), its label, and a dark
  // line above it where the previous node's rows end.
  const std::size_t per_node = o.devices_per_node > 1 ? o.devices_per_node : 0;
  for (std::size_t d = 0; per_node && d < nd;) {
    const std::size_t node = (a + d) / per_node;
    std::size_t e = d;
    while (e < nd && (a + e) / per_node == node)
      ++e;
    c.body << "<g class=\"node\" data-node=\"" << node << "\">\n";
    if (node % 2 == 1) c.rect(LEFT, row_y[d], PLOT_W, row_y[e] - row_y[d], "#f0f0f0");
    std::string label(1, 'n'); // appended, as device_label does (GCC 12's -Wrestrict)
    label += std::to_string(node);
    c.text(LEFT - 32, (row_y[d] + row_y[e]) / 2 + 4, label, "end", 11, " font-weight=\"bold\"");
    if (d > 0) c.line(LEFT - 44, row_y[d], LEFT + PLOT_W, row_y[d], "#333333", 1.5);
    c.body << "</g>\n";
    d = e;
  }
  for (std::size_t d = 0; d < nd; ++d) {
    if (!per_node || d == 0 || (a + d) % per_node != 0)
      c.line(LEFT, row_y[d], LEFT + PLOT_W, row_y[d], "#cccccc");
    c.text(LEFT - 6, (row_y[d] + row_y[d + 1]) / 2 + 4, device_label(a + d), "end", 11);
  }
  c.text(20, (top + bottom) / 2, per_node ? "node · device" : "device", "middle", 12,
         " transform=\"rotate(-90 20 " + svg::num((top + bottom) / 2) + ")\"");
  /// A job's bars across nodes: from its top bar to its bottom one at its start, and its nodes.
  struct Span {
    double x = 0, y0 = 0, y1 = 0;
    std::set<std::size_t> nodes;
  };
  std::map<std::size_t, Span> spans;
  for (const auto& p : f.placed) {
    const auto& j = jobs[p.job];
    const std::size_t d = p.device - a;
    const double lane_h = (row_y[d + 1] - row_y[d]) / static_cast<double>(lanes[d]);
    const double y = row_y[d] + lane_h * static_cast<double>(p.lane);
    const double x = axis.x(std::max(*j.start, f.t0)), w = std::max(0.5, axis.x(std::min(*j.end, f.t1)) - x);
    const bool failed = j.status != "completed";
    c.body << "<rect x=\"" << svg::num(x) << "\" y=\"" << svg::num(y + 1) << "\" width=\"" << svg::num(w)
           << "\" height=\"" << svg::num(std::max(1.0, lane_h - 2)) << "\" fill=\""
           << colours.fill(jobs, p.job) << "\"" << (failed ? " fill-opacity=\"0.35\" stroke=\"#c00\"" : "")
           << (j.attempts != "1" && j.attempts != "0" ? " stroke-dasharray=\"3,2\" stroke=\"#000\"" : "")
           << "><title>"
           << svg::xml(j.id + " (" + j.profile + "): " + svg::num(*j.start, 1) + "–" + svg::num(*j.end, 1) +
                       " s, " + j.status + ", attempts " + j.attempts +
                       (j.slowdown ? ", slowdown " + svg::num(*j.slowdown, 3) : ""))
           << "</title></rect>\n";
    if (per_node) {
      auto it = spans.try_emplace(p.job, Span{x, y + 1, y + std::max(1.0, lane_h - 2), {}}).first;
      it->second.y0 = std::min(it->second.y0, y + 1);
      it->second.y1 = std::max(it->second.y1, y + std::max(1.0, lane_h - 2));
      it->second.nodes.insert(p.device / per_node);
    }
  }
  // A job on devices of several nodes: one line through its bars, in its colour, so that it reads as one job.
  for (const auto& [job, span] : spans) {
    if (span.nodes.size() < 2) continue;
    std::string nodes;
    for (const auto n : span.nodes)
      (nodes += nodes.empty() ? "n" : ", n") += std::to_string(n);
    c.body << "<line class=\"job-span\" x1=\"" << svg::num(span.x + 1) << "\" y1=\"" << svg::num(span.y0)
           << "\" x2=\"" << svg::num(span.x + 1) << "\" y2=\"" << svg::num(span.y1) << "\" stroke=\""
           << colours.fill(jobs, job) << "\" stroke-width=\"3\"><title>"
           << svg::xml(jobs[job].id + " across nodes " + nodes) << "</title></line>\n";
  }
  gantt_legend(c, colours, top);
  c.title(LEFT, f.title,
          f.subtitle + "bars: hover one for its job" +
              (o.view == GanttView::BARS && f.placed.size() > GANTT_MAX_BARS ? " (--view bars)" : ""));
  return c.str();
}

} // namespace

std::string gantt_svg(const std::vector<JobRow>& jobs, const RunPlotOptions& o)
{
  GanttFrame f = gantt_frame(jobs, o, gantt_window(jobs, o));
  return f.dense ? gantt_density(jobs, o, f) : gantt_bars(jobs, o, f);
}

} // namespace colocsim::plot
