// The docs stay true: the format pages show the real bundled files, scenario.md has a row for every declared
// scenario key (with its default and its choices), outputs.md documents every field a run writes, and the
// README's tutorial shows what `colocsim run` really prints today.
#include "tests/CatchCompat.hpp"

#include "sim/Cli.hpp"
#include "sim/Resources.hpp"
#include "sim/Scenario.hpp"

#include <filesystem>
#include <regex>
#include <sstream>
#include <unistd.h>

using namespace colocsim;
using colocsim::test::doc_example;
using colocsim::test::read_source_file;
using colocsim::test::slurp;

namespace {

/// `text` in backticks, as the pages write names (built by appending: GCC 12 warns falsely on "`" + s + "`").
std::string code(const std::string& text)
{
  std::string quoted(1, '`');
  quoted.append(text).push_back('`');
  return quoted;
}

/// One key of describe_scenario_keys(): "  name  type[, default X | , required][, range [a, b]]".
struct DeclaredKey {
  std::string section; ///< "top level", "platform", "workload.synthetic", ...
  std::string name, default_text;
  std::vector<std::string> choices;
  bool required = false;
};

std::vector<DeclaredKey> declared_keys()
{
  std::vector<DeclaredKey> keys;
  std::istringstream text(describe_scenario_keys());
  std::string section;
  for (std::string line; std::getline(text, line);) {
    if (line.empty()) continue;
    if (line[0] != ' ') { // "top level:", "platform:", "workload.synthetic (instead of workload.trace):"
      section = line.substr(0, line.find(':'));
      section = section.substr(0, section.find(" ("));
      continue;
    }
    if (line.size() < 3 || line[1] != ' ' || line[2] == ' ') continue; // the help line under a key
    DeclaredKey k;
    k.section = section;
    const auto name_end = line.find(' ', 2);
    k.name = line.substr(2, name_end - 2);
    const std::string spec = line.substr(line.find_first_not_of(' ', name_end));
    if (const auto d = spec.find(", default "); d != std::string::npos) {
      const auto from = d + 10;
      k.default_text = spec.substr(from, spec.find(", range", from) - from);
    }
    k.required = spec.find(", required") != std::string::npos;
    if (spec.rfind("one of ", 0) == 0) {
      std::istringstream choices(spec.substr(7, spec.find(',') - 7));
      for (std::string c; std::getline(choices, c, '|');)
        k.choices.push_back(c);
    }
    keys.push_back(k);
  }
  return keys;
}

/// The text of the page's "### <heading>" subsection (up to the next heading), empty if there is none.
std::string subsection(const std::string& page, const std::string& heading)
{
  const auto start = page.find("\n### " + heading + "\n");
  if (start == std::string::npos) return {};
  const auto end = page.find("\n#", start + 5 + heading.size());
  return page.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

/// The table row of `key` in a subsection ("| `key` | ... |"), empty if there is none.
std::string table_row(const std::string& text, const std::string& key)
{
  const auto at = text.find("\n| `" + key + "` |");
  if (at == std::string::npos) return {};
  return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

std::string scratch_dir(const std::string& name)
{
  const auto dir =
      std::filesystem::temp_directory_path() / ("colocsim-docs-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

} // namespace

TEST_CASE("scenario.md shows the bundled default scenario verbatim", "[docs]")
{
  const std::string file = "experiments/scenarios/default/scenario.yaml";
  CHECK(doc_example("docs/formats/scenario.md", file) == read_source_file(file));
}

TEST_CASE("scenario.md has a row for every declared scenario key, with its default and choices", "[docs]")
{
  const std::string page = read_source_file("docs/formats/scenario.md");
  const auto keys = declared_keys();
  REQUIRE(keys.size() >= 30); // the parse of describe_scenario_keys() found the keys
  for (const auto& k : keys) {
    const std::string heading = k.section == "top level" ? "Top level" : code(k.section);
    INFO("docs/formats/scenario.md, section '### "
         << heading << "', key '" << k.name << "' (colocsim run --help-scenario shows the declaration)");
    const std::string row = table_row(subsection(page, heading), k.name);
    CHECK_FALSE(row.empty());
    if (row.empty()) continue;
    if (!k.default_text.empty()) CHECK(row.find(code(k.default_text)) != std::string::npos);
    if (k.required) CHECK(row.find("required") != std::string::npos);
    for (const auto& c : k.choices) {
      INFO("choice " << c);
      CHECK(row.find(code(c)) != std::string::npos);
    }
  }
}

TEST_CASE("platform.md shows a bundled preset and names every bundled preset", "[docs]")
{
  const std::string file = "sim/platforms/aurora-node.yaml";
  CHECK(doc_example("docs/formats/platform.md", file) == read_source_file(file));
  const std::string page = read_source_file("docs/formats/platform.md");
  for (const auto& preset : bundled_names("sim/platforms")) {
    INFO(preset);
    CHECK(page.find(code(preset)) != std::string::npos);
  }
}

TEST_CASE("the docs index (docs/README.md) links every page of docs/", "[docs]")
{
  const std::string index = read_source_file("docs/README.md");
  const std::filesystem::path docs = std::filesystem::path(COLOCSIM_SOURCE_DIR) / "docs";
  int n = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(docs)) {
    if (entry.path().extension() != ".md" || entry.path().filename() == "README.md") continue;
    const std::string page = std::filesystem::relative(entry.path(), docs).generic_string();
    INFO("docs/README.md should link " << page);
    CHECK(index.find("](" + page + ")") != std::string::npos);
    ++n;
  }
  CHECK(n >= 10);
}

TEST_CASE("outputs.md documents every field a run writes", "[docs]")
{
  const auto dir = scratch_dir("outputs");
  std::ostringstream out, err;
  REQUIRE(run_cli({"run", "-o", dir, "--quiet"}, out, err) == 0);
  const std::string page = read_source_file("docs/formats/outputs.md");
  const std::string summary = slurp(dir + "/summary.json");
  const std::regex key("\"([a-z0-9_]+)\":");
  int n = 0;
  for (auto it = std::sregex_iterator(summary.begin(), summary.end(), key); it != std::sregex_iterator();
       ++it) {
    INFO((*it)[1].str());
    CHECK(page.find(code((*it)[1].str())) != std::string::npos);
    ++n;
  }
  CHECK(n >= 30);
  for (const char* file : {"jobs.csv", "timeseries.csv"}) {
    std::istringstream csv(slurp(dir + "/" + file));
    std::string header;
    std::getline(csv, header);
    std::istringstream cols(header);
    for (std::string col; std::getline(cols, col, ',');) {
      INFO(file << ": " << col);
      CHECK(page.find(code(col)) != std::string::npos);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("the README's tutorial shows what colocsim run prints", "[docs]")
{
  // The README pastes the summaries of `colocsim run` and of its no-sharing baseline; when a model or the
  // default scenario changes, paste the new output (printed below on failure) and re-read the explanation.
  const std::string readme = read_source_file("README.md");
  const auto check = [&](std::vector<std::string> args, const std::string& name) {
    const auto dir = scratch_dir(name);
    args.insert(args.end(), {"-o", dir});
    std::ostringstream out, err;
    REQUIRE(run_cli(args, out, err) == 0);
    std::string summary = out.str();
    summary = summary.substr(0, summary.find("  results in ")); // the output directory differs
    INFO("README.md should show this output of colocsim run (args: " << name << "):\n" << summary);
    CHECK(readme.find(summary) != std::string::npos);
    std::filesystem::remove_all(dir);
  };
  check({"run"}, "default");
  check({"run", "--set", "policy=exclusive-fcfs"}, "exclusive");
}
