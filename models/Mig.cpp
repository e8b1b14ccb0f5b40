#include "models/Mig.hpp"

#include "models/DeviceSpec.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace colocsim {

namespace {

// Layouts are bit masks of memory slices (MigGeometry::memory_mask), so a table has at most 32.
constexpr unsigned MAX_SLICES = 32;

std::string str(unsigned v)
{
  return std::to_string(v);
}

std::string join_unsigned(const std::vector<unsigned>& values)
{
  std::vector<std::string> parts;
  for (auto v : values)
    parts.push_back(str(v));
  return join(parts);
}

/// "0-3", "4", "0-1, 6" for the set bits of a mask.
std::string describe_slices(std::uint32_t mask)
{
  std::vector<std::string> ranges;
  for (unsigned s = 0; s < MAX_SLICES; ++s) {
    if (!(mask >> s & 1u)) continue;
    unsigned e = s;
    while (e + 1 < MAX_SLICES && (mask >> (e + 1) & 1u))
      ++e;
    ranges.push_back(e == s ? str(s) : str(s) + "-" + str(e));
    s = e;
  }
  return join(ranges);
}

// ---- loader helpers ----

/// A sourced count: read_sourced plus "a whole number in [min, max]".
std::optional<Sourced> read_count(const YAML::Node& parent, const std::string& key, const std::string& file,
                                  const std::string& path, DiagnosticSink& sink, double min, double max)
{
  auto s = read_sourced(parent, key, Unit::NONE, file, path, sink);
  if (!s) return std::nullopt;
  if (s->value != std::floor(s->value) || s->value < min || s->value > max) {
    const auto kpath = path.empty() ? key : path + "." + key;
    sink.add(location_of(parent[key]["value"], file), kpath + ".value",
             "expected a whole number in [" + str(static_cast<unsigned>(min)) + ", " +
                 str(static_cast<unsigned>(max)) + "] (got '" + parent[key]["value"].Scalar() + "')");
    return std::nullopt;
  }
  return s;
}

/// Parses "{0,2,4}:2"; nullopt if malformed (starts must be strictly increasing whole numbers).
std::optional<MigPlacements> parse_placements(std::string_view text)
{
  const auto open = text.find('{');
  const auto close = text.find('}');
  if (open != 0 || close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
    return std::nullopt;
  MigPlacements p;
  const auto size = parse_int(text.substr(close + 2));
  if (!size || *size < 1) return std::nullopt;
  p.size = static_cast<unsigned>(*size);
  std::string_view list = text.substr(1, close - 1);
  while (true) {
    const auto comma = list.find(',');
    auto item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    const auto start = parse_int(item);
    if (!start || *start < 0 || *start >= MAX_SLICES) return std::nullopt;
    if (!p.starts.empty() && static_cast<unsigned>(*start) <= p.starts.back()) return std::nullopt;
    p.starts.push_back(static_cast<unsigned>(*start));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return p;
}

/// `key: {value: <text>, tag: ..., source: ...}` where value is not a number: returns the value node's text
/// and fills evidence/source; reports problems to sink.
std::optional<std::string> read_sourced_text(const YAML::Node& parent, const std::string& key,
                                             const std::string& file, const std::string& path,
                                             DiagnosticSink& sink, const std::string& expected,
                                             Evidence& evidence, std::string& source)
{
  const std::string kpath = path.empty() ? key : path + "." + key;
  const auto node = parent[key];
  if (!node.IsDefined()) {
    sink.add(location_of(parent, file), kpath, "missing required key; expected {value, tag, source}");
    return std::nullopt;
  }
  if (!node.IsMap()) {
    sink.add(location_of(node, file), kpath,
             "expected {value: ..., tag: ..., source: ...} so the value carries its provenance");
    return std::nullopt;
  }
  std::string text;
  const bool ok = read_sourced_fields(
      node, file, kpath, sink, expected, "value",
      [&](const YAML::Node& v) {
        text = v.Scalar();
        return true;
      },
      evidence, source);
  if (!ok) return std::nullopt;
  return text;
}

std::optional<MigReconfigurationScope> parse_scope(std::string_view text)
{
  for (auto s : {MigReconfigurationScope::AFFECTED_INSTANCES, MigReconfigurationScope::WHOLE_GPU})
    if (to_string(s) == text) return s;
  return std::nullopt;
}

/// The "<g>" of "<g>g.<mem>..." (e.g. 3 for "3g.20gb"); nullopt if the name does not start that way.
std::optional<unsigned> name_slices(const std::string& name)
{
  const auto g = name.find('g');
  if (g == 0 || g == std::string::npos || g + 1 >= name.size() || name[g + 1] != '.') return std::nullopt;
  const auto v = parse_int(std::string_view(name).substr(0, g));
  if (!v || *v < 1) return std::nullopt;
  return static_cast<unsigned>(*v);
}

unsigned as_unsigned(const Sourced& s)
{
  return static_cast<unsigned>(s.value);
}

} // namespace

std::string_view to_string(MigReconfigurationScope s)
{
  switch (s) {
  case MigReconfigurationScope::AFFECTED_INSTANCES:
    return "affected-instances";
  case MigReconfigurationScope::WHOLE_GPU:
    return "whole-gpu";
  }
  return "affected-instances";
}

std::string_view to_string(MigProblem p)
{
  switch (p) {
  case MigProblem::NONE:
    return "none";
  case MigProblem::UNKNOWN_PROFILE:
    return "unknown profile";
  case MigProblem::START_NOT_ALLOWED:
    return "start not allowed";
  case MigProblem::TOO_MANY_OF_PROFILE:
    return "too many instances of the profile";
  case MigProblem::TOO_MANY_INSTANCES:
    return "too many GPU instances";
  case MigProblem::COMPUTE_SLICES_EXCEEDED:
    return "compute slices exceeded";
  case MigProblem::OVERLAP:
    return "overlap";
  case MigProblem::NO_SUCH_INSTANCE:
    return "no such instance";
  case MigProblem::INSTANCE_BUSY:
    return "instance busy";
  case MigProblem::GPU_BUSY:
    return "GPU busy";
  }
  return "none";
}

namespace {

/// reconfiguration: {scope, latency}.
void read_reconfiguration(const YAML::Node& root, const std::string& file, MigTable& t, DiagnosticSink& sink)
{
  if (auto r = root["reconfiguration"]; !r.IsDefined()) {
    sink.add(location_of(root, file), "reconfiguration",
             "missing required key; expected a map with scope, latency");
  } else if (expect_map(r, file, "reconfiguration", sink)) {
    check_keys(r, {"scope", "latency"}, file, "reconfiguration", sink);
    const std::string valid = join({std::string(to_string(MigReconfigurationScope::AFFECTED_INSTANCES)),
                                    std::string(to_string(MigReconfigurationScope::WHOLE_GPU))});
    if (auto v = read_sourced_text(r, "scope", file, "reconfiguration", sink, "one of " + valid,
                                   t.reconfiguration_scope_evidence, t.reconfiguration_scope_source)) {
      if (auto s = parse_scope(*v))
        t.reconfiguration_scope = *s;
      else
        sink.add(location_of(r["scope"]["value"], file), "reconfiguration.scope.value",
                 "unknown scope '" + *v + "'; valid: " + valid);
    }
    if (auto l = read_sourced(r, "latency", Unit::SECONDS, file, "reconfiguration", sink, true, 0.0))
      t.reconfiguration_latency_s = *l;
  }
}

/// What the profiles are checked against: the GPU's slices and GPU instances (MAX_SLICES where the table's
/// own value is missing or wrong), and the names and ids seen so far, each with the path of its first
/// definition.
struct ProfileContext {
  double c_max = MAX_SLICES, m_max = MAX_SLICES, gi_max = MAX_SLICES;
  std::map<std::string, std::string> names;
  std::map<unsigned, std::string> ids;
};

/// A profile's name: present and not a duplicate. False if it is not.
bool read_profile_name(const YAML::Node& node, const std::string& file, const std::string& path,
                       ProfileContext& c, MigProfileSpec& p, DiagnosticSink& sink)
{
  const auto n = node["name"];
  if (!n.IsDefined() || !n.IsScalar() || n.Scalar().empty()) {
    sink.add(location_of(n.IsDefined() ? n : node, file), path + ".name",
             "missing required key; expected a profile name like 3g.20gb");
    return false;
  }
  p.name = n.Scalar();
  if (auto [it, fresh] = c.names.emplace(p.name, path); !fresh) {
    sink.add(location_of(n, file), path + ".name",
             "duplicate profile '" + p.name + "' (also " + it->second + ")");
    return false;
  }
  return true;
}

/// A profile's placements `pl`: well formed, inside the GPU's memory slices, at least max_instances of them.
/// False if not.
bool check_profile_placements(const YAML::Node& node, const std::string& file, const std::string& path,
                              const std::string& pl, const std::optional<Sourced>& max_n, double m_max,
                              MigProfileSpec& p, DiagnosticSink& sink)
{
  const auto where = location_of(node["placements"]["value"], file);
  const auto vpath = path + ".placements.value";
  auto parsed = parse_placements(pl);
  if (!parsed) {
    sink.add(where, vpath,
             "expected placements as nvidia-smi mig -lgipp prints them: {start,start,...}:size with "
             "increasing starts, e.g. \"{0,2,4}:2\" (got '" +
                 pl + "')");
    return false;
  }
  bool ok = true;
  parsed->evidence = p.placements.evidence;
  parsed->source = p.placements.source;
  p.placements = *parsed;
  for (auto s : p.placements.starts)
    if (s + p.placements.size > m_max) {
      sink.add(where, vpath,
               "placement " + str(s) + ":" + str(p.placements.size) + " ends past memory slice " +
                   str(static_cast<unsigned>(m_max) - 1) + " (the GPU has " +
                   str(static_cast<unsigned>(m_max)) + " memory slices)");
      ok = false;
      break;
    }
  if (max_n && as_unsigned(*max_n) > p.placements.starts.size()) {
    sink.add(location_of(node["max_instances"]["value"], file), path + ".max_instances.value",
             "max_instances " + str(as_unsigned(*max_n)) + " exceeds the " +
                 str(static_cast<unsigned>(p.placements.starts.size())) + " placements");
    ok = false;
  }
  return ok;
}

/// profiles[i]: its fields, each checked; none if any is wrong (every problem is in `sink`).
std::optional<MigProfileSpec> read_mig_profile(const YAML::Node& node, const std::string& file,
                                               const std::string& path, ProfileContext& c,
                                               DiagnosticSink& sink)
{
  if (!expect_map(node, file, path, sink)) return std::nullopt;
  check_keys(node, {"name", "id", "compute_slices", "memory", "sms", "max_instances", "placements"}, file,
             path, sink);
  MigProfileSpec p;
  bool ok = read_profile_name(node, file, path, c, p, sink);
  const auto id = read_count(node, "id", file, path, sink, 0, 1e6);
  const auto g = read_count(node, "compute_slices", file, path, sink, 1, c.c_max);
  const auto mem = read_sourced(node, "memory", Unit::BYTES, file, path, sink, true, 1.0);
  const auto sms = read_count(node, "sms", file, path, sink, 1, 1e6);
  const auto max_n = read_count(node, "max_instances", file, path, sink, 1, c.gi_max);
  const auto pl = read_sourced_text(node, "placements", file, path, sink,
                                    "placements as nvidia-smi mig -lgipp prints them, e.g. \"{0,2,4}:2\"",
                                    p.placements.evidence, p.placements.source);
  if (!id || !g || !mem || !sms || !max_n || !pl) ok = false;
  if (id) {
    p.id = *id;
    if (auto [it, fresh] = c.ids.emplace(as_unsigned(*id), path); !fresh) {
      sink.add(location_of(node["id"]["value"], file), path + ".id.value",
               "duplicate profile id " + str(as_unsigned(*id)) + " (also " + it->second + ")");
      ok = false;
    }
  }
  if (g) p.compute_slices = *g;
  if (mem) p.memory_bytes = *mem;
  if (sms) p.sms = *sms;
  if (max_n) p.max_instances = *max_n;
  if (g && !p.name.empty()) {
    if (auto ng = name_slices(p.name); !ng || *ng != as_unsigned(*g)) {
      sink.add(location_of(node["name"], file), path + ".name",
               "the name must start with '" + str(as_unsigned(*g)) + "g.' to match compute_slices " +
                   str(as_unsigned(*g)) + " (got '" + p.name + "')");
      ok = false;
    }
  }
  if (pl && !check_profile_placements(node, file, path, *pl, max_n, c.m_max, p, sink)) ok = false;
  if (!ok) return std::nullopt;
  return p;
}

} // namespace

MigTable load_mig_table(std::string_view yaml_text, const std::string& file)
{
  const YAML::Node root = load_yaml(yaml_text, file);
  DiagnosticSink sink;
  MigTable t;
  if (!expect_map(root, file, "", sink)) sink.throw_if_any();
  check_keys(root,
             {"format", "name", "device", "compute_slices", "memory_slices", "max_gpu_instances",
              "reconfiguration", "profiles"},
             file, "", sink);
  if (auto f = root["format"]; !f.IsDefined() || f.Scalar() != "colocsim-mig/1")
    sink.add(location_of(f.IsDefined() ? f : root, file), "format", "expected 'colocsim-mig/1'");
  auto text = [&](const char* key) -> std::string {
    auto n = root[key];
    if (!n.IsDefined() || !n.IsScalar() || n.Scalar().empty()) {
      sink.add(location_of(n.IsDefined() ? n : root, file), key, "missing required key; expected a string");
      return {};
    }
    return n.Scalar();
  };
  t.name = text("name");
  t.device = text("device");
  const auto compute = read_count(root, "compute_slices", file, "", sink, 1, MAX_SLICES);
  const auto memory = read_count(root, "memory_slices", file, "", sink, 1, MAX_SLICES);
  const auto max_gi = read_count(root, "max_gpu_instances", file, "", sink, 1, MAX_SLICES);
  if (compute) t.compute_slices = *compute;
  if (memory) t.memory_slices = *memory;
  if (max_gi) t.max_gpu_instances = *max_gi;
  read_reconfiguration(root, file, t, sink);

  const auto profiles = root["profiles"];
  if (!profiles.IsDefined() || !profiles.IsSequence() || profiles.size() == 0) {
    sink.add(location_of(profiles.IsDefined() ? profiles : root, file), "profiles",
             "expected a non-empty list of profiles");
    sink.throw_if_any();
  }
  ProfileContext c;
  c.c_max = compute ? compute->value : MAX_SLICES;
  c.m_max = memory ? memory->value : MAX_SLICES;
  c.gi_max = max_gi ? max_gi->value : MAX_SLICES;
  for (std::size_t i = 0; i < profiles.size(); ++i)
    if (auto p = read_mig_profile(profiles[i], file, "profiles[" + std::to_string(i) + "]", c, sink))
      t.profiles.push_back(std::move(*p));
  sink.throw_if_any();
  return t;
}

// ---- MigGeometry ----

MigGeometry::MigGeometry(const MigTable& table)
    : name_(table.name), device_(table.device), compute_slices_(as_unsigned(table.compute_slices)),
      memory_slices_(as_unsigned(table.memory_slices)),
      max_gpu_instances_(as_unsigned(table.max_gpu_instances)), scope_(table.reconfiguration_scope),
      latency_s_(table.reconfiguration_latency_s.value)
{
  if (memory_slices_ > MAX_SLICES)
    throw std::invalid_argument("MIG table '" + name_ + "': more than " + str(MAX_SLICES) + " memory slices");
  for (const auto& p : table.profiles)
    profiles_.push_back(MigProfile{p.name, as_unsigned(p.id), as_unsigned(p.compute_slices),
                                   p.placements.size, as_unsigned(p.sms), as_unsigned(p.max_instances),
                                   p.memory_bytes.value, p.placements.starts});
}

std::optional<std::size_t> MigGeometry::find_profile(std::string_view name) const
{
  for (std::size_t i = 0; i < profiles_.size(); ++i)
    if (profiles_[i].name == name) return i;
  return std::nullopt;
}

std::size_t MigGeometry::profile_index(std::string_view name) const
{
  if (auto i = find_profile(name)) return *i;
  std::vector<std::string> valid;
  for (const auto& p : profiles_)
    valid.push_back(p.name);
  throw std::invalid_argument("unknown MIG profile '" + std::string(name) + "' on " + name_ +
                              "; valid: " + join(valid));
}

MigInstance MigGeometry::instance(std::string_view profile, unsigned start) const
{
  return MigInstance{profile_index(profile), start};
}

std::vector<std::size_t> MigGeometry::profile_indices(const std::vector<std::string>& names) const
{
  std::vector<std::size_t> out;
  for (const auto& n : names)
    out.push_back(profile_index(n));
  return out;
}

std::string MigGeometry::describe(const MigInstance& gi) const
{
  const std::string profile =
      gi.profile < profiles_.size() ? profiles_[gi.profile].name : "profile#" + std::to_string(gi.profile);
  return profile + "@" + str(gi.start);
}

std::string MigGeometry::describe(const MigLayout& layout) const
{
  std::vector<std::string> parts;
  for (const auto& gi : layout)
    parts.push_back(describe(gi));
  return "{" + join(parts) + "}";
}

std::uint32_t MigGeometry::memory_mask(const MigInstance& gi) const
{
  const unsigned size = profiles_.at(gi.profile).memory_slices;
  if (gi.start >= MAX_SLICES) return 0;
  const std::uint64_t bits = ((std::uint64_t{1} << size) - 1) << gi.start;
  return static_cast<std::uint32_t>(bits);
}

std::uint32_t MigGeometry::used_memory_mask(const MigLayout& layout) const
{
  std::uint32_t mask = 0;
  for (const auto& gi : layout)
    mask |= memory_mask(gi);
  return mask;
}

namespace {
/// Σ over the layout's instances of their profile's `field`.
template <class T>
T sum_over(const MigLayout& layout, const std::vector<MigProfile>& profiles, T MigProfile::*field)
{
  T sum{};
  for (const auto& gi : layout)
    sum += profiles.at(gi.profile).*field;
  return sum;
}
} // namespace

unsigned MigGeometry::used_compute_slices(const MigLayout& layout) const
{
  return sum_over(layout, profiles_, &MigProfile::compute_slices);
}

unsigned MigGeometry::sms(const MigLayout& layout) const
{
  return sum_over(layout, profiles_, &MigProfile::sms);
}

double MigGeometry::memory_bytes(const MigLayout& layout) const
{
  return sum_over(layout, profiles_, &MigProfile::memory_bytes);
}

MigVerdict MigGeometry::check(const MigLayout& layout) const
{
  auto fail = [](MigProblem p, std::size_t i, std::string reason, std::size_t other = 0) {
    return MigVerdict{p, i, other, std::move(reason)};
  };
  for (std::size_t i = 0; i < layout.size(); ++i)
    if (layout[i].profile >= profiles_.size())
      return fail(MigProblem::UNKNOWN_PROFILE, i,
                  "instance " + std::to_string(i) + ": unknown profile index " +
                      std::to_string(layout[i].profile) + " (" + name_ + " has " +
                      std::to_string(profiles_.size()) + " profiles)");
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const auto& p = profiles_[layout[i].profile];
    if (std::find(p.starts.begin(), p.starts.end(), layout[i].start) == p.starts.end())
      return fail(MigProblem::START_NOT_ALLOWED, i,
                  describe(layout[i]) + ": start " + str(layout[i].start) + " is not allowed for " + p.name +
                      "; allowed starts: " + join_unsigned(p.starts));
  }
  std::vector<unsigned> count(profiles_.size(), 0);
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const auto& p = profiles_[layout[i].profile];
    if (++count[layout[i].profile] > p.max_instances)
      return fail(MigProblem::TOO_MANY_OF_PROFILE, i,
                  describe(layout[i]) + ": " + str(count[layout[i].profile]) + " GPU instances of " + p.name +
                      "; at most " + str(p.max_instances));
  }
  if (layout.size() > max_gpu_instances_)
    return fail(MigProblem::TOO_MANY_INSTANCES, max_gpu_instances_,
                describe(layout[max_gpu_instances_]) + ": " + std::to_string(layout.size()) +
                    " GPU instances; at most " + str(max_gpu_instances_) + " per GPU");
  unsigned compute = 0;
  for (std::size_t i = 0; i < layout.size(); ++i) {
    compute += profiles_[layout[i].profile].compute_slices;
    if (compute > compute_slices_)
      return fail(MigProblem::COMPUTE_SLICES_EXCEEDED, i,
                  describe(layout[i]) + ": the GPU instances need " + str(used_compute_slices(layout)) +
                      " compute slices; the GPU has " + str(compute_slices_));
  }
  for (std::size_t i = 0; i < layout.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (const auto common = memory_mask(layout[i]) & memory_mask(layout[j]); common != 0)
        return fail(MigProblem::OVERLAP, i,
                    describe(layout[i]) + " overlaps " + describe(layout[j]) + " on memory slice" +
                        (std::popcount(common) > 1 ? "s " : " ") + describe_slices(common),
                    j);
  return {};
}

bool MigGeometry::fits(const MigLayout& current, std::uint32_t used_mask, unsigned used_compute,
                       const MigInstance& gi) const
{
  const auto& p = profiles_[gi.profile];
  if (std::find(p.starts.begin(), p.starts.end(), gi.start) == p.starts.end()) return false;
  if (memory_mask(gi) & used_mask) return false;
  if (current.size() + 1 > max_gpu_instances_) return false;
  if (used_compute + p.compute_slices > compute_slices_) return false;
  const auto same = std::count_if(current.begin(), current.end(),
                                  [&](const MigInstance& other) { return other.profile == gi.profile; });
  return static_cast<unsigned>(same) < p.max_instances;
}

std::optional<MigLayout> MigGeometry::arrange(const std::vector<std::size_t>& profiles) const
{
  for (auto p : profiles)
    if (p >= profiles_.size()) return std::nullopt;
  MigLayout layout;
  layout.reserve(profiles.size());
  // Depth-first over the legal starts of each GI in turn; at most 7 GIs of at most 8 starts each.
  const std::function<bool(std::size_t)> place = [&](std::size_t k) {
    if (k == profiles.size()) return true;
    for (auto s : legal_starts(layout, profiles[k])) {
      layout.push_back(MigInstance{profiles[k], s});
      if (place(k + 1)) return true;
      layout.pop_back();
    }
    return false;
  };
  if (!place(0)) return std::nullopt;
  return layout;
}

std::vector<unsigned> MigGeometry::legal_starts(const MigLayout& current, std::size_t profile) const
{
  std::vector<unsigned> out;
  const auto mask = used_memory_mask(current);
  const auto compute = used_compute_slices(current);
  for (auto s : profiles_.at(profile).starts)
    if (fits(current, mask, compute, MigInstance{profile, s})) out.push_back(s);
  return out;
}

std::optional<unsigned> MigGeometry::lowest_start(const MigLayout& current, std::size_t profile) const
{
  const auto starts = legal_starts(current, profile);
  if (starts.empty()) return std::nullopt;
  return starts.front();
}

bool MigGeometry::can_place(const MigLayout& current, std::size_t profile) const
{
  return lowest_start(current, profile).has_value();
}

std::vector<std::size_t> MigGeometry::allowed_or_all(const std::vector<std::size_t>& allowed) const
{
  if (!allowed.empty()) {
    for (auto a : allowed)
      if (a >= profiles_.size())
        throw std::out_of_range("MIG profile index " + std::to_string(a) + " out of range");
    return allowed;
  }
  std::vector<std::size_t> all(profiles_.size());
  for (std::size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  return all;
}

bool MigGeometry::is_maximal(const MigLayout& layout, const std::vector<std::size_t>& allowed) const
{
  const auto mask = used_memory_mask(layout);
  const auto compute = used_compute_slices(layout);
  for (auto p : allowed_or_all(allowed))
    for (auto s : profiles_[p].starts)
      if (fits(layout, mask, compute, MigInstance{p, s})) return false;
  return true;
}

std::vector<MigLayout> MigGeometry::all_layouts(const std::vector<std::size_t>& allowed) const
{
  // Candidates in canonical order; a depth-first search adds them in increasing order only, so each legal
  // set is produced exactly once and already sorted.
  std::vector<MigInstance> candidates;
  for (auto p : allowed_or_all(allowed))
    for (auto s : profiles_[p].starts)
      candidates.push_back(MigInstance{p, s});
  std::sort(candidates.begin(), candidates.end(), [](const MigInstance& a, const MigInstance& b) {
    return std::tie(a.start, a.profile) < std::tie(b.start, b.profile);
  });
  std::vector<MigLayout> out;
  MigLayout layout;
  std::function<void(std::size_t, std::uint32_t, unsigned)> grow = [&](std::size_t from, std::uint32_t mask,
                                                                       unsigned compute) {
    for (std::size_t i = from; i < candidates.size(); ++i) {
      const auto& c = candidates[i];
      if (!fits(layout, mask, compute, c)) continue;
      layout.push_back(c);
      out.push_back(layout);
      grow(i + 1, mask | memory_mask(c), compute + profiles_[c.profile].compute_slices);
      layout.pop_back();
    }
  };
  grow(0, 0, 0);
  return out;
}

std::vector<MigLayout> MigGeometry::maximal_layouts(const std::vector<std::size_t>& allowed) const
{
  std::vector<MigLayout> out;
  for (auto& layout : all_layouts(allowed))
    if (is_maximal(layout, allowed)) out.push_back(std::move(layout));
  return out;
}

MigLayout MigGeometry::apply(const MigLayout& current, const MigChange& change) const
{
  std::vector<bool> gone(current.size(), false);
  for (auto d : change.destroy) {
    if (d >= current.size())
      throw std::out_of_range("MIG change destroys instance " + std::to_string(d) + " of a layout of " +
                              std::to_string(current.size()));
    gone[d] = true;
  }
  MigLayout out;
  for (std::size_t i = 0; i < current.size(); ++i)
    if (!gone[i]) out.push_back(current[i]);
  out.insert(out.end(), change.create.begin(), change.create.end());
  return out;
}

MigVerdict MigGeometry::check_change(const MigLayout& current, const std::vector<bool>& busy,
                                     const MigChange& change) const
{
  if (busy.size() != current.size())
    throw std::invalid_argument("check_change: busy has " + std::to_string(busy.size()) + " entries for " +
                                std::to_string(current.size()) + " instances");
  std::set<std::size_t> seen;
  for (auto d : change.destroy)
    if (d >= current.size() || !seen.insert(d).second)
      return MigVerdict{MigProblem::NO_SUCH_INSTANCE, d, 0,
                        d >= current.size() ? "the change destroys instance " + std::to_string(d) +
                                                  ", but the layout has " + std::to_string(current.size())
                                            : "the change destroys instance " + std::to_string(d) + " twice"};
  const bool changes = !change.destroy.empty() || !change.create.empty();
  if (scope_ == MigReconfigurationScope::WHOLE_GPU && changes)
    for (std::size_t i = 0; i < current.size(); ++i)
      if (busy[i])
        return MigVerdict{MigProblem::GPU_BUSY, i, 0,
                          "cannot reconfigure " + name_ + " while " + describe(current[i]) +
                              " holds jobs (reconfiguration scope whole-gpu: drain the GPU first)"};
  for (auto d : change.destroy)
    if (busy[d])
      return MigVerdict{MigProblem::INSTANCE_BUSY, d, 0,
                        "cannot destroy " + describe(current[d]) +
                            ": it holds jobs (only empty instances may be destroyed; drain it first)"};
  return check(apply(current, change));
}

std::optional<MigChange> MigGeometry::make_room(const MigLayout& current, const std::vector<bool>& busy,
                                                std::size_t profile) const
{
  std::optional<MigChange> best;
  std::tuple<std::size_t, unsigned, unsigned> best_cost{};
  for (auto s : profiles_.at(profile).starts) {
    const MigInstance gi{profile, s};
    MigChange change;
    unsigned destroyed_compute = 0;
    for (std::size_t i = 0; i < current.size(); ++i)
      if (memory_mask(current[i]) & memory_mask(gi)) {
        change.destroy.push_back(i);
        destroyed_compute += profiles_.at(current[i].profile).compute_slices;
      }
    change.create.push_back(gi);
    if (!check_change(current, busy, change).ok()) continue;
    const auto cost = std::make_tuple(change.destroy.size(), destroyed_compute, s);
    if (!best || cost < best_cost) {
      best = std::move(change);
      best_cost = cost;
    }
  }
  return best;
}

std::optional<MigChange> MigGeometry::fuse(const MigLayout& current,
                                           const std::vector<std::size_t>& instances,
                                           std::size_t profile) const
{
  MigChange change{instances, {}};
  const auto rest = apply(current, change); // throws on a bad index
  std::uint32_t freed = 0;
  for (auto i : instances)
    freed |= memory_mask(current[i]);
  const auto mask = used_memory_mask(rest);
  const auto compute = used_compute_slices(rest);
  for (auto s : profiles_.at(profile).starts) {
    const MigInstance gi{profile, s};
    if ((memory_mask(gi) & freed) && fits(rest, mask, compute, gi)) {
      change.create.push_back(gi);
      return change;
    }
  }
  return std::nullopt;
}

std::optional<MigChange> MigGeometry::split(const MigLayout& current, std::size_t instance,
                                            std::size_t profile) const
{
  MigChange change{{instance}, {}};
  auto rest = apply(current, change); // throws on a bad index
  const auto range = memory_mask(current[instance]);
  for (auto s : profiles_.at(profile).starts) {
    const MigInstance gi{profile, s};
    if ((memory_mask(gi) & ~range) != 0) continue;
    if (!fits(rest, used_memory_mask(rest), used_compute_slices(rest), gi)) continue;
    rest.push_back(gi);
    change.create.push_back(gi);
  }
  if (change.create.empty()) return std::nullopt;
  return change;
}

// ---- what an instance holds of the whole GPU ----

double mig_sm_fraction(const MigProfile& profile, double device_sms)
{
  if (!(profile.sms > 0) || !(device_sms >= profile.sms))
    throw std::invalid_argument("MIG profile " + profile.name + " has " + std::to_string(profile.sms) +
                                " SMs; the device has " + std::to_string(device_sms) +
                                " (expected 0 < profile SMs <= device SMs)");
  return profile.sms / device_sms;
}

double mig_memory_fraction(const MigGeometry& geometry, const MigProfile& profile)
{
  return static_cast<double>(profile.memory_slices) / geometry.memory_slices();
}

// ---- MPS ----

unsigned mps_max_clients()
{
  return max_residents(SharingMode::MPS);
}

unsigned mps_max_clients_on_mig(unsigned ci_compute_slices, unsigned gpu_compute_slices)
{
  if (ci_compute_slices < 1 || ci_compute_slices > gpu_compute_slices)
    throw std::invalid_argument("MPS on MIG: a compute instance of " + str(ci_compute_slices) +
                                " compute slices on a GPU of " + str(gpu_compute_slices) +
                                "; expected 1 <= ci <= gpu");
  return mps_max_clients() * ci_compute_slices / gpu_compute_slices;
}

bool valid_active_thread_percentage(double percentage)
{
  return std::isfinite(percentage) && percentage >= 1.0 && percentage <= 100.0;
}

double active_thread_share(double percentage)
{
  if (!valid_active_thread_percentage(percentage)) {
    std::ostringstream got;
    got << percentage;
    throw std::invalid_argument("MPS active-thread percentage must be in [1, 100] (got " + got.str() + ")");
  }
  return percentage / 100.0;
}

} // namespace colocsim
