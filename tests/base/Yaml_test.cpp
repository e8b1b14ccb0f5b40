// YAML helpers: located syntax errors, key checks and numbers with provenance ({value, tag, source}).
#include "base/Yaml.hpp"
#include "tests/CatchCompat.hpp"

using namespace colocsim;
using colocsim::test::ContainsSubstring;
using colocsim::test::WithinRel;

TEST_CASE("a YAML syntax error becomes an InputError with its location", "[yaml]")
{
  try {
    load_yaml("a: 1\nb: [1, 2\nc: 3\n", "bad.yaml");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    const auto& d = e.diagnostics()[0];
    CHECK(d.where.file == "bad.yaml");
    CHECK(d.where.line >= 2); // the unclosed list opens on line 2; yaml-cpp reports where it noticed
    CHECK_THAT(d.message, ContainsSubstring("invalid YAML"));
  }
}

TEST_CASE("locations are 1-based line and column", "[yaml]")
{
  const auto root = load_yaml("top:\n  key: value\n", "f.yaml");
  CHECK(location_of(root["top"]["key"], "f.yaml").to_string() == "f.yaml:2:8");
  CHECK(SourceLocation{"f.yaml", 3, 0}.to_string() == "f.yaml:3");
  CHECK(SourceLocation{}.to_string() == "<input>");
}

TEST_CASE("expect_map and check_keys", "[yaml]")
{
  const auto root = load_yaml("sec: 5\nother:\n  a: 1\n  z: 2\n", "f.yaml");
  DiagnosticSink sink;
  CHECK_FALSE(expect_map(root["sec"], "f.yaml", "sec", sink));
  check_keys(root["other"], {"a", "b"}, "f.yaml", "other", sink);
  REQUIRE(sink.diagnostics().size() == 2);
  CHECK(sink.diagnostics()[0].to_string() == "f.yaml:1:6: sec: expected a map");
  CHECK(sink.diagnostics()[1].to_string() == "f.yaml:4:3: other.z: unknown key; valid: a, b");
}

TEST_CASE("evidence tags round-trip", "[yaml]")
{
  for (auto e : {Evidence::VENDOR_SPEC, Evidence::MEASUREMENT, Evidence::DOCUMENTED, Evidence::ESTIMATE,
                 Evidence::MICROBENCHMARK})
    CHECK(parse_evidence(to_string(e)) == e);
  CHECK(to_string(Evidence::MICROBENCHMARK) == "measured-by-microbenchmark");
  CHECK_FALSE(parse_evidence("guess").has_value());
}

TEST_CASE("read_sourced reads a value with its tag and source", "[yaml]")
{
  const auto root =
      load_yaml("memory: {value: 64GB, tag: vendor-spec, source: GK-PVC, note: per stack}\n", "d.yaml");
  DiagnosticSink sink;
  const auto s = read_sourced(root, "memory", Unit::BYTES, "d.yaml", "", sink);
  REQUIRE(sink.empty());
  REQUIRE(s.has_value());
  CHECK_THAT(s->value, WithinRel(64e9, 1e-12));
  CHECK(s->evidence == Evidence::VENDOR_SPEC);
  CHECK(s->source == "GK-PVC");
}

TEST_CASE("read_sourced reports every problem with file:line:col and path", "[yaml]")
{
  const std::string text = "dev:\n"                                                 // line 1
                           "  a: {value: 12XB, tag: estimate, source: s}\n"         // line 2: bad unit
                           "  b: {value: 1W, source: s}\n"                          // line 3: no tag
                           "  c: {value: 1W, tag: guess, source: s}\n"              // line 4: unknown tag
                           "  d: {value: 1W, tag: estimate}\n"                      // line 5: no source
                           "  e: 5W\n"                                              // line 6: bare value
                           "  f: {value: -1W, tag: estimate, source: s}\n"          // line 7: below min
                           "  g: {value: 1W, tag: estimate, source: s, unit: W}\n"; // line 8: unknown key
  const auto root = load_yaml(text, "d.yaml");
  DiagnosticSink sink;
  const auto dev = root["dev"];
  CHECK_FALSE(read_sourced(dev, "a", Unit::BYTES, "d.yaml", "dev", sink));
  CHECK_FALSE(read_sourced(dev, "b", Unit::WATTS, "d.yaml", "dev", sink));
  CHECK_FALSE(read_sourced(dev, "c", Unit::WATTS, "d.yaml", "dev", sink));
  CHECK_FALSE(read_sourced(dev, "d", Unit::WATTS, "d.yaml", "dev", sink));
  CHECK_FALSE(read_sourced(dev, "e", Unit::WATTS, "d.yaml", "dev", sink));
  CHECK_FALSE(read_sourced(dev, "f", Unit::WATTS, "d.yaml", "dev", sink, true, 0.0));
  CHECK(read_sourced(dev, "g", Unit::WATTS, "d.yaml", "dev", sink).has_value()); // reported, value still read
  CHECK_FALSE(read_sourced(dev, "missing", Unit::WATTS, "d.yaml", "dev", sink, false)); // optional: silent
  CHECK_FALSE(read_sourced(dev, "h", Unit::WATTS, "d.yaml", "dev", sink));              // required: reported
  const auto& ds = sink.diagnostics();
  REQUIRE(ds.size() == 8);
  CHECK(ds[0].where.to_string() == "d.yaml:2:14");
  CHECK(ds[0].path == "dev.a.value");
  CHECK_THAT(ds[0].message, ContainsSubstring("(got '12XB')"));
  CHECK(ds[1].where.to_string() == "d.yaml:3:6");
  CHECK(ds[1].path == "dev.b.tag");
  CHECK_THAT(ds[1].message, ContainsSubstring("missing evidence tag; valid: vendor-spec, measurement"));
  CHECK(ds[2].where.to_string() == "d.yaml:4:23");
  CHECK_THAT(ds[2].message, ContainsSubstring("unknown evidence tag 'guess'"));
  CHECK(ds[3].path == "dev.d.source");
  CHECK_THAT(ds[3].message, ContainsSubstring("missing source"));
  CHECK(ds[4].where.to_string() == "d.yaml:6:6");
  CHECK(ds[4].path == "dev.e");
  CHECK(ds[5].path == "dev.f.value");
  CHECK_THAT(ds[5].message, ContainsSubstring("out of range (got '-1W')"));
  CHECK(ds[6].where.to_string() == "d.yaml:8:44");
  CHECK(ds[6].path == "dev.g.unit");
  CHECK(ds[7].path == "dev.h");
  CHECK(ds[7].where.to_string() == "d.yaml:2:3"); // located at the parent map
}

TEST_CASE("a key written twice in one map is an error naming both lines", "[yaml][errors]")
{
  // yaml-cpp keeps both entries: node["policy"] read the first, a loop over the map the last.
  try {
    load_yaml("policy: first-fit\nseed: 1\nworkload:\n  trace: a.csv\n  trace: b.csv\npolicy: best-fit\n",
              "s.yaml");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 2);
    CHECK(e.diagnostics()[0].to_string() ==
          "s.yaml:5:3: workload.trace: duplicate key (first at line 4); expected each key once in a map");
    CHECK(e.diagnostics()[1].to_string() ==
          "s.yaml:6:1: policy: duplicate key (first at line 1); expected each key once in a map");
  }
  // In a map inside a list, with the list index in the path.
  try {
    load_yaml("groups:\n  - {device: t4, nodes: 1}\n  - {device: a10, nodes: 2, device: t4}\n", "p.yaml");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), ContainsSubstring("p.yaml:3:29: groups[1].device: duplicate key (first at line 3)"));
  }
  // The same key in different maps is fine.
  CHECK(load_yaml("a: {x: 1}\nb: {x: 2}\n", "ok.yaml")["b"]["x"].as<int>() == 2);
}

TEST_CASE("aliases that expand to more than 100000 nodes are refused", "[yaml][errors]")
{
  // Each level lists the previous one 10 times: level 7 stands for 10^7 nodes in 70 lines of text.
  std::string text = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 6; ++i) {
    const std::string prev = "*l" + std::to_string(i - 1);
    text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 10; ++k)
      text += ", " + prev;
    text += "]\n";
  }
  try {
    load_yaml(text, "laughs.yaml");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), ContainsSubstring("more than 100000 YAML nodes once aliases are expanded"));
  }
}

TEST_CASE("an alias that refers to the node holding it is refused, not followed until the stack runs out",
          "[yaml][errors]")
{
  // yaml-cpp loads `&l0 [x, *l0]` as a sequence that contains itself: walked naively it never ends, and
  // the walk's recursion overflowed the stack before the 100000-node bound (scripts/fuzz.sh, scenario
  // harness; the input is in tests/fuzz/corpus/scenario/readers-recursive-alias.yaml).
  try {
    load_yaml("l0: &l0 [x, *l0]\n", "cycle.yaml");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), ContainsSubstring("cycle.yaml:1:"));
    CHECK_THAT(e.what(), ContainsSubstring("nested deeper than 64 levels"));
  }
}

TEST_CASE("yaml_quote gives a double-quoted scalar that reads back as the same text", "[yaml]")
{
  // By hand: quote and backslash escaped, newline and tab as \n and \t, other control bytes as \xNN.
  CHECK(yaml_quote("a \"b\" c\\d") == R"("a \"b\" c\\d")");
  CHECK(yaml_quote("x\ny\tz\x01") == R"("x\ny\tz\x01")");
  for (const std::string& s : {std::string("/tmp/a b/trace.csv"), std::string("it's: [a, b] # no comment"),
                               std::string("line1\nline2"), std::string("tab\there"), std::string("\x1f\x7f"),
                               std::string(""), std::string("back\\slash \"quoted\"")})
    CHECK(load_yaml("k: " + yaml_quote(s) + "\n", "q.yaml")["k"].as<std::string>() == s);
}
