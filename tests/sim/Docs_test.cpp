// The format pages stay true: they show the real bundled files, list every declared scenario key and
// document every field a run actually writes.
#include "tests/CatchCompat.hpp"

#include "sim/Cli.hpp"
#include "sim/Scenario.hpp"

#include <filesystem>
#include <regex>
#include <sstream>
#include <unistd.h>

using namespace colocsim;
using colocsim::test::doc_example;
using colocsim::test::read_source_file;
using colocsim::test::slurp;

TEST_CASE("scenario.md shows the default scenario and lists every declared key", "[docs]")
{
  const std::string file = "experiments/scenarios/default/scenario.yaml";
  CHECK(doc_example("docs/formats/scenario.md", file) == read_source_file(file));
  const std::string page = read_source_file("docs/formats/scenario.md");
  std::istringstream keys(describe_scenario_keys());
  int n = 0;
  for (std::string line; std::getline(keys, line);) {
    // Key lines are "  name  type..." (two-space indent, then the key).
    if (line.size() < 3 || line[0] != ' ' || line[1] != ' ' || line[2] == ' ') continue;
    const std::string key = line.substr(2, line.find(' ', 2) - 2);
    INFO(key);
    CHECK(page.find("  " + key + " ") != std::string::npos);
    ++n;
  }
  CHECK(n >= 25);
}

TEST_CASE("platform.md shows a bundled preset", "[docs]")
{
  const std::string file = "sim/platforms/aurora-node.yaml";
  CHECK(doc_example("docs/formats/platform.md", file) == read_source_file(file));
}

TEST_CASE("outputs.md documents every field a run writes", "[docs]")
{
  const auto dir = std::filesystem::temp_directory_path() / ("colocsim-docs-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::ostringstream out, err;
  REQUIRE(run_cli({"run", "-o", dir.string(), "--quiet"}, out, err) == 0);
  const std::string page = read_source_file("docs/formats/outputs.md");
  const std::string summary = slurp((dir / "summary.json").string());
  const std::regex key("\"([a-z0-9_]+)\":");
  int n = 0;
  for (auto it = std::sregex_iterator(summary.begin(), summary.end(), key); it != std::sregex_iterator();
       ++it) {
    INFO((*it)[1].str());
    CHECK(page.find("`" + (*it)[1].str() + "`") != std::string::npos);
    ++n;
  }
  CHECK(n >= 30);
  for (const char* file : {"jobs.csv", "timeseries.csv"}) {
    std::istringstream csv(slurp((dir / file).string()));
    std::string header;
    std::getline(csv, header);
    std::istringstream cols(header);
    for (std::string col; std::getline(cols, col, ',');) {
      INFO(file << ": " << col);
      CHECK(page.find("`" + col + "`") != std::string::npos);
    }
  }
  std::filesystem::remove_all(dir);
}
