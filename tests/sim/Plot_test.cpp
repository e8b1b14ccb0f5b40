// `colocsim plot`: SVG figures from the files a run or a sweep wrote (hand-made fixtures here, so each bar
// and lane is known), deterministic bytes, the no-overwrite rule and located errors for bad files.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "sim/cli/Cli.hpp"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

using colocsim::run_cli;
using colocsim::test::ContainsSubstring;
using colocsim::test::slurp;

namespace {
namespace fs = std::filesystem;
using Result = colocsim::test::CliResult;
using colocsim::test::cli;

fs::path fresh_dir(const std::string& name)
{
  return colocsim::test::fresh_dir("plot-test", name);
}

using colocsim::test::write_file;

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
  const auto dir = fresh_dir("run");
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
  CHECK_THAT(gantt, ContainsSubstring("(3 jobs started)"));
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
  // Two profiles in the legend.
  CHECK_THAT(gantt, ContainsSubstring(">p1</text>") && ContainsSubstring(">p2</text>"));

  const std::string power = slurp((dir / "power.svg").string());
  CHECK(count(power, "<path d=\"M") == 5); // total, devices, node; running, waiting
  CHECK_THAT(power, ContainsSubstring("H"));

  // Same files, same bytes; an earlier plot is not overwritten without --force.
  const auto again = cli({"plot", dir.string()});
  CHECK(again.status == 2);
  CHECK_THAT(again.err, ContainsSubstring("gantt.svg: exists (an earlier plot); pass --force"));
  const auto other = dir / "other";
  REQUIRE(cli({"plot", dir.string(), "-o", other.string()}).status == 0);
  CHECK(slurp((other / "gantt.svg").string()) == gantt);
  CHECK(slurp((other / "power.svg").string()) == power);
  fs::remove_all(dir);
}

TEST_CASE("plot draws a sweep: the metric's mean per combination with its min-max range", "[cli][plot]")
{
  const auto dir = fresh_dir("sweep");
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
  CHECK_THAT(chart, ContainsSubstring("makespan_s per policy"));
  CHECK_THAT(chart, ContainsSubstring("<title>first-fit: 120 (2 run(s))</title>"));
  CHECK_THAT(chart, ContainsSubstring("<title>exclusive-fcfs: 200 (1 run(s), 1 failed)</title>"));
  CHECK(count(chart, "<title>") == 2);

  const auto bad = cli({"plot", dir.string(), "--metric", "nope", "--force"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, ContainsSubstring("sweep.csv:1: nope: missing column"));
  fs::remove_all(dir);
}

TEST_CASE("plot refuses what it cannot draw, with the file, line and field", "[cli][plot]")
{
  const auto dir = fresh_dir("bad");
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
  CHECK(cli({"plot"}).status == 2);
  CHECK(cli({"plot", dir.string(), "--max-devices", "0"}).status == 2);
  fs::remove_all(dir);
}
