// `colocsim plot`: SVG figures from the files a run or a sweep wrote (hand-made fixtures here, so each bar
// and lane is known), deterministic bytes, the no-overwrite rule and located errors for bad files.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "base/Gzip.hpp"
#include "cli/Cli.hpp"
#include "cli/PlotRun.hpp"

#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <regex>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace colocsim::test;

namespace {
namespace fs = std::filesystem;

const colocsim::test::ScratchDirs scratch_dir{"plot-test"};

std::size_t count(const std::string& text, const std::string& what)
{
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
    ++n;
  return n;
}

const char* const JOBS =
    R"(id,submit_s,start_s,end_s,status,attempts,devices,profile,slowdown,energy_j,jct_s,wait_s
a,0,0,100,completed,1,0,p1,1,100,100,0
b,0,10,60,completed,1,0,p2,1,100,60,10
c,5,20,80,failed,4,1,p1,,50,,15
"d,quoted",5,,,never-started,0,,p2,,0,,
)";
const char* const SERIES =
    R"(t_s,device_power_w,node_power_w,total_power_w,busy_devices,running_jobs,waiting_jobs
0,100,500,600,1,1,1
10,200,500,700,2,2,1
100,50,500,550,0,0,0
)";
} // namespace

TEST_CASE("plot draws a run: a bar per started job, co-located jobs in lanes, power as steps", "[cli][plot]")
{
  const auto dir = scratch_dir("run");
  write_file(dir / "jobs.csv", JOBS);
  write_file(dir / "timeseries.csv", SERIES);
  const auto r = cli({"plot", dir.string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, ContainsSubstring("gantt.svg") && ContainsSubstring("power.svg"));
  const std::string gantt = slurp((dir / "gantt.svg").string());
  CHECK(gantt.rfind("<?xml", 0) == 0);
  CHECK(gantt.size() > 100);
  CHECK(gantt.substr(gantt.size() - 7) == "</svg>\n");
  // a, b and c started (d never did): three bars with tooltips; c failed (pale, red edge) and was retried.
  CHECK(count(gantt, "<title>") == 3);
  CHECK_THAT(gantt, ContainsSubstring("<title>c (p1): 20–80 s, failed, attempts 4</title>"));
  CHECK(count(gantt, "fill-opacity=\"0.35\"") == 1);
  CHECK(count(gantt, "stroke-dasharray") == 1);
  CHECK_THAT(gantt, ContainsSubstring("(3 jobs, 3 bars)"));
  // a and b overlap on d0: they get two lanes, so their bars start at different heights.
  std::smatch m;
  std::vector<std::string> ys;
  std::string rest = gantt;
  const std::regex bar("<rect x=\"[0-9.]+\" y=\"([0-9.]+)\" width=\"[0-9.]+\" height=\"([0-9.]+)\" fill=\"#");
  while (std::regex_search(rest, m, bar)) {
    ys.push_back(m[1]);
    rest = m.suffix();
  }
  REQUIRE(ys.size() >= 3);
  CHECK(ys[0] != ys[1]);
  // Coloured by job (default): no profile legend.
  CHECK_THAT(gantt, ContainsSubstring("colour: one per job"));
  CHECK(gantt.find(">p1</text>") == std::string::npos);

  // Three rows: exact steps (fewer rows than pixel columns), in W, time in s (100 s run).
  const std::string power = slurp((dir / "power.svg").string());
  CHECK(count(power, "<path d=\"M") == 3); // total, devices, node
  CHECK_THAT(power, ContainsSubstring("power (W)") && ContainsSubstring("time (s)"));
  CHECK_THAT(power, ContainsSubstring("3 steps, drawn exactly"));
  const std::string util = slurp((dir / "utilisation.svg").string());
  CHECK(count(util, "<path d=\"M") == 3); // busy devices; running, waiting
  // No summary.json: the device count is unknown, so busy devices are drawn as a count.
  CHECK_THAT(util, ContainsSubstring("busy devices</text>") && ContainsSubstring("waiting (queue)"));

  // Same files, same bytes; an earlier plot is not overwritten without --force.
  const auto again = cli({"plot", dir.string()});
  CHECK(again.status == 2);
  CHECK_THAT(again.err, ContainsSubstring("gantt.svg: exists (an earlier plot); pass --force"));
  const auto other = dir / "other";
  REQUIRE(cli({"plot", dir.string(), "-o", other.string()}).status == 0);
  CHECK(slurp((other / "gantt.svg").string()) == gantt);
  CHECK(slurp((other / "power.svg").string()) == power);
  // Coloured by profile: two profiles in the legend.
  REQUIRE(cli({"plot", dir.string(), "-o", (dir / "profile").string(), "--colour", "profile"}).status == 0);
  const std::string by_profile = slurp((dir / "profile" / "gantt.svg").string());
  CHECK_THAT(by_profile, ContainsSubstring(">p1</text>") && ContainsSubstring(">p2</text>"));
  fs::remove_all(dir);
}

TEST_CASE("plot draws a sweep: the metric's mean per axis value with its min-max range", "[cli][plot]")
{
  const auto dir = scratch_dir("sweep");
  write_file(dir / "sweep.csv", "run,status,policy,seed,makespan_s,energy_total_j\n"
                                "run-0001,ok,first-fit,1,100,10\n"
                                "run-0002,ok,first-fit,2,140,12\n"
                                "run-0003,ok,exclusive-fcfs,1,200,20\n"
                                "run-0004,failed,exclusive-fcfs,2,,\n");
  const auto r = cli({"plot", dir.string(), "--metric", "makespan_s", "--metric", "energy_total_j"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::string chart = slurp((dir / "sweep-makespan_s.svg").string());
  CHECK(fs::exists(dir / "sweep-energy_total_j.svg"));
  // One axis: it is both x and colour. Makespans up to 200 s are drawn in minutes: 120 s = 2 min,
  // 100 s = 1.6667 min, 140 s = 2.3333 min, 200 s = 3.3333 min.
  CHECK_THAT(chart, ContainsSubstring(">makespan by policy</text>"));
  CHECK_THAT(chart, ContainsSubstring(">makespan (min)</text>"));
  CHECK_THAT(chart, ContainsSubstring("<title>policy first-fit: mean 2 min, min–max 1.6667–2.3333 min, 2 "
                                      "run(s)</title>"));
  CHECK_THAT(chart, ContainsSubstring("<title>policy exclusive-fcfs: mean 3.3333 min, min–max 3.3333–3.3333 "
                                      "min, 1 run(s), 1 failed</title>"));
  CHECK(count(chart, "<title>") == 2);

  const auto bad = cli({"plot", dir.string(), "--metric", "nope", "--force"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err,
             ContainsSubstring("--metrics: 'nope' is not a metric of " + dir.string() + "/sweep.csv"));
  fs::remove_all(dir);
}

TEST_CASE("plot refuses what it cannot draw, with the file, line and field", "[cli][plot]")
{
  const auto dir = scratch_dir("bad");
  auto r = cli({"plot", (dir / "none").string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("not a directory"));
  r = cli({"plot", dir.string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("holds no results to plot"));
  write_file(dir / "jobs.csv",
             "id,submit_s,start_s,end_s,status,attempts,devices,profile\na,0,x,5,completed,1,0,p\n");
  r = cli({"plot", dir.string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("jobs.csv:2: start_s: not a number (got 'x')"));
  write_file(dir / "jobs.csv", "id,submit_s\na,0,1\n");
  r = cli({"plot", dir.string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("jobs.csv:2: expected 2 fields as in the header (got 3)"));
  // A quote left open at the end of the line was read as if closed (and the run plotted); now it is refused.
  write_file(dir / "jobs.csv",
             "id,submit_s,start_s,end_s,status,attempts,devices,profile\na,0,1,5,completed,1,0,\"p\n");
  r = cli({"plot", dir.string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("jobs.csv:2: unterminated quoted field; expected a closing '\"' on the "
                                      "same line"));
  // Rows out of time order would draw a wrong step function: refused at the row.
  fs::remove(dir / "jobs.csv");
  write_file(dir / "timeseries.csv",
             "t_s,device_power_w,node_power_w,total_power_w,busy_devices,running_jobs,waiting_jobs\n"
             "0,1,1,2,0,0,0\n10,1,1,2,0,0,0\n5,1,1,2,0,0,0\n");
  r = cli({"plot", dir.string()});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("timeseries.csv:4: t_s: goes back in time (5 after 10)"));
  CHECK(cli({"plot"}).status == 2);
  CHECK(cli({"plot", dir.string(), "--max-devices", "0"}).status == 2);
  fs::remove_all(dir);
}

// --- figures in a size bounded by pixels (cli/PlotRun.hpp)
// ---------------------------------------------------

namespace {
const char* const WINDOW_JOBS =
    R"(id,submit_s,start_s,end_s,status,attempts,devices,profile,slowdown,energy_j,jct_s,wait_s
a,0,0,100,completed,1,0,p1,1,100,100,0
b,0,10,60,completed,1,0,p2,2,100,60,10
c,5,20,80,failed,4,1,p1,,50,,15
e,100,120,150,completed,1,2,p1,3,10,50,20
f,80,90,130,completed,1,1;2,p2,1.5,10,50,10
g,150,200,260,completed,1,3,p1,1,10,110,50
h,5,,,never-started,0,,p2,,0,,
)";
const char* const WINDOW_SERIES =
    R"(t_s,device_power_w,node_power_w,total_power_w,busy_devices,running_jobs,waiting_jobs
0,100,500,600,1,2,0
260,0,500,500,0,0,0
)";

/// The job ids of the bars of a Gantt chart, in the order drawn (one per bar, a gang job once per device).
std::vector<std::string> bar_ids(const std::string& svg)
{
  std::vector<std::string> ids;
  const std::regex title("<title>([^ ]+) \\(");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), title); it != std::sregex_iterator(); ++it)
    ids.push_back((*it)[1]);
  std::sort(ids.begin(), ids.end());
  return ids;
}
} // namespace

TEST_CASE("plot envelope: min, max and mean of a step function per pixel column, worked out by hand",
          "[plot]")
{
  using colocsim::plot::envelope;
  // 100 W on [0,10), a spike of 500 W on [10,10.5) (shorter than a bin), 200 W on [10.5,30), 50 W on
  // [30,40), then 80 W from t = 40 (the last row: the state after the last event).
  const std::vector<double> t{0, 10, 10.5, 30, 40}, v{100, 500, 200, 50, 80};
  // Bins of 10 s over [0, 40]:
  //   [0,10)   100 only                        min 100 max 100 mean 100
  //   [10,20)  500 for 0.5 s, 200 for 9.5 s    min 200 max 500 mean (250 + 1900) / 10 = 215
  //   [20,30)  200 (50 starts at 30, the next bin's left edge)    200 200 200
  //   [30,40]  50 for 10 s, 80 at t = 40 itself (the last bin is closed)   min 50 max 80 mean 50
  auto b = envelope(t, v, 0, 40, 4);
  REQUIRE(b.size() == 4);
  const double expect[4][3] = {{100, 100, 100}, {200, 500, 215}, {200, 200, 200}, {50, 80, 50}};
  for (int i = 0; i < 4; ++i) {
    INFO("bin " << i);
    CHECK(b[i].any);
    CHECK(b[i].min == expect[i][0]);
    CHECK(b[i].max == expect[i][1]);
    CHECK_THAT(b[i].mean, WithinAbs(expect[i][2], 1e-9));
  }
  // A window that does not start on a row, [5, 45] in bins of 10 s:
  //   [5,15)   100 5 s, 500 0.5 s, 200 4.5 s   min 100 max 500 mean (500 + 250 + 900) / 10 = 165
  //   [15,25)  200                             200 200 200
  //   [25,35)  200 5 s, 50 5 s                 min 50 max 200 mean 125
  //   [35,45]  50 5 s, 80 5 s                  min 50 max 80 mean 65
  b = envelope(t, v, 5, 45, 4);
  const double shifted[4][3] = {{100, 500, 165}, {200, 200, 200}, {50, 200, 125}, {50, 80, 65}};
  for (int i = 0; i < 4; ++i) {
    INFO("shifted bin " << i);
    CHECK(b[i].min == shifted[i][0]);
    CHECK(b[i].max == shifted[i][1]);
    CHECK_THAT(b[i].mean, WithinAbs(shifted[i][2], 1e-9));
  }
  // Before the first row the function is not defined: [-10, 0) has nothing; [0, 10] has 100 W for 10 s and
  // the 500 W that starts at t = 10, the window's closed end: min 100, max 500, mean 100.
  b = envelope(t, v, -10, 10, 2);
  CHECK_FALSE(b[0].any);
  REQUIRE(b[1].any);
  CHECK(b[1].min == 100);
  CHECK(b[1].max == 500);
  CHECK_THAT(b[1].mean, WithinAbs(100, 1e-9));
}

TEST_CASE("plot draws a long series per pixel column: a spike shorter than a column still shows",
          "[cli][plot]")
{
  const auto dir = scratch_dir("spike");
  // 1000 W from t = 0 to 2000 s, one row a second, and a 5000 W spike on [1000.5, 1000.5005): 2003 rows,
  // more than the 900 pixel columns, so the figure draws the envelope. Columns of 2000/900 s: the spike is in
  // column 450 = [1000, 1002.22) (x 530..531). Power axis: peak 5000 W, in W, to 5000 × 1.05 = 5250 W over
  // 300 px from y = 56: y(5000) = 356 − 5000/5250·300 = 70.29, y(1000) = 298.86. The column's mean is
  // 1000 + 4000 × 0.0005 / (2000/900) = 1000.9 W: y = 356 − 1000.9/5250·300 = 298.81.
  std::ostringstream series;
  series << "t_s,device_power_w,node_power_w,total_power_w,busy_devices,running_jobs,waiting_jobs\n";
  for (int k = 0; k <= 2000; ++k) {
    series << k << ",500,500,1000,1,1,0\n";
    if (k == 1000) series << "1000.5,4500,500,5000,1,1,0\n1000.5005,500,500,1000,1,1,0\n";
  }
  write_file(dir / "timeseries.csv", series.str());
  const auto r = cli({"plot", dir.string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::string power = slurp((dir / "power.svg").string());
  CHECK_THAT(power, ContainsSubstring("2003 steps; per pixel column: band = min–max, line = mean"));
  CHECK_THAT(power, ContainsSubstring("peak 5000 W"));
  // The total's band (max along the top) and its mean line.
  CHECK_THAT(power, ContainsSubstring("H530V70.29H531V298.86H532"));
  CHECK_THAT(power, ContainsSubstring("H530V298.81H531V298.86H532"));
  // Bounded by the pixels: 3 series × 900 columns, whatever the number of rows.
  CHECK(power.size() < 200'000);

  // Units people read: 25 MW over 5 days is drawn in MW and days.
  write_file(dir / "timeseries.csv",
             "t_s,device_power_w,node_power_w,total_power_w,busy_devices,running_jobs,waiting_jobs\n"
             "0,20e6,5e6,25e6,10,10,3\n432000,0,5e6,5e6,0,0,0\n");
  REQUIRE(cli({"plot", dir.string(), "--force"}).status == 0);
  const std::string mw = slurp((dir / "power.svg").string());
  CHECK_THAT(mw, ContainsSubstring("power (MW)") && ContainsSubstring("time (days)"));
  CHECK_THAT(mw, ContainsSubstring("Power over time, 0 days to 5 days"));
  CHECK_THAT(mw, ContainsSubstring("peak 25 MW"));
  fs::remove_all(dir);
}

TEST_CASE("plot --from/--to/--devices select exactly the jobs that run in the window on those devices",
          "[cli][plot]")
{
  const auto dir = scratch_dir("window");
  write_file(dir / "jobs.csv", WINDOW_JOBS);
  write_file(dir / "timeseries.csv", WINDOW_SERIES);
  int plots = 0;
  auto plot = [&](std::vector<std::string> extra) {
    const auto out = dir / std::to_string(++plots);
    std::vector<std::string> args{"plot", dir.string(), "-o", out.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = cli(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return slurp((out / "gantt.svg").string());
  };
  // 70..125 s on devices 1-2: c (20-80, d1), e (120-150, d2) and f (90-130, d1 and d2: two bars); a and b
  // are on d0, g starts at 200.
  std::string g = plot({"--from", "70", "--to", "125", "--devices", "1-2"});
  CHECK(bar_ids(g) == std::vector<std::string>{"c", "e", "f", "f"});
  CHECK_THAT(g, ContainsSubstring("Jobs on devices 1–2, 70 s to 125 s (3 jobs, 4 bars)"));
  // c is cut at the window's start: x from 80 (the axis) to x(80 s) = 80 + 10/55 × 900 = 243.64.
  CHECK_THAT(g, ContainsSubstring("<rect x=\"80\" y=\"57\" width=\"163.64\""));
  // 100..120 s: a ends at 100 and e starts at 120 (the window is half-open for jobs), so only f.
  g = plot({"--from", "100", "--to", "120"});
  CHECK(bar_ids(g) == std::vector<std::string>{"f", "f"});
  // One device; a time with a unit (0.1 min = 6 s): only a runs on d0 before 6 s (b starts at 10).
  CHECK(bar_ids(plot({"--devices", "3"})) == std::vector<std::string>{"g"});
  CHECK(bar_ids(plot({"--devices", "0", "--to", "0.1min"})) == std::vector<std::string>{"a"});

  // Colour by slowdown: 1 .. 3 on viridis; a (1) the lowest colour, e (3) the highest, b (2) the middle
  // stop #21918c, f (1.5) the quarter stop #3b528b; c (failed, no slowdown) grey.
  g = plot({"--colour", "slowdown"});
  CHECK_THAT(g, ContainsSubstring("fill=\"#440154\"><title>a (p1)"));
  CHECK_THAT(g, ContainsSubstring("fill=\"#fde725\"><title>e (p1)"));
  CHECK_THAT(g, ContainsSubstring("fill=\"#21918c\"><title>b (p2)"));
  CHECK_THAT(g, ContainsSubstring("fill=\"#3b528b\"><title>f (p2)"));
  CHECK_THAT(g, ContainsSubstring("fill=\"#bbbbbb\" fill-opacity=\"0.35\""));
  CHECK_THAT(g, ContainsSubstring(">slowdown</text>"));
  // Coloured by job: six jobs drawn, six colours (f's two bars share one).
  g = plot({"--colour", "job"});
  std::set<std::string> fills;
  const std::regex fill("fill=\"(#[0-9a-f]{6})\"[^>]*><title>");
  for (auto it = std::sregex_iterator(g.begin(), g.end(), fill); it != std::sregex_iterator(); ++it)
    fills.insert((*it)[1]);
  CHECK(fills.size() == 6);
  // The density view on request: an image, no bars.
  g = plot({"--view", "density"});
  CHECK_THAT(g, ContainsSubstring("xlink:href=\"data:image/png;base64,iVBORw0KGgo"));
  CHECK(count(g, "<title>") == 0);
  CHECK_THAT(g, ContainsSubstring("density view (--view density)"));
  fs::remove_all(dir);
}

TEST_CASE("plot density view: mean jobs per device and time column, worked out by hand", "[plot]")
{
  // WINDOW_JOBS as rows: a 0-100 d0, b 10-60 d0, c 20-80 d1, e 120-150 d2, f 90-130 d1;d2, g 200-260 d3.
  std::vector<colocsim::plot::JobRow> jobs;
  auto job = [&](const char* id, double start, double end, std::vector<std::size_t> devices) {
    colocsim::plot::JobRow j;
    j.id = id;
    j.start = start;
    j.end = end;
    j.devices = std::move(devices);
    jobs.push_back(j);
  };
  job("a", 0, 100, {0});
  job("b", 10, 60, {0});
  job("c", 20, 80, {1});
  job("e", 120, 150, {2});
  job("f", 90, 130, {1, 2});
  job("g", 200, 260, {3});
  colocsim::plot::JobRow never; // never started: not drawn
  never.id = "h";
  jobs.push_back(never);
  // Columns of 100 s over [0, 300]:
  //   d0: a 100 s + b 50 s in [0,100) → 1.5; nothing after (a ends at 100)
  //   d1: c 60 s + f 10 s → 0.7; f 30 s in [100,200) → 0.3
  //   d2: f 10 s → 0.1; e 30 s + f 30 s → 0.6
  //   d3: g 60 s in [200,300] → 0.6
  auto d = colocsim::plot::density(jobs, 0, 300, 0, 3, 3);
  REQUIRE(d.rows == 4);
  REQUIRE(d.cols == 3);
  CHECK(d.group == 1);
  const double expect[4][3] = {{1.5, 0, 0}, {0.7, 0.3, 0}, {0.1, 0.6, 0}, {0, 0, 0.6}};
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t c = 0; c < 3; ++c) {
      INFO("d" << r << " column " << c);
      CHECK_THAT(d.value[r * 3 + c], WithinAbs(expect[r][c], 1e-12));
    }
  // Columns of 10 s over [0, 60] on d0 only: a covers every column whole, b [10, 60) columns 1-5 whole.
  d = colocsim::plot::density(jobs, 0, 60, 0, 0, 6);
  REQUIRE(d.rows == 1);
  const double d0[6] = {1, 2, 2, 2, 2, 2};
  for (std::size_t c = 0; c < 6; ++c)
    CHECK_THAT(d.value[c], WithinAbs(d0[c], 1e-12));
  // Rows of several devices beyond 600: devices 0-1199 in rows of 2; a on d0 alone is half of row 0.
  d = colocsim::plot::density(jobs, 0, 100, 0, 1199, 1);
  CHECK(d.group == 2);
  CHECK(d.rows == 600);
  CHECK_THAT(d.value[0], WithinAbs((100.0 + 50.0 + 60.0 + 10.0) / (100 * 2), 1e-12)); // d0 and d1
}

TEST_CASE("plot refuses bad windows, device ranges, views and colours, writing nothing", "[cli][plot]")
{
  const auto dir = scratch_dir("badopts");
  write_file(dir / "jobs.csv", WINDOW_JOBS);
  write_file(dir / "timeseries.csv", WINDOW_SERIES);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--devices", "2-1"},
       "option --devices expects a device range A-B with 0 <= A <= B, or one device A "
       "(got '2-1')"},
      {{"--devices", "x"}, "option --devices expects a device range"},
      {{"--devices", "-3"}, "option --devices expects a device range"},
      {{"--devices", "9-12"}, "--devices 9-12: jobs.csv places jobs on devices 0-3 only"},
      {{"--from", "100", "--to", "50"}, "--from 100 s must be before --to 50 s"},
      {{"--from", "soon"},
       "option --from expects a time, seconds or with a unit (90s, 30min, 2h) (got 'soon')"},
      {{"--to", "-5"}, "option --to expects a time"},
      {{"--from", "1000"}, "--from 1000 is at or after the last job's end in jobs.csv (260 s)"},
      {{"--to", "0"}, "--to 0 is at or before the first submission in jobs.csv (0 s)"},
      {{"--view", "pie"}, "option --view expects auto, bars or density (got 'pie')"},
      {{"--colour", "red"}, "option --colour expects job, profile or slowdown (got 'red')"},
      {{"--colour"}, "option --colour needs a value"},
  };
  for (const auto& [extra, message] : cases) {
    std::vector<std::string> args{"plot", dir.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = cli(args);
    INFO(extra.front() << " " << extra.back());
    CHECK(r.status == 2);
    CHECK_THAT(r.err, ContainsSubstring(message));
    CHECK_FALSE(fs::exists(dir / "gantt.svg"));
    CHECK_FALSE(fs::exists(dir / "power.svg"));
  }
  // No job ever started: no device to show.
  const auto idle = dir / "idle";
  fs::create_directories(idle);
  write_file(idle / "jobs.csv", "id,submit_s,start_s,end_s,status,attempts,devices,profile\n"
                                "h,5,,,never-started,0,,p2\n");
  auto r0 = cli({"plot", idle.string(), "--devices", "3-5"});
  CHECK(r0.status == 2);
  CHECK_THAT(r0.err, ContainsSubstring("--devices 3-5: jobs.csv places no job on any device"));
  CHECK(cli({"plot", idle.string()}).status == 0);
  const auto sweep = dir / "sweep";
  fs::create_directories(sweep);
  write_file(sweep / "sweep.csv", "run,status,policy,seed,makespan_s\nrun-0001,ok,first-fit,1,100\n");
  const auto r = cli({"plot", sweep.string(), "--devices", "0-1"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("are for run directories"));
  fs::remove_all(dir);
}

TEST_CASE("plot of a 100,000-job run: every figure bounded in size and rendered by rsvg-convert",
          "[cli][plot]")
{
  const auto dir = scratch_dir("100k");
  const auto trace = (dir / "trace.csv").string(), run = (dir / "run").string();
  // 100,000 jobs, one a second, a minute long on average, on 6 nodes (72 tiles): about 200,000 events.
  REQUIRE(cli({"generate", "-o", trace, "--jobs", "100000", "--arrival-rate", "1", "--duration-mean", "60s"})
              .status == 0);
  const auto replay = cli({"replay", trace, "--format", "native", "--nodes", "6", "-o", run, "--quiet"});
  INFO(replay.err);
  REQUIRE(replay.status == 0);
  const auto r = cli({"plot", run});
  INFO(r.err);
  REQUIRE(r.status == 0);
  // Bounds, from the pixels (900 columns): power and utilisation draw 3 series, each a band (≤ 4 commands
  // of ≤ 8 characters a column) and a mean line (≤ 2): ≤ 3 × 900 × 56 ≈ 151 kB, plus axes → 200 kB. The
  // density view is a palette PNG of ≤ 900 × 600 bytes before zlib, base64 × 4/3 ≈ 722 kB → 750 kB.
  // Before the envelopes, power.svg drew every row: about 16 MB for this run.
  const std::vector<std::pair<std::string, std::size_t>> figures{
      {"gantt", 750'000}, {"power", 200'000}, {"utilisation", 200'000}};
  for (const auto& [name, bound] : figures) {
    INFO(name);
    const std::string svg = slurp(run + "/" + name + ".svg");
    CHECK(svg.size() < bound);
    CHECK(svg.size() > 10'000);
    std::smatch m;
    REQUIRE(std::regex_search(svg, m, std::regex("<svg [^>]*width=\"([0-9]+)\" height=\"([0-9]+)\"")));
    const auto png = run + "/" + name + ".png";
    REQUIRE(colocsim::test::shell("rsvg-convert " + run + "/" + name + ".svg -o " + png) == 0);
    const std::string bytes = slurp(png);
    REQUIRE(bytes.size() > 24);
    CHECK(bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
    auto be32 = [&](std::size_t at) {
      return (static_cast<unsigned char>(bytes[at]) << 24) |
             (static_cast<unsigned char>(bytes[at + 1]) << 16) |
             (static_cast<unsigned char>(bytes[at + 2]) << 8) | static_cast<unsigned char>(bytes[at + 3]);
    };
    CHECK(bytes.substr(12, 4) == "IHDR");
    CHECK(std::to_string(be32(16)) == m[1].str());
    CHECK(std::to_string(be32(20)) == m[2].str());
  }
  const std::string gantt = slurp(run + "/gantt.svg");
  CHECK_THAT(gantt, ContainsSubstring("(100000 jobs)") && ContainsSubstring("density view: "));
  // The utilisation figure knows the platform's 72 tiles (6 nodes × 12) from summary.json.
  CHECK_THAT(slurp(run + "/utilisation.svg"), ContainsSubstring("busy devices ÷ 72"));
  CHECK_THAT(slurp(run + "/power.svg"), ContainsSubstring("time (h)"));
  fs::remove_all(dir);
}

TEST_CASE("plot refuses a cut or corrupt jobs.csv.gz, naming the file, instead of drawing the rows before it",
          "[cli][plot]")
{
  const auto dir = scratch_dir("cut-gzip");
  std::string jobs = "id,submit_s,start_s,end_s,status,attempts,devices,profile\n";
  for (int i = 0; i < 96; ++i)
    jobs += "j" + std::to_string(i) + ",0," + std::to_string(i) + "," + std::to_string(i + 10) +
            ",completed,1," + std::to_string(i % 4) + ",p\n";
  const auto gz = dir / "jobs.csv.gz";
  {
    colocsim::GzipOfstream out(gz.string());
    out << jobs;
    REQUIRE(out.close());
  }
  auto r = cli({"plot", dir.string()}); // the whole file draws
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(slurp((dir / "gantt.svg").string()), ContainsSubstring("(96 jobs, 96 bars)"));
  const std::string bytes = slurp(gz.string());
  for (const std::string damage : {"cut in the data", "cut in the trailer", "bad CRC"}) {
    std::string damaged = bytes;
    if (damage == "cut in the data")
      damaged.resize(damaged.size() * 2 / 3); // "3 of 96 rows" were drawn from such a file, exit 0
    else if (damage == "cut in the trailer")
      damaged.resize(damaged.size() - 4); // every row there, no ISIZE: was drawn whole, exit 0
    else
      damaged[damaged.size() - 8] = static_cast<char>(damaged[damaged.size() - 8] ^ 0x10); // CRC-32
    write_file(gz, damaged);
    r = cli({"plot", dir.string(), "--force"});
    INFO(damage << ": " << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, ContainsSubstring(gz.string() + ": gzip data cut short or corrupt"));
  }
  fs::remove_all(dir);
}

TEST_CASE("plot refuses a FIFO among a run's files at once, never waiting on it", "[cli][plot]")
{
  // Opening a FIFO for reading blocks until a writer comes. The plot runs on another thread; if it has not
  // answered in 20 s, the test opens the write end itself (which releases the reader) and fails.
  const auto dir = scratch_dir("fifo");
  for (const std::string name : {"jobs.csv", "timeseries.csv.gz", "summary.json"}) {
    INFO(name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    if (name != "jobs.csv") write_file(dir / "jobs.csv", JOBS);
    if (name == "summary.json") write_file(dir / "timeseries.csv", SERIES); // summary.json is read with it
    const auto fifo = dir / name;
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    auto plot = std::async(std::launch::async, [&] { return cli({"plot", dir.string()}); });
    if (plot.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
      const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) ::close(fd);
      FAIL_CHECK("plot waited on the FIFO " << fifo.string());
    }
    const auto r = plot.get();
    CHECK(r.status == 2);
    CHECK_THAT(r.err, ContainsSubstring(fifo.string()) && ContainsSubstring("FIFO"));
    CHECK_FALSE(fs::exists(dir / "gantt.svg")); // nothing drawn from a run that could not be read
  }
  fs::remove_all(dir);
}

TEST_CASE("plot --devices-per-node groups the gantt's device rows per node and joins a job across nodes",
          "[cli][plot]")
{
  const auto dir = scratch_dir("nodes");
  // 3 nodes of 2 devices: x on d0 (node 0), y on d1 and d2 (nodes 0 and 1), z on d4 and d5 (node 2 only).
  write_file(dir / "jobs.csv",
             "id,submit_s,start_s,end_s,status,attempts,devices,profile,slowdown,energy_j,jct_s,"
             "wait_s\n"
             "x,0,0,50,completed,1,0,p1,1,1,50,0\n"
             "y,0,10,90,completed,1,1;2,p1,1,1,90,10\n"
             "z,0,20,60,completed,1,4;5,p2,1,1,60,20\n");
  const auto plot = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> args{"plot", dir.string(), "-o", (dir / out).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = cli(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return slurp((dir / out / "gantt.svg").string());
  };
  const std::string g = plot("grouped", {"--devices-per-node", "2"});
  // A group per node, in device order, each with its label; a line between nodes (two), none above node 0.
  const std::regex group(R"re(<g class="node" data-node="(\d+)">\n((?:[^<]|<(?!/g>))*)</g>)re");
  std::vector<std::string> nodes, inside;
  for (auto it = std::sregex_iterator(g.begin(), g.end(), group); it != std::sregex_iterator(); ++it) {
    nodes.push_back((*it)[1]);
    inside.push_back((*it)[2]);
  }
  REQUIRE(nodes == std::vector<std::string>{"0", "1", "2"});
  for (std::size_t n = 0; n < 3; ++n) {
    INFO("node " << n << ": " << inside[n]);
    CHECK_THAT(inside[n], ContainsSubstring(">n" + std::to_string(n) + "</text>"));
    CHECK(count(inside[n], "stroke=\"#333333\"") == (n == 0 ? 0u : 1u));
    CHECK(count(inside[n], "fill=\"#f0f0f0\"") == (n == 1 ? 1u : 0u)); // every other node on a band
  }
  // y runs on nodes 0 and 1: one line through its two bars; z's two bars are on node 2 only: none.
  CHECK(count(g, "class=\"job-span\"") == 1);
  CHECK_THAT(g, ContainsSubstring("<title>y across nodes n0, n1</title>"));
  CHECK(count(g, "<rect x=") - count(g, "fill=\"#f0f0f0\"") ==
        count(plot("plain", {}), "<rect x=")); // the same bars
  // Without the option (or with 1 device per node), no groups, no spans.
  for (const auto& flat : {plot("plain2", {}), plot("one", {"--devices-per-node", "1"})}) {
    CHECK(count(flat, "class=\"node\"") == 0);
    CHECK(count(flat, "job-span") == 0);
  }
  const auto bad = cli({"plot", dir.string(), "--devices-per-node", "0"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err,
             ContainsSubstring("--devices-per-node expects a number of devices, 1..100000 (got '0')"));
  fs::remove_all(dir);
}
