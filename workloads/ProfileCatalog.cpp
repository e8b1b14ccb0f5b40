// Profile catalog loader (format: docs/formats/profiles.md). Every number is read with read_sourced so
// it carries its evidence tag and source; all problems of a file are collected and thrown together.
#include "workloads/ProfileCatalog.hpp"

#include "base/Units.hpp"
#include "base/Yaml.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace colocsim {

namespace {

const std::vector<std::string>& profile_keys()
{
  static const std::vector<std::string> keys{"description",
                                             "class",
                                             "duty_cycle",
                                             "vec_util",
                                             "xmx_util",
                                             "bw_util",
                                             "mem",
                                             "freq_sensitive",
                                             "compute_share",
                                             "scaling_serial",
                                             "scaling_exponent",
                                             "compute_share_by_batch",
                                             "mig_speed",
                                             "mig_speed_by_batch",
                                             "communication"};
  return keys;
}

std::vector<std::string> class_names()
{
  std::vector<std::string> names;
  for (int i = 0; i < JOB_CLASS_COUNT; ++i)
    names.emplace_back(to_string(static_cast<JobClass>(i)));
  return names;
}

bool valid_name(const std::string& name)
{
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '+';
  });
}

/// One profile number: read with provenance, then checked against its range (reported with the range,
/// which read_sourced's own range message does not state).
struct NumberKey {
  const char* key;
  Unit unit;
  double min;
  bool min_exclusive;
  double max;
  const char* expected;
  double ResourceSignature::*field;
  bool required = true; ///< optional keys keep the ResourceSignature default
};

const NumberKey NUMBER_KEYS[] = {
    {"duty_cycle", Unit::NONE, 0.0, true, 1.0, "a fraction in (0, 1]", &ResourceSignature::duty_cycle},
    {"vec_util", Unit::NONE, 0.0, false, 1.0, "a fraction in [0, 1]", &ResourceSignature::vec_util},
    {"xmx_util", Unit::NONE, 0.0, false, 1.0, "a fraction in [0, 1]", &ResourceSignature::xmx_util},
    {"bw_util", Unit::NONE, 0.0, false, 1.0, "a fraction in [0, 1]", &ResourceSignature::bw_util},
    {"mem", Unit::BYTES, 0.0, false, 1e300, "a size >= 0 (e.g. 16GB, 512MiB; bare numbers are bytes)",
     &ResourceSignature::mem_bytes},
    {"freq_sensitive", Unit::NONE, 0.0, false, 1.0, "a fraction in [0, 1]",
     &ResourceSignature::freq_sensitive},
    {"compute_share", Unit::NONE, 0.0, true, 1.0, "a fraction in (0, 1]", &ResourceSignature::compute_share,
     false},
    {"scaling_serial", Unit::NONE, 0.0, false, 1.0, "a fraction in [0, 1]",
     &ResourceSignature::scaling_serial, false},
    {"scaling_exponent", Unit::NONE, 0.0, true, 2.0, "a number in (0, 2]",
     &ResourceSignature::scaling_exponent, false},
};

/// A table key written as `{value: {...}, tag: ..., source: ...}`: checks the wrapper and returns the value
/// map (an undefined node if absent or malformed; problems reported). `provenance` gets "tag; source".
YAML::Node read_table(const YAML::Node& node, const char* key, const std::string& what,
                      const std::string& file, const std::string& path, DiagnosticSink& sink,
                      std::string& provenance)
{
  const YAML::Node t = node[key];
  const std::string kpath = path + "." + key;
  if (!t.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
  if (!t.IsMap()) {
    sink.add(location_of(t, file), kpath, "expected {value: " + what + ", tag: ..., source: ...}");
    return YAML::Node(YAML::NodeType::Undefined);
  }
  check_keys(t, {"value", "tag", "source", "note"}, file, kpath, sink);
  const YAML::Node tag = t["tag"];
  std::optional<Evidence> ev;
  if (!tag.IsDefined() || !tag.IsScalar() || !(ev = parse_evidence(tag.Scalar())))
    sink.add(location_of(tag.IsDefined() ? tag : t, file), kpath + ".tag",
             "missing or unknown evidence tag; valid: vendor-spec, measurement, documented, estimate, "
             "measured-by-microbenchmark");
  const YAML::Node source = t["source"];
  if (!source.IsDefined() || !source.IsScalar() || source.Scalar().empty())
    sink.add(location_of(source.IsDefined() ? source : t, file), kpath + ".source",
             "missing; expected the source of the numbers (a key of docs/sources.md, a URL or a derivation)");
  const YAML::Node v = t["value"];
  if (!v.IsDefined() || !v.IsMap() || v.size() == 0) {
    sink.add(location_of(v.IsDefined() ? v : t, file), kpath + ".value", "expected " + what);
    return YAML::Node(YAML::NodeType::Undefined);
  }
  if (ev && source.IsDefined() && source.IsScalar())
    provenance = std::string(key) + ": " + std::string(to_string(*ev)) + "; " + source.Scalar();
  return v;
}

/// A batch size key: an integer in [1, MAX_BATCH]. nullopt (reported) otherwise.
std::optional<double> read_batch_key(const YAML::Node& k, const std::string& file, const std::string& path,
                                     DiagnosticSink& sink)
{
  const std::string text = k.IsScalar() ? k.Scalar() : std::string("a map or list");
  long long b = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), b);
  if (ec != std::errc() || ptr != text.data() + text.size() || b < 1 || b > (1LL << 20)) {
    sink.add(location_of(k, file), path,
             "bad batch size (got '" + text + "'); expected an integer in 1..1048576");
    return std::nullopt;
  }
  return static_cast<double>(b);
}

/// A number in (0, 1].
std::optional<double> read_fraction(const YAML::Node& v, const std::string& file, const std::string& path,
                                    const char* expected, DiagnosticSink& sink)
{
  const std::string text = v.IsScalar() ? v.Scalar() : std::string("a map or list");
  const auto q = v.IsScalar() ? parse_quantity(text, Unit::NONE) : std::nullopt;
  if (!q || !(*q > 0.0) || *q > 1.0) {
    sink.add(location_of(v, file), path,
             "out of range or not a number (got '" + text + "'); expected " + expected);
    return std::nullopt;
  }
  return *q;
}

/// A slice-size map `{1g: 0.3, 2g: 0.55, ...}`: g in 1..7, speeds in (0, 1]. False if a problem was reported.
bool read_mig_speeds(const YAML::Node& m, const std::string& file, const std::string& path, MigSpeeds& out,
                     DiagnosticSink& sink)
{
  out.fill(0.0);
  if (!m.IsMap() || m.size() == 0) {
    sink.add(location_of(m, file), path, "expected a map of slice size -> speed, e.g. {1g: 0.3, 3g: 0.8}");
    return false;
  }
  bool ok = true;
  for (const auto& kv : m) {
    const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    const std::string kpath = path + "." + k;
    if (k.size() != 2 || k[1] != 'g' || k[0] < '1' || k[0] > '7') {
      sink.add(location_of(kv.first, file), kpath,
               "unknown slice size '" + k +
                   "'; expected 1g, 2g, 3g, 4g, 5g, 6g or 7g (compute slices of the "
                   "MIG instance)");
      ok = false;
      continue;
    }
    const auto v = read_fraction(kv.second, file, kpath,
                                 "a speed relative to the whole GPU with MIG off, in (0, 1]", sink);
    if (!v) {
      ok = false;
      continue;
    }
    out[static_cast<std::size_t>(k[0] - '0')] = *v;
  }
  return ok;
}

/// The batch tables of a profile (docs/formats/profiles.md, Batch size and MIG speed).
void read_batch_tables(const YAML::Node& node, const std::string& file, const std::string& path, Profile& p,
                       DiagnosticSink& sink)
{
  std::string prov;
  if (const YAML::Node v = read_table(node, "compute_share_by_batch", "a map of batch size -> compute share",
                                      file, path, sink, prov);
      v.IsDefined()) {
    const std::string tpath = path + ".compute_share_by_batch.value";
    for (const auto& kv : v) {
      const auto b = read_batch_key(kv.first, file, tpath, sink);
      const auto c =
          read_fraction(kv.second, file, tpath + "." + (kv.first.IsScalar() ? kv.first.Scalar() : ""),
                        "a compute share in (0, 1]", sink);
      if (b && c) p.compute_share_by_batch.emplace_back(*b, *c);
    }
    std::sort(p.compute_share_by_batch.begin(), p.compute_share_by_batch.end());
    if (!prov.empty()) p.sources.push_back(prov);
  }
  prov.clear();
  if (const YAML::Node v = read_table(
          node, "mig_speed", "a map of slice size -> speed, e.g. {1g: 0.3, 3g: 0.8}", file, path, sink, prov);
      v.IsDefined()) {
    MigSpeeds s{};
    if (read_mig_speeds(v, file, path + ".mig_speed.value", s, sink)) p.sig.mig_speed = s;
    if (!prov.empty()) p.sources.push_back(prov);
  }
  prov.clear();
  if (const YAML::Node v =
          read_table(node, "mig_speed_by_batch",
                     "a map of batch size -> {slice size: speed}, e.g. {1: {1g: 0.5}, 64: {1g: 0.2}}", file,
                     path, sink, prov);
      v.IsDefined()) {
    const std::string tpath = path + ".mig_speed_by_batch.value";
    for (const auto& kv : v) {
      const auto b = read_batch_key(kv.first, file, tpath, sink);
      MigSpeeds s{};
      const bool ok = read_mig_speeds(kv.second, file,
                                      tpath + "." + (kv.first.IsScalar() ? kv.first.Scalar() : ""), s, sink);
      if (!b || !ok) continue;
      if (!p.mig_speed_by_batch.empty()) {
        const auto& first = p.mig_speed_by_batch.front().second;
        for (std::size_t g = 1; g < s.size(); ++g)
          if ((first[g] > 0) != (s[g] > 0)) {
            sink.add(location_of(kv.first, file), tpath + "." + kv.first.Scalar(),
                     "batch " + kv.first.Scalar() + " names different slice sizes than the first batch (" +
                         std::to_string(g) + "g); expected every batch to give the same slice sizes");
            break;
          }
      }
      p.mig_speed_by_batch.emplace_back(*b, s);
    }
    std::sort(p.mig_speed_by_batch.begin(), p.mig_speed_by_batch.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    if (!prov.empty()) p.sources.push_back(prov);
  }
}

/// `communication:` of a profile: collective, bytes_per_step, and compute_s_per_step or fraction with `at`.
void read_communication(const YAML::Node& node, const std::string& file, const std::string& path,
                        bool plain_ok, Profile& p, DiagnosticSink& sink)
{
  const std::string cpath = path + ".communication";
  if (!expect_map(node, file, cpath, sink)) return;
  check_keys(node, {"collective", "bytes_per_step", "compute_s_per_step", "fraction", "at", "note"}, file,
             cpath, sink);
  const std::size_t errors_before = sink.diagnostics().size();
  ProfileCommunication c;
  std::vector<std::string> names;
  for (const auto k : {Collective::RING_ALL_REDUCE, Collective::TREE_ALL_REDUCE, Collective::ALL_TO_ALL})
    names.emplace_back(to_string(k));
  if (const YAML::Node k = node["collective"]; !k.IsDefined())
    sink.add(location_of(node, file), cpath + ".collective",
             "missing required key; expected one of " + join(names));
  else if (auto parsed = k.IsScalar() ? parse_collective(k.Scalar()) : std::nullopt)
    c.collective = *parsed;
  else
    sink.add(location_of(k, file), cpath + ".collective",
             "unknown collective (got '" + (k.IsScalar() ? k.Scalar() : std::string("a map or list")) +
                 "'); expected one of " + join(names));
  // A number with provenance, checked against (lo, hi] or [lo, hi].
  auto number = [&](const char* key, Unit unit, double lo, bool lo_open, double hi, const char* expected,
                    bool required) -> std::optional<Sourced> {
    auto s = read_sourced(node, key, unit, file, cpath, sink, required, -1e300, 1e300, plain_ok);
    if (!s) return std::nullopt;
    const YAML::Node given = node[key];
    const bool plain = given.IsScalar();
    if ((lo_open ? s->value <= lo : s->value < lo) || s->value > hi) {
      const YAML::Node v = plain ? given : given["value"];
      sink.add(location_of(v, file), cpath + "." + key + (plain ? "" : ".value"),
               "out of range (got '" + v.Scalar() + "'); expected " + expected);
      return std::nullopt;
    }
    p.sources.push_back(std::string("communication.") + key + ": " + std::string(to_string(s->evidence)) +
                        "; " + s->source);
    if (plain) p.user_supplied.push_back(std::string("communication.") + key + " = " + given.Scalar());
    return s;
  };
  if (auto b = number("bytes_per_step", Unit::BYTES, 0, false, 1e18,
                      "a size >= 0 per device per step (e.g. 680MB; bare numbers are bytes)", true))
    c.bytes = *b;
  const bool has_compute = node["compute_s_per_step"].IsDefined(),
             has_fraction = node["fraction"].IsDefined();
  if (has_compute == has_fraction)
    sink.add(location_of(node, file), cpath,
             has_compute ? "both compute_s_per_step and fraction given; expected one of the two"
                         : "missing compute_s_per_step or fraction; expected one of the two");
  if (has_compute) {
    c.compute_s =
        number("compute_s_per_step", Unit::SECONDS, 0, true, 1e9, "a time > 0 (e.g. 1.7ms, 0.5s)", true);
    if (node["at"].IsDefined())
      sink.add(location_of(node["at"], file), cpath + ".at",
               "given with compute_s_per_step; expected `at` only with fraction (the placement it was "
               "measured at)");
  }
  if (has_fraction) {
    c.fraction = number("fraction", Unit::NONE, 0, true, 1, "a fraction in (0, 1)", true);
    if (c.fraction && c.fraction->value >= 1) {
      sink.add(location_of(node["fraction"], file), cpath + ".fraction",
               "out of range (got " + number_text(c.fraction->value) + "); expected a fraction in (0, 1)");
      c.fraction.reset();
    }
    const YAML::Node at = node["at"];
    if (!at.IsDefined()) {
      sink.add(location_of(node, file), cpath + ".at",
               "missing required key with fraction; expected {nodes: K, per_node: G}, the placement the "
               "fraction was measured at");
    } else if (expect_map(at, file, cpath + ".at", sink)) {
      check_keys(at, {"nodes", "per_node"}, file, cpath + ".at", sink);
      for (const auto& [key, field] :
           {std::pair<const char*, int*>{"nodes", &c.at.nodes}, {"per_node", &c.at.per_node}}) {
        const YAML::Node v = at[key];
        const auto n = v.IsDefined() && v.IsScalar() ? parse_int(v.Scalar()) : std::nullopt;
        if (!n || *n < 1 || *n > 1000000)
          sink.add(location_of(v.IsDefined() ? v : at, file), cpath + ".at." + key,
                   v.IsDefined() ? "expected a whole number in [1, 1000000] (got '" +
                                       (v.IsScalar() ? v.Scalar() : std::string("a map or list")) + "')"
                                 : "missing required key; expected a whole number >= 1");
        else
          *field = static_cast<int>(*n);
      }
      if (c.at.nodes * static_cast<long long>(c.at.per_node) < 2 &&
          sink.diagnostics().size() == errors_before)
        sink.add(location_of(at, file), cpath + ".at",
                 "one device communicates with nobody; expected nodes x per_node >= 2");
    }
  }
  if (sink.diagnostics().size() == errors_before) p.communication = c;
}

std::optional<Profile> read_profile(const std::string& name, const YAML::Node& node, const std::string& file,
                                    const std::string& path, DiagnosticSink& sink)
{
  if (!expect_map(node, file, path, sink)) return std::nullopt;
  check_keys(node, profile_keys(), file, path, sink);
  const std::size_t errors_before = sink.diagnostics().size();

  Profile p;
  p.name = name;
  if (const YAML::Node d = node["description"]; d.IsDefined()) {
    if (!d.IsScalar())
      sink.add(location_of(d, file), path + ".description", "expected a string");
    else
      p.description = d.Scalar();
  }

  const YAML::Node c = node["class"];
  if (!c.IsDefined()) {
    sink.add(location_of(node, file), path + ".class",
             "missing required key; expected one of " + join(class_names()));
  } else if (auto jc = c.IsScalar() ? parse_job_class(c.Scalar()) : std::nullopt; !jc) {
    sink.add(location_of(c, file), path + ".class",
             "unknown class (got '" + (c.IsScalar() ? c.Scalar() : std::string("a map or list")) +
                 "'); valid: " + join(class_names()) + " (docs/formats/profiles.md)");
  } else {
    p.sig.job_class = *jc;
  }

  // A user's catalog may give plain numbers (`duty_cycle: 0.6`, tag user-supplied); every number of a
  // bundled catalog ("builtin:...") carries {value, tag, source}.
  const bool plain_ok = file.rfind("builtin:", 0) != 0;
  for (const auto& k : NUMBER_KEYS) {
    auto s = read_sourced(node, k.key, k.unit, file, path, sink, k.required, -1e300, 1e300, plain_ok);
    if (!s) continue;
    const YAML::Node given = node[k.key];
    const bool plain = given.IsScalar();
    const bool low = k.min_exclusive ? s->value <= k.min : s->value < k.min;
    if (low || s->value > k.max) {
      const YAML::Node v = plain ? given : given["value"];
      sink.add(location_of(v, file), path + "." + k.key + (plain ? "" : ".value"),
               "out of range (got '" + v.Scalar() + "'); expected " + k.expected);
      continue;
    }
    p.sig.*k.field = s->value;
    p.sources.push_back(std::string(k.key) + ": " + std::string(to_string(s->evidence)) + "; " + s->source);
    if (plain) p.user_supplied.push_back(std::string(k.key) + " = " + given.Scalar());
  }
  read_batch_tables(node, file, path, p, sink);
  if (const YAML::Node comm = node["communication"]; comm.IsDefined())
    read_communication(comm, file, path, plain_ok, p, sink);
  if (sink.diagnostics().size() != errors_before) return std::nullopt;
  return p;
}

} // namespace

CommProfile ProfileCommunication::resolve(const CommTiers& tiers, const CommPlacement& placed) const
{
  if (compute_s) return CommProfile{collective, bytes.value, compute_s->value};
  return comm_profile_from_fraction(collective, bytes.value, fraction->value, placed, tiers);
}

double interpolate_log_batch(const std::vector<std::pair<double, double>>& points, double batch)
{
  if (batch <= points.front().first) return points.front().second;
  if (batch >= points.back().first) return points.back().second;
  std::size_t i = 1;
  while (points[i].first < batch)
    ++i;
  const auto& [b0, v0] = points[i - 1];
  const auto& [b1, v1] = points[i];
  return v0 + (v1 - v0) * std::log(batch / b0) / std::log(b1 / b0);
}

ResourceSignature Profile::signature_for_batch(double batch) const
{
  ResourceSignature s = sig;
  if (!compute_share_by_batch.empty()) {
    s.compute_share = interpolate_log_batch(compute_share_by_batch, batch);
    s.vec_util = std::min(s.vec_util, s.compute_share);
    s.xmx_util = std::min(s.xmx_util, s.compute_share);
  }
  if (!mig_speed_by_batch.empty()) {
    std::vector<std::pair<double, double>> points(mig_speed_by_batch.size());
    for (std::size_t g = 1; g < s.mig_speed.size(); ++g) {
      if (!(mig_speed_by_batch.front().second[g] > 0)) {
        s.mig_speed[g] = sig.mig_speed[g];
        continue;
      }
      for (std::size_t r = 0; r < points.size(); ++r)
        points[r] = {mig_speed_by_batch[r].first, mig_speed_by_batch[r].second[g]};
      s.mig_speed[g] = interpolate_log_batch(points, batch);
    }
  }
  return s;
}

ProfileCatalog ProfileCatalog::load(std::string_view yaml_text, const std::string& file)
{
  const YAML::Node root = load_yaml(yaml_text, file);
  DiagnosticSink sink;
  if (!expect_map(root, file, "", sink)) sink.throw_if_any();
  check_keys(root, {"format", "profiles"}, file, "", sink);

  const YAML::Node format = root["format"];
  if (!format.IsDefined())
    sink.add(location_of(root, file), "format",
             "missing required key; expected '" + std::string(FORMAT) + "'");
  else if (!format.IsScalar() || format.Scalar() != FORMAT)
    sink.add(location_of(format, file), "format",
             "unknown format (got '" + (format.IsScalar() ? format.Scalar() : std::string("a map or list")) +
                 "'); expected '" + std::string(FORMAT) + "'");

  ProfileCatalog catalog;
  const YAML::Node profiles = root["profiles"];
  if (!profiles.IsDefined()) {
    sink.add(location_of(root, file), "profiles",
             "missing required key; expected a map of profile name -> profile");
  } else if (expect_map(profiles, file, "profiles", sink)) {
    if (profiles.size() == 0)
      sink.add(location_of(profiles, file), "profiles", "no profiles; expected at least one");
    std::set<std::string> seen;
    for (const auto& kv : profiles) {
      const std::string name = kv.first.Scalar();
      const std::string path = "profiles." + name;
      const SourceLocation where = location_of(kv.first, file);
      if (!valid_name(name)) {
        sink.add(where, path,
                 "invalid profile name (got '" + name + "'); expected letters, digits, '-', '_', '.', '+'");
        continue;
      }
      if (!seen.insert(name).second) {
        sink.add(where, path, "duplicate profile '" + name + "'; expected each name once");
        continue;
      }
      if (auto p = read_profile(name, kv.second, file, path, sink)) {
        p->origin = where;
        catalog.profiles_.push_back(std::move(*p));
      }
    }
  }
  sink.throw_if_any();
  std::sort(catalog.profiles_.begin(), catalog.profiles_.end(),
            [](const Profile& a, const Profile& b) { return a.name < b.name; });
  return catalog;
}

ProfileCatalog ProfileCatalog::load_file(const std::string& path)
{
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const std::string why = errno != 0 ? std::strerror(errno) : "unknown reason";
    throw InputError(SourceLocation{path}, "",
                     "cannot open profile catalog (" + why + "); expected a readable file");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return load(text.str(), path);
}

std::optional<std::size_t> ProfileCatalog::index_of(std::string_view name) const
{
  auto it = std::lower_bound(profiles_.begin(), profiles_.end(), name,
                             [](const Profile& p, std::string_view n) { return p.name < n; });
  if (it == profiles_.end() || it->name != name) return std::nullopt;
  return static_cast<std::size_t>(it - profiles_.begin());
}

const Profile* ProfileCatalog::find(std::string_view name) const
{
  auto i = index_of(name);
  return i ? &profiles_[*i] : nullptr;
}

const Profile& ProfileCatalog::at(std::string_view name, const SourceLocation& where_used) const
{
  if (const Profile* p = find(name)) return *p;
  throw InputError(where_used, "profile",
                   "unknown profile '" + std::string(name) + "'; valid: " + join(names()));
}

std::vector<std::string> ProfileCatalog::names() const
{
  std::vector<std::string> out;
  out.reserve(profiles_.size());
  for (const auto& p : profiles_)
    out.push_back(p.name);
  return out;
}

} // namespace colocsim
