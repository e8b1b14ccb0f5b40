// `colocsim plot SWEEPDIR`: the sweep charts (sim/SweepChart.cpp), checked on a small real sweep. The
// SVG is read back as a figure: the y axis's ticks give the pixel ↔ value map, through which each point's
// mean and the ends of its error bar must equal the mean, min and max over seeds worked out here from
// sweep.csv; one colour per policy, a legend naming each one, axis titles with the unit of the summary
// field table, no two texts overlapping; rsvg-convert renders every chart.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "sim/Outputs.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace colocsim::test;

namespace {
namespace fs = std::filesystem;

// 30 synthetic jobs (mean 900 s) on one Aurora node; 2 policies × 2 arrival rates × 3 seeds = 12 runs of a
// few milliseconds. The seed draws the jobs, so the seeds' results differ: the bars have a length.
const char* const SCENARIO = R"(name: figures
seed: 1
platform:
  preset: aurora-node
  sharing: time-slice
workload:
  synthetic:
    jobs: 30
    arrival_rate_per_s: 0.01
    duration_mean: 900s
policy: first-fit
outputs:
  timeseries: false
)";
const char* const SPEC = R"(name: figures
scenario: scenario.yaml
axes:
  policy: [exclusive-fcfs, first-fit]
  workload.synthetic.arrival_rate_per_s: [0.005, 0.02]
seeds: [1, 2, 3]
metrics: [makespan_s, energy_total_j, utilization]
)";

std::string unescape(std::string s)
{
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}})
    for (auto p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
      s.replace(p, from.size(), to);
  return s;
}

/// A text element of the SVG and its box: 0.6 × font size per character wide (a conservative estimate for
/// sans-serif), from font size above the baseline to a quarter of it below; turned with its rotate(-90).
struct Text {
  std::string content, cls;
  double x0, y0, x1, y1;
};

std::vector<Text> texts(const std::string& svg)
{
  std::vector<Text> out;
  const std::regex re(
      "<text x=\"([-0-9.]+)\" y=\"([-0-9.]+)\" font-size=\"([0-9]+)\" text-anchor=\"([a-z]+)\""
      "([^>]*)>([^<]*)</text>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end; ++it) {
    const auto& m = *it;
    Text t;
    t.content = unescape(m[6]);
    const double x = std::stod(m[1]), y = std::stod(m[2]), size = std::stod(m[3]);
    double chars = 0;
    for (unsigned char c : t.content)
      if ((c & 0xC0) != 0x80) ++chars;
    const double w = 0.6 * size * chars;
    const std::string anchor = m[4], extra = m[5];
    t.x0 = anchor == "start" ? x : anchor == "middle" ? x - w / 2 : x - w;
    t.x1 = t.x0 + w;
    t.y0 = y - size;
    t.y1 = y + 0.25 * size;
    std::smatch c;
    if (std::regex_search(extra, c, std::regex("class=\"([a-z-]+)\""))) t.cls = c[1];
    if (std::regex_search(extra, c, std::regex("rotate\\(-90 ([-0-9.]+) ([-0-9.]+)\\)"))) {
      // (x, y) → (cx + (y − cy), cy − (x − cx))
      const double cx = std::stod(c[1]), cy = std::stod(c[2]);
      const Text r{t.content, t.cls, cx + (t.y0 - cy), cy - (t.x1 - cx), cx + (t.y1 - cy), cy - (t.x0 - cx)};
      t = r;
    }
    out.push_back(t);
  }
  return out;
}

double attr(const std::string& element, const std::string& name)
{
  std::smatch m;
  REQUIRE(std::regex_search(element, m, std::regex(" " + name + "=\"([-0-9.]+)\"")));
  return std::stod(m[1]);
}

struct Point {
  std::string colour_value, x_value, fill;
  double cx, cy, range_y1, range_y2;
};

std::vector<Point> points(const std::string& svg)
{
  std::vector<Point> out;
  const std::regex group(
      "<g class=\"point\" data-colour=\"([^\"]*)\" data-x=\"([^\"]*)\" data-style=\"[^\"]*\">"
      "([\\s\\S]*?)</g>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), group), end; it != end; ++it) {
    const std::string body = (*it)[3];
    std::smatch range, circle, fill;
    REQUIRE(std::regex_search(body, range, std::regex("<line class=\"range\"[^>]*>")));
    REQUIRE(std::regex_search(body, circle, std::regex("<circle class=\"mean\"[^>]*>")));
    const std::string c = circle[0];
    REQUIRE(std::regex_search(c, fill, std::regex("fill=\"(#[0-9A-Fa-f]{6})\"")));
    out.push_back({unescape((*it)[1]), unescape((*it)[2]), fill[1], attr(c, "cx"), attr(c, "cy"),
                   attr(range[0], "y1"), attr(range[0], "y2")});
  }
  return out;
}

/// The y axis's value at pixel row y, from the tick lines and their labels (checked to be one linear map,
/// to 1e-4 of the axis: the SVG holds pixels to 0.01, on a 340-pixel axis).
struct YAxis {
  double y_a, v_a, y_b, v_b;
  double value(double y) const { return v_a + (y - y_a) * (v_b - v_a) / (y_b - y_a); }
  double range() const { return std::fabs(v_b - v_a); }
};

YAxis y_axis(const std::string& svg)
{
  std::vector<double> ys, vs;
  const std::regex line("<line class=\"ytick\" x1=\"[-0-9.]+\" y1=\"([-0-9.]+)\"");
  for (std::sregex_iterator it(svg.begin(), svg.end(), line), end; it != end; ++it)
    ys.push_back(std::stod((*it)[1]));
  for (const auto& t : texts(svg))
    if (t.cls == "ytick-label") vs.push_back(std::stod(t.content));
  REQUIRE(ys.size() == vs.size());
  REQUIRE(ys.size() >= 3);
  const YAxis axis{ys.front(), vs.front(), ys.back(), vs.back()};
  for (std::size_t k = 0; k < ys.size(); ++k)
    CHECK(axis.value(ys[k]) == Approx(vs[k]).margin(1e-4 * axis.range()));
  return axis;
}

/// No two texts' boxes overlap.
void check_no_overlap(const std::string& svg)
{
  const auto all = texts(svg);
  REQUIRE(all.size() >= 8);
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = i + 1; j < all.size(); ++j) {
      const auto &a = all[i], &b = all[j];
      INFO("'" << a.content << "' [" << a.x0 << "," << a.x1 << "]×[" << a.y0 << "," << a.y1 << "] and '"
               << b.content << "' [" << b.x0 << "," << b.x1 << "]×[" << b.y0 << "," << b.y1 << "]");
      CHECK((a.x1 <= b.x0 || b.x1 <= a.x0 || a.y1 <= b.y0 || b.y1 <= a.y0));
    }
}

/// rsvg-convert (Debian librsvg2-bin) renders the file: a PNG comes out.
void check_renders(const fs::path& svg)
{
  const auto png = fs::path(svg).replace_extension(".png");
  REQUIRE(colocsim::test::shell("rsvg-convert " + svg.string() + " -o " + png.string()) == 0);
  const std::string bytes = slurp(png.string());
  REQUIRE(bytes.size() > 1000);
  CHECK(bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
}
} // namespace

TEST_CASE("plot draws a sweep's metrics against its load, a colour per policy, mean and min-max over seeds",
          "[cli][plot][figures]")
{
  const auto dir = colocsim::test::fresh_dir("figures-test", "real");
  write_file(dir / "scenario.yaml", SCENARIO);
  write_file(dir / "spec.yaml", SPEC);
  const auto out = dir / "out";
  const auto swept =
      cli_spawning_binary({"sweep", (dir / "spec.yaml").string(), "-j", "2", "-o", out.string(), "--quiet"});
  INFO(swept.err);
  REQUIRE(swept.status == 0);
  const auto r =
      cli_spawning_binary({"plot", out.string(), "--metrics", "makespan_s,energy_total_j,utilization"});
  INFO(r.err);
  REQUIRE(r.status == 0);

  // The numbers, from sweep.csv: per (policy, rate), the metric's values over the 3 seeds.
  const auto rows = read_csv_cells(out / "sweep.csv");
  REQUIRE(rows.size() == 13);
  const auto col = [&](const std::string& name) {
    const auto it = std::find(rows[0].begin(), rows[0].end(), name);
    REQUIRE(it != rows[0].end());
    return static_cast<std::size_t>(it - rows[0].begin());
  };
  const auto c_policy = col("policy"), c_rate = col("workload.synthetic.arrival_rate_per_s");

  // Units: makespans reach beyond 2 h here (checked below), so hours; energies of a few kWh (1 kWh =
  // 3.6e6 J); utilisation is a fraction, drawn in % (× 100). The names come from the summary field table.
  struct Case {
    std::string metric, unit;
    double per_unit; // value in summary.json's unit per drawn unit
  };
  for (const Case& m : {Case{"makespan_s", "h", 3600}, Case{"energy_total_j", "kWh", 3.6e6},
                        Case{"utilization", "%", 0.01}}) {
    INFO(m.metric);
    std::map<std::pair<std::string, std::string>, std::vector<double>> values;
    double largest = 0;
    for (std::size_t k = 1; k < rows.size(); ++k) {
      const double v = std::stod(rows[k][col(m.metric)]);
      values[{rows[k][c_policy], rows[k][c_rate]}].push_back(v / m.per_unit);
      largest = std::max(largest, v);
    }
    if (m.metric == "makespan_s") CHECK(largest >= 7200);
    if (m.metric == "energy_total_j") CHECK((largest >= 3.6e4 && largest < 3.6e9));
    REQUIRE(values.size() == 4);

    const auto file = out / ("sweep-" + m.metric + ".svg");
    const std::string svg = slurp(file.string());
    const auto all = texts(svg);
    const auto* field = colocsim::find_summary_field(m.metric);
    REQUIRE(field != nullptr);
    const std::string y_title = std::string(field->label) + " (" + m.unit + ")";
    CHECK(std::count_if(all.begin(), all.end(),
                        [&](const Text& t) { return t.cls == "axis-title" && t.content == y_title; }) == 1);
    CHECK(std::count_if(all.begin(), all.end(), [&](const Text& t) {
            return t.cls == "axis-title" && t.content == "workload.synthetic.arrival_rate_per_s";
          }) == 1);
    // The legend names every policy, and says what a point and a bar are.
    for (const char* policy : {"exclusive-fcfs", "first-fit"})
      CHECK(std::count_if(all.begin(), all.end(),
                          [&](const Text& t) { return t.cls == "legend" && t.content == policy; }) == 1);
    CHECK_THAT(svg, ContainsSubstring(">mean over seeds (3 run(s) each)</text>") &&
                        ContainsSubstring(">bar: min–max over seeds</text>"));

    // Every point: mean and bar ends through the axis's map; one colour per policy.
    const YAxis axis = y_axis(svg);
    const auto drawn = points(svg);
    REQUIRE(drawn.size() == 4);
    std::map<std::string, std::set<std::string>> fills;
    std::map<std::string, std::set<double>> x_of_rate;
    for (const auto& p : drawn) {
      INFO(p.colour_value << " at " << p.x_value);
      const auto& v = values.at({p.colour_value, p.x_value});
      REQUIRE(v.size() == 3);
      double mean = 0;
      for (double x : v)
        mean += x / 3;
      const double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
      CHECK(hi > lo);
      const double tol = 1e-4 * axis.range();
      CHECK(axis.value(p.cy) == Approx(mean).margin(tol));
      CHECK(axis.value(p.range_y1) == Approx(lo).margin(tol));
      CHECK(axis.value(p.range_y2) == Approx(hi).margin(tol));
      fills[p.colour_value].insert(p.fill);
      x_of_rate[p.x_value].insert(p.cx);
    }
    REQUIRE(fills.size() == 2);
    CHECK(fills["exclusive-fcfs"].size() == 1);
    CHECK(fills["first-fit"].size() == 1);
    CHECK(*fills["exclusive-fcfs"].begin() != *fills["first-fit"].begin());
    // The higher rate lies to the right (the two policies side by side, a few pixels apart).
    CHECK(*x_of_rate["0.005"].rbegin() + 100 < *x_of_rate["0.02"].begin());
    check_no_overlap(svg);
    check_renders(file);
  }
  fs::remove_all(dir);
}

TEST_CASE("plot's --metrics, --x and --colour are checked against the sweep's columns",
          "[cli][plot][figures]")
{
  const auto dir = colocsim::test::fresh_dir("figures-test", "options");
  write_file(dir / "sweep.csv", "run,status,policy,platform.sharing,seed,makespan_s,utilization\n"
                                "run-0001,ok,first-fit,time-slice,1,100,0.5\n"
                                "run-0002,ok,first-fit,ccs-2,1,140,0.25\n"
                                "run-0003,ok,exclusive-fcfs,time-slice,1,200,0.75\n"
                                "run-0004,failed,exclusive-fcfs,ccs-2,1,,\n");
  const auto d = dir.string();
  auto r = cli_spawning_binary({"plot", d, "--x", "sharing"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("--x: 'sharing' is not an axis of " + d +
                                      "/sweep.csv; its axes: policy, platform.sharing"));
  r = cli_spawning_binary({"plot", d, "--colour", "seed"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("--colour: 'seed' is not an axis"));
  r = cli_spawning_binary({"plot", d, "--x", "policy", "--colour", "policy"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("--x and --colour name the same axis 'policy'"));
  r = cli_spawning_binary({"plot", d, "--metrics", "makespan_s,energy_kwh"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("--metrics: 'energy_kwh' is not a metric of " + d +
                                      "/sweep.csv; its metrics (numbers of summary.json): makespan_s, "
                                      "utilization"));
  CHECK_FALSE(fs::exists(dir / "sweep-makespan_s.svg")); // nothing written before every chart is drawn
  r = cli_spawning_binary({"plot", d, "--metrics", "makespan_s,,utilization"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("option --metrics expects metric names separated by commas"));

  // Both axes are categories: x = sharing, colour = policy by default; swapped with --x policy. The failed
  // run is counted in the legend; utilisation is drawn in %: 0.5 → 50 %.
  r = cli_spawning_binary({"plot", d, "--metrics", "utilization"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::string svg = slurp((dir / "sweep-utilization.svg").string());
  CHECK_THAT(svg, ContainsSubstring(">utilisation by platform.sharing and policy</text>"));
  CHECK_THAT(svg, ContainsSubstring("<title>policy first-fit, platform.sharing time-slice: mean 50 %, "
                                    "min–max 50–50 %, 1 run(s)</title>"));
  CHECK_THAT(svg, ContainsSubstring(">1 failed run(s) left out</text>"));
  check_no_overlap(svg);
  r = cli_spawning_binary({"plot", d, "--metrics", "utilization", "--x", "policy", "--force"});
  REQUIRE(r.status == 0);
  svg = slurp((dir / "sweep-utilization.svg").string());
  CHECK_THAT(svg, ContainsSubstring(">utilisation by policy and platform.sharing</text>"));
  CHECK_THAT(svg, ContainsSubstring(">time-slice</text>") && ContainsSubstring(">ccs-2</text>"));
  CHECK(points(svg).size() == 3);
  check_no_overlap(svg);
  check_renders(dir / "sweep-utilization.svg");

  // A sweep.csv with a header only has nothing to draw: refused, not an empty or broken chart.
  fs::create_directories(dir / "empty");
  write_file(dir / "empty" / "sweep.csv", "run,status,policy,seed,makespan_s\n");
  r = cli_spawning_binary({"plot", (dir / "empty").string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("empty/sweep.csv: holds no runs (a header only)"));
  CHECK_FALSE(fs::exists(dir / "empty" / "sweep-makespan_s.svg"));

  fs::create_directories(dir / "run");
  write_file(dir / "run" / "jobs.csv", "id,submit_s,start_s,end_s,status,attempts,devices,profile\n");
  r = cli_spawning_binary({"plot", (dir / "run").string(), "--x", "policy"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("--metrics and --x are for sweep directories"));
  fs::remove_all(dir);
}

TEST_CASE("plot tells a third axis apart by mark shape and marks points whose runs lost jobs",
          "[cli][plot][figures][compare]")
{
  // policy (colour) × platform.sharing (x, categories: no line joins the points) × memory (the third axis).
  // A dash pattern alone cannot show the third axis here: its marks must differ. The mig-manager run lost
  // jobs (1,766 of 2,932 completed): its point is hollow, and the legend says how many of them completed.
  const auto dir = colocsim::test::fresh_dir("figures-test", "third-axis");
  write_file(dir / "sweep.csv",
             "run,status,policy,platform.sharing,policy.params.memory,seed,energy_total_j,jobs_read,"
             "jobs_completed\n"
             "run-0001,ok,first-fit,time-slice,declared,1,4.0e8,2932,2932\n"
             "run-0002,ok,first-fit,time-slice,profile,1,4.2e8,2932,2932\n"
             "run-0003,ok,mig-manager,mig,declared,1,2.9e8,2932,1766\n"
             "run-0004,ok,mig-manager,mig,profile,1,3.1e8,2932,2932\n"
             "run-0005,infeasible,first-fit,mig,declared,1,,,\n");
  const auto r = cli_spawning_binary(
      {"plot", dir.string(), "--metrics", "energy_total_j", "--x", "platform.sharing", "--colour", "policy"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto file = dir / "sweep-energy_total_j.svg";
  const std::string svg = slurp(file.string());
  const std::regex group(
      "<g class=\"point\" data-colour=\"([^\"]*)\" data-x=\"([^\"]*)\" data-style=\"([^\"]*)\">"
      "([\\s\\S]*?)</g>");
  std::map<std::string, std::set<std::string>> shapes; // per style: the mark elements used
  std::map<std::string, std::string> mark_of;          // per point: its mean mark
  for (std::sregex_iterator it(svg.begin(), svg.end(), group), end; it != end; ++it) {
    const std::string body = (*it)[4];
    std::smatch m;
    REQUIRE(std::regex_search(body, m, std::regex("<(circle|rect|polygon) class=\"mean\"[^>]*>")));
    shapes[(*it)[3]].insert(m[1].str());
    mark_of[(*it)[1].str() + " " + (*it)[2].str() + " " + (*it)[3].str()] = m[0];
    // Every point's tooltip says how many of its jobs completed.
    CHECK(body.find(", jobs completed ") != std::string::npos);
  }
  REQUIRE(mark_of.size() == 4); // the infeasible run is no point
  REQUIRE(shapes.size() == 2);
  CHECK(shapes["policy.params.memory=declared"] != shapes["policy.params.memory=profile"]);
  // The point that lost jobs is hollow, the others filled.
  for (const auto& [point, mark] : mark_of) {
    INFO(point << ": " << mark);
    CHECK((mark.find("fill=\"white\"") != std::string::npos) ==
          (point == "mig-manager mig policy.params.memory=declared"));
  }
  CHECK_THAT(svg, ContainsSubstring(">hollow: not every job completed</text>") &&
                      ContainsSubstring(
                          ">mig-manager, mig, policy.params.memory=declared: 1766 of 2932 jobs</text>") &&
                      ContainsSubstring("jobs completed 1766 of 2932 (not all)"));
  CHECK_THAT(svg, !ContainsSubstring("failed run(s)"));
  check_no_overlap(svg);
  check_renders(file);
  fs::remove_all(dir);
}
