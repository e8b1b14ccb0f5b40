// The docs stay true: the format pages show the real bundled files, scenario.md has a row for every declared
// scenario key (with its default and its choices), outputs.md documents every field a run writes, the
// README's tutorial shows what `colocsim run` really prints today, and no file of the repository refers to a
// document outside it.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "calibration/InterferenceRegistry.hpp"
#include "cli/Cli.hpp"
#include "sim/Outputs.hpp"
#include "sim/Resources.hpp"
#include "sim/Scenario.hpp"

#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace colocsim;
using namespace colocsim::test;

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

/// The repository's files, relative to its root: `git ls-files` where the source tree is a git checkout,
/// else every regular file of the tree outside build folders and hidden folders.
std::vector<std::string> repository_files()
{
  std::vector<std::string> files;
  const std::string root = COLOCSIM_SOURCE_DIR;
  const std::string command = "git -C '" + root + "' ls-files -z 2>/dev/null";
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    std::string listing;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
      listing.append(buffer, n);
    const int status = ::pclose(pipe);
    if (status == 0) {
      std::istringstream names(listing);
      for (std::string name; std::getline(names, name, '\0');)
        if (!name.empty()) files.push_back(name);
    }
  }
  if (!files.empty()) return files;
  namespace fs = std::filesystem;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.rfind("build", 0) == 0 || name.rfind(".", 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files.push_back(fs::relative(it->path(), root).generic_string());
  }
  return files;
}

} // namespace

TEST_CASE("no file of the repository refers to documents outside it", "[docs]")
{
  // A clone has no shared folder beside it and no design or style notes outside the repository: the design is
  // docs/architecture.md, the style CONTRIBUTING.md, the sources docs/sources.md. The patterns are built from
  // pieces so that this file does not match itself.
  const std::string up = "..";
  const std::string md = ".md";
  const std::vector<std::string> patterns = {up + "/shared", "/work" + std::string("/shared"), "DESIGN" + md,
                                             "STYLE" + md};
  const auto files = repository_files();
  CHECK(files.size() > 100);
  std::set<std::string> offenders;
  for (const auto& name : files) {
    std::error_code ec;
    const auto path = std::filesystem::path(COLOCSIM_SOURCE_DIR) / name;
    if (!std::filesystem::is_regular_file(path, ec)) continue; // deleted in the working tree, or a link
    const std::string text = slurp(path.string());
    if (text.find('\0') != std::string::npos) continue; // binary
    std::istringstream lines(text);
    int line_number = 0;
    for (std::string line; std::getline(lines, line);) {
      ++line_number;
      for (const auto& pattern : patterns)
        if (line.find(pattern) != std::string::npos)
          offenders.insert(name + ":" + std::to_string(line_number) + ": " + pattern);
    }
  }
  std::string listing;
  for (const auto& o : offenders)
    listing += o + "\n";
  INFO(offenders.size() << " references outside the repository:\n" << listing);
  CHECK(offenders.empty());
}

TEST_CASE("scenario.md shows the bundled default scenario verbatim", "[docs]")
{
  const std::string file = "sim/scenarios/default/scenario.yaml";
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

TEST_CASE("models/README.md documents every registered interference model", "[docs]")
{
  const std::string page = read_source_file("models/README.md");
  const auto list = page.find("**Interference models**");
  REQUIRE(list != std::string::npos);
  for (const auto& m : interference_registry()) {
    INFO("models/README.md, **Interference models**: a bullet \"- `" << m.name << "`\"");
    CHECK(page.find("- " + code(m.name), list) != std::string::npos);
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
  REQUIRE(colocsim::test::cli({"run", "-o", dir, "--quiet"}).status == 0);
  const std::string page = read_source_file("docs/formats/outputs.md");
  // The one list of summary.json's fields (sim/Outputs.hpp) is documented, and is what a run writes: the
  // top-level keys of its summary.json (indented by two spaces), in order.
  std::vector<std::string> declared;
  for (const auto& field : summary_fields()) {
    INFO(field.name);
    CHECK(page.find(code(field.name)) != std::string::npos);
    declared.emplace_back(field.name);
  }
  CHECK(declared.size() >= 30);
  // Each field's unit in the code (what `colocsim plot` converts for its axes) is the unit column of the
  // page's summary.json table: the row whose first cell names the field.
  {
    const auto from = page.find("## summary.json"), to = page.find("\n## ", from + 1);
    std::istringstream table(page.substr(from, to - from));
    std::map<std::string, std::string> documented_unit;
    for (std::string row; std::getline(table, row);) {
      if (row.rfind("| `", 0) != 0) continue;
      const auto a = row.find(" | "), b = row.find(" | ", a + 3);
      REQUIRE(b != std::string::npos);
      const std::string keys = row.substr(0, a), unit = row.substr(a + 3, b - a - 3);
      const std::regex key_re("`([a-z0-9_]+)`");
      for (std::sregex_iterator k(keys.begin(), keys.end(), key_re), end; k != end; ++k)
        documented_unit[(*k)[1].str()] = unit;
    }
    for (const auto& field : summary_fields()) {
      INFO(field.name);
      CHECK(documented_unit[field.name] == field.unit);
      CHECK(std::string(field.label).size() > 1);
    }
  }
  std::istringstream summary(slurp(dir + "/summary.json"));
  const std::regex key("^  \"([a-z0-9_]+)\":.*");
  std::vector<std::string> written;
  std::smatch m;
  for (std::string line; std::getline(summary, line);)
    if (std::regex_match(line, m, key)) written.push_back(m[1].str());
  CHECK(written == declared);
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
    const auto run = colocsim::test::cli(args);
    REQUIRE(run.status == 0);
    std::string summary = run.out;
    summary = summary.substr(0, summary.find("  results in ")); // the output directory differs
    INFO("README.md should show this output of colocsim run (args: " << name << "):\n" << summary);
    CHECK(readme.find(summary) != std::string::npos);
    std::filesystem::remove_all(dir);
  };
  check({"run"}, "default");
  check({"run", "--set", "policy=exclusive-fcfs"}, "exclusive");
}
