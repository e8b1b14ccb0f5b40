#pragma once
// Shared by every test: Catch2 v3 names on either Catch2 v3 or v2.13 (Debian bookworm ships 2.13.10 only;
// tests are written against v3: catch_test_macros.hpp, Catch::Approx, Catch::Matchers::ContainsSubstring,
// WithinAbs/WithinRel), helpers to read files of the source tree, and the small helpers of tests that break
// a valid input and check its error (replace, input_error_of).
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#else
#include <catch2/catch.hpp>
namespace Catch {
using Detail::Approx;
namespace Matchers {
inline auto ContainsSubstring(const std::string& text)
{
  return Contains(text);
}
} // namespace Matchers
} // namespace Catch
#endif

#include "base/Errors.hpp"

#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace colocsim::test {

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

/// Whole text of a file; throws std::runtime_error if it cannot be read.
inline std::string slurp(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Text of a file of the source tree (path relative to the repository root, COLOCSIM_SOURCE_DIR).
inline std::string read_source_file(const std::string& relative_path)
{
  return slurp(std::string(COLOCSIM_SOURCE_DIR) + "/" + relative_path);
}

/// The ```yaml block that follows `<!-- example: FILE -->` in a doc page (empty if there is none), so
/// tests can check that a format page shows the real bundled file.
inline std::string doc_example(const std::string& doc_relative_path, const std::string& file_relative_path)
{
  const std::string doc = read_source_file(doc_relative_path);
  const std::string marker = "<!-- example: " + file_relative_path + " -->\n```yaml\n";
  const auto start = doc.find(marker);
  if (start == std::string::npos) return {};
  const auto body = start + marker.size();
  const auto end = doc.find("\n```", body - 1);
  return end == std::string::npos ? std::string{} : doc.substr(body, end + 1 - body);
}

/// The InputError message `f` throws, or "(no error)".
inline std::string input_error_of(const std::function<void()>& f)
{
  try {
    f();
  } catch (const colocsim::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

/// `text` with the first `from` replaced by `to`; `from` must be there (a test that breaks a valid file).
inline std::string replace(std::string text, const std::string& from, const std::string& to)
{
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return text;
}

} // namespace colocsim::test
