// Building a run from a read scenario (sim/Scenario.hpp): the platform preset and its device types with
// their calibrations and models, the profiles, the trace reader and the policy (build_run()).
#include "sim/RunInputs.hpp"

#include "base/Yaml.hpp"
#include "calibration/InterferenceRegistry.hpp"
#include "calibration/PairTable.hpp"
#include "policies/PolicyRegistry.hpp"
#include "sim/Resources.hpp"
#include "workloads/NativeCsv.hpp"
#include "workloads/NodeInventory.hpp"
#include "workloads/TraceFormats.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>

namespace colocsim {

RunSetup RunInputs::setup()
{
  RunSetup r;
  r.platform = &platform;
  r.profiles = &profiles;
  r.default_profile = scenario.default_profile;
  r.reader = reader.get();
  r.policy = policy.get();
  r.policy_name = scenario.policy;
  r.oom_delay_s = scenario.oom_delay_s;
  r.max_retries = scenario.max_retries;
  r.repartition_delay_s = scenario.repartition_delay_s;
  r.node_boot_s = scenario.node_boot_s;
  r.honour_gpu_types = scenario.honour_gpu_types;
  r.durations_on_named_type = scenario.durations_on_named_type;
  r.estimates = scenario.estimates == "requested"   ? EstimateSource::REQUESTED
                : scenario.estimates == "predicted" ? EstimateSource::PREDICTED
                                                    : EstimateSource::EXACT;
  r.durations_include_scaling =
      scenario.durations_at == "own-gpu-count" || (scenario.durations_at == "auto" && !scenario.synthetic);
  r.record_timeseries = scenario.outputs.timeseries;
  r.model_error = ModelError{.interference = scenario.model_error_interference,
                             .mig = scenario.model_error_mig,
                             .seed = static_cast<std::uint64_t>(scenario.seed)};
  return r;
}

namespace {
/// A native CSV reader over text held in memory (the bundled default trace).
class InMemoryCsvReader final : public JobReader {
public:
  InMemoryCsvReader(std::string text, const std::string& name)
      : stream_(std::move(text)), reader_(stream_, name)
  {
  }
  std::optional<Job> next() override { return reader_.next(); }
  bool may_have_dependencies() const override { return reader_.may_have_dependencies(); }

private:
  std::istringstream stream_;
  NativeCsvReader reader_;
};

/// A platform file: format colocsim-platform/1 (docs/formats/platform.md). Either one device type
/// (`device`, `nodes`, `cards_per_node`) or `groups` of nodes, each with its own device type.
struct PlatformGroup {
  std::string device;
  long long nodes = 1, cards_per_node = 1;
  SourceLocation where;
};
struct PlatformPreset {
  std::string name;
  std::string node_list, node_list_format; ///< instead of groups: a trace's node table (path as written)
  SourceLocation node_list_where;
  std::string reference_device; ///< empty: the first group's device
  SourceLocation reference_where;
  std::vector<PlatformGroup> groups;
  std::vector<std::string> user_supplied; ///< "file: key = value" for each plain number (no provenance)
  std::optional<Network> network;         ///< `network:`, if given
};

/// `network:` of a platform file (docs/formats/platform.md, Network): the fabric tier (latency, bus
/// bandwidth), the NICs of a node (count, bandwidth and latency of one: the nic tier is all of them
/// together) and optionally a spine (nodes per leaf switch, the bandwidth of a leaf's uplinks together,
/// latency). Every problem goes to sink.
std::optional<Network> read_network(const YAML::Node& net, const std::string& file, bool plain_ok,
                                    DiagnosticSink& sink, std::vector<std::string>& user_supplied)
{
  if (!expect_map(net, file, "network", sink)) return std::nullopt;
  check_keys(net, {"fabric", "nic", "spine", "description"}, file, "network", sink);
  bool ok = true;
  auto value = [&](const YAML::Node& parent, const std::string& path, const char* key, Unit unit, double min,
                   double max) -> double {
    auto v = read_sourced(parent, key, unit, file, path, sink, true, min, max, plain_ok);
    if (!v) {
      ok = false;
      return 0;
    }
    if (v->evidence == Evidence::USER_SUPPLIED)
      user_supplied.push_back(file + ": " + path + "." + key + " = " + number_text(v->value));
    return v->value;
  };
  auto sourced = [&](const YAML::Node& parent, const std::string& path, const char* key, Unit unit,
                     double min, double max) -> Sourced {
    auto v = read_sourced(parent, key, unit, file, path, sink, true, min, max, plain_ok);
    if (!v) {
      ok = false;
      return {};
    }
    if (v->evidence == Evidence::USER_SUPPLIED)
      user_supplied.push_back(file + ": " + path + "." + key + " = " + number_text(v->value));
    return *v;
  };
  // A count: a whole number in [1, max].
  auto count = [&](const YAML::Node& parent, const std::string& path, const char* key, double max) {
    const double v = value(parent, path, key, Unit::NONE, 1, max);
    if (ok && v != std::floor(v)) {
      sink.add(location_of(parent[key], file), path + "." + key,
               "not a whole number (got " + number_text(v) + "); expected a count");
      ok = false;
    }
    return v;
  };
  // β = 1 / bandwidth, its source the bandwidth's (with the arithmetic).
  auto beta_of = [](const Sourced& bw, double times, const std::string& how) {
    return Sourced{times / bw.value, bw.evidence, bw.source + (how.empty() ? "" : "; " + how)};
  };
  auto section = [&](const char* key, bool required, const char* keys) -> YAML::Node {
    const YAML::Node n = net[key];
    if (!n.IsDefined()) {
      if (required) {
        sink.add(location_of(net, file), std::string("network.") + key,
                 std::string("missing required section; expected a map of ") + keys);
        ok = false;
      }
      return YAML::Node();
    }
    if (!expect_map(n, file, std::string("network.") + key, sink)) {
      ok = false;
      return YAML::Node();
    }
    return n;
  };
  constexpr double MAX_BW = 1e15; // bytes/s: 1 PB/s, far above any link
  constexpr double MAX_LAT = 1.0; // seconds per algorithm step
  Network out;
  if (const YAML::Node f = section("fabric", true, "latency and bandwidth"); f.IsDefined() && f.IsMap()) {
    check_keys(f, {"latency", "bandwidth"}, file, "network.fabric", sink);
    out.tiers.fabric.alpha = sourced(f, "network.fabric", "latency", Unit::SECONDS, 0, MAX_LAT);
    const Sourced bw = sourced(f, "network.fabric", "bandwidth", Unit::BYTES, 1, MAX_BW);
    if (ok) out.tiers.fabric.beta = beta_of(bw, 1.0, "");
  }
  if (const YAML::Node n = section("nic", true, "per_node, bandwidth and latency");
      n.IsDefined() && n.IsMap()) {
    check_keys(n, {"per_node", "bandwidth", "latency"}, file, "network.nic", sink);
    const double per_node = count(n, "network.nic", "per_node", 64);
    const Sourced bw = sourced(n, "network.nic", "bandwidth", Unit::BYTES, 1, MAX_BW);
    out.tiers.nic.alpha = sourced(n, "network.nic", "latency", Unit::SECONDS, 0, MAX_LAT);
    if (ok)
      out.tiers.nic.beta = beta_of(bw, 1.0 / per_node, number_text(per_node) + " NICs per node together");
  }
  if (const YAML::Node sp = section("spine", false, "nodes_per_leaf, uplink_bandwidth and latency");
      sp.IsDefined() && sp.IsMap()) {
    check_keys(sp, {"nodes_per_leaf", "uplink_bandwidth", "latency"}, file, "network.spine", sink);
    const double per_leaf = count(sp, "network.spine", "nodes_per_leaf", 1e6);
    const Sourced bw = sourced(sp, "network.spine", "uplink_bandwidth", Unit::BYTES, 1, MAX_BW);
    const Sourced alpha = sourced(sp, "network.spine", "latency", Unit::SECONDS, 0, MAX_LAT);
    if (ok) {
      out.tiers.spine =
          CommTier{alpha, beta_of(bw, 1.0,
                                  "a leaf's uplinks together, one link shared by the flows of its " +
                                      number_text(per_leaf) + " nodes that leave or enter it")};
      out.nodes_per_leaf = static_cast<std::uint32_t>(per_leaf);
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

PlatformPreset load_platform_preset(const TextFile& file)
{
  const YAML::Node root = load_yaml(file.text, file.name);
  DiagnosticSink sink;
  if (!expect_map(root, file.name, "", sink)) sink.throw_if_any();
  check_keys(root,
             {"format", "name", "description", "device", "nodes", "cards_per_node", "groups", "node_list",
              "reference_device", "network"},
             file.name, "", sink);
  if (auto fmt = root["format"]; !fmt.IsDefined() || fmt.Scalar() != "colocsim-platform/1")
    sink.add(location_of(fmt.IsDefined() ? fmt : root, file.name), "format",
             "expected 'colocsim-platform/1'");
  PlatformPreset p;
  // A missing key of a const node is an invalid node in yaml-cpp 0.7, whose Is*() throw: IsDefined() first.
  if (auto n = root["name"]; n.IsDefined() && n.IsScalar()) p.name = n.Scalar();
  // One group: its keys at the top level, or under `groups`, never both.
  auto read_group = [&](const YAML::Node& node, const std::string& path) {
    PlatformGroup g;
    g.where = location_of(node, file.name);
    if (auto d = node["device"]; d.IsDefined() && d.IsScalar() && !d.Scalar().empty())
      g.device = d.Scalar();
    else
      sink.add(location_of(d.IsDefined() ? d : node, file.name), path.empty() ? "device" : path + ".device",
               "missing required key; expected a device catalog name or a device file");
    // A bundled preset's numbers carry {value, tag, source}; a user's platform file may give plain numbers.
    const bool plain_ok = file.name.rfind("builtin:", 0) != 0;
    auto note = [&](const char* key, const Sourced& s) {
      if (s.evidence == Evidence::USER_SUPPLIED)
        p.user_supplied.push_back(file.name + ": " + (path.empty() ? "" : path + ".") + key + " = " +
                                  number_text(s.value));
    };
    // Counts: a fraction (nodes: 2.5) was cut to its whole part without a word.
    auto whole = [&](const char* key, const Sourced& s) {
      if (s.value == std::floor(s.value)) return true;
      sink.add(location_of(node[key], file.name), (path.empty() ? "" : path + ".") + key,
               "not a whole number (got " + number_text(s.value) + "); expected a count");
      return false;
    };
    if (auto n = read_sourced(node, "nodes", Unit::NONE, file.name, path, sink, true, 1, 1e6, plain_ok);
        n && whole("nodes", *n)) {
      g.nodes = static_cast<long long>(n->value);
      note("nodes", *n);
    }
    if (auto c =
            read_sourced(node, "cards_per_node", Unit::NONE, file.name, path, sink, true, 1, 64, plain_ok);
        c && whole("cards_per_node", *c)) {
      g.cards_per_node = static_cast<long long>(c->value);
      note("cards_per_node", *c);
    }
    return g;
  };
  const YAML::Node groups = root["groups"];
  if (const YAML::Node nl = root["node_list"]; nl.IsDefined()) {
    p.node_list_where = location_of(nl, file.name);
    for (const char* key : {"device", "nodes", "cards_per_node", "groups"})
      if (root[key].IsDefined())
        sink.add(location_of(root[key], file.name), key,
                 "given with node_list; expected either a node list or device groups");
    if (expect_map(nl, file.name, "node_list", sink)) {
      check_keys(nl, {"file", "format"}, file.name, "node_list", sink);
      if (auto f = nl["file"]; f.IsDefined() && f.IsScalar() && !f.Scalar().empty())
        p.node_list = f.Scalar();
      else
        sink.add(location_of(f.IsDefined() ? f : nl, file.name), "node_list.file",
                 "missing required key; expected the path of a node table, relative to this file");
      if (auto f = nl["format"];
          f.IsDefined() && f.IsScalar() && (f.Scalar() == "openb" || f.Scalar() == "pai"))
        p.node_list_format = f.Scalar();
      else
        sink.add(location_of(f.IsDefined() ? f : nl, file.name), "node_list.format",
                 "expected openb (Alibaba v2023 openb_node_list_*.csv) or pai (Alibaba v2020 "
                 "pai_machine_spec.csv)");
    }
  } else if (groups.IsDefined()) {
    for (const char* key : {"device", "nodes", "cards_per_node"})
      if (root[key].IsDefined())
        sink.add(location_of(root[key], file.name), key,
                 "given both at the top level and through groups; expected one of the two forms");
    if (!groups.IsSequence() || groups.size() == 0) {
      sink.add(location_of(groups, file.name), "groups", "expected a non-empty list of node groups");
    } else {
      for (std::size_t i = 0; i < groups.size(); ++i) {
        const std::string path = "groups[" + std::to_string(i) + "]";
        if (!expect_map(groups[i], file.name, path, sink)) continue;
        check_keys(groups[i], {"device", "nodes", "cards_per_node", "description"}, file.name, path, sink);
        p.groups.push_back(read_group(groups[i], path));
      }
    }
  } else {
    p.groups.push_back(read_group(root, ""));
  }
  if (auto r = root["reference_device"]; r.IsDefined()) {
    p.reference_where = location_of(r, file.name);
    if (r.IsScalar() && !r.Scalar().empty())
      p.reference_device = r.Scalar();
    else
      sink.add(p.reference_where, "reference_device", "expected the device name of one of the groups");
  }
  if (const YAML::Node net = root["network"]; net.IsDefined())
    p.network = read_network(net, file.name, file.name.rfind("builtin:", 0) != 0, sink, p.user_supplied);
  sink.throw_if_any();
  return p;
}

/// The node groups of a node table (a trace's cluster): one group per GPU model and GPUs per node, each of
/// the catalog device whose trace_names has the model. CPU-only nodes are left out (the engine places GPU
/// jobs only).
std::vector<PlatformGroup> groups_from_node_list(const PlatformPreset& preset, const std::string& preset_file)
{
  const std::string dir = parent_dir(preset_file);
  const std::string path = preset.node_list.front() == '/' ? preset.node_list : dir + "/" + preset.node_list;
  TextFile table;
  try {
    table = read_text_file(path);
  } catch (const InputError& e) {
    throw InputError(preset.node_list_where, "node_list.file",
                     "cannot read the node table " + path + " (" + e.what() +
                         "); expected a path relative to " + preset_file);
  }
  std::istringstream in(table.text);
  const NodeInventory inv = preset.node_list_format == "openb" ? read_openb_nodes(in, table.name)
                                                               : read_pai_machines(in, table.name);
  // Trace name -> catalog device.
  std::map<std::string, std::string> by_trace_name;
  std::vector<std::string> known;
  for (const auto& name : bundled_names("models/devices")) {
    const auto f = read_text_file("builtin:models/devices/" + name + ".yaml");
    for (const auto& t : load_device_spec(f.text, f.name).trace_names) {
      by_trace_name.emplace(t, name);
      known.push_back(t);
    }
  }
  std::map<std::pair<std::string, int>, PlatformGroup> groups;
  for (const auto& node : inv.nodes) {
    if (node.gpus == 0 || node.gpu_model.empty()) continue;
    const auto device = by_trace_name.find(node.gpu_model);
    if (device == by_trace_name.end())
      throw InputError(
          node.origin, "model",
          "GPU model '" + node.gpu_model +
              "' is the trace name of no device in the catalog (models/devices, key trace_names); "
              "known: " +
              join(known));
    auto& g = groups[{node.gpu_model, node.gpus}];
    if (g.device.empty()) g = PlatformGroup{device->second, 0, node.gpus, node.origin};
    ++g.nodes;
  }
  if (groups.empty())
    throw InputError(preset.node_list_where, "node_list",
                     "the node table " + table.name + " has no GPU node");
  // The most common GPU model first (index-order policies such as first-fit fill it first), then by GPUs per
  // node, both descending; ties by model name.
  std::map<std::string, long long> model_gpus;
  for (const auto& [key, g] : groups)
    model_gpus[key.first] += g.nodes * g.cards_per_node;
  std::vector<std::pair<std::pair<std::string, int>, PlatformGroup>> ordered(groups.begin(), groups.end());
  std::stable_sort(ordered.begin(), ordered.end(), [&](const auto& a, const auto& b) {
    const auto ga = model_gpus[a.first.first], gb = model_gpus[b.first.first];
    if (ga != gb) return ga > gb;
    if (a.first.first != b.first.first) return a.first.first < b.first.first;
    return a.first.second > b.first.second;
  });
  std::vector<PlatformGroup> out;
  for (auto& [key, g] : ordered)
    out.push_back(std::move(g));
  return out;
}

/// The GPU instances of `layout_text` ("profile,profile,..."; empty: the whole GPU) arranged legally on
/// `geo`.
MigLayout arrange_mig_layout(const MigGeometry& geo, const std::string& layout_text, const SourceLocation& at)
{
  std::vector<std::string> names;
  std::stringstream items(layout_text);
  for (std::string item; std::getline(items, item, ',');)
    if (!item.empty()) names.push_back(item);
  if (names.empty()) { // the whole GPU: the profile with the most compute slices
    std::size_t best = 0;
    for (std::size_t p = 1; p < geo.profiles().size(); ++p)
      if (geo.profiles()[p].compute_slices > geo.profiles()[best].compute_slices) best = p;
    names.push_back(geo.profiles()[best].name);
  }
  std::vector<std::string> valid;
  for (const auto& p : geo.profiles())
    valid.push_back(p.name);
  std::vector<std::size_t> profiles;
  for (const auto& n : names) {
    const auto p = geo.find_profile(n);
    if (!p)
      throw InputError(at, "platform.mig_layout",
                       "unknown MIG profile '" + n + "' for " + geo.name() + "; valid: " + join(valid));
    profiles.push_back(*p);
  }
  // Starts by a search over every legal arrangement (MigGeometry::arrange): a greedy lowest-start pass
  // refuses legal layouts such as 3g.20gb, 2g.10gb, 1g.5gb, 1g.5gb (3g.20gb must go to slice 4).
  if (auto arranged = geo.arrange(profiles)) return std::move(*arranged);
  // Name the first instance that cannot be added and the rule it breaks.
  for (std::size_t k = 0; k < profiles.size(); ++k) {
    std::vector<std::size_t> head(profiles.begin(), profiles.begin() + static_cast<std::ptrdiff_t>(k) + 1);
    if (geo.arrange(head)) continue;
    std::vector<std::size_t> before(profiles.begin(), profiles.begin() + static_cast<std::ptrdiff_t>(k));
    const MigLayout prefix = before.empty() ? MigLayout{} : *geo.arrange(before);
    MigLayout with = prefix;
    const auto& pk = geo.profiles()[profiles[k]];
    with.push_back(MigInstance{profiles[k], pk.starts.empty() ? 0u : pk.starts[0]});
    const auto verdict = geo.check(with);
    throw InputError(at, "platform.mig_layout",
                     "no room for " + names[k] + " after " + geo.describe(prefix) +
                         (verdict.ok() ? std::string() : " (" + verdict.reason + ")") +
                         "; expected a legal layout of " + geo.name() + " (docs/formats/mig.md)");
  }
  throw InputError(at, "platform.mig_layout", "no legal arrangement on " + geo.name());
}

/// The bundled calibration made for `device` (exactly one must be).
TextFile auto_calibration(const std::string& device, const SourceLocation& at)
{
  std::vector<std::string> matching;
  TextFile found;
  for (const auto& name : bundled_names("calibration/data")) {
    auto f = read_text_file("builtin:calibration/data/" + name + ".yaml");
    if (load_calibration(f.text, f.name).device == device) {
      matching.push_back(name);
      if (matching.size() == 1) found = std::move(f);
    }
  }
  if (matching.size() != 1)
    throw InputError(at, "calibration",
                     (matching.empty()
                          ? "no bundled calibration is made for device '" + device + "'"
                          : "several bundled calibrations fit device '" + device + "': " + join(matching)) +
                         "; name one, or give a path to a calibration file. bundled: " +
                         join(bundled_names("calibration/data")));
  return found;
}
} // namespace

namespace {

/// The folder a relative path of scenario key `key` resolves against: the scenario file's, or "" (the path
/// as typed, against the current directory, which also names it in messages) if --set gave it.
std::string path_base(const Scenario& s, const std::string& key)
{
  const auto& cli = s.set_on_command_line;
  return std::find(cli.begin(), cli.end(), key) != cli.end() ? std::string() : parent_dir(s.file);
}

/// The platform file's groups (from its node list, if it names one). The scenario's nodes, cards_per_node
/// and devices_per_card override only a single-group platform.
PlatformPreset load_scenario_platform(const Scenario& s, const TextFile& preset_file)
{
  const SourceLocation at{s.file};
  auto preset = load_platform_preset(preset_file);
  if (!preset.node_list.empty()) preset.groups = groups_from_node_list(preset, preset_file.name);
  if (preset.groups.size() > 1)
    for (const auto& [key, given] : {std::pair<const char*, bool>{"nodes", s.nodes.has_value()},
                                     {"cards_per_node", s.cards_per_node.has_value()},
                                     {"devices_per_card", s.devices_per_card.has_value()}})
      if (given)
        throw InputError(
            at, std::string("platform.") + key,
            "platform '" + preset.name + "' has " + std::to_string(preset.groups.size()) + " node groups; " +
                key + " overrides only a single-group platform (edit a copy of " + preset_file.name + ")");
  return preset;
}

/// The calibration a scenario names (none for `auto`). It is for its device's type; the other types use
/// their bundled one.
struct NamedCalibration {
  TextFile file;
  std::optional<Calibration> calibration;
};

NamedCalibration load_named_calibration(const Scenario& s)
{
  NamedCalibration named;
  if (s.calibration != "auto") {
    named.file = load_named(s.calibration, "calibration/data", "calibration", path_base(s, "calibration"),
                            SourceLocation{s.file});
    named.calibration = load_calibration(named.file.text, named.file.name);
  }
  return named;
}

/// pair-total: one measured table of total pair slowdowns, whatever the device type
/// (docs/formats/pair-table.md); it must hold totals for platform.sharing. The other models take none.
/// Sets `table_file` to the file read.
std::optional<PairTable> load_scenario_pair_table(const Scenario& s, const InterferenceModelInfo& model_info,
                                                  std::string& table_file)
{
  const SourceLocation at{s.file};
  if (!model_info.needs_pair_table) {
    if (!s.interference_table.empty())
      throw InputError(at, "interference_table",
                       "only interference: pair-total reads a pair table (got interference: " +
                           s.interference + "); expected interference: pair-total, or no interference_table");
    return std::nullopt;
  }
  if (s.interference_table.empty())
    throw InputError(at, "interference_table",
                     "interference: pair-total needs a pair table; expected a bundled name (" +
                         join(bundled_names("calibration/interference")) + ") or a path to a pair table");
  const auto file = load_named(s.interference_table, "calibration/interference", "pair table",
                               path_base(s, "interference_table"), at);
  auto table = load_pair_table(file.text, file.name);
  if (s.sharing != SharingMode::EXCLUSIVE &&
      std::find(table.modes.begin(), table.modes.end(), s.sharing) == table.modes.end()) {
    std::vector<std::string> modes;
    for (const auto m : table.modes)
      modes.emplace_back(to_string(m));
    throw InputError(at, "interference_table",
                     "pair table '" + table.name + "' (" + file.name + ") holds totals measured for " +
                         join(modes) + ", but platform.sharing is " + std::string(to_string(s.sharing)) +
                         "; expected platform.sharing: " + join(modes, " or ") +
                         " (or a pair table listing " + std::string(to_string(s.sharing)) + ")");
  }
  table_file = file.name;
  return table;
}

/// The device must support platform.sharing; the scenario's devices_per_card (at most the device's) replaces
/// the device's.
void fit_device_to_scenario(const Scenario& s, DeviceSpec& spec, const std::string& platform_name)
{
  const SourceLocation at{s.file};
  if (std::find(spec.sharing_modes.begin(), spec.sharing_modes.end(), s.sharing) ==
      spec.sharing_modes.end()) {
    std::vector<std::string> modes;
    for (auto m : spec.sharing_modes)
      modes.emplace_back(to_string(m));
    throw InputError(at, "platform.sharing",
                     "device '" + spec.name + "' (platform '" + platform_name +
                         "') does not support sharing mode '" + std::string(to_string(s.sharing)) +
                         "'; its modes: " + join(modes));
  }
  if (s.devices_per_card) {
    if (*s.devices_per_card > spec.devices_per_card)
      throw InputError(at, "platform.devices_per_card",
                       "out of range (got " + std::to_string(*s.devices_per_card) + "); device '" +
                           spec.name + "' has " + std::to_string(spec.devices_per_card) + " per card");
    spec.devices_per_card = static_cast<int>(*s.devices_per_card);
  }
}

/// A device type's calibration: the scenario's named one if it is for this device, else the bundled one.
/// Checked against the device and against what the interference model needs. Sets `cal_file`.
Calibration type_calibration(const Scenario& s, const DeviceSpec& spec, const NamedCalibration& named,
                             const InterferenceModelInfo& model_info, TextFile& cal_file)
{
  const SourceLocation at{s.file};
  if (named.calibration && named.calibration->device == spec.name)
    cal_file = named.file;
  else
    cal_file = auto_calibration(spec.name, at);
  Calibration cal = load_calibration(cal_file.text, cal_file.name);
  if (cal.device != spec.name)
    throw InputError(SourceLocation{cal_file.name}, "device",
                     "calibration is for device '" + cal.device + "' but the platform uses '" + spec.name +
                         "'");
  if (model_info.needs_measured_calibration && cal.table_evidence != Evidence::MICROBENCHMARK)
    throw InputError(at, "interference",
                     model_info.name +
                         " needs a calibration whose interference table was measured by the microbenchmark "
                         "(tag measured-by-microbenchmark); '" +
                         cal.name + "' (" + cal_file.name + ") is tagged " +
                         std::string(to_string(cal.table_evidence)) +
                         ". Fit one with `colocsim calibrate fit`, or use interference: table");
  return cal;
}

/// sharing mig: the device's MIG table (the bundled one made for it) and the initial layout.
void attach_mig(DeviceType& t, const DeviceSpec& spec, const Scenario& s)
{
  const SourceLocation at{s.file};
  for (const auto& name : bundled_names("models/mig")) {
    const auto f = read_text_file("builtin:models/mig/" + name + ".yaml");
    const auto table = load_mig_table(f.text, f.name);
    if (table.device == spec.name) t.mig = std::make_shared<MigGeometry>(table);
  }
  if (!t.mig)
    throw InputError(at, "platform.sharing",
                     "device '" + spec.name + "' has no bundled MIG table (models/mig/); mig needs one");
  // A GI's compute share is its SMs over the device's (models/Mig.hpp mig_sm_fraction).
  for (const auto& p : t.mig->profiles())
    if (p.sms > spec.compute_units.value)
      throw InputError(at, "platform.sharing",
                       "MIG profile " + p.name + " of table '" + t.mig->name() + "' has " +
                           std::to_string(p.sms) + " SMs, more than device '" + spec.name + "' has (" +
                           std::to_string(static_cast<long long>(spec.compute_units.value)) +
                           " compute_units); expected at most the device's SMs");
  t.mig_layout = arrange_mig_layout(*t.mig, s.mig_layout, at);
}

/// The platform's device types, in group order (before the reference type goes first).
struct PlatformTypes {
  std::vector<std::uint16_t> group_type; ///< per group: its type's index in platform.types
  std::vector<std::string> names;        ///< per type: the device's name
  std::vector<double> rel_throughput;    ///< per type: the device's relative_throughput
  std::vector<Calibration> calibrations; ///< per type
};

/// What the interference model, the pair table and the scenario give every device type.
struct TypeModels {
  const NamedCalibration& named;
  const InterferenceModelInfo& model_info;
  const std::optional<PairTable>& pair_table;
};

/// A device type with its models (interference, MIG, power, time slicing) from its calibration.
DeviceType make_device_type(const Scenario& s, const std::shared_ptr<DeviceSpec>& spec,
                            const Calibration& cal, const std::string& cal_file, const TypeModels& m)
{
  DeviceType t;
  t.interference =
      m.model_info.factory({.calibration = cal, .pair_table = m.pair_table ? &*m.pair_table : nullptr});
  if (s.sharing == SharingMode::MIG) attach_mig(t, *spec, s);
  t.power = cal.power;
  // Static power's clock (models/PowerModel.hpp): an idle tile drops to freq_min unless the site pins it.
  t.power.idle_freq_ratio = spec->freq_min_hz.value / spec->freq_max_hz.value;
  t.power.clock_pinned =
      s.idle_clock == "pinned" || (s.idle_clock == "device" && spec->freq_pinned_hz.value > 0);
  t.time_slice = cal.time_slice;
  t.node_baseline_w = cal.node_baseline_w.value;
  t.calibration = cal.name;
  t.calibration_file = cal_file;
  t.spec = spec;
  return t;
}

/// One device type per distinct device the groups name, added to `in.platform.types`.
PlatformTypes add_device_types(const Scenario& s, const PlatformPreset& preset, const TextFile& preset_file,
                               const TypeModels& m, RunInputs& in)
{
  PlatformTypes types;
  for (const auto& g : preset.groups) {
    const SourceLocation gat = g.where;
    const auto device_file =
        load_named(g.device, "models/devices", "device", parent_dir(preset_file.name), gat);
    auto spec = std::make_shared<DeviceSpec>(load_device_spec(device_file.text, device_file.name));
    const auto known = std::find(types.names.begin(), types.names.end(), spec->name);
    if (known != types.names.end()) {
      types.group_type.push_back(static_cast<std::uint16_t>(known - types.names.begin()));
      continue;
    }
    for (const auto& u : spec->user_supplied)
      in.user_supplied.push_back(device_file.name + ": " + u);
    fit_device_to_scenario(s, *spec, preset.name);
    TextFile cal_file;
    const Calibration cal = type_calibration(s, *spec, m.named, m.model_info, cal_file);
    in.platform.types.push_back(make_device_type(s, spec, cal, cal_file.name, m));
    types.rel_throughput.push_back(spec->relative_throughput.value);
    types.names.push_back(spec->name);
    types.group_type.push_back(static_cast<std::uint16_t>(in.platform.types.size() - 1));
    types.calibrations.push_back(cal);
  }
  return types;
}

/// What the whole platform must be: a MIG layout only with sharing mig, the named calibration for one of its
/// devices, at most 64 device types.
void check_platform_types(const Scenario& s, const NamedCalibration& named, const PlatformTypes& types,
                          const TextFile& preset_file)
{
  const SourceLocation at{s.file};
  if (s.sharing != SharingMode::MIG && !s.mig_layout.empty())
    throw InputError(at, "platform.mig_layout", "a MIG layout needs platform.sharing: mig");
  const auto& names = types.names;
  if (named.calibration && std::find(names.begin(), names.end(), named.calibration->device) == names.end())
    throw InputError(SourceLocation{named.file.name}, "device",
                     "calibration is for device '" + named.calibration->device + "' but the platform uses " +
                         (names.size() == 1 ? "'" + names[0] + "'" : "only " + join(names)));
  if (names.size() > 64)
    throw InputError(SourceLocation{preset_file.name}, "groups", "at most 64 device types in one platform");
}

/// The reference type (trace durations are times on it) goes first; speeds are relative to it. Returns its
/// index in group order.
std::size_t put_reference_first(const PlatformPreset& preset, const TextFile& preset_file,
                                PlatformTypes& types, Platform& platform)
{
  std::size_t ref = 0;
  if (!preset.reference_device.empty()) {
    const auto it = std::find(types.names.begin(), types.names.end(), preset.reference_device);
    if (it == types.names.end())
      throw InputError(preset.reference_where, "reference_device",
                       "'" + preset.reference_device +
                           "' is not a device of the platform; valid: " + join(types.names));
    ref = static_cast<std::size_t>(it - types.names.begin());
  }
  if (platform.types.size() > 1) {
    for (std::size_t t = 0; t < platform.types.size(); ++t)
      if (!(types.rel_throughput[t] > 0))
        throw InputError(SourceLocation{preset_file.name}, "groups",
                         "device '" + types.names[t] +
                             "' gives no relative_throughput, which a platform of several device types needs "
                             "to convert trace durations between types (docs/formats/devices.md)");
    for (std::size_t t = 0; t < platform.types.size(); ++t)
      platform.types[t].speed = types.rel_throughput[t] / types.rel_throughput[ref];
    if (ref != 0) {
      std::swap(platform.types[0], platform.types[ref]);
      for (auto& g : types.group_type)
        g = g == ref ? 0 : g == 0 ? static_cast<std::uint16_t>(ref) : g;
    }
  }
  return ref;
}

/// The platform's nodes, group by group (the scenario's counts override a single group's), once their total
/// of devices is known to be within the limit.
void add_platform_nodes(const Scenario& s, const PlatformPreset& preset, const TextFile& preset_file,
                        const std::vector<std::uint16_t>& group_type, Platform& platform)
{
  const bool single = preset.groups.size() == 1;
  // Every device is a SimGrid host and a row of per-device state: a platform of 10^6 nodes x 64 cards asked
  // for 4 GB before the first event. 2^22 devices is 33 times Aurora's 127,488 tiles.
  constexpr double MAX_PLATFORM_DEVICES = 4194304;
  double total_devices = 0;
  for (std::size_t i = 0; i < preset.groups.size(); ++i) {
    const auto& g = preset.groups[i];
    const double nodes = single ? s.nodes.value_or(g.nodes) : g.nodes;
    const double cards = single ? s.cards_per_node.value_or(g.cards_per_node) : g.cards_per_node;
    total_devices += nodes * cards * platform.types[group_type[i]].spec->devices_per_card;
  }
  if (total_devices > MAX_PLATFORM_DEVICES)
    throw InputError(SourceLocation{preset_file.name}, "nodes",
                     "the platform has " + std::to_string(static_cast<unsigned long long>(total_devices)) +
                         " devices (nodes x cards_per_node x devices_per_card); expected at most 4194304 "
                         "(2^22, 33 times Aurora's 127,488 tiles; docs/formats/limits.md)");
  for (std::size_t i = 0; i < preset.groups.size(); ++i) {
    const auto& g = preset.groups[i];
    const auto& t = platform.types[group_type[i]];
    platform.add_nodes(
        group_type[i], static_cast<std::uint32_t>(single ? s.nodes.value_or(g.nodes) : g.nodes),
        static_cast<std::uint32_t>(single ? s.cards_per_node.value_or(g.cards_per_node) : g.cards_per_node),
        s.sharing, t.node_baseline_w);
  }
}

/// The profile catalog; the plain numbers of a user's catalog are listed like a platform's.
void load_profiles(const Scenario& s, RunInputs& in)
{
  const auto prof_file = load_named(s.profiles, "workloads/profiles", "profile catalog",
                                    path_base(s, "workload.profiles"), SourceLocation{s.file});
  in.profiles = ProfileCatalog::load(prof_file.text, prof_file.name);
  for (const auto& p : in.profiles.profiles())
    for (const auto& u : p.user_supplied)
      in.user_supplied.push_back(prof_file.name + ": profiles." + p.name + "." + u);
}

/// The workload's spec: format, path, options, transforms and profile map (workloads/TraceFormats.hpp).
WorkloadSpec scenario_workload(const Scenario& s, const RunInputs& in)
{
  const SourceLocation at{s.file};
  WorkloadSpec w;
  w.format = s.synthetic ? "native" : s.trace_format;
  if (!s.synthetic)
    w.path =
        s.trace.rfind("builtin:", 0) == 0 || s.trace.front() == '/' || path_base(s, "workload.trace").empty()
            ? s.trace
            : parent_dir(s.file) + "/" + s.trace;
  w.profile_map = s.profile_map;
  w.transforms = s.transforms;
  w.seed = static_cast<std::uint64_t>(s.seed);
  w.capacity_devices = static_cast<double>(in.platform.devices.size());
  w.catalog = &in.profiles;
  w.where = at;
  const auto& format = find_trace_format(w.format, at);
  for (const auto& o : format.options)
    if (o.name == "procs_per_device" && s.procs_per_device != 1)
      w.options[o.name] = GivenValue{std::to_string(s.procs_per_device), at};
  DiagnosticSink sink;
  for (auto& [k, v] : split_assignments(s.trace_options, s.file, sink))
    w.options[k] = GivenValue{v.text, at};
  sink.throw_if_any();
  return w;
}

/// The workload: the format's reader (or the synthetic generator / the embedded trace), then the transforms,
/// then the profile map.
std::unique_ptr<JobReader> open_scenario_workload(const Scenario& s, RunInputs& in)
{
  WorkloadSpec w = scenario_workload(s, in);
  std::function<std::unique_ptr<JobReader>()> base_reader;
  if (s.synthetic) {
    w.source_label = "synthetic (seed " + std::to_string(s.synthetic->seed) + ", " +
                     std::to_string(s.synthetic->jobs) + " jobs)";
    base_reader = [&in, spec = *s.synthetic] {
      return std::make_unique<SyntheticReader>(spec, &in.profiles);
    };
  } else if (w.path.rfind("builtin:", 0) == 0) {
    base_reader = [text = read_text_file(w.path).text, path = w.path] {
      return std::make_unique<InMemoryCsvReader>(text, path);
    };
  }
  return open_workload(w, base_reader);
}

/// The policy, once the platform is known to meet what it needs (PolicyInfo::requirements), before anything
/// is simulated.
std::unique_ptr<Policy> make_scenario_policy(const Scenario& s, const Platform& platform)
{
  if (!s.policy_info) // a Scenario that load_scenario did not read
    throw std::logic_error("build_run: the scenario's policy '" + s.policy + "' was not resolved");
  const PolicyInfo& info = *s.policy_info;
  const auto needs = effective_requirements(info, s.policy_params);
  if (const auto mismatch = requirement_mismatch(platform, needs); !mismatch.empty())
    throw InputError(SourceLocation{s.file}, "policy",
                     "policy '" + s.policy + "' needs " + describe(needs) + ", but " + mismatch +
                         "; expected a platform that meets it (platform.preset, platform.sharing) or another "
                         "policy (colocsim policies lists what each needs)");
  auto policy = info.factory(s.policy_params);
  policy->set_gang_rule(s.placement);
  return policy;
}
} // namespace

RunInputs build_run(const Scenario& s)
{
  RunInputs in;
  in.scenario = s;
  const SourceLocation at{s.file};
  const auto preset_file =
      load_named(s.platform_preset, "sim/platforms", "platform preset", path_base(s, "platform.preset"), at);
  const PlatformPreset preset = load_scenario_platform(s, preset_file);
  in.user_supplied = preset.user_supplied;
  const NamedCalibration named = load_named_calibration(s);
  const InterferenceModelInfo& model_info = find_interference_model(s.interference, at);
  const auto pair_table = load_scenario_pair_table(s, model_info, in.interference_table_file);
  in.platform.name = preset.name;
  in.platform.network = preset.network;
  PlatformTypes types = add_device_types(s, preset, preset_file, {named, model_info, pair_table}, in);
  check_platform_types(s, named, types, preset_file);
  const std::size_t ref = put_reference_first(preset, preset_file, types, in.platform);
  in.device = std::const_pointer_cast<DeviceSpec>(in.platform.types[0].spec);
  // The calibration the scenario names, or the reference type's.
  const auto& names = types.names;
  const auto cal_index =
      named.calibration
          ? static_cast<std::size_t>(std::find(names.begin(), names.end(), named.calibration->device) -
                                     names.begin())
          : ref;
  in.calibration = types.calibrations[cal_index];
  in.calibration_file = named.calibration ? named.file.name : in.platform.types[0].calibration_file;
  add_platform_nodes(s, preset, preset_file, types.group_type, in.platform);
  load_profiles(s, in);
  in.reader = open_scenario_workload(s, in);
  if (!s.policy_unchecked) // else validate / sweep --dry-run without the plugin that may define it
    in.policy = make_scenario_policy(s, in.platform);
  return in;
}

std::string requirement_mismatch(const Platform& platform, const PolicyRequirements& r)
{
  // Each device type once, with the mode its devices are in.
  std::vector<std::pair<std::uint16_t, SharingMode>> seen;
  for (const auto& d : platform.devices)
    if (std::find(seen.begin(), seen.end(), std::pair{d.type, d.mode}) == seen.end())
      seen.emplace_back(d.type, d.mode);
  std::vector<std::string> wrong;
  for (const auto& [type, mode] : seen) {
    const DeviceType& t = platform.types[type];
    const bool mode_ok =
        r.sharing.empty() || std::find(r.sharing.begin(), r.sharing.end(), mode) != r.sharing.end();
    const bool type_ok =
        r.device_types.empty() || std::any_of(r.device_types.begin(), r.device_types.end(),
                                              [&](const std::string& name) { return t.answers_to(name); });
    if (mode_ok && type_ok) continue;
    std::string modes;
    for (const auto m : t.spec->sharing_modes)
      modes += (modes.empty() ? "" : ", ") + std::string(to_string(m));
    wrong.push_back(t.spec->name + " devices in " + std::string(to_string(mode)) + " (that device supports " +
                    modes + ")");
  }
  if (wrong.empty()) return "";
  return "platform '" + platform.name + "' has " + join(wrong, "; ");
}

} // namespace colocsim
