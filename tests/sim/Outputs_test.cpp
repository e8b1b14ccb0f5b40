// Output modes (docs/formats/outputs.md): timeseries.csv every event, per interval or off; gzip-compressed
// outputs; the progress line. The energies of every mode are checked against the summary and against the
// every-event file integrated here by brute force; one interval file is worked out by hand.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "base/Csv.hpp"
#include "base/Gzip.hpp"
#include "base/Utf8.hpp"
#include "cli/Cli.hpp"
#include "sim/Outputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace colocsim::test;

namespace {
namespace fs = std::filesystem;

const colocsim::test::ScratchDirs scratch_dir{"test"};

/// A CSV file of numbers (plain or gzip): the header and each row as doubles.
struct NumTable {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
  std::size_t col(const std::string& name) const
  {
    const auto it = std::find(header.begin(), header.end(), name);
    REQUIRE(it != header.end());
    return static_cast<std::size_t>(it - header.begin());
  }
};

std::vector<std::string> split(const std::string& line)
{
  std::vector<std::string> out;
  std::string f;
  std::istringstream in(line);
  while (std::getline(in, f, ','))
    out.push_back(f);
  return out;
}

NumTable read_numbers(const fs::path& file)
{
  colocsim::GzipIfstream in(file.string());
  REQUIRE(in.is_open());
  NumTable t;
  std::string line;
  std::getline(in, line);
  t.header = split(line);
  while (std::getline(in, line)) {
    std::vector<double> row;
    for (const auto& f : split(line))
      row.push_back(std::stod(f));
    REQUIRE(row.size() == t.header.size());
    t.rows.push_back(std::move(row));
  }
  return t;
}

/// A number field of summary.json.
double summary_number(const fs::path& dir, const std::string& key)
{
  const std::string text = slurp((dir / "summary.json").string());
  const auto at = text.find("\"" + key + "\": ");
  REQUIRE(at != std::string::npos);
  return std::stod(text.substr(at + key.size() + 4));
}

/// summary.json without its wall_s line (the one field that differs between two runs of one scenario).
std::string summary_without_wall(const fs::path& dir)
{
  std::istringstream in(slurp((dir / "summary.json").string()));
  std::string out, line;
  while (std::getline(in, line))
    if (line.find("\"wall_s\"") == std::string::npos) out += line + "\n";
  return out;
}

std::string gunzip(const fs::path& file)
{
  colocsim::GzipIfstream in(file.string());
  REQUIRE(in.is_open());
  std::ostringstream s;
  s << in.rdbuf();
  REQUIRE(in.error().empty());
  return s.str();
}

/// A synthetic workload of `jobs` jobs on one Aurora node (12 tiles), with queueing at times.
fs::path synthetic_scenario(const fs::path& dir, int jobs)
{
  const auto file = dir / "scenario.yaml";
  write_file(file, "name: outputs-test\nseed: 3\nplatform:\n  preset: aurora-node\n  sharing: time-slice\n"
                   "workload:\n  profiles: default\n  synthetic:\n    jobs: " +
                       std::to_string(jobs) +
                       "\n    arrival_rate_per_s: 0.02\n    duration_mean: 600s\n    duration_sigma: 1.0\n"
                       "policy:\n  name: first-fit\n");
  return file;
}
} // namespace

TEST_CASE("timeseries modes: every-event, intervals and off give the same energy to 1e-9", "[cli][outputs]")
{
  const auto dir = scratch_dir("ts-modes");
  const auto scenario = synthetic_scenario(dir, 400).string();
  // Each run in a process of its own: runs in one process share SimGrid's clock, whose base changes the
  // last bits of the times.
  auto run = [&](const std::string& mode) {
    const auto out = dir / ("out-" + mode);
    const int status = shell(std::string(COLOCSIM_BINARY) + " run " + scenario +
                             " --set outputs.timeseries=" + mode + " -o " + out.string() + " --quiet");
    REQUIRE(status == 0);
    return out;
  };
  const auto events = run("every-event");
  const double energy = summary_number(events, "energy_gpu_j") + summary_number(events, "energy_node_j");
  REQUIRE(energy > 0);
  const NumTable ev = read_numbers(events / "timeseries.csv");
  REQUIRE(ev.rows.size() > 100);
  const auto T = ev.col("t_s"), P = ev.col("total_power_w");
  // Every event: power is constant between rows, so the run's energy is Σ P[k] × (t[k+1] − t[k]).
  double sum = 0;
  for (std::size_t k = 0; k + 1 < ev.rows.size(); ++k)
    sum += ev.rows[k][P] * (ev.rows[k + 1][T] - ev.rows[k][T]);
  CHECK_THAT(sum, WithinRel(energy, 1e-9));

  // The every-event file integrated by brute force up to time t, and the largest counts in [a, b).
  auto energy_until = [&](double t) {
    double e = 0;
    for (std::size_t k = 0; k + 1 < ev.rows.size() && ev.rows[k][T] < t; ++k)
      e += ev.rows[k][P] * (std::min(t, ev.rows[k + 1][T]) - ev.rows[k][T]);
    return e;
  };
  auto max_in = [&](std::size_t column, double a, double b) {
    double m = 0;
    for (std::size_t k = 0; k < ev.rows.size(); ++k) {
      const bool next_after_a = k + 1 == ev.rows.size() || ev.rows[k + 1][T] > a;
      if (ev.rows[k][T] < b && next_after_a) m = std::max(m, ev.rows[k][column]);
    }
    return m;
  };

  for (const std::string mode : {"60s", "7s", "1h"}) {
    INFO("outputs.timeseries=" << mode);
    const double S = mode == "60s" ? 60.0 : mode == "7s" ? 7.0 : 3600.0;
    const auto out = run(mode);
    CHECK(slurp((out / "jobs.csv").string()) == slurp((events / "jobs.csv").string()));
    CHECK(summary_without_wall(out) == summary_without_wall(events));
    const NumTable iv = read_numbers(out / "timeseries.csv");
    REQUIRE(iv.header == std::vector<std::string>{"t_s", "device_power_w", "node_power_w", "total_power_w",
                                                  "energy_j", "busy_devices", "running_jobs",
                                                  "waiting_jobs"});
    const auto t = iv.col("t_s"), p = iv.col("total_power_w"), e = iv.col("energy_j");
    const double t0 = ev.rows.front()[T], t_end = ev.rows.back()[T];
    // One row per S from the first event, then one at the end of the run.
    const auto n = static_cast<std::size_t>(std::ceil((t_end - t0) / S)) + 1;
    REQUIRE(iv.rows.size() == n);
    CHECK(iv.rows.back()[t] == t_end);
    // The last cumulative energy is the summary's; the mean powers × their intervals add up to it too.
    CHECK_THAT(iv.rows.back()[e], WithinRel(energy, 1e-9));
    double delta_sum = 0;
    for (std::size_t k = 0; k + 1 < iv.rows.size(); ++k) {
      const double dt = iv.rows[k + 1][t] - iv.rows[k][t];
      delta_sum += iv.rows[k][p] * dt;
      CHECK_THAT(iv.rows[k][t], WithinAbs(t0 + static_cast<double>(k) * S, 1e-6));
      // Each row against the every-event file: the energy up to its time, its interval's mean power
      // and its largest counts.
      CHECK_THAT(iv.rows[k][e], WithinRel(energy_until(iv.rows[k][t]), 1e-9) || WithinAbs(0.0, 1e-6));
      CHECK_THAT(iv.rows[k][p],
                 WithinRel((energy_until(iv.rows[k + 1][t]) - energy_until(iv.rows[k][t])) / dt, 1e-9));
      for (const char* c : {"busy_devices", "running_jobs", "waiting_jobs"})
        CHECK(iv.rows[k][iv.col(c)] == max_in(ev.col(c), iv.rows[k][t], iv.rows[k + 1][t]));
    }
    CHECK_THAT(delta_sum, WithinRel(energy, 1e-9));
  }

  // `true` is every-event, and `auto` (the default) too for a run of fewer than 100,000 rows.
  for (const std::string mode : {"true", "auto"}) {
    const auto out = run(mode);
    CHECK(slurp((out / "timeseries.csv").string()) == slurp((events / "timeseries.csv").string()));
  }
  // off (and false): no file, the same summary.
  for (const std::string mode : {"off", "false"}) {
    const auto out = run(mode);
    CHECK_FALSE(fs::exists(out / "timeseries.csv"));
    CHECK(summary_without_wall(out) == summary_without_wall(events));
  }
  const auto bad = cli({"run", scenario, "--set", "outputs.timeseries=0s", "-o", (dir / "bad").string()});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, ContainsSubstring("outputs.timeseries") && ContainsSubstring("got '0s'"));
  fs::remove_all(dir);
}

TEST_CASE("interval timeseries of two jobs, worked out by hand", "[cli][outputs]")
{
  // The engine tests' fixture (tests/data/sim/base.yaml): two tiles on one node of 500 W baseline, a tile
  // draws 100 W idle and 170 W running one `busy` job alone (100 + 20 context + 100 × 0.5 vector).
  // exclusive-fcfs: a on tile 0 for [0, 100), b on tile 1 for [30, 130).
  //   device power: [0, 30) 270 W, [30, 100) 340 W, [100, 130) 270 W, then 200 W; node 500 W throughout.
  // Rows every 60 s from t = 0:
  //   t=0:   [0, 60)    device 270×30 + 340×30 = 18300 J → 305 W;    total 805 W; energy so far 0
  //   t=60:  [60, 120)  device 340×40 + 270×20 = 19000 J → 316.67 W; total 816.67 W; energy 18300 + 30000
  //   t=120: [120, 130) device 270×10 = 2700 J → 270 W; total 770 W; energy 48300 + 19000 + 30000 = 97300
  //   t=130: the end: 200 W + 500 W; energy 97300 + 2700 + 5000 = 105000 (device 40000 + node 65000)
  const auto dir = scratch_dir("ts-hand");
  write_file(dir / "two.csv", "id,submit_s,duration_s,profile\na,0,100,busy\nb,30,100,busy\n");
  const auto out = dir / "out";
  const auto r = cli({"run", std::string(COLOCSIM_TEST_DATA) + "/sim/base.yaml", "--set",
                      "workload.trace=" + (dir / "two.csv").string(), "--set", "outputs.timeseries=1min",
                      "--policy", "exclusive-fcfs", "-o", out.string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const NumTable t = read_numbers(out / "timeseries.csv");
  const std::vector<std::vector<double>> expected = {
      {0, 305, 500, 805, 0, 2, 2, 0},
      {60, 19000.0 / 60, 500, 19000.0 / 60 + 500, 48300, 2, 2, 0},
      {120, 270, 500, 770, 97300, 1, 1, 0},
      {130, 200, 500, 700, 105000, 0, 0, 0},
  };
  REQUIRE(t.rows.size() == expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k)
    for (std::size_t c = 0; c < expected[k].size(); ++c) {
      INFO("row " << k << ", " << t.header[c]);
      CHECK_THAT(t.rows[k][c], WithinAbs(expected[k][c], 1e-6));
    }
  CHECK_THAT(summary_number(out, "energy_gpu_j"), WithinRel(40000.0, 1e-9));
  fs::remove_all(dir);
}

TEST_CASE("gzip outputs decompress to the plain files byte for byte, and plot reads them", "[cli][outputs]")
{
  const auto dir = scratch_dir("gzip");
  for (const std::string mode : {"every-event", "5min"}) {
    INFO("outputs.timeseries=" << mode);
    const auto plain = dir / ("plain-" + mode), gz = dir / ("gz-" + mode);
    // Processes of their own, as above.
    for (const auto& [out, compress] : {std::pair{plain, "none"}, {gz, "gzip"}})
      REQUIRE(shell(std::string(COLOCSIM_BINARY) + " run --set outputs.timeseries=" + mode +
                    " --set outputs.compress=" + compress + " -o " + out.string() + " --quiet") == 0);
    CHECK_FALSE(fs::exists(gz / "jobs.csv"));
    CHECK_FALSE(fs::exists(gz / "timeseries.csv"));
    REQUIRE(colocsim::has_gzip_magic((gz / "jobs.csv.gz").string()));
    REQUIRE(colocsim::has_gzip_magic((gz / "timeseries.csv.gz").string()));
    CHECK(gunzip(gz / "jobs.csv.gz") == slurp((plain / "jobs.csv").string()));
    CHECK(gunzip(gz / "timeseries.csv.gz") == slurp((plain / "timeseries.csv").string()));
    CHECK(summary_without_wall(gz) == summary_without_wall(plain));
  }
  // colocsim plot draws the same figures from the compressed files.
  const auto a = cli({"plot", (dir / "plain-every-event").string()});
  const auto b = cli({"plot", (dir / "gz-every-event").string()});
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  for (const char* svg : {"gantt.svg", "power.svg"})
    CHECK(slurp((dir / "gz-every-event" / svg).string()) ==
          slurp((dir / "plain-every-event" / svg).string()));
  fs::remove_all(dir);
}

TEST_CASE("auto: a large run's timeseries turns to intervals and its files to gzip", "[outputs]")
{
  // The thresholds made small: gzip past 4 rows, intervals past 4 time points.
  const auto dir = scratch_dir("auto");
  colocsim::OutputOptions o;
  o.timeseries_auto_rows = 4;
  o.timeseries_interval_s = 10;
  o.compress = colocsim::Compression::AUTO;
  o.auto_gzip_rows = 4;
  colocsim::MetricsCollector metrics;
  colocsim::OutputWriter w(o, dir, metrics);
  colocsim::Job job;
  job.id = "j";
  job.profile = "p";
  for (int i = 0; i < 5; ++i) {
    colocsim::JobRecord r;
    r.job = &job;
    r.status = colocsim::JobStatus::COMPLETED;
    r.submit_s = r.start_s = r.last_start_s = i;
    r.end_s = i + 1;
    w.on_job_end(r);
  }
  // Power 100 W on [0, 5), 300 W on [5, 12), 200 W on [12, 25), then 50 W at the end (t = 25).
  for (const auto& [t, pw] :
       std::vector<std::pair<double, double>>{{0, 100}, {5, 300}, {12, 200}, {25, 50}}) {
    colocsim::TimePoint p;
    p.t_s = t;
    p.device_power_w = pw;
    w.on_timepoint(p);
  }
  CHECK(fs::exists(dir / "jobs.csv.gz"));
  CHECK_FALSE(fs::exists(dir / "jobs.csv"));
  w.finish();
  CHECK(w.files() == std::vector<std::string>{"jobs.csv.gz", "timeseries.csv"});
  // Four time points are within the limit: every event.
  CHECK(slurp((dir / "timeseries.csv").string()) ==
        "t_s,device_power_w,node_power_w,total_power_w,busy_devices,running_jobs,waiting_jobs\n"
        "0,100,0,100,0,0,0\n5,300,0,300,0,0,0\n12,200,0,200,0,0,0\n25,50,0,50,0,0,0\n");
  const std::string jobs = gunzip(dir / "jobs.csv.gz");
  CHECK(std::count(jobs.begin(), jobs.end(), '\n') == 6); // the header and the five rows, in order
  CHECK_THAT(jobs, ContainsSubstring("\nj,0,0,1,completed,") && ContainsSubstring("\nj,4,4,5,completed,"));

  // A fifth point passes the limit: one row per 10 s. [0, 10): 100×5 + 300×5 = 2000 J → 200 W;
  // [10, 20): 300×2 + 200×8 = 2200 J → 220 W; [20, 30): 200×5 + 40×5 = 1200 J → 120 W; the point at
  // t = 30 is the end: 60 W, 2000 + 2200 + 1200 = 5400 J.
  const auto dir2 = scratch_dir("auto2");
  o.compress = colocsim::Compression::NONE;
  colocsim::OutputWriter w2(o, dir2, metrics);
  for (const auto& [t, pw] :
       std::vector<std::pair<double, double>>{{0, 100}, {5, 300}, {12, 200}, {25, 40}, {30, 60}}) {
    colocsim::TimePoint p;
    p.t_s = t;
    p.device_power_w = pw;
    w2.on_timepoint(p);
  }
  w2.finish();
  CHECK(slurp((dir2 / "timeseries.csv").string()) ==
        "t_s,device_power_w,node_power_w,total_power_w,energy_j,busy_devices,running_jobs,waiting_jobs\n"
        "0,200,0,200,0,0,0,0\n10,220,0,220,2000,0,0,0\n20,120,0,120,4200,0,0,0\n30,60,0,60,5400,0,0,0\n");
  CHECK(w2.notes().size() == 1);
  fs::remove_all(dir);
  fs::remove_all(dir2);
}

TEST_CASE("a gzip output that cannot be written fails the run with its name", "[cli][outputs]")
{
  // A gzip stream on a device that is always full: the compressed blocks fail when they are written, at the
  // latest when the file is closed.
  if (fs::exists("/dev/full")) {
    colocsim::MetricsCollector metrics;
    colocsim::OutputWriter writer(std::make_unique<colocsim::GzipOfstream>("/dev/full"),
                                  "injected/jobs.csv.gz", nullptr, "", metrics);
    REQUIRE_THROWS_WITH(writer.finish(), ContainsSubstring("cannot write injected/jobs.csv.gz"));
  }
  // A whole run into a 100 KB file system (as the plain files' test in Cli_test.cpp).
  const auto dir = scratch_dir("gz-full");
  if (!trace_and_small_tmpfs(dir, 100)) return;
  const std::string bin = COLOCSIM_BINARY;
  const auto mnt = dir / "small";
  const auto err = dir / "err.txt";
  const int status = shell(bin + " replay " + (dir / "trace.csv").string() +
                           " --format native --platform aurora-node --set outputs.compress=gzip -o " +
                           (mnt / "out").string() + " > /dev/null 2> " + err.string());
  const bool left_out = fs::exists(mnt / "out");
  shell("umount " + mnt.string());
  INFO(slurp(err.string()));
  CHECK(status == 1);
  CHECK_THAT(slurp(err.string()),
             ContainsSubstring("cannot write " + mnt.string()) && ContainsSubstring(".csv.gz: "));
  CHECK_FALSE(left_out);
  fs::remove_all(dir);
}

TEST_CASE("progress lines on stderr name jobs, simulated time, wall time and what is left", "[cli][outputs]")
{
  const auto dir = scratch_dir("progress");
  const auto scenario = synthetic_scenario(dir, 3000).string();
  const std::string bin = COLOCSIM_BINARY;
  const auto with = dir / "with", without = dir / "without";
  // COLOCSIM_PROGRESS forces plain lines at the given interval (stderr is a file here, not a terminal).
  REQUIRE(shell("COLOCSIM_PROGRESS=0.000001 " + bin + " run " + scenario + " -o " + with.string() +
                " > /dev/null 2> " + (dir / "err.txt").string()) == 0);
  REQUIRE(shell("COLOCSIM_PROGRESS=0.000001 " + bin + " run " + scenario + " --quiet -o " + without.string() +
                " > /dev/null 2> " + (dir / "quiet.txt").string()) == 0);
  const std::regex line_re(R"(colocsim: (\d+) of 3000 jobs read, (\d+) ended, t=(\d+) s simulated, )"
                           R"(([0-9.]+) s wall, (about (\d+) s left|remaining unknown))");
  std::istringstream err(slurp((dir / "err.txt").string()));
  std::vector<std::smatch> lines;
  std::vector<std::string> texts;
  for (std::string l; std::getline(err, l);)
    if (l.rfind("colocsim: ", 0) == 0 && l.find("jobs read") != std::string::npos) texts.push_back(l);
  REQUIRE(texts.size() >= 2);
  double last_t = -1, last_wall = -1;
  long long last_read = -1;
  for (const auto& l : texts) {
    std::smatch m;
    INFO(l);
    REQUIRE(std::regex_match(l, m, line_re));
    const long long read = std::stoll(m[1]), ended = std::stoll(m[2]);
    const double t = std::stod(m[3]), wall = std::stod(m[4]);
    CHECK(ended <= read);
    CHECK(read >= last_read); // never backwards
    CHECK(t >= last_t);
    CHECK(wall >= last_wall);
    if (ended > 0) CHECK(m[6].matched); // an estimate once jobs have ended
    last_read = read;
    last_t = t;
    last_wall = wall;
  }
  // The last line is the end of the run: every job read and ended, nothing left, at the last event.
  std::smatch m;
  REQUIRE(std::regex_match(texts.back(), m, line_re));
  CHECK(m[1] == "3000");
  CHECK(m[2] == "3000");
  CHECK(m[6] == "0");
  const double end = read_numbers(with / "timeseries.csv").rows.back()[0]; // the last event
  CHECK_THAT(std::stod(m[3]), WithinAbs(end, 0.5));
  // --quiet: no progress; and the outputs do not depend on it.
  CHECK(slurp((dir / "quiet.txt").string()).find("jobs read") == std::string::npos);
  for (const char* f : {"jobs.csv", "timeseries.csv"})
    CHECK(slurp((with / f).string()) == slurp((without / f).string()));
  CHECK(summary_without_wall(with) == summary_without_wall(without));
  fs::remove_all(dir);
}

TEST_CASE("a sweep takes the timeseries modes and compression as axes and fixed keys", "[cli][outputs]")
{
  const auto dir = scratch_dir("sweep-modes");
  write_file(dir / "spec.yaml", "name: modes\nscenario: default\nset:\n  outputs.compress: gzip\n"
                                "axes:\n  outputs.timeseries: [every-event, 10min, \"off\"]\n");
  const auto out = dir / "out";
  const auto r = colocsim::test::cli_spawning_binary(
      {"sweep", (dir / "spec.yaml").string(), "-o", out.string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  // run-0001: a row per event, run-0002: one per 10 minutes (with energy_j), run-0003: none; all gzip.
  CHECK_THAT(gunzip(out / "run-0001" / "timeseries.csv.gz"),
             ContainsSubstring("t_s,device_power_w,node_power_w,total_power_w,busy_devices,"));
  CHECK_THAT(gunzip(out / "run-0002" / "timeseries.csv.gz"),
             ContainsSubstring("t_s,device_power_w,node_power_w,total_power_w,energy_j,"));
  CHECK_FALSE(fs::exists(out / "run-0003" / "timeseries.csv.gz"));
  for (const char* run : {"run-0001", "run-0002", "run-0003"}) {
    INFO(run);
    CHECK(fs::exists(out / run / "jobs.csv.gz"));
    CHECK_FALSE(fs::exists(out / run / "jobs.csv"));
  }
  fs::remove_all(dir);
}

TEST_CASE("names that are not UTF-8 are written as a backslash x and two hex digits: every output file stays "
          "UTF-8 (JSON: RFC 8259)",
          "[cli][outputs]")
{
  // A Latin-1 trace ("café" as 63 61 66 E9), stray bytes (FF FE), a UTF-8 name (kept as it is) and a scenario
  // name from a Latin-1 --set. Before, the bytes went out raw: summary.json, events.jsonl and jobs.csv were
  // not UTF-8, and nothing said so (exit 0).
  const auto dir = scratch_dir("utf8");
  write_file(dir / "latin1.csv", "id,submit_s,duration_s,profile\ncaf\xe9,0,10,busy\n\xff\xfe,5,10,busy\n"
                                 "na\xc3\xafve,6,10,busy\n");
  const auto out = dir / "out";
  const auto events = dir / "events.jsonl";
  const auto r = cli({"run", std::string(COLOCSIM_TEST_DATA) + "/sim/base.yaml", "--set",
                      "workload.trace=" + (dir / "latin1.csv").string(), "--set", "name=r\xe9sultats",
                      "--log-events", events.string(), "-o", out.string(), "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0); // cli() has also parsed summary.json strictly (its UTF-8 included)
  const std::string summary = slurp((out / "summary.json").string());
  const std::string jobs = slurp((out / "jobs.csv").string());
  const std::string log = slurp(events.string());
  CHECK(colocsim::is_utf8(summary));
  CHECK(colocsim::is_utf8(jobs));
  CHECK(colocsim::is_utf8(log));
  CHECK_THAT(summary, ContainsSubstring("\"scenario\": \"r\\\\xe9sultats\""));
  CHECK_THAT(jobs, ContainsSubstring("\ncaf\\xe9,") && ContainsSubstring("\n\\xff\\xfe,") &&
                       ContainsSubstring("\nna\xc3\xafve,"));
  CHECK_THAT(log, ContainsSubstring("\"caf\\\\xe9\"") && ContainsSubstring("\"na\xc3\xafve\""));
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) // each line one strict JSON value
    for (const auto& problem : check_json(line, events.string()))
      FAIL_CHECK(problem);
  // The figures drawn from them are UTF-8 too (the ids in the bars' tooltips).
  REQUIRE(cli({"plot", out.string()}).status == 0);
  const std::string gantt = slurp((out / "gantt.svg").string());
  CHECK(colocsim::is_utf8(gantt));
  CHECK_THAT(gantt, ContainsSubstring("<title>caf\\xe9 (busy)"));
  fs::remove_all(dir);
}

TEST_CASE("utf8_or_escaped keeps valid UTF-8 and writes each other byte as a backslash x and two hex digits",
          "[outputs]")
{
  using colocsim::utf8_or_escaped;
  CHECK(utf8_or_escaped("plain ascii") == "plain ascii");
  CHECK(utf8_or_escaped("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80") == "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  CHECK(utf8_or_escaped("caf\xe9") == "caf\\xe9");
  CHECK(utf8_or_escaped("\xc0\xaf") == "\\xc0\\xaf");                   // overlong '/'
  CHECK(utf8_or_escaped("\xed\xa0\x80") == "\\xed\\xa0\\x80");          // a surrogate
  CHECK(utf8_or_escaped("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80"); // above U+10FFFF
  CHECK(utf8_or_escaped("\xe2\x82") == "\\xe2\\x82");                   // cut short
  CHECK(utf8_or_escaped("a\x80z") == "a\\x80z");                        // a stray continuation byte
  std::string json;
  colocsim::append_json_string(json, "x\xff\"");
  CHECK(json == "\"x\\\\xff\\\"\"");
  CHECK(colocsim::csv_field("a,\xff") == "\"a,\\xff\"");
}
