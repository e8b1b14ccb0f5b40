// `colocsim advise` end to end on a bundled trace slice (100 jobs of the ITP trace on one DGX A100 node) and
// on the sacct output of a real Slurm:
// the options of the platform, the sweep folder it leaves (sweep.csv, `colocsim plot`), advise.json (strict
// JSON, checked by python3 -m json.tool) and report.html (the table rows, the recommendation, one chart point
// per option, nothing external), and the folder rules (--resume, --force, nothing written by --list-options).
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "cli/Svg.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

using namespace colocsim::test;
using Catch::Matchers::ContainsSubstring;

namespace {
namespace fs = std::filesystem;

const colocsim::test::ScratchDirs scratch_dir{"advise-test"};

const std::string TRACE = std::string(COLOCSIM_TEST_DATA) + "/workloads/itp/cluster05-rows1826-1925.csv";

std::vector<std::string> advise_args(const fs::path& out, const std::string& options)
{
  return {"advise",    TRACE,   "--format",     "itp", "--platform", "dgx-a100", "--nodes", "1",
          "--options", options, "--replicates", "2",   "-j",         "2",        "-o",      out.string()};
}

std::string read_file(const fs::path& file)
{
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count(const std::string& text, const std::string& what)
{
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

} // namespace

TEST_CASE("advise lists the options the platform's devices support", "[advise][cli]")
{
  const auto dir = scratch_dir("list");
  const auto r = cli({"advise", TRACE, "--format", "itp", "--platform", "dgx-a100", "--nodes", "1",
                      "--list-options", "-o", (dir / "out").string()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  for (const char* label :
       {"exclusive/exclusive-fcfs", "exclusive/exclusive-easy", "time-slice-2/first-fit", "time-slice-4/fgd",
        "mps/interference-aware", "mig-dynamic/mig-manager", "mig-7x1g.5gb/mig-manager"})
    CHECK_THAT(r.out, ContainsSubstring(label));
  CHECK_THAT(r.out, !ContainsSubstring("ccs-2")); // the A100 has no CCS partitions
  CHECK_FALSE(fs::exists(dir / "out"));           // --list-options writes nothing

  const auto max = cli({"advise", TRACE, "--format", "itp", "--platform", "aurora-node", "--list-options",
                        "--options", "ccs-4,first-fit"});
  INFO(max.err);
  REQUIRE(max.status == 0);
  CHECK_THAT(max.out, ContainsSubstring("ccs-4/fgd"));
  CHECK_THAT(max.out, ContainsSubstring("ccs-2/first-fit"));
  CHECK_THAT(max.out, ContainsSubstring("exclusive/exclusive-fcfs")); // the baseline always
  CHECK_THAT(max.out, !ContainsSubstring("mig"));
  CHECK_THAT(max.out, !ContainsSubstring("mps/"));

  const auto bad = cli({"advise", TRACE, "--format", "itp", "--platform", "aurora-node", "--list-options",
                        "--options", "mig-dynamic"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, ContainsSubstring("--options: 'mig-dynamic' matches no option of this platform"));
  const auto metrics =
      cli({"advise", TRACE, "--format", "itp", "--platform", "dgx-a100", "--metrics", "energy"});
  CHECK(metrics.status == 2);
  CHECK_THAT(metrics.err, ContainsSubstring("--metrics expects two different metrics"));
}

TEST_CASE("advise runs the options as a sweep and writes advise.json and report.html", "[advise][cli]")
{
  const auto dir = scratch_dir("run");
  const fs::path out = dir / "out";
  const std::string options = "time-slice-2/first-fit,mps/interference-aware,mig-dynamic";
  // The real binary, to see the progress on stderr (the sweep writes it to the process's stderr).
  std::string command = COLOCSIM_BINARY;
  for (const auto& arg : advise_args(out, options))
    command += " " + arg;
  REQUIRE(shell(command + " > " + (dir / "stdout.txt").string() + " 2> " + (dir / "stderr.txt").string()) ==
          0);
  const std::string stdout_text = read_file(dir / "stdout.txt"), stderr_text = read_file(dir / "stderr.txt");
  INFO(stderr_text);
  CHECK(count(stderr_text, "colocsim: sweep [") == 8);
  CHECK_THAT(stderr_text, ContainsSubstring(" s left")); // the progress's estimate of the time left

  // A sweep folder: 4 options × 2 seeds, one column `option`.
  const auto rows = read_csv_cells(out / "sweep.csv");
  REQUIRE(rows.size() == 9);
  CHECK(rows[0][2] == "option");
  CHECK(rows[1][2] == "exclusive/exclusive-fcfs");
  for (std::size_t i = 1; i < rows.size(); ++i)
    CHECK(rows[i][1] == "ok");
  const auto plot = cli({"plot", out.string(), "-o", (dir / "figures").string()});
  INFO(plot.err);
  CHECK(plot.status == 0);

  // advise.json: strict JSON (python3's parser), with every option and the recommendation.
  REQUIRE(shell("python3 -m json.tool " + (out / "advise.json").string() + " > /dev/null") == 0);
  const YAML::Node json = YAML::LoadFile((out / "advise.json").string());
  REQUIRE(json["options"].size() == 4);
  CHECK(json["baseline"].as<std::string>() == "exclusive/exclusive-fcfs");
  CHECK(json["options"][0]["metrics"]["energy"]["n"].as<int>() == 2);
  const std::string recommendation = json["recommendation"].as<std::string>();
  CHECK_FALSE(recommendation.empty());
  CHECK_THAT(stdout_text, ContainsSubstring(recommendation));

  // report.html: one file with the table's rows, the recommendation and one chart point per option.
  const std::string html = read_file(out / "report.html");
  CHECK(count(html, "<tr class=\"option") == 4);
  CHECK(count(html, "<g class=\"point\"") == 4);
  for (const auto& o : json["options"])
    CHECK_THAT(html, ContainsSubstring(">" + colocsim::svg::xml(o["label"].as<std::string>()) + "</td>"));
  CHECK_THAT(html, ContainsSubstring(colocsim::svg::xml(recommendation)));
  CHECK_THAT(html, !ContainsSubstring("<script"));
  CHECK_THAT(html, !ContainsSubstring("src="));
  CHECK_THAT(html, !ContainsSubstring("href="));
  CHECK_THAT(html, !ContainsSubstring("<link"));
  // front.svg: the report's chart as a file of its own, the same SVG as report.html inlines.
  const std::string front = read_file(out / "front.svg");
  CHECK(front.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(count(front, "<g class=\"point\"") == 4);
  CHECK_THAT(html, ContainsSubstring(front));

  // The folder is never overwritten without --force; --resume runs only what is missing.
  const auto again = cli_spawning_binary(advise_args(out, options));
  CHECK(again.status == 2);
  CHECK_THAT(again.err, ContainsSubstring("exists and is not empty"));
  fs::remove_all(out / "run-0003");
  const auto kept = fs::last_write_time(out / "run-0001" / "summary.json");
  REQUIRE(shell(command + " --resume 2> " + (dir / "resume.txt").string() + " > /dev/null") == 0);
  CHECK(count(read_file(dir / "resume.txt"), "done earlier") == 7);
  CHECK(fs::last_write_time(out / "run-0001" / "summary.json") == kept);
  CHECK(fs::exists(out / "run-0003" / "summary.json"));
  const YAML::Node json2 = YAML::LoadFile((out / "advise.json").string());
  CHECK(json2["recommendation"].as<std::string>() == recommendation);
  auto other = advise_args(out, "mps/first-fit");
  other.push_back("--resume");
  const auto mismatch = cli_spawning_binary(other);
  CHECK(mismatch.status == 2);
  CHECK_THAT(mismatch.err, ContainsSubstring("differs from what these arguments give"));
}

TEST_CASE("a sweep's bundled axis sets several keys per value, and its errors point at the item",
          "[advise][sweep]")
{
  const auto dir = scratch_dir("bundled");
  write_file(dir / "good.yaml", R"(name: bundled
axes:
  option:
    - {label: excl, policy: exclusive-fcfs, set: {platform.sharing: exclusive}}
    - {label: ccs, policy: "first-fit:max_per_device=2", set: {platform.sharing: ccs-2}}
seeds: [1, 2]
)");
  const auto good = cli({"sweep", (dir / "good.yaml").string(), "--dry-run", "-o", (dir / "out").string()});
  INFO(good.err);
  REQUIRE(good.status == 0);
  CHECK_THAT(good.out, ContainsSubstring("4 runs"));
  CHECK_THAT(good.out, ContainsSubstring("--set platform.sharing=ccs-2 --set seed=2 --policy "
                                         "first-fit:max_per_device=2"));
  CHECK_THAT(good.out,
             ContainsSubstring("--set platform.sharing=exclusive --set seed=1 --policy exclusive-fcfs"));

  write_file(dir / "bad.yaml", R"(name: bundled
axes:
  option:
    - {label: excl, policy: exclusive-fcfs}
    - plain
    - {policy: fgd}
    - {label: excl, set: {platform.sharing: bogus}, extra: 1}
)");
  const auto bad = cli({"sweep", (dir / "bad.yaml").string(), "--dry-run"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, ContainsSubstring("bad.yaml:5:7: axes.option[1]: expected a map {label, policy, set}"));
  CHECK_THAT(bad.err, ContainsSubstring("bad.yaml:6:7: axes.option[2].label: expected a non-empty label"));
  CHECK_THAT(bad.err, ContainsSubstring("axes.option[3].label: label 'excl' appears twice"));
  CHECK_THAT(bad.err, ContainsSubstring("axes.option[3].extra: unknown key"));
}

TEST_CASE("advise's replicates carry the models' error: co-located options get intervals, exclusive none",
          "[advise][cli][model-error]")
{
  // Every job of the slice is bound to one profile (--profile's), so without the models' error the seed
  // changes nothing and every interval has width 0. With it (the default) each seed is another world:
  // time-slice-2 puts jobs next to each other, whose slowdowns now carry a seeded factor, so its mean JCT
  // varies between the replicates. Exclusive FCFS never co-locates and this platform has no MIG instance
  // under it: nothing is perturbed, its results stay the same for every seed (width 0).
  const auto dir = scratch_dir("model-error");
  auto run = [&](const std::string& name, const std::string& model_error) {
    auto args = advise_args(dir / name, "time-slice-2/first-fit");
    args[std::find(args.begin(), args.end(), "--replicates") - args.begin() + 1] = "3";
    args.insert(args.end(), {"--model-error", model_error, "--quiet"});
    const auto r = cli_spawning_binary(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return YAML::LoadFile((dir / name / "advise.json").string());
  };
  auto half = [](const YAML::Node& json, const std::string& label, const char* metric) {
    for (const auto& o : json["options"])
      if (o["label"].as<std::string>() == label) return o["metrics"][metric]["half_width"].as<double>();
    FAIL("no option " << label);
    return -1.0;
  };
  const YAML::Node on = run("on", "on");
  CHECK(on["model_error"]["interference_sigma"].as<double>() == 0.573);
  CHECK(on["model_error"]["mig_sigma"].as<double>() == 0.09);
  CHECK_THAT(on["model_error"]["source"].as<std::string>(), ContainsSubstring("validate-interference"));
  CHECK(half(on, "exclusive/exclusive-fcfs", "jct") == 0.0);
  CHECK(half(on, "exclusive/exclusive-fcfs", "energy") == 0.0);
  CHECK(half(on, "time-slice-2/first-fit", "jct") > 0.0);
  CHECK_THAT(read_file(dir / "on" / "report.html"), ContainsSubstring("Model error: on"));

  const YAML::Node off = run("off", "off");
  CHECK(off["model_error"].IsNull());
  CHECK(half(off, "exclusive/exclusive-fcfs", "jct") == 0.0);
  CHECK(half(off, "time-slice-2/first-fit", "jct") == 0.0);

  const auto bad = cli_spawning_binary(
      {"advise", TRACE, "--format", "itp", "--platform", "dgx-a100", "--model-error", "maybe"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, ContainsSubstring("--model-error expects on or off (got 'maybe')"));
}

TEST_CASE("advise --budget: its values, and what it may be combined with", "[advise][cli][budget]")
{
  const std::vector<std::string> base{"advise",     TRACE,      "--format", "itp",
                                      "--platform", "dgx-a100", "--nodes",  "1"};
  for (const char* good : {"90s", "10m", "10min", "1.5h", "250ms", "45"}) {
    auto args = base;
    args.insert(args.end(), {"--budget", good, "--list-options"});
    const auto r = cli(args);
    INFO(good << ": " << r.err);
    CHECK(r.status == 0);
  }
  for (const char* bad : {"0", "0s", "-5m", "abc", "10x", "10 m", "m", "inf", "nan", "721h", ""}) {
    auto args = base;
    args.insert(args.end(), {"--budget", bad, "--list-options"});
    const auto r = cli(args);
    INFO("'" << bad << "'");
    CHECK(r.status == 2);
    CHECK_THAT(r.err, ContainsSubstring("option --budget expects a wall time above 0 and at most 30 days"));
    CHECK_THAT(r.err, ContainsSubstring("(got '" + std::string(bad) + "')"));
  }
  auto resume = base;
  resume.insert(resume.end(), {"--budget", "10m", "--resume"});
  const auto r = cli(resume);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("--budget and --resume exclude each other"));
  auto jobs = base;
  jobs.insert(jobs.end(), {"--budget", "10m", "-j", "0"});
  const auto j = cli(jobs);
  CHECK(j.status == 2);
  CHECK_THAT(j.err, ContainsSubstring("option -j expects a number of runs at a time, 1..1024 (got '0')"));
}

TEST_CASE("advise --budget: a budget below one run keeps the baseline's one run and says what it left out, "
          "a budget of weeks changes nothing",
          "[advise][cli][budget]")
{
  // The extremes only, so that no machine's speed decides the outcome: 1 ms is over before the timing run
  // (the scenario loaded, the 100-job trace read and run) has ended; 600 h is beyond any machine's need
  // for 6 runs of 100 jobs.
  const auto dir = scratch_dir("budget");
  const std::string options = "time-slice-2/first-fit,mps/interference-aware";
  auto run = [&](const std::string& name, const std::string& budget) {
    auto args = advise_args(dir / name, options);
    if (!budget.empty()) args.insert(args.end(), {"--budget", budget});
    const auto r = cli_spawning_binary(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return r;
  };
  const auto tiny = run("tiny", "1ms");
  const YAML::Node t = YAML::LoadFile((dir / "tiny" / "advise.json").string());
  CHECK(t["replicates"].as<int>() == 1);
  CHECK(t["budget"]["budget_s"].as<double>() == 0.001);
  CHECK(t["budget"]["replicates_asked"].as<int>() == 2);
  CHECK(t["budget"]["replicates"].as<int>() == 1);
  CHECK(t["budget"]["options_asked"].as<int>() == 3);
  REQUIRE(t["budget"]["options_left_out"].size() == 2);
  CHECK(t["budget"]["options_left_out"][0].as<std::string>() == "time-slice-2/first-fit");
  CHECK(t["budget"]["options_left_out"][1].as<std::string>() == "mps/interference-aware");
  CHECK(t["budget"]["timing_run_s"].as<double>() > 0);
  REQUIRE(t["options"].size() == 1);
  CHECK(t["options"][0]["label"].as<std::string>() == "exclusive/exclusive-fcfs");
  CHECK(read_csv_cells(dir / "tiny" / "sweep.csv").size() == 2); // one run
  CHECK(t["budget"]["runs_fit"].as<int>() == 0);
  const std::string said = "0 run(s) fit in 80 % of the budget left: 1 of the 2 replicate(s) asked, for 1 of "
                           "the 3 options (the baseline runs once all the same)";
  const std::string left = "Left out: time-slice-2/first-fit, mps/interference-aware.";
  CHECK_THAT(tiny.out, ContainsSubstring(said)); // (stderr says it too, before the runs)
  CHECK_THAT(tiny.out, ContainsSubstring(left));
  const std::string html = read_file(dir / "tiny" / "report.html");
  CHECK_THAT(html, ContainsSubstring("<p id=\"budget\">"));
  CHECK_THAT(html, ContainsSubstring(colocsim::svg::xml(said)));
  CHECK_THAT(html, ContainsSubstring(colocsim::svg::xml(left)));

  run("none", "");
  run("large", "600h");
  const YAML::Node l = YAML::LoadFile((dir / "large" / "advise.json").string());
  CHECK(l["budget"]["budget_s"].as<double>() == 600 * 3600.0);
  CHECK(l["budget"]["replicates"].as<int>() == 2);
  CHECK(l["budget"]["options_left_out"].size() == 0);
  CHECK(l["budget"]["runs_fit"].as<double>() >= 6);
  // The same advice as without a budget: advise.json but its budget line.
  const auto without_budget = [&](const std::string& name) {
    std::istringstream in(read_file(dir / name / "advise.json"));
    std::string line, kept;
    while (std::getline(in, line))
      if (line.rfind("  \"budget\": ", 0) != 0) kept += line + "\n";
    return kept;
  };
  CHECK(YAML::LoadFile((dir / "none" / "advise.json").string())["budget"].IsNull());
  CHECK(without_budget("large") == without_budget("none"));
  CHECK(read_file(dir / "large" / "sweep.yaml") == read_file(dir / "none" / "sweep.yaml"));
}

TEST_CASE("advise gives the same advise.json whether its runs go one or two at a time", "[advise][cli]")
{
  // Each run is its own process with its own seed: how many run at once (-j) must not change a number.
  const auto dir = scratch_dir("parallel");
  const std::string options = "time-slice-2/first-fit,mps/interference-aware,mig-dynamic";
  std::map<std::string, std::string> json;
  for (const std::string j : {"1", "2"}) {
    auto args = advise_args(dir / ("j" + j), options);
    args[std::find(args.begin(), args.end(), "-j") - args.begin() + 1] = j;
    args.push_back("--quiet");
    const auto r = cli_spawning_binary(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    json[j] = read_file(dir / ("j" + j) / "advise.json");
  }
  CHECK_THAT(json["1"], ContainsSubstring("\"recommendation\": \""));
  CHECK(json["1"] == json["2"]);
}

namespace {

/// The jobs of a `sacct --parsable2` file worked out from its text here, by the rules of
/// docs/formats/sacct.md, not by the reader: a row per job (a JobID with '.' is a step), ended with a Start
/// and AllocNodes above 0 (else it never started), with `gres/gpu=N` > 0 in AllocTRES (ReqTRES where that
/// is empty). Submit times relative to the earliest; durations End - Start; times as HH:MM:SS of one day.
struct SacctJob {
  std::string id;
  long submit_s = 0, duration_s = 0;
  int gpus = 0;
};

std::vector<SacctJob> sacct_jobs_by_hand(const fs::path& file)
{
  std::istringstream in(read_file(file));
  std::string line;
  std::vector<std::string> header;
  const auto split = [](const std::string& s) {
    std::vector<std::string> f;
    std::string cell;
    std::istringstream cells(s);
    while (std::getline(cells, cell, '|'))
      f.push_back(cell);
    if (!s.empty() && s.back() == '|') f.emplace_back();
    return f;
  };
  const auto clock_s = [](const std::string& t) { // 2026-11-29T08:13:05 -> seconds of the day
    return std::stol(t.substr(11, 2)) * 3600 + std::stol(t.substr(14, 2)) * 60 + std::stol(t.substr(17, 2));
  };
  std::getline(in, line);
  header = split(line);
  const auto col = [&](const char* name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  std::vector<SacctJob> jobs;
  long first = -1;
  while (std::getline(in, line)) {
    const auto f = split(line);
    REQUIRE(f.size() == header.size());
    if (f[col("JobID")].find('.') != std::string::npos) continue;
    if (f[col("Start")] == "None" || f[col("Start")] == "Unknown" || f[col("AllocNodes")] == "0") continue;
    const std::string tres = f[col("AllocTRES")].empty() ? f[col("ReqTRES")] : f[col("AllocTRES")];
    const auto at = tres.find("gres/gpu=");
    const int gpus = at == std::string::npos ? 0 : std::stoi(tres.substr(at + 9));
    if (gpus == 0) continue;
    const long submit = clock_s(f[col("Submit")]);
    jobs.push_back({f[col("JobID")], submit, clock_s(f[col("End")]) - clock_s(f[col("Start")]), gpus});
    first = first < 0 ? submit : std::min(first, submit);
  }
  for (auto& j : jobs)
    j.submit_s -= first;
  return jobs;
}

/// An option of advise.json by label.
YAML::Node option_of(const YAML::Node& json, const std::string& label)
{
  for (const auto& o : json["options"])
    if (o["label"].as<std::string>() == label) return o;
  FAIL("no option " << label << " in advise.json");
  return {};
}

std::string precision(double x, int digits)
{
  std::ostringstream s;
  s << std::setprecision(digits) << x;
  return s.str();
}

} // namespace

TEST_CASE("advise on real Slurm accounting output: the jobs read, completed per option, and the report",
          "[advise][cli][sacct]")
{
  // tests/data/workloads/sacct/slurm-22.05-slurmdbd.txt: sacct of a real single-node Slurm (its README).
  // By hand: 8 jobs (9 rows, the array's two tasks counted apart) less job 3 (no GPU) and jobs 4 and 9
  // (cancelled before they started) = 6 jobs, 1, 2, 5_0, 5_1, 7 and 8, of which 1 and 8 hold 2 GPUs.
  const fs::path trace = fs::path(COLOCSIM_TEST_DATA) / "workloads/sacct/slurm-22.05-slurmdbd.txt";
  const auto jobs = sacct_jobs_by_hand(trace);
  REQUIRE(jobs.size() == 6);
  std::size_t multi_gpu = 0;
  long last_end = 0, duration_sum = 0;
  for (const auto& j : jobs) {
    multi_gpu += j.gpus > 1 ? 1 : 0;
    last_end = std::max(last_end, j.submit_s + j.duration_s);
    duration_sum += j.duration_s;
    // A DGX A100 node has 8 GPUs: the jobs running at any one submit time need fewer, so exclusive FCFS
    // starts each job at its submit time and its JCT is its run time.
    int busy = 0;
    for (const auto& k : jobs)
      if (k.submit_s <= j.submit_s && j.submit_s < k.submit_s + k.duration_s) busy += k.gpus;
    REQUIRE(busy <= 8);
  }
  REQUIRE(multi_gpu == 2);

  const auto dir = scratch_dir("sacct");
  const std::vector<std::string> base{"advise",       trace.string(),
                                      "--format",     "sacct",
                                      "--platform",   "dgx-a100",
                                      "--nodes",      "1",
                                      "--options",    "mps/fgd,time-slice-2/first-fit,mig-dynamic",
                                      "--replicates", "2",
                                      "-j",           "2"};

  // The site's GRES type `a100` names no device of the platform (a100-40gb): under the default
  // --gpu-types honour every job is rejected, under every option. That is no advice: advise says so, why,
  // and what to do, and exits with status 1 instead of recommending to keep exclusive FCFS.
  auto honour = base;
  honour.insert(honour.end(), {"-o", (dir / "honour").string()});
  const auto none = cli_spawning_binary(honour);
  CHECK(none.status == 1);
  CHECK_THAT(none.out, ContainsSubstring("No recommendation: the baseline exclusive/exclusive-fcfs completes "
                                         "none of the 6 jobs read"));
  CHECK_THAT(none.out, ContainsSubstring("6 rejected: its gpu_types 'a100' name no device type"));
  CHECK_THAT(none.out, ContainsSubstring("--gpu-types ignore runs those jobs on any device"));
  CHECK_THAT(none.out, !ContainsSubstring("Keep exclusive"));
  const YAML::Node nothing = YAML::LoadFile((dir / "honour" / "advise.json").string());
  CHECK(nothing["recommended"].IsNull());
  CHECK_THAT(nothing["recommendation"].as<std::string>(), ContainsSubstring("No recommendation"));

  auto ignore = base;
  ignore.insert(ignore.end(), {"--gpu-types", "ignore", "-o", (dir / "ignore").string()});
  const auto r = cli_spawning_binary(ignore);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(read_file(dir / "ignore" / "scenario.yaml"), ContainsSubstring("  gpu_types: \"ignore\"\n"));
  REQUIRE(shell("python3 -m json.tool " + (dir / "ignore" / "advise.json").string() + " > /dev/null") == 0);
  const YAML::Node json = YAML::LoadFile((dir / "ignore" / "advise.json").string());
  REQUIRE(json["options"].size() == 4);
  // Every option reads the 6 jobs; exclusive FCFS, MPS and time-slicing complete all of them (the trace's
  // failed, timed-out and cancelled jobs ran until Slurm ended them: they are replayed for that long);
  // MIG sized per job (mig-manager) places single-GPU jobs only, so the two 2-GPU jobs are rejected.
  for (const auto& o : json["options"]) {
    const std::string label = o["label"].as<std::string>();
    INFO(label);
    CHECK(o["ok"].as<int>() == 2);
    CHECK(o["jobs_read"].as<double>() == 6);
    const bool mig = label.rfind("mig", 0) == 0;
    CHECK(o["jobs_completed"].as<double>() == static_cast<double>(jobs.size() - (mig ? multi_gpu : 0)));
    CHECK(o["jobs_rejected"].as<double>() == (mig ? static_cast<double>(multi_gpu) : 0.0));
    CHECK(o["lossy"].as<bool>() == mig);
  }
  const YAML::Node fcfs = option_of(json, "exclusive/exclusive-fcfs");
  CHECK(fcfs["metrics"]["makespan"]["mean"].as<double>() == static_cast<double>(last_end));
  CHECK(fcfs["metrics"]["jct"]["mean"].as<double>() == Catch::Approx(static_cast<double>(duration_sum) / 6));
  CHECK(fcfs["metrics"]["p95_wait"]["mean"].as<double>() == 0);
  CHECK(json["compared"][0].as<std::string>() == "energy_per_job"); // MIG loses jobs

  // report.html shows advise.json's numbers: each option's row, its jobs and mean JCT (in h) as in the
  // table, and the same recommendation.
  const std::string html = read_file(dir / "ignore" / "report.html");
  for (const auto& o : json["options"]) {
    const std::string label = o["label"].as<std::string>();
    INFO(label);
    const auto at = html.find(">" + colocsim::svg::xml(label) + "</td>");
    REQUIRE(at != std::string::npos);
    const std::string row = html.substr(at, html.find("</tr>", at) - at);
    std::ostringstream jobs_cell;
    jobs_cell << std::fixed << std::setprecision(1) << o["jobs_completed"].as<double>() << " of "
              << o["jobs_read"].as<double>() << (o["lossy"].as<bool>() ? " *" : "");
    CHECK_THAT(row, ContainsSubstring("<td>" + jobs_cell.str() + "</td>"));
    const YAML::Node jct = o["metrics"]["jct"];
    CHECK_THAT(row, ContainsSubstring("<td>" + precision(jct["mean"].as<double>() / 3600, 4) + " \u00b1 " +
                                      precision(jct["half_width"].as<double>() / 3600, 2) + "</td>"));
  }
  CHECK_THAT(html, ContainsSubstring(colocsim::svg::xml(json["recommendation"].as<std::string>())));
  CHECK_THAT(r.out, ContainsSubstring(json["recommendation"].as<std::string>()));
}

TEST_CASE("advise --budget is a deadline: options much slower than the baseline are stopped at the budget's "
          "end, not run past it",
          "[advise][cli][budget][deadline]")
{
  // 10,000 jobs on 100 DGX A100 nodes: exclusive FCFS runs them in about 0.2 s of CPU, `random` (its three
  // options) in about 2 s each, far beyond the 3 baseline runs the plan takes an option to cost. With 8 runs
  // at a time on a machine of few cores, the plan keeps far more runs than fit: run to the end, they took
  // over 40 s here (budget 8 s). The deadline stops them at the budget's end.
  // Everything here scales with the machine's speed and load (a sanitizer build is 5-10× slower, a busy
  // machine more): the budget and the bound are set from one run of the baseline timed here first, so that
  // the plan always keeps runs of `random` (a budget of 8 s kept none when the baseline alone took 2.1 s).
  const auto dir = scratch_dir("deadline");
  const fs::path trace = dir / "wide.csv", out = dir / "out";
  const auto gen = cli({"generate", "--jobs", "10000", "--arrival-rate", "0.5", "--duration-mean", "1200s",
                        "--devices-mix", "1:80,2:10,4:6,8:4", "--seed", "1", "-o", trace.string()});
  REQUIRE(gen.status == 0);
  const auto t_base0 = std::chrono::steady_clock::now();
  REQUIRE(
      shell(
          std::string(COLOCSIM_BINARY) + " replay " + trace.string() +
          " --format native --platform dgx-a100 --nodes 100 --sharing exclusive --policy exclusive-fcfs -o " +
          (dir / "timing").string() + " > /dev/null 2>&1") == 0);
  const double t_base = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_base0).count();
  const double budget = std::ceil(std::max(8.0, 8 * t_base));
  INFO("one baseline run took " << t_base << " s; budget " << budget << " s");
  std::string command = std::string(COLOCSIM_BINARY) + " advise " + trace.string() +
                        " --format native --platform dgx-a100 --nodes 100 --options random --replicates 8 "
                        "-j 8 --budget " +
                        std::to_string(static_cast<long long>(budget)) + "s -o " + out.string();
  const auto t0 = std::chrono::steady_clock::now();
  const int status =
      shell(command + " > " + (dir / "stdout.txt").string() + " 2> " + (dir / "stderr.txt").string());
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string stdout_text = read_file(dir / "stdout.txt"), stderr_text = read_file(dir / "stderr.txt");
  INFO(stderr_text);
  REQUIRE(status == 0); // runs the deadline left out are not failures
  // The budget, the 2 s a stopped run has to end and the report, with a margin for a loaded machine; and the
  // baseline's first run, which finishes even past the deadline, sharing the cores with 7 others.
  CHECK(elapsed < budget + 10 + 4 * t_base);

  REQUIRE(shell("python3 -m json.tool " + (out / "advise.json").string() + " > /dev/null") == 0);
  const YAML::Node json = YAML::LoadFile((out / "advise.json").string());
  const YAML::Node b = json["budget"];
  const auto not_run = b["runs_not_run"].as<long long>();
  REQUIRE(not_run > 0); // the plan kept more than fit: the deadline cut it short
  CHECK(b["stop_grace_s"].as<double>() == 2);
  // Every run is ok, or not run by the deadline: no run counted as failed, and none as a result.
  const auto rows = read_csv_cells(out / "sweep.csv");
  std::map<std::string, std::pair<int, int>> per_option; // ok, deadline
  for (std::size_t i = 1; i < rows.size(); ++i) {
    INFO(rows[i][0] << " " << rows[i][1]);
    REQUIRE((rows[i][1] == "ok" || rows[i][1] == "deadline"));
    if (rows[i][1] == "ok")
      ++per_option[rows[i][2]].first;
    else {
      ++per_option[rows[i][2]].second;
      CHECK_FALSE(fs::exists(out / rows[i][0])); // a stopped run leaves no folder: --resume runs it anew
    }
  }
  for (const auto& e : fs::directory_iterator(out))
    CHECK(e.path().filename().string().find(".partial-") == std::string::npos);
  // The baseline's runs come first: the deadline does not leave it out.
  CHECK(per_option["exclusive/exclusive-fcfs"].first >= 1);
  long long counted = 0;
  std::vector<std::string> left_out, fewer;
  for (const auto& o : json["options"]) {
    const auto label = o["label"].as<std::string>();
    CHECK(o["ok"].as<int>() == per_option[label].first);
    CHECK(o["runs"].as<int>() == per_option[label].first);
    CHECK(o["not_run"].as<int>() == per_option[label].second);
    counted += o["not_run"].as<long long>();
    if (o["ok"].as<int>() == 0)
      left_out.push_back(label);
    else if (o["not_run"].as<int>() > 0)
      fewer.push_back(label);
    if (o["ok"].as<int>() < 2) CHECK_FALSE(o["on_front"].as<bool>()); // too few replicates to compare
  }
  CHECK(counted == not_run);
  REQUIRE(b["options_left_out_by_deadline"].size() == left_out.size());
  for (std::size_t i = 0; i < left_out.size(); ++i)
    CHECK(b["options_left_out_by_deadline"][i].as<std::string>() == left_out[i]);
  REQUIRE(b["options_with_fewer_replicates"].size() == fewer.size());
  CHECK(b["min_replicates"].as<int>() == 2);
  const std::string rec = json["recommendation"].as<std::string>();
  if (!left_out.empty()) {
    CHECK_THAT(rec, ContainsSubstring("The deadline left out " + left_out[0]));
    CHECK_THAT(stdout_text, ContainsSubstring("Left out by the deadline, no run finished: " + left_out[0]));
  }
  const std::string said = "The deadline (the budget's end) stopped the runs: " + std::to_string(not_run) +
                           " planned run(s) did not run";
  CHECK_THAT(stdout_text, ContainsSubstring(said));
  CHECK_THAT(stderr_text, ContainsSubstring(said));
  CHECK_THAT(stderr_text, ContainsSubstring("not run (deadline)"));
  const std::string html = read_file(out / "report.html");
  CHECK_THAT(html, ContainsSubstring("<p id=\"deadline\">" + colocsim::svg::xml(said)));
  CHECK_THAT(html, ContainsSubstring("not run: deadline)"));
}

TEST_CASE("sweep --deadline starts no run after it, records them as not run, and --resume runs them",
          "[advise][cli][sweep][deadline]")
{
  const auto dir = scratch_dir("sweep-deadline");
  const fs::path out = dir / "out";
  {
    std::ofstream spec(dir / "spec.yaml");
    spec << "name: deadline\nscenario: scenario.yaml\naxes:\n  policy: [exclusive-fcfs, exclusive-easy]\n"
         << "seeds: {first: 1, count: 2}\n";
    std::ofstream scenario(dir / "scenario.yaml");
    scenario << "name: deadline\nseed: 1\nplatform:\n  preset: dgx-a100\n  nodes: 1\nworkload:\n  trace: "
             << TRACE
             << "\n  format: itp\n  default_profile: resnet50-train-bs32\npolicy:\n  name: "
                "exclusive-fcfs\noutputs:\n  timeseries: \"off\"\n";
  }
  const std::vector<std::string> base{"sweep", (dir / "spec.yaml").string(), "-o", out.string(), "-j", "1"};
  std::string command = COLOCSIM_BINARY; // the real binary: the progress is on the process's stderr
  for (const auto& arg : base)
    command += " " + arg;
  const int status = shell(command + " --deadline 1ms > " + (dir / "stdout.txt").string() + " 2> " +
                           (dir / "stderr.txt").string()); // over before the first run could start
  const std::string out_text = read_file(dir / "stdout.txt"), err_text = read_file(dir / "stderr.txt");
  INFO(err_text);
  REQUIRE(status == 0); // nothing failed
  CHECK_THAT(err_text, ContainsSubstring("run-0001 not run (deadline)"));
  CHECK_THAT(err_text, ContainsSubstring("4 of 4 runs not run: the deadline passed first"));
  CHECK_THAT(out_text, ContainsSubstring("4 runs (0 ok, 0 failed, 4 not run (deadline), 0 done earlier)"));
  auto rows = read_csv_cells(out / "sweep.csv");
  REQUIRE(rows.size() == 5);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    CHECK(rows[i][1] == "deadline");
    CHECK_FALSE(fs::exists(out / rows[i][0]));
  }
  auto resume = base;
  resume.push_back("--resume");
  const auto again = cli_spawning_binary(resume);
  INFO(again.err);
  REQUIRE(again.status == 0);
  rows = read_csv_cells(out / "sweep.csv");
  REQUIRE(rows.size() == 5);
  for (std::size_t i = 1; i < rows.size(); ++i)
    CHECK(rows[i][1] == "ok");

  for (const char* bad : {"0", "-1s", "soon", "31d"}) {
    auto b = base;
    b.insert(b.end(), {"--force", "--deadline", bad});
    const auto e = cli(b);
    CHECK(e.status == 2);
    CHECK_THAT(e.err, ContainsSubstring("option --deadline expects a wall time above 0"));
  }
  auto slurm = base;
  slurm.insert(slurm.end(), {"--slurm", "--deadline", "10m"});
  const auto s = cli(slurm);
  CHECK(s.status == 2);
  CHECK_THAT(s.err, ContainsSubstring("--deadline stops the runs of a sweep run here"));
}
