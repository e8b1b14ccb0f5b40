// The strict checks themselves: each kind of bad JSON and CSV is rejected with its place, and well-formed
// text (including every construct colocsim's writers use: null, escapes, quoted CSV fields, empty cells)
// is accepted. A check that accepted everything would pass every other test, so these pin it.
#include "tests/CatchCompat.hpp"
#include "tests/support/StrictFormats.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace colocsim::test;

namespace {
std::string json_error(const std::string& text)
{
  const auto p = check_json(text, "t.json");
  return p.empty() ? std::string("(accepted)") : p[0];
}
std::string csv_errors(const std::string& text, const std::vector<std::string>& numeric = {})
{
  std::string all;
  for (const auto& p : check_csv(text, "t.csv", numeric))
    all += p + "\n";
  return all.empty() ? std::string("(accepted)") : all;
}
} // namespace

TEST_CASE("strict JSON accepts RFC 8259 documents", "[support][json]")
{
  for (const char* ok : {R"({"a": 1, "b": [true, false, null], "c": {"d": "x\"y\\z\/\b\f\n\r\t\u00e9"}})",
                         "[]", "{}", "0", "-0.5e-3", "1E+9", "\"\\ud83d\\ude00\"", " \n\t{\"k\": -12.5}\r\n",
                         "\"caf\xc3\xa9\"", "[[[[1]]]]", "1e-400"}) {
    INFO(ok);
    CHECK(check_json(ok, "t.json").empty());
  }
}

TEST_CASE("strict JSON rejects inf, nan and every other malformation, with the place", "[support][json]")
{
  struct Bad {
    const char* text;
    const char* message;
  };
  for (const Bad& b : std::vector<Bad>{
           {R"({"x": inf})", "t.json:1:7: 'inf' is not JSON"},
           {R"({"x": -inf})", "is not JSON (no infinity or NaN)"},
           {R"({"x": nan})", "'nan' is not JSON"},
           {R"({"x": NaN})", "'NaN' is not JSON"},
           {R"({"x": Infinity})", "'Infinity' is not JSON"},
           {R"({"x": -Infinity})", "is not JSON (no infinity or NaN)"},
           {R"({"x": 1e999})", "out of a double's range"},
           {R"({"a": 1,})", "trailing comma in an object"},
           {"[1, 2,]", "trailing comma in an array"},
           {"{\"a\": 1,\n \"a\": 2}", "t.json:2:"},
           {R"({"a": 1, "a": 2})", "duplicate key \"a\""},
           {R"(["\x"])", "bad escape '\\x'"},
           {R"(["\u12G4"])", "bad \\u escape"},
           {R"(["\udc00"])", "lone low surrogate"},
           {R"(["\ud800x"])", "high surrogate not followed"},
           {"[\"a\tb\"]", "raw control character"},
           {"[\"\xff\"]", "invalid UTF-8"},
           {"[\"\xc0\xaf\"]", "invalid UTF-8"},
           {R"({"a": 1} x)", "trailing characters after the JSON value"},
           {"{} {}", "trailing characters"},
           {"", "empty document"},
           {R"({"a": "b)", "unterminated string"},
           {R"({"a" 1})", "expected ':' after a key"},
           {R"({a: 1})", "expected a key"},
           {"[01]", "leading zero"},
           {"[+1]", "unexpected character '+'"},
           {"[1.]", "no digit after the decimal point"},
           {"[.5]", "unexpected character '.'"},
           {"[1e]", "no digit in the exponent"},
           {"[1 2]", "expected ',' or ']'"},
           {"[tru]", "unexpected character 't'"},
           {"{\"a\": [1, 2}", "expected ',' or ']'"},
       }) {
    INFO(b.text);
    CHECK_THAT(json_error(b.text), ContainsSubstring(b.message));
  }
}

TEST_CASE("strict JSON bounds the nesting depth", "[support][json]")
{
  const int max = colocsim::test::MAX_JSON_DEPTH;
  CHECK(check_json(std::string(max, '[') + std::string(max, ']'), "t.json").empty());
  CHECK_THAT(json_error(std::string(max + 1, '[') + std::string(max + 1, ']')),
             ContainsSubstring("nested deeper than 64 levels"));
  // A hostile depth stops at the bound instead of exhausting the stack.
  CHECK_THAT(json_error(std::string(1000000, '[')), ContainsSubstring("nested deeper"));
}

TEST_CASE("strict CSV accepts RFC 4180 files the way colocsim writes them", "[support][csv]")
{
  CHECK(csv_errors("a,b_s\nx,1.5\ny,\n", {"b_s"}) == "(accepted)");
  CHECK(csv_errors("a,b\r\n\"x,y\",\"say \"\"hi\"\"\"\r\n", {}) == "(accepted)");
  CHECK(csv_errors("a,b\n\"two\nlines\",2\n", {"b"}) == "(accepted)");
  CHECK(csv_errors("a\n\"\"\n", {}) == "(accepted)"); // a quoted empty field is a row, not an empty line
  CHECK(csv_errors("id,t_s\n1,-2.5e-3\n2,0\n", {"t_s"}) == "(accepted)");
}

TEST_CASE("strict CSV rejects short and long rows, bad quoting, empty rows and non-finite numbers",
          "[support][csv]")
{
  CHECK_THAT(csv_errors("a,b,c\n1,2,3\n1,2\n"), ContainsSubstring("t.csv:3: 2 fields; expected 3"));
  CHECK_THAT(csv_errors("a,b\n1,2,3\n"), ContainsSubstring("t.csv:2: 3 fields; expected 2"));
  CHECK_THAT(csv_errors("a,b\n\"1,2\n"), ContainsSubstring("t.csv:2: unterminated quoted field"));
  CHECK_THAT(csv_errors("a,b\n\"1\"x,2\n"), ContainsSubstring("characters after the closing quote"));
  CHECK_THAT(csv_errors("a,b\n1\"2,3\n"), ContainsSubstring("a '\"' inside an unquoted field"));
  CHECK_THAT(csv_errors("a,b\n1,2\n\n"), ContainsSubstring("t.csv:3: empty row"));
  CHECK_THAT(csv_errors("a,b\n\n1,2\n"), ContainsSubstring("t.csv:2: empty row"));
  CHECK_THAT(csv_errors("a\n1\n\n"), ContainsSubstring("t.csv:3: empty row"));
  CHECK_THAT(csv_errors("a,b\n1,2"), ContainsSubstring("does not end with a newline"));
  CHECK_THAT(csv_errors(""), ContainsSubstring("empty file"));
  CHECK_THAT(csv_errors("a,a\n1,2\n"), ContainsSubstring("column 'a' appears twice"));
  CHECK_THAT(csv_errors("a,\n1,2\n"), ContainsSubstring("an empty column name"));
  CHECK_THAT(csv_errors("a,b\n1,2\r3\n"), ContainsSubstring("carriage return"));
  // Non-finite spellings are refused in every column, numeric or not.
  for (const char* cell :
       {"inf", "-inf", "+Inf", "Infinity", "-Infinity", "nan", "NaN", "-nan", "nan(0x1)", "1e999"}) {
    INFO(cell);
    CHECK_THAT(csv_errors(std::string("name,x\nn,") + cell + "\n"),
               ContainsSubstring("is not a finite number"));
  }
  // A numeric column holds numbers or nothing.
  CHECK_THAT(csv_errors("t_s\nsoon\n", {"t_s"}), ContainsSubstring("t_s: not a number (got 'soon')"));
  CHECK_THAT(csv_errors("t_s\n0x10\n", {"t_s"}), ContainsSubstring("not a number (got '0x10')"));
  CHECK_THAT(csv_errors("t_s\n 1\n", {"t_s"}), ContainsSubstring("not a number"));
}

TEST_CASE("the numeric columns of colocsim's CSV outputs come from their documented schemas",
          "[support][csv]")
{
  const std::vector<std::string> jobs{"id",       "submit_s", "start_s", "end_s",    "status",
                                      "attempts", "devices",  "profile", "slowdown", "energy_j",
                                      "jct_s",    "wait_s",   "reason"};
  const auto j = numeric_columns("jobs.csv", jobs);
  // the 8 numeric columns of every jobs.csv, and nodes and comm_slowdown of a run that can communicate
  CHECK(j.size() == 10);
  CHECK(std::find(j.begin(), j.end(), "devices") == j.end()); // "0;1" is a list, not a number
  CHECK(std::find(j.begin(), j.end(), "comm_slowdown") != j.end());
  CHECK(numeric_columns("sweep.csv",
                        {"run", "status", "policy", "seed", "plugins", "makespan_s", "jobs_read"}) ==
        std::vector<std::string>{"seed", "makespan_s", "jobs_read"});
  CHECK(numeric_columns("other.csv", {"name", "t_s", "power_w", "count"}) ==
        std::vector<std::string>{"t_s", "power_w"});
}

TEST_CASE("check_output_tree finds every .json and .csv file of a directory", "[support]")
{
  namespace fs = std::filesystem;
  const auto d = fs::temp_directory_path() / ("colocsim-strict-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d / "run-0001");
  std::ofstream(d / "sweep.csv") << "run,status,seed,makespan_s\nrun-0001,ok,1,12.5\n";
  std::ofstream(d / "run-0001" / "summary.json") << "{\"makespan_s\": nan}\n";
  std::ofstream(d / "run-0001" / "notes.txt") << "not checked: {";
  std::size_t n = 0;
  const auto problems = check_output_tree(d, &n);
  CHECK(n == 2);
  REQUIRE(problems.size() == 1);
  CHECK_THAT(problems[0], ContainsSubstring("summary.json:1:16: 'nan' is not JSON"));
  CHECK_THAT(check_output_tree(d / "missing")[0], ContainsSubstring("no such file or directory"));
  fs::remove_all(d);
}

TEST_CASE("check_key_values wants a finite number in every bench figure but the policy", "[support]")
{
  CHECK(check_key_values("jobs=10\npolicy=first-fit\nwall_s=0.25\n", "bench").empty());
  CHECK_THAT(check_key_values("jobs=10\nevents_per_s=inf\n", "bench")[0],
             ContainsSubstring("bench:2: events_per_s: not a finite number (got 'inf')"));
  CHECK_THAT(check_key_values("jobs=10\nnot a pair\n", "bench")[0], ContainsSubstring("expected key=value"));
}

TEST_CASE("the checker executable exits 1 on a bad output and 0 on good ones", "[support]")
{
  namespace fs = std::filesystem;
  const auto d = fs::temp_directory_path() / ("colocsim-strict-exe-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  std::ofstream(d / "good.csv") << "a,b\n1,2\n";
  const std::string exe = CHECK_OUTPUTS;
  CHECK(std::system((exe + " " + d.string() + " >/dev/null 2>&1").c_str()) == 0);
  std::ofstream(d / "bad.csv") << "a,b\n1\n";
  const int raw = std::system((exe + " " + d.string() + " >/dev/null 2>&1").c_str());
  CHECK(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 1);
  fs::remove_all(d);
}
