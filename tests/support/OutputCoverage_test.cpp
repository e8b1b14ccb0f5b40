// Nothing the test suite writes escapes the strict checks (CONTRIBUTING.md, Tests): the C++ tests run
// colocsim only through cli() and shell() of tests/sim/CliTestSupport.hpp, which parse the outputs of every
// invocation; every CMake or shell test script that has colocsim write files runs the checker executable on
// them; the tables the experiment drivers wrote and the repository keeps parse strictly too.
#include "tests/CatchCompat.hpp"
#include "tests/support/StrictFormats.hpp"

#include <filesystem>
#include <regex>

using colocsim::test::ContainsSubstring;
using colocsim::test::slurp;

namespace {
namespace fs = std::filesystem;

/// The text of a C++ file without its // comments and string-literal contents (so a comment or a message
/// that names run_cli( is not a call).
std::string code_only(const std::string& text)
{
  std::string out;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
        continue;
      }
      if (c == '"') {
        in_string = false;
        out += c;
      } else if (c == '\n') {
        out += c;
      }
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
      out += '\n';
      continue;
    }
    if (c == '"' && !(i > 0 && text[i - 1] == '\'')) in_string = true;
    if (c == 'R' && i + 1 < text.size() && text[i + 1] == '"') { // raw string R"(...)": skip to )"
      const auto end = text.find(")\"", i);
      if (end == std::string::npos) break;
      for (std::size_t j = i; j < end; ++j)
        if (text[j] == '\n') out += '\n';
      i = end + 1;
      continue;
    }
    out += c;
  }
  return out;
}

/// The test sources that may call the CLI or a shell directly: the helpers themselves, and the checker's
/// own tests (which run the checker, not colocsim).
bool allowed_to_spawn(const std::string& relative)
{
  return relative == "tests/sim/CliTestSupport.hpp" || relative.rfind("tests/support/", 0) == 0 ||
         relative.rfind("tests/fuzz/", 0) == 0;
}
} // namespace

TEST_CASE("the C++ tests run colocsim only through the helpers that check its outputs", "[support][outputs]")
{
  const fs::path root = COLOCSIM_SOURCE_DIR;
  // run_cli( is the in-process CLI; system( and popen( start processes (colocsim among them).
  const std::regex spawn(R"((\brun_cli|\bsystem|\bpopen|\bexecv[pe]*|\bexecl[pe]*)\s*\()");
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(root / "tests")) {
    const auto ext = e.path().extension();
    if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
    const std::string relative = fs::relative(e.path(), root).generic_string();
    if (allowed_to_spawn(relative)) continue;
    ++files;
    const std::string code = code_only(slurp(e.path().string()));
    std::size_t line = 1, start = 0;
    while (start < code.size()) {
      const std::size_t end = std::min(code.find('\n', start), code.size());
      const std::string l = code.substr(start, end - start);
      std::smatch m;
      if (std::regex_search(l, m, spawn)) {
        // One exception, said where it is: a process that is not colocsim and writes no output file.
        const std::string original = slurp(e.path().string());
        const bool excused = original.find("git -C '") != std::string::npos && m[1] == "popen";
        INFO(relative << ":" << line << ": " << l);
        CHECK(excused); // use colocsim::test::cli() or shell() (tests/sim/CliTestSupport.hpp)
      }
      start = end + 1;
      ++line;
    }
  }
  CHECK(files > 50);
}

TEST_CASE("every test script that has colocsim write files checks them with the checker",
          "[support][outputs]")
{
  const fs::path root = COLOCSIM_SOURCE_DIR;
  int scripts = 0;
  for (const auto& e : fs::recursive_directory_iterator(root / "tests")) {
    const auto ext = e.path().extension();
    if (!e.is_regular_file() || (ext != ".cmake" && ext != ".sh")) continue;
    const std::string text = slurp(e.path().string());
    // A script that runs a writing subcommand with an output path.
    const std::regex writes(R"((\brun|\breplay|\bsweep|\bgenerate|\bcalibrate)\b[^\n]*\s-o\s)");
    if (!std::regex_search(text, writes)) continue;
    ++scripts;
    INFO(fs::relative(e.path(), root).generic_string()
         << " has colocsim write files but never runs colocsim_check_outputs on them (CHECK_OUTPUTS)");
    CHECK(text.find("CHECK_OUTPUTS") != std::string::npos);
  }
  CHECK(scripts >= 2); // calibration/EndToEnd.cmake, plugins/out_of_tree.sh
}

TEST_CASE("the experiments' committed result tables parse strictly", "[support][outputs]")
{
  const fs::path root = COLOCSIM_SOURCE_DIR;
  int tables = 0;
  for (const auto& e : fs::directory_iterator(root / "experiments")) {
    const auto table = e.path() / "results.csv";
    if (!fs::exists(table)) continue;
    ++tables;
    INFO(table.string());
    CHECK(colocsim::test::check_output_file(table) == std::vector<std::string>{});
  }
  CHECK(tables >= 3);
}
