// The teaching labs stay true: each lab's sweep runs (real colocsim processes) and its README shows the table
// the sweep gives today, and the findings its answers state.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "experiments/Driver.hpp"
#include "sim/cli/Cli.hpp"
#include "workloads/ProfileCatalog.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

using colocsim::run_cli;
using colocsim::test::ContainsSubstring;
using colocsim::test::read_source_file;

namespace {
namespace fs = std::filesystem;

std::vector<std::map<std::string, std::string>> read_csv(const fs::path& file)
{
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');)
    header.push_back(c);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::map<std::string, std::string> row;
    std::size_t i = 0;
    for (std::string c; std::getline(ss, c, ',') && i < header.size(); ++i)
      row[header[i]] = c;
    rows.push_back(row);
  }
  return rows;
}

std::string fixed(double v, int precision)
{
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}
} // namespace

TEST_CASE("lab sharing-modes: the sweep gives the README's table and its answers hold", "[labs]")
{
  ::setenv("COLOCSIM_EXE", COLOCSIM_BINARY, 1);
  const auto out = fs::temp_directory_path() / ("colocsim-lab-" + std::to_string(::getpid()));
  fs::remove_all(out);
  const auto sweep = colocsim::test::cli(
      {"sweep", std::string(COLOCSIM_SOURCE_DIR) + "/experiments/labs/sharing-modes/lab.yaml", "-o",
       out.string(), "--quiet"});
  INFO(sweep.err);
  REQUIRE(sweep.status == 0);
  const auto rows = read_csv(out / "sweep.csv");
  REQUIRE(rows.size() == 12);

  std::string table =
      "| mix | sharing | policy | makespan (s) | energy (kWh) | mean wait (s) | mean JCT (s) | "
      "co-run slowdown |\n|---|---|---|---|---|---|---|---|\n";
  std::map<std::string, std::map<std::string, double>> at; // "mix sharing policy" → metric → value
  for (const auto& r : rows) {
    std::string mix = r.at("workload.trace");
    mix = mix.substr(0, mix.find(".csv"));
    const std::string key = mix + " " + r.at("platform.sharing") + " " + r.at("policy").substr(0, 9);
    for (const char* m : {"makespan_s", "energy_total_j", "wait_mean_s", "jct_mean_s", "corun_slowdown_mean"})
      at[key][m] = std::stod(r.at(m));
    table += "| " + mix + " | " + r.at("platform.sharing") + " | " + r.at("policy") + " | " +
             fixed(at[key]["makespan_s"], 0) + " | " + fixed(at[key]["energy_total_j"] / 3.6e6, 2) + " | " +
             fixed(at[key]["wait_mean_s"], 0) + " | " + fixed(at[key]["jct_mean_s"], 0) + " | " +
             fixed(at[key]["corun_slowdown_mean"], 2) + " |\n";
  }
  const std::string readme = read_source_file("experiments/labs/sharing-modes/README.md");
  const auto from = readme.find("<!-- lab-table -->\n"), to = readme.find("<!-- /lab-table -->");
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  INFO("the table the sweep gives today:\n" << table);
  CHECK(readme.substr(from + 19, to - from - 19) == table);

  // The answers' findings.
  const auto ms = [&](const std::string& k) { return at.at(k).at("makespan_s"); };
  // 1. light: ccs-4 first-fit is the best of the six, ccs-2 first-fit second, both beat time-slice first-fit.
  for (const auto& [k, v] : at)
    if (k.rfind("light", 0) == 0) CHECK(ms("light ccs-4 first-fit") <= v.at("makespan_s"));
  for (const auto& [k, v] : at)
    if (k.rfind("light", 0) == 0 && k != "light ccs-4 first-fit")
      CHECK(ms("light ccs-2 first-fit") <= v.at("makespan_s"));
  CHECK(at["light ccs-2 first-fit"]["corun_slowdown_mean"] <
        at["light time-slice first-fit"]["corun_slowdown_mean"]);
  // 2. ccs-2 costs light jobs nothing alone; ccs-4 does.
  CHECK(ms("light ccs-2 exclusive") == ms("light time-slice exclusive"));
  CHECK(at["light ccs-4 exclusive"]["corun_slowdown_mean"] > 1.0);
  // 3. heavy: time-slicing halves the wait but gains under 10 % of makespan.
  CHECK(at["heavy time-slice first-fit"]["wait_mean_s"] <
        0.5 * at["heavy time-slice exclusive"]["wait_mean_s"]);
  CHECK(ms("heavy time-slice first-fit") > 0.9 * ms("heavy time-slice exclusive"));
  // 4. heavy: one job per ccs-4 tile is about 2.5x slower than per time-sliced tile.
  CHECK(ms("heavy ccs-4 exclusive") > 2.4 * ms("heavy time-slice exclusive"));
  CHECK(ms("heavy ccs-4 exclusive") < 2.7 * ms("heavy time-slice exclusive"));

  // The exclusive rows, worked out without the engine: strict FCFS of the mix on the 4 tiles, one job per
  // tile (experiments::fcfs_exclusive), each job alone in one of the tile's k partitions (k = 1 under
  // time-slicing), so it runs duration × max(β·max(1, k·c) + (1 − β), k·u, 1) with c its profile's
  // compute_share, β its freq_sensitive share (the EU-bound part of the run time) and u its larger EU
  // utilisation (vec or xmx): models/README.md, a partition does not lend its idle EUs, only the EU-bound
  // part of the run stretches, and alone no co-runner adds contention (bandwidth bound 1).
  const auto catalog = colocsim::ProfileCatalog::load_file(std::string(COLOCSIM_SOURCE_DIR) +
                                                           "/workloads/profiles/default.yaml");
  for (const std::string mix : {"light", "heavy"}) {
    const auto trace = colocsim::experiments::read_csv_rows(
        std::string(COLOCSIM_SOURCE_DIR) + "/experiments/labs/sharing-modes/" + mix + ".csv");
    REQUIRE(!trace.empty());
    for (const auto& [sharing, k] :
         std::vector<std::pair<std::string, double>>{{"time-slice", 1.0}, {"ccs-2", 2.0}, {"ccs-4", 4.0}}) {
      std::vector<colocsim::experiments::FcfsJob> jobs;
      double slowdown_sum = 0;
      for (const auto& row : trace) {
        const auto* profile = catalog.find(row.at("profile"));
        REQUIRE(profile != nullptr);
        const auto& sig = profile->sig;
        const double beta = sig.freq_sensitive;
        const double slowdown = std::max({beta * std::max(1.0, k * sig.compute_share) + (1.0 - beta),
                                          k * std::max(sig.vec_util, sig.xmx_util), 1.0});
        slowdown_sum += slowdown;
        jobs.push_back({std::stod(row.at("submit_s")), std::stod(row.at("duration_s")) * slowdown,
                        static_cast<std::size_t>(std::stoul(row.at("devices")))});
      }
      const auto brute = colocsim::experiments::fcfs_exclusive(jobs, 4);
      const auto& got = at.at(mix + " " + sharing + " exclusive");
      INFO(mix << " " << sharing << " exclusive-fcfs against the brute-force schedule");
      CHECK(got.at("makespan_s") == Catch::Approx(brute.makespan_s).epsilon(1e-6));
      CHECK(got.at("wait_mean_s") == Catch::Approx(brute.wait_mean_s).epsilon(1e-6));
      CHECK(got.at("jct_mean_s") == Catch::Approx(brute.jct_mean_s).epsilon(1e-6));
      CHECK(got.at("corun_slowdown_mean") ==
            Approx(slowdown_sum / static_cast<double>(trace.size())).epsilon(1e-6));
    }
  }
  fs::remove_all(out);
}
