// Declared parameters: one ParamSpec list drives parsing, defaults, ranges, choices and messages.
#include "base/Params.hpp"
#include "base/Yaml.hpp"
#include "tests/CatchCompat.hpp"

using namespace colocsim;
using colocsim::test::ContainsSubstring;
using colocsim::test::WithinRel;

namespace {

std::vector<ParamSpec> specs()
{
  std::vector<ParamSpec> s(5);
  s[0].name = "horizon";
  s[0].type = ParamType::REAL;
  s[0].unit = Unit::SECONDS;
  s[0].min = 0;
  s[0].default_text = "1h";
  s[0].help = "simulated time limit";
  s[1].name = "mode";
  s[1].type = ParamType::CHOICE;
  s[1].choices = {"exclusive", "time-slice"};
  s[1].default_text = "exclusive";
  s[1].help = "sharing mode";
  s[2].name = "count";
  s[2].type = ParamType::INT;
  s[2].min = 1;
  s[2].max = 64;
  s[2].default_text = "2";
  s[2].help = "co-runners per device";
  s[3].name = "verbose";
  s[3].type = ParamType::BOOL;
  s[3].default_text = "false";
  s[3].help = "print progress";
  s[4].name = "label";
  s[4].type = ParamType::STRING;
  s[4].required = true;
  s[4].help = "run label";
  return s;
}

std::map<std::string, GivenValue> given(std::initializer_list<std::pair<const char*, const char*>> kv)
{
  std::map<std::string, GivenValue> out;
  for (const auto& [k, v] : kv)
    out[k] = GivenValue{v, SourceLocation{"cli"}};
  return out;
}

} // namespace

TEST_CASE("values are parsed and defaults applied", "[params]")
{
  const auto s = specs();
  DiagnosticSink sink;
  const auto p = parse_params(s, given({{"label", "run1"}, {"count", "4"}}), "policy", sink);
  REQUIRE(sink.empty());
  CHECK_THAT(p.real("horizon"), WithinRel(3600.0, 1e-12)); // default "1h"
  CHECK(p.text("mode") == "exclusive");
  CHECK(p.integer("count") == 4);
  CHECK_THAT(p.real("count"), WithinRel(4.0, 1e-12)); // integers read as reals too
  CHECK_FALSE(p.flag("verbose"));
  CHECK(p.text("label") == "run1");
  // Declaration order, not alphabetical.
  CHECK(p.to_string() == "horizon=3600,mode=exclusive,count=4,verbose=false,label=run1");
}

TEST_CASE("unknown key lists the valid keys", "[params]")
{
  const auto s = specs();
  DiagnosticSink sink;
  parse_params(s, given({{"label", "x"}, {"horizn", "2h"}}), "policy", sink);
  REQUIRE(sink.diagnostics().size() == 1);
  const auto& d = sink.diagnostics()[0];
  CHECK(d.path == "policy.horizn");
  CHECK(d.message == "unknown key; valid: horizon, mode, count, verbose, label");
  CHECK(d.to_string() == "cli: policy.horizn: unknown key; valid: horizon, mode, count, verbose, label");
}

TEST_CASE("out-of-range and malformed values say what was expected", "[params]")
{
  const auto s = specs();
  DiagnosticSink sink;
  parse_params(s, given({{"label", "x"}, {"count", "100"}, {"horizon", "-5s"}, {"verbose", "maybe"}}), "",
               sink);
  REQUIRE(sink.diagnostics().size() == 3);
  // std::map iterates the given keys alphabetically: count, horizon, verbose.
  CHECK(sink.diagnostics()[0].path == "count");
  CHECK(sink.diagnostics()[0].message == "out of range (got '100'); expected an integer in [1, 64]");
  CHECK(sink.diagnostics()[1].path == "horizon");
  CHECK_THAT(sink.diagnostics()[1].message, ContainsSubstring("out of range (got '-5s')"));
  CHECK_THAT(sink.diagnostics()[1].message, ContainsSubstring("in [0, inf]"));
  CHECK(sink.diagnostics()[2].message == "expected true or false (got 'maybe')");
}

TEST_CASE("a choice lists its valid values", "[params]")
{
  const auto s = specs();
  DiagnosticSink sink;
  parse_params(s, given({{"label", "x"}, {"mode", "mps"}}), "sharing", sink);
  REQUIRE(sink.diagnostics().size() == 1);
  CHECK(sink.diagnostics()[0].path == "sharing.mode");
  CHECK(sink.diagnostics()[0].message == "unknown value (got 'mps'); valid: exclusive, time-slice");
  CHECK(s[1].type_name() == "one of exclusive|time-slice");
}

TEST_CASE("a missing required key is reported", "[params]")
{
  const auto s = specs();
  DiagnosticSink sink;
  parse_params(s, {}, "run", sink);
  REQUIRE(sink.diagnostics().size() == 1);
  CHECK(sink.diagnostics()[0].path == "run.label");
  CHECK_THAT(sink.diagnostics()[0].message, ContainsSubstring("missing required key"));
  CHECK_THROWS_AS(sink.throw_if_any(), InputError);
}

TEST_CASE("errors in YAML carry file:line:col of the offending value or key", "[params]")
{
  const auto s = specs();
  // line 1: "policy:", line 2 "  label: a", line 3 "  count: 0", line 4 "  colour: red"
  const auto root = load_yaml("policy:\n  label: a\n  count: 0\n  colour: red\n", "s.yaml");
  DiagnosticSink sink;
  read_params(root["policy"], s, "s.yaml", "policy", sink);
  REQUIRE(sink.diagnostics().size() == 2);
  // Unknown keys are reported first, at the key; bad values at the value.
  CHECK(sink.diagnostics()[0].to_string() ==
        "s.yaml:4:3: policy.colour: unknown key; valid: horizon, mode, count, verbose, label");
  CHECK(sink.diagnostics()[1].to_string() == "s.yaml:3:10: policy.count: out of range (got '0'); expected an "
                                             "integer in [1, 64]");
  try {
    sink.throw_if_any();
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(e.diagnostics().size() == 2);
    CHECK_THAT(std::string(e.what()), ContainsSubstring("s.yaml:3:10: policy.count"));
  }
}

TEST_CASE("a missing required key in YAML is located at its map", "[params]")
{
  const auto s = specs();
  const auto root = load_yaml("policy:\n  count: 3\n", "s.yaml");
  DiagnosticSink sink;
  read_params(root["policy"], s, "s.yaml", "policy", sink);
  REQUIRE(sink.diagnostics().size() == 1);
  CHECK(sink.diagnostics()[0].where.to_string() == "s.yaml:2:3");
  CHECK(sink.diagnostics()[0].path == "policy.label");
}

TEST_CASE("CLI assignments", "[params]")
{
  DiagnosticSink sink;
  const auto g = split_assignments("count=3,label=a=b,oops,", "--policy", sink);
  CHECK(g.at("count").text == "3");
  CHECK(g.at("label").text == "a=b"); // split at the first '='
  REQUIRE(sink.diagnostics().size() == 1);
  CHECK(sink.diagnostics()[0].to_string() == "--policy: oops: expected key=value");
}

TEST_CASE("parameter descriptions for --help", "[params]")
{
  const auto text = describe_params(specs());
  CHECK_THAT(text, ContainsSubstring("count"));
  CHECK_THAT(text, ContainsSubstring("integer, default 2, range [1, 64]"));
  CHECK_THAT(text, ContainsSubstring("label    string, required"));
  CHECK_THAT(text, ContainsSubstring("duration, default 1h"));
}
