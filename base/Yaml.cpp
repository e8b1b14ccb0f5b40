#include "base/Yaml.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace colocsim {

namespace {

/// Nodes visited by check_duplicate_keys() at most: an alias is walked again at each use, so a small file of
/// nested aliases ("billion laughs") can expand to billions of nodes. The largest bundled file has 773.
constexpr std::size_t MAX_YAML_NODES = 100000;
/// Nesting depth check_duplicate_keys() follows at most: an alias may name the node that holds it
/// (`a: &a [x, *a]`), which yaml-cpp loads as a cycle, and every configuration format needs a handful of
/// levels (the deepest shipped file has 5). Without the bound the walk exhausts the stack before the node
/// count above is reached (found by scripts/fuzz.sh, scenario harness).
constexpr std::size_t MAX_YAML_DEPTH = 64;

/// Reports every key that appears twice in one map (yaml-cpp keeps both entries: node[key] reads the first
/// while a loop over the map sees the last, so a duplicate would be resolved inconsistently).
void check_duplicate_keys(const YAML::Node& node, const std::string& file, const std::string& path,
                          std::size_t& visited, DiagnosticSink& sink, std::size_t depth = 0)
{
  if (depth > MAX_YAML_DEPTH)
    throw InputError(
        location_of(node, file), path,
        "nested deeper than " + std::to_string(MAX_YAML_DEPTH) +
            " levels (an alias that refers to the node holding it?); expected a configuration file");
  if (++visited > MAX_YAML_NODES)
    throw InputError(location_of(node, file), path,
                     "more than " + std::to_string(MAX_YAML_NODES) +
                         " YAML nodes once aliases are expanded; expected a configuration file");
  if (node.IsSequence()) {
    std::size_t i = 0;
    for (const auto& item : node)
      check_duplicate_keys(item, file, path + "[" + std::to_string(i++) + "]", visited, sink, depth + 1);
  } else if (node.IsMap()) {
    std::map<std::string, YAML::Mark> seen;
    for (const auto& kv : node) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
      const std::string kpath = path.empty() ? key : path + "." + key;
      if (kv.first.IsScalar()) {
        const auto [it, fresh] = seen.emplace(key, kv.first.Mark());
        if (!fresh)
          sink.add(location_of(kv.first, file), kpath,
                   "duplicate key (first at line " + std::to_string(it->second.line + 1) +
                       "); expected each key once in a map");
      }
      check_duplicate_keys(kv.second, file, kpath, visited, sink, depth + 1);
    }
  }
}

/// "; expected a value in [min, max]" (in the file's units), for out-of-range messages.
std::string range_text(double min, double max)
{
  std::ostringstream os;
  os << "; expected a value in [" << min << ", " << max << "]";
  return os.str();
}

} // namespace

YAML::Node load_yaml(std::string_view text, const std::string& file)
{
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw InputError(SourceLocation{file, e.mark.line + 1, e.mark.column + 1}, "", "invalid YAML: " + e.msg);
  }
  DiagnosticSink sink;
  std::size_t visited = 0;
  check_duplicate_keys(root, file, "", visited, sink);
  sink.throw_if_any();
  return root;
}

SourceLocation location_of(const YAML::Node& node, const std::string& file)
{
  // A missing key read through a const node is an invalid node, whose Mark() throws.
  if (!node.IsDefined()) return SourceLocation{file};
  const auto mark = node.Mark();
  if (mark.line < 0) return SourceLocation{file};
  return SourceLocation{file, mark.line + 1, mark.column + 1};
}

bool expect_map(const YAML::Node& node, const std::string& file, const std::string& path,
                DiagnosticSink& sink)
{
  if (node.IsMap()) return true;
  sink.add(location_of(node, file), path, node.IsNull() ? "expected a map, got nothing" : "expected a map");
  return false;
}

void check_keys(const YAML::Node& node, const std::vector<std::string>& valid, const std::string& file,
                const std::string& path, DiagnosticSink& sink)
{
  if (!node.IsMap()) return;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) {
      sink.add(location_of(kv.first, file), path, "expected a plain key");
      continue;
    }
    const auto key = kv.first.as<std::string>();
    if (std::find(valid.begin(), valid.end(), key) == valid.end())
      sink.add(location_of(kv.first, file), path.empty() ? key : path + "." + key,
               "unknown key; valid: " + join(valid));
  }
}

ParamSet read_params(const YAML::Node& node, const std::vector<ParamSpec>& specs, const std::string& file,
                     const std::string& path, DiagnosticSink& sink, const std::vector<std::string>& sections)
{
  std::map<std::string, GivenValue> given;
  std::vector<std::string> valid;
  for (const auto& s : specs)
    valid.push_back(s.name);
  valid.insert(valid.end(), sections.begin(), sections.end());
  if (node.IsMap()) {
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) {
        sink.add(location_of(kv.first, file), path, "expected a plain key");
        continue;
      }
      const auto key = kv.first.as<std::string>();
      if (std::find(sections.begin(), sections.end(), key) != sections.end()) continue;
      const auto where = location_of(kv.second, file);
      if (std::none_of(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == key; })) {
        sink.add(location_of(kv.first, file), path.empty() ? key : path + "." + key,
                 "unknown key; valid: " + join(valid));
        continue;
      }
      if (!kv.second.IsScalar()) {
        sink.add(where, path.empty() ? key : path + "." + key, "expected a single value, got a map or list");
        continue;
      }
      given[key] = GivenValue{kv.second.Scalar(), where};
    }
  } else if (node.IsDefined() && !node.IsNull()) {
    sink.add(location_of(node, file), path, "expected a map");
  }
  // Required keys missing from the map are reported at the map itself.
  DiagnosticSink local;
  auto params = parse_params(specs, given, path, local);
  for (auto d : local.diagnostics()) {
    if (d.where.line == 0 && node.IsDefined()) d.where = location_of(node, file);
    if (d.where.file.empty()) d.where.file = file;
    sink.add(std::move(d));
  }
  return params;
}

std::string_view to_string(Evidence e)
{
  switch (e) {
  case Evidence::VENDOR_SPEC:
    return "vendor-spec";
  case Evidence::MEASUREMENT:
    return "measurement";
  case Evidence::DOCUMENTED:
    return "documented";
  case Evidence::ESTIMATE:
    return "estimate";
  case Evidence::MICROBENCHMARK:
    return "measured-by-microbenchmark";
  case Evidence::USER_SUPPLIED:
    return "user-supplied";
  }
  return "estimate";
}

namespace {
/// The tags a file may write (user-supplied is what a plain number becomes, never written).
constexpr Evidence WRITTEN_EVIDENCE[] = {Evidence::VENDOR_SPEC, Evidence::MEASUREMENT, Evidence::DOCUMENTED,
                                         Evidence::ESTIMATE, Evidence::MICROBENCHMARK};
} // namespace

std::optional<Evidence> parse_evidence(std::string_view text)
{
  for (auto e : WRITTEN_EVIDENCE)
    if (to_string(e) == text) return e;
  return std::nullopt;
}

bool read_sourced_fields(const YAML::Node& node, const std::string& file, const std::string& kpath,
                         DiagnosticSink& sink, const std::string& expected, const std::string& noun,
                         const std::function<bool(const YAML::Node& value)>& read_value, Evidence& evidence,
                         std::string& source)
{
  check_keys(node, {"value", "tag", "source", "note"}, file, kpath, sink);
  bool ok = true;
  const auto v = node["value"];
  if (!v.IsDefined() || !v.IsScalar()) {
    sink.add(location_of(node, file), kpath + ".value", "missing; expected " + expected);
    ok = false;
  } else if (!read_value(v)) {
    ok = false;
  }
  std::vector<std::string> tags;
  for (auto e : WRITTEN_EVIDENCE)
    tags.emplace_back(to_string(e));
  const auto t = node["tag"];
  if (!t.IsDefined() || !t.IsScalar()) {
    sink.add(location_of(node, file), kpath + ".tag", "missing evidence tag; valid: " + join(tags));
    ok = false;
  } else if (auto e = parse_evidence(t.Scalar()); !e) {
    sink.add(location_of(t, file), kpath + ".tag",
             "unknown evidence tag '" + t.Scalar() + "'; valid: " + join(tags));
    ok = false;
  } else {
    evidence = *e;
  }
  const auto s = node["source"];
  if (!s.IsDefined() || !s.IsScalar() || s.Scalar().empty()) {
    sink.add(location_of(node, file), kpath + ".source",
             "missing source; every " + noun + " carries its source");
    ok = false;
  } else {
    source = s.Scalar();
  }
  return ok;
}

std::optional<Sourced> read_sourced(const YAML::Node& parent, const std::string& key, Unit unit,
                                    const std::string& file, const std::string& path, DiagnosticSink& sink,
                                    bool required, double min, double max, bool plain_ok)
{
  const std::string kpath = path.empty() ? key : path + "." + key;
  const YAML::Node node = parent[key];
  if (!node.IsDefined()) {
    if (required)
      sink.add(location_of(parent, file), kpath, "missing required key; expected {value, tag, source}");
    return std::nullopt;
  }
  if (plain_ok && node.IsScalar()) { // a user's file: provenance is optional
    const auto q = parse_quantity(node.Scalar(), unit);
    if (!q) {
      sink.add(location_of(node, file), kpath,
               "expected " + unit_help(unit) + " or {value, tag, source} (got '" + node.Scalar() + "')");
      return std::nullopt;
    }
    if (*q < min || *q > max) {
      sink.add(location_of(node, file), kpath,
               "out of range (got '" + node.Scalar() + "')" + range_text(min, max));
      return std::nullopt;
    }
    return Sourced{*q, Evidence::USER_SUPPLIED, "plain number in " + file};
  }
  if (!node.IsMap()) {
    sink.add(location_of(node, file), kpath,
             "expected {value: ..., tag: ..., source: ...} so the number carries its provenance" +
                 std::string(file.rfind("builtin:", 0) == 0 ? " (every number of a bundled file does)" : ""));
    return std::nullopt;
  }
  Sourced out;
  const bool ok = read_sourced_fields(
      node, file, kpath, sink, unit_help(unit), "number",
      [&](const YAML::Node& v) {
        const auto q = parse_quantity(v.Scalar(), unit);
        if (!q) {
          sink.add(location_of(v, file), kpath + ".value",
                   "expected " + unit_help(unit) + " (got '" + v.Scalar() + "')");
          return false;
        }
        if (*q < min || *q > max) {
          sink.add(location_of(v, file), kpath + ".value",
                   "out of range (got '" + v.Scalar() + "')" + range_text(min, max));
          return false;
        }
        out.value = *q;
        return true;
      },
      out.evidence, out.source);
  if (!ok) return std::nullopt;
  return out;
}

std::string yaml_quote(std::string_view s)
{
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + '"';
}

} // namespace colocsim
