// Profile catalog loader (format: docs/formats/profiles.md). Every number is read with read_sourced so
// it carries its evidence tag and source; all problems of a file are collected and thrown together.
#include "workloads/ProfileCatalog.hpp"

#include "models/Yaml.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace colocsim {

namespace {

const std::vector<std::string>& profile_keys()
{
  static const std::vector<std::string> keys{"description",   "class",         "duty_cycle", "vec_util",
                                             "xmx_util",      "bw_util",       "mem",        "freq_sensitive",
                                             "compute_share", "scaling_serial"};
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
};

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

  for (const auto& k : NUMBER_KEYS) {
    auto s = read_sourced(node, k.key, k.unit, file, path, sink, k.required);
    if (!s) continue;
    const bool low = k.min_exclusive ? s->value <= k.min : s->value < k.min;
    if (low || s->value > k.max) {
      const YAML::Node v = node[k.key]["value"];
      sink.add(location_of(v, file), path + "." + k.key + ".value",
               "out of range (got '" + v.Scalar() + "'); expected " + k.expected);
      continue;
    }
    p.sig.*k.field = s->value;
    p.sources.push_back(std::string(k.key) + ": " + std::string(to_string(s->evidence)) + "; " + s->source);
  }
  if (sink.diagnostics().size() != errors_before) return std::nullopt;
  return p;
}

} // namespace

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
