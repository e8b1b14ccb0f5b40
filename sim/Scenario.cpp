// Scenario files: the declared keys, parsing with located errors, --set/--policy overrides, and the
// loading of everything a run needs. Format reference: docs/formats/scenario.md.
#include "sim/Scenario.hpp"

#include "policies/PluginLoader.hpp"

#include "base/Sha256.hpp"
#include "base/Yaml.hpp"
#include "calibration/InterferenceRegistry.hpp"
#include "calibration/PairTable.hpp"
#include "sim/Resources.hpp"
#include "workloads/NativeCsv.hpp"
#include "workloads/NodeInventory.hpp"
#include "workloads/TraceFormats.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

namespace colocsim {

namespace {

// "interference model: none (sharing mode only), ... or pair-total (...)": the registry's entries.
std::string interference_help()
{
  const auto& models = interference_registry();
  std::string help = "interference model: ";
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (i > 0) help += i + 1 == models.size() ? " or " : ", ";
    help += models[i].name + " (" + models[i].description + ")";
  }
  return help;
}

// ---- the declared keys: one table per section ----
const std::vector<ParamSpec>& top_specs()
{
  static const std::vector<ParamSpec> specs{
      {.name = "name",
       .type = ParamType::STRING,
       .help = "scenario name, recorded in the outputs",
       .required = true},
      {.name = "description", .type = ParamType::STRING, .default_text = "", .help = "free text"},
      {.name = "seed",
       .type = ParamType::INT,
       .default_text = "1",
       .help = "random seed (synthetic workloads, randomised policies); results are deterministic for a seed",
       .min = 0},
      {.name = "calibration",
       .type = ParamType::STRING,
       .default_text = "auto",
       .help = "bundled calibration name, path to a calibration file (docs/formats/calibration.md), or auto: "
               "the bundled calibration made for the platform's device"},
      {.name = "interference",
       .type = ParamType::CHOICE,
       .default_text = "table",
       .help = interference_help(),
       .choices = interference_model_names()},
      {.name = "interference_table",
       .type = ParamType::STRING,
       .default_text = "",
       .help = "interference: pair-total: bundled pair table name (gavel-v100: Gavel's V100 co-location "
               "throughputs) or path to a pair table (docs/formats/pair-table.md)"},
  };
  return specs;
}

/// platform.sharing's values: the modes' names, and time-slicing for time-slice (parse_sharing_mode).
std::vector<std::string> sharing_choices()
{
  auto names = sharing_mode_names();
  names.emplace_back("time-slicing");
  return names;
}

const std::vector<ParamSpec>& platform_specs()
{
  static const std::vector<ParamSpec> specs{
      {.name = "preset",
       .type = ParamType::STRING,
       .default_text = "aurora-node",
       .help = "bundled platform preset name or path to a platform file (docs/formats/platform.md)"},
      {.name = "nodes",
       .type = ParamType::INT,
       .default_text = "",
       .help = "number of nodes (overrides the preset)",
       .min = 1,
       .max = 1e6},
      {.name = "cards_per_node",
       .type = ParamType::INT,
       .default_text = "",
       .help = "cards per node (overrides the preset)",
       .min = 1,
       .max = 64},
      {.name = "devices_per_card",
       .type = ParamType::INT,
       .default_text = "",
       .help = "devices used per card, at most the device's own count (e.g. 1 tile of a 2-tile Max 1550)",
       .min = 1,
       .max = 64},
      {.name = "sharing",
       .type = ParamType::CHOICE,
       .default_text = "time-slice",
       .help = "how every device is shared at the start (a policy may repartition empty devices); "
               "time-slicing (NVIDIA's and Kubernetes' name) is time-slice",
       .choices = sharing_choices()},
      {.name = "repartition_delay",
       .type = ParamType::REAL,
       .default_text = "5s",
       .help =
           "time an empty device is unavailable while its sharing mode changes [estimate: NOT FOUND in the "
           "reference (§3.3, §4.2); restarting the processes with a new ZEX_NUMBER_OF_CCS or creating MIG "
           "instances takes seconds]",
       .min = 0,
       .unit = Unit::SECONDS},
      {.name = "mig_layout",
       .type = ParamType::STRING,
       .default_text = "",
       .help = "sharing mig: the GPU instances every GPU starts with, profiles separated by ',' (e.g. "
               "3g.20gb,2g.10gb,1g.5gb,1g.5gb), each at its lowest legal start in turn; empty = one "
               "instance of the largest profile (the whole GPU). Checked against the device's MIG table "
               "(docs/formats/mig.md)"},
      {.name = "node_boot",
       .type = ParamType::REAL,
       .default_text = "300s",
       .help =
           "time from powering a node on until it accepts jobs; it draws its baseline meanwhile [estimate: "
           "firmware and OS boot of an HPC node take minutes; not measured for Aurora]",
       .min = 0,
       .unit = Unit::SECONDS},
      {.name = "clock",
       .type = ParamType::CHOICE,
       .default_text = "device",
       .help =
           "the clock an idle device holds, which sets its static power (models/README.md \"Power\"): "
           "device = as the device catalog says (pinned where it gives freq_pinned, e.g. Aurora), pinned = "
           "the operating clock, idle = the lowest clock (freq_min)",
       .choices = {"device", "pinned", "idle"}},
  };
  return specs;
}

const std::vector<ParamSpec>& workload_specs()
{
  static const std::vector<ParamSpec> specs{
      {.name = "trace",
       .type = ParamType::STRING,
       .default_text = "",
       .help = "trace file, relative to the scenario file (or use workload.synthetic)"},
      {.name = "gpu_types",
       .type = ParamType::CHOICE,
       .default_text = "honour",
       .help = "honour: a job runs only on the device types its trace's GPU-type constraint names (openb "
               "gpu_spec, PAI gpu_type) and is rejected if the platform has none of them; ignore: any device "
               "(e.g. a trace replayed on a platform of other GPU types)",
       .choices = {"honour", "ignore"}},
      {.name = "durations",
       .type = ParamType::CHOICE,
       .default_text = "named-type",
       .help = "on a platform of several device types, what a job's duration is the run time on: named-type: "
               "the first device type its gpu_types names (a trace records the time on the GPU the job asked "
               "for), else the platform's reference type; reference: always the reference type",
       .choices = {"named-type", "reference"}},
      {.name = "durations_at",
       .type = ParamType::CHOICE,
       .default_text = "auto",
       .help =
           "how a multi-device job's duration relates to its gang size: own-gpu-count: it is the job's run "
           "time on its own number of devices, scaling losses included (a trace measured it there), so "
           "the profile's scaling efficiency e(n) is not applied again; perfect-scaling: it is the time "
           "with perfect scaling, and the job progresses at e(n) of that; auto: own-gpu-count for a "
           "trace, perfect-scaling for workload.synthetic",
       .choices = {"auto", "own-gpu-count", "perfect-scaling"}},
      {.name = "estimates",
       .type = ParamType::CHOICE,
       .default_text = "exact",
       .help = "the run times the policy may assume (exclusive-easy's expected ends): exact: the trace's "
               "durations; requested: the users' requested times (SWF field 9, Batsim walltime; jobs "
               "without one: exact), and jobs are killed at their requested time; predicted: the average "
               "of the user's last two run times, capped by the requested time (Tsafrir, Etsion & "
               "Feitelson 2007), jobs killed as with requested",
       .choices = {"exact", "requested", "predicted"}},
      {.name = "format",
       .type = ParamType::CHOICE,
       .default_text = "native",
       .help = "trace format (workloads/TraceFormats.cpp; one page each in docs/formats/); "
               "`colocsim formats` lists them with their options",
       .choices = trace_format_names()},
      {.name = "options",
       .type = ParamType::STRING,
       .default_text = "",
       .help = "the format's options, \"key=value,...\" (e.g. \"devices_per_proc=12,status=completed\" "
               "for swf); `colocsim formats` lists them"},
      {.name = "transforms",
       .type = ParamType::STRING,
       .default_text = "",
       .help = "transforms applied in order, \"name=value,...\": window=A..B, rebase, load=F, sample=P, "
               "inflate=X (docs/formats/transforms.md)"},
      {.name = "procs_per_device",
       .type = ParamType::INT,
       .default_text = "1",
       .help = "swf: processors (or nodes) of a trace job per simulated device (the same as options "
               "procs_per_device)",
       .min = 1,
       .max = 1e6},
      {.name = "profile_map",
       .type = ParamType::STRING,
       .default_text = "",
       .help = "profile map for jobs whose trace names no profile: class:A=P,...; qos:LS=P,...; "
               "draw:P=W,...; none. Empty: the format's default map (docs/formats/profile-map.md)"},
      {.name = "profiles",
       .type = ParamType::STRING,
       .default_text = "default",
       .help = "bundled profile catalog name or path to a catalog (docs/formats/profiles.md)"},
      {.name = "default_profile",
       .type = ParamType::STRING,
       .default_text = "",
       .help = "profile for jobs whose trace row names none"},
  };
  return specs;
}

const std::vector<ParamSpec>& memory_specs()
{
  static const std::vector<ParamSpec> specs{
      {.name = "oom_delay",
       .type = ParamType::REAL,
       .default_text = "60s",
       .help = "time a job that overflows device memory runs before it fails out of memory [estimate: model "
               "load and first step of a DL job]",
       .min = 0,
       .unit = Unit::SECONDS},
      {.name = "max_retries",
       .type = ParamType::INT,
       .default_text = "3",
       .help = "requeues after out-of-memory failures before a job fails for good",
       .min = 0,
       .max = 1000},
  };
  return specs;
}

const std::vector<ParamSpec>& power_specs()
{
  static const std::vector<ParamSpec> specs{
      {.name = "pue",
       .type = ParamType::REAL,
       .default_text = "1.0",
       .help = "facility power usage effectiveness applied to device + node energy (1 = IT energy only)",
       .min = 1.0,
       .max = 5.0},
  };
  return specs;
}

const std::vector<ParamSpec>& output_specs()
{
  static const std::vector<ParamSpec> specs{
      {.name = "dir",
       .type = ParamType::STRING,
       .default_text = "colocsim-out",
       .help = "output directory (-o)"},
      {.name = "jobs", .type = ParamType::BOOL, .default_text = "true", .help = "write jobs.csv"},
      {.name = "timeseries",
       .type = ParamType::STRING,
       .default_text = "auto",
       .help =
           "timeseries.csv rows: every-event (true: the same), off (false), a duration (60s, 5min: one row "
           "per interval of simulated time, with exact mean powers and cumulative energy), or auto: every "
           "event up to 100000 rows, else one row per 60s"},
      {.name = "compress",
       .type = ParamType::CHOICE,
       .default_text = "auto",
       .help = "none: jobs.csv and timeseries.csv; gzip: jobs.csv.gz and timeseries.csv.gz; auto: plain, "
               "and gzip for a file of more than 100000 rows",
       .choices = {"none", "gzip", "auto"}},
      {.name = "events",
       .type = ParamType::BOOL,
       .default_text = "false",
       .help = "write events.jsonl, the event log (--log-events FILE writes it elsewhere)"},
  };
  return specs;
}

const std::vector<std::string>& section_names()
{
  static const std::vector<std::string> names{"platform", "workload", "policy", "memory",
                                              "power",    "outputs",  "plugins"};
  return names;
}

/// Applies "a.b.c=value" to the YAML tree (creating maps as needed; a scalar replaces a map).
void apply_override(YAML::Node& root, const std::string& assignment, DiagnosticSink& sink)
{
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    sink.add(SourceLocation{"command line"}, "--set " + assignment,
             "expected key=value, e.g. --set policy=first-fit");
    return;
  }
  const std::string key = assignment.substr(0, eq), value = assignment.substr(eq + 1);
  std::vector<std::string> parts;
  std::stringstream ss(key);
  for (std::string p; std::getline(ss, p, '.');)
    parts.push_back(p);
  std::vector<YAML::Node> chain{root};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = chain.back()[parts[i]];
    if (!next.IsMap()) {
      // `policy: name` shorthand becomes `policy: {name: ...}` when a nested key is set.
      YAML::Node m(YAML::NodeType::Map);
      if (next.IsScalar() && parts[i] == "policy") m["name"] = next.Scalar();
      chain.back()[parts[i]] = m;
      next = chain.back()[parts[i]];
    }
    chain.push_back(next);
  }
  chain.back()[parts.back()] = value;
}

std::map<std::string, GivenValue> given_map(const YAML::Node& node, const std::string& file,
                                            const std::string& path, DiagnosticSink& sink)
{
  std::map<std::string, GivenValue> given;
  if (!node.IsDefined() || node.IsNull()) return given;
  if (!node.IsMap()) {
    sink.add(location_of(node, file), path, "expected a map of parameters");
    return given;
  }
  for (const auto& kv : node) {
    if (!kv.second.IsScalar()) {
      sink.add(location_of(kv.second, file), path + "." + kv.first.as<std::string>(),
               "expected a single value");
      continue;
    }
    given[kv.first.as<std::string>()] = GivenValue{kv.second.Scalar(), location_of(kv.second, file)};
  }
  return given;
}

} // namespace

bool PluginConsent::allows(const std::string& path) const
{
  if (allow_all) return true;
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(path, ec);
  for (const auto& c : command_line) {
    std::error_code ec2;
    if (!ec && std::filesystem::weakly_canonical(c, ec2) == canonical && !ec2) return true;
  }
  return false;
}

void add_command_line_plugins(Scenario& scenario, const std::vector<std::string>& paths)
{
  for (const auto& path : paths) {
    const auto loaded = loaded_policy_plugin(path);
    if (!loaded) continue; // only plugins the command loaded
    ScenarioPlugin p;
    std::error_code ec;
    p.path = std::filesystem::absolute(path, ec).lexically_normal().string();
    if (ec) p.path = path;
    if (std::any_of(scenario.plugins.begin(), scenario.plugins.end(), [&](const ScenarioPlugin& q) {
          std::error_code e1, e2;
          return std::filesystem::weakly_canonical(q.path, e1) ==
                 std::filesystem::weakly_canonical(p.path, e2);
        }))
      continue;
    p.where = SourceLocation{"command line --policy-plugin"};
    p.exists = p.loaded = true;
    p.sha256 = loaded->sha256;
    scenario.plugins.push_back(std::move(p));
  }
}

namespace {

/// The scenario file's YAML with the command line's --set overrides and --policy applied on top.
YAML::Node scenario_root(const TextFile& text, const std::vector<std::string>& overrides,
                         const std::string& policy_override, DiagnosticSink& sink)
{
  YAML::Node root = load_yaml(text.text, text.name);
  if (!root.IsMap()) {
    sink.add(location_of(root, text.name), "",
             "expected a scenario map (name, platform, workload, policy, ...)");
    sink.throw_if_any();
  }
  for (const auto& o : overrides)
    apply_override(root, o, sink);
  if (!policy_override.empty()) {
    const auto colon = policy_override.find(':');
    YAML::Node p(YAML::NodeType::Map);
    p["name"] = policy_override.substr(0, colon);
    if (colon != std::string::npos) {
      DiagnosticSink local;
      for (const auto& [k, v] : split_assignments(policy_override.substr(colon + 1), "--policy", local))
        p["params"][k] = v.text;
      for (const auto& d : local.diagnostics())
        sink.add(d);
    }
    root["policy"] = p;
  }
  return root;
}

/// outputs.timeseries: a mode name, a boolean (the form before modes), or an interval as a duration; and
/// outputs.compress.
void read_output_modes(const ParamSet& outputs, YAML::Node& root, const std::string& f, Scenario& s,
                       DiagnosticSink& sink)
{
  const std::string mode = outputs.text("timeseries");
  s.outputs.timeseries_text = mode;
  s.outputs.timeseries = true;
  s.outputs.timeseries_interval_s = 0;
  s.outputs.timeseries_auto_rows = 0;
  if (mode == "off" || mode == "false") {
    s.outputs.timeseries = false;
  } else if (mode == "auto") {
    s.outputs.timeseries_auto_rows = AUTO_SERIES_ROWS;
    s.outputs.timeseries_interval_s = AUTO_SERIES_INTERVAL_S;
  } else if (mode != "every-event" && mode != "true") {
    const auto interval = parse_quantity(mode, Unit::SECONDS);
    if (interval && *interval > 0 && std::isfinite(*interval)) {
      s.outputs.timeseries_interval_s = *interval;
    } else {
      YAML::Node n = root["outputs"];
      if (n.IsMap() && n["timeseries"].IsDefined()) n = n["timeseries"];
      sink.add(location_of(n.IsDefined() ? n : root, f), "outputs.timeseries",
               "expected every-event, off, auto, true, false or an interval as a duration > 0 (e.g. 60s, "
               "5min; a bare number is seconds) (got '" +
                   mode + "')");
    }
  }
  const std::string compress = outputs.text("compress");
  s.outputs.compress = compress == "gzip"   ? Compression::GZIP
                       : compress == "none" ? Compression::NONE
                                            : Compression::AUTO;
}

/// The declared keys of every section but policy and plugins (the tables above). Throws if any is wrong.
void read_declared_keys(YAML::Node& root, const std::string& f, Scenario& s, DiagnosticSink& sink)
{
  const auto top = read_params(root, top_specs(), f, "", sink, section_names());
  const auto platform = read_params(root["platform"], platform_specs(), f, "platform", sink);
  const auto workload = read_params(root["workload"], workload_specs(), f, "workload", sink, {"synthetic"});
  const auto memory = read_params(root["memory"], memory_specs(), f, "memory", sink);
  const auto power = read_params(root["power"], power_specs(), f, "power", sink);
  const auto outputs = read_params(root["outputs"], output_specs(), f, "outputs", sink);
  if (!sink.empty()) sink.throw_if_any();

  s.name = top.text("name");
  s.description = top.text_or("description", "");
  s.seed = top.integer("seed");
  s.calibration = top.text("calibration");
  s.interference = top.text("interference");
  s.interference_table = top.text_or("interference_table", "");
  s.platform_preset = platform.text("preset");
  if (platform.has("nodes")) s.nodes = platform.integer("nodes");
  if (platform.has("cards_per_node")) s.cards_per_node = platform.integer("cards_per_node");
  if (platform.has("devices_per_card")) s.devices_per_card = platform.integer("devices_per_card");
  s.honour_gpu_types = workload.text("gpu_types") == "honour";
  s.durations_on_named_type = workload.text("durations") == "named-type";
  s.durations_at = workload.text("durations_at");
  s.estimates = workload.text("estimates");
  s.sharing = *parse_sharing_mode(platform.text("sharing"));
  s.repartition_delay_s = platform.real("repartition_delay");
  s.node_boot_s = platform.real("node_boot");
  s.idle_clock = platform.text("clock");
  s.mig_layout = platform.text_or("mig_layout", "");
  s.trace = workload.text_or("trace", "");
  s.trace_format = workload.text("format");
  s.procs_per_device = static_cast<int>(workload.integer("procs_per_device"));
  s.profile_map = workload.text_or("profile_map", "");
  s.trace_options = workload.text_or("options", "");
  s.transforms = workload.text_or("transforms", "");
  s.profiles = workload.text("profiles");
  s.default_profile = workload.text_or("default_profile", "");
  s.oom_delay_s = memory.real("oom_delay");
  s.max_retries = static_cast<int>(memory.integer("max_retries"));
  s.pue = power.real("pue");
  s.outputs.dir = outputs.text("dir");
  s.outputs.jobs = outputs.flag("jobs");
  read_output_modes(outputs, root, f, s, sink);
  s.outputs.events = outputs.flag("events");
}

/// workload.synthetic, or else workload.trace: exactly one of them.
void read_workload_source(YAML::Node& root, const std::string& f, Scenario& s, DiagnosticSink& sink)
{
  const YAML::Node workload_node = root["workload"];
  if (const YAML::Node syn = workload_node["synthetic"]; syn.IsDefined()) {
    const auto params = read_params(syn, synthetic_param_specs(), f, "workload.synthetic", sink);
    if (sink.empty()) {
      try {
        s.synthetic = make_synthetic_spec(params, location_of(syn, f));
        if (!syn["seed"].IsDefined())
          s.synthetic->seed = static_cast<std::uint64_t>(s.seed); // the scenario's seed drives the draw
      } catch (const InputError& e) {
        for (const auto& d : e.diagnostics())
          sink.add(d);
      }
    }
    if (!s.trace.empty())
      sink.add(location_of(syn, f), "workload.synthetic",
               "give either workload.trace or workload.synthetic, not both");
  } else if (s.trace.empty()) {
    sink.add(location_of(workload_node.IsDefined() ? workload_node : root, f), "workload.trace",
             "missing: the workload needs a trace file or a synthetic section");
  }
}

/// The policy's parameters as given, and where the policy was named (for messages).
struct GivenPolicy {
  std::map<std::string, GivenValue> params;
  SourceLocation where;
};

/// policy: a name, or {name, params}. Sets s.policy; the parameters are parsed once plugins are loaded.
GivenPolicy read_policy_key(YAML::Node& root, const std::string& f, Scenario& s, DiagnosticSink& sink)
{
  const YAML::Node pol = root["policy"];
  GivenPolicy given{.params = {}, .where = location_of(pol.IsDefined() ? pol : root, f)};
  if (!pol.IsDefined()) {
    sink.add(location_of(root, f), "policy",
             "missing required key; expected a policy name or {name, params}");
  } else if (pol.IsScalar()) {
    s.policy = pol.Scalar();
  } else if (pol.IsMap()) {
    check_keys(pol, {"name", "params"}, f, "policy", sink);
    if (!pol["name"].IsDefined() || !pol["name"].IsScalar())
      sink.add(given.where, "policy.name", "missing required key; expected a policy name");
    else {
      s.policy = pol["name"].Scalar();
      given.where = location_of(pol["name"], f);
    }
    given.params = given_map(pol["params"], f, "policy.params", sink);
  } else {
    sink.add(given.where, "policy", "expected a policy name or {name, params}");
  }
  return given;
}

/// One entry of `plugins`: a path, or {path, sha256}, resolved against the scenario's folder. None if it
/// gives no path.
std::optional<ScenarioPlugin> read_plugin_entry(const YAML::Node& p, const std::string& f, const Scenario& s,
                                                DiagnosticSink& sink)
{
  ScenarioPlugin sp;
  sp.where = location_of(p, f);
  std::string path;
  if (p.IsScalar())
    path = p.Scalar();
  else if (p.IsMap()) {
    check_keys(p, {"path", "sha256"}, f, "plugins", sink);
    if (p["path"].IsScalar()) path = p["path"].Scalar();
    if (const auto h = p["sha256"]; h.IsDefined()) {
      if (!h.IsScalar() || h.Scalar().size() != 64 ||
          h.Scalar().find_first_not_of("0123456789abcdef") != std::string::npos)
        sink.add(location_of(h, f), "plugins.sha256", "expected 64 lowercase hex digits");
      else
        sp.recorded_sha256 = h.Scalar();
    }
  }
  if (path.empty()) {
    sink.add(sp.where, "plugins", "expected the path of a policy plugin, or {path, sha256}");
    return std::nullopt;
  }
  const std::string dir = parent_dir(s.file);
  const std::string resolved = path.front() == '/' || dir.rfind("builtin:", 0) == 0 ? path : dir + "/" + path;
  std::error_code ec;
  sp.path = std::filesystem::absolute(resolved, ec).lexically_normal().string();
  if (ec) sp.path = resolved;
  sp.exists = std::filesystem::is_regular_file(sp.path, ec);
  if (sp.exists) sp.sha256 = sha256_file(sp.path).value_or("");
  return sp;
}

/// Loads the plugins the scenario names, once every one has the command line's consent (throws, listing
/// each refused one, if not). With consent.load false, only those already loaded count as loaded.
void load_scenario_plugins(const PluginConsent& consent, Scenario& s, DiagnosticSink& sink)
{
  DiagnosticSink refused;
  for (const auto& p : s.plugins)
    if (!consent.allows(p.path))
      refused.add(p.where, "plugins",
                  p.path + " (" + (p.exists ? "sha256 " + p.sha256 : std::string("no such file")) +
                      ") is not loaded without consent: loading a plugin runs its code; pass --allow-plugins "
                      "to load every plugin this file names, or --policy-plugin " +
                      p.path + " for this one");
  if (!refused.empty()) {
    for (const auto& d : refused.diagnostics())
      sink.add(d);
    sink.throw_if_any();
  }
  for (auto& p : s.plugins) {
    const auto earlier = loaded_policy_plugin(p.path);
    if (earlier || consent.load) {
      try {
        const LoadedPlugin loaded = earlier ? *earlier : load_policy_plugin(p.path, p.where);
        p.loaded = true;
        p.sha256 = loaded.sha256;
      } catch (const InputError& e) {
        for (const auto& d : e.diagnostics())
          sink.add(d);
      }
    } else if (!p.exists)
      sink.add(p.where, "plugins", p.path + ": no such file; expected the path of a policy plugin");
    if (!p.recorded_sha256.empty() && p.exists && p.sha256 != p.recorded_sha256)
      s.warnings.push_back("plugin " + p.path + " changed since the scenario was saved (" +
                           p.where.to_string() + "): its sha256 was " + p.recorded_sha256 + ", now " +
                           p.sha256);
  }
}

/// The policy's parameters, checked against its declared ones; or the policy left unchecked where it may
/// be one of a plugin this command does not load.
void resolve_policy(const GivenPolicy& given, Scenario& s, DiagnosticSink& sink)
{
  const bool some_unloaded =
      std::any_of(s.plugins.begin(), s.plugins.end(), [](const ScenarioPlugin& p) { return !p.loaded; });
  if (some_unloaded && !s.policy.empty() &&
      std::none_of(policy_registry().begin(), policy_registry().end(),
                   [&](const PolicyInfo& p) { return p.name == s.policy; })) {
    s.policy_unchecked = true; // it may be one of the plugins' that this command does not load
  }
  if (!s.policy.empty() && !s.policy_unchecked) {
    try {
      const auto& info = find_policy(s.policy, given.where);
      s.policy_params = parse_params(info.params, given.params, "policy.params", sink);
    } catch (const InputError& e) {
      for (const auto& d : e.diagnostics())
        sink.add(d);
    }
  }
}

/// The policy `python` (python/README.md, the bridge's or colocsim.run's) imports and runs the Python file
/// its parameter `file` names: code, as a plugin is. A file written in the scenario is resolved against the
/// scenario's folder, as its plugins are, and runs only with consent to the code the scenario names
/// (--allow-plugins, colocsim.run(allow_plugins=True)). One that `overrides` or `policy_override` set (--set,
/// --policy, --policy-python, colocsim.run's arguments) was chosen by the user: it needs no consent and
/// resolves against the current directory.
void resolve_python_policy_file(GivenPolicy& given, const std::vector<std::string>& overrides,
                                const std::string& policy_override, const PluginConsent& consent, Scenario& s,
                                DiagnosticSink& sink)
{
  if (s.policy != "python" || !policy_override.empty()) return;
  for (const auto& key : assignment_keys(overrides))
    if (key == "policy" || key == "policy.params" || key == "policy.params.file") return;
  const auto it = given.params.find("file");
  if (it == given.params.end() || it->second.where.line <= 0 || it->second.text.empty()) return;
  GivenValue& file = it->second;
  const std::string dir = parent_dir(s.file);
  if (file.text.front() != '/' && dir.rfind("builtin:", 0) != 0) {
    std::error_code ec;
    const auto resolved = std::filesystem::absolute(dir + "/" + file.text, ec).lexically_normal();
    file.text = ec ? dir + "/" + file.text : resolved.string();
  }
  if (consent.allow_all) return;
  std::error_code ec;
  const bool exists = std::filesystem::is_regular_file(file.text, ec);
  sink.add(file.where, "policy.params.file",
           file.text + " (" + (exists ? "sha256 " + sha256_file(file.text).value_or("") : "no such file") +
               ") is not run without consent: the policy python imports this Python file, which runs its "
               "code; pass --allow-plugins (colocsim.run(..., allow_plugins=True)) to run the code this file "
               "names, or choose the policy yourself (--policy-python FILE.py:CLASS)");
}

} // namespace

Scenario load_scenario(const std::string& file, const std::vector<std::string>& overrides,
                       const std::string& policy_override, const PluginConsent& consent)
{
  const TextFile text = read_text_file(file);
  DiagnosticSink sink;
  YAML::Node root = scenario_root(text, overrides, policy_override, sink);
  Scenario s;
  s.file = text.name;
  const auto& f = text.name;
  read_declared_keys(root, f, s, sink);
  read_workload_source(root, f, s, sink);
  GivenPolicy given = read_policy_key(root, f, s, sink);
  // Policy plugins first: the policy may be one of theirs. Loading one runs its code, so nothing is loaded
  // until every plugin the file names has the command line's consent (PluginConsent).
  if (const YAML::Node plugins = root["plugins"]; plugins.IsDefined()) {
    if (!plugins.IsSequence())
      sink.add(location_of(plugins, f), "plugins",
               "expected a list of policy plugin files (shared libraries)");
    else
      for (const auto& p : plugins)
        if (auto sp = read_plugin_entry(p, f, s, sink)) s.plugins.push_back(std::move(*sp));
  }
  load_scenario_plugins(consent, s, sink);
  resolve_python_policy_file(given, overrides, policy_override, consent, s, sink);
  resolve_policy(given, s, sink);
  sink.throw_if_any();
  return s;
}

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
};

PlatformPreset load_platform_preset(const TextFile& file)
{
  const YAML::Node root = load_yaml(file.text, file.name);
  DiagnosticSink sink;
  if (!expect_map(root, file.name, "", sink)) sink.throw_if_any();
  check_keys(root,
             {"format", "name", "description", "device", "nodes", "cards_per_node", "groups", "node_list",
              "reference_device"},
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
    if (auto n = read_sourced(node, "nodes", Unit::NONE, file.name, path, sink, true, 1, 1e6, plain_ok)) {
      g.nodes = static_cast<long long>(n->value);
      note("nodes", *n);
    }
    if (auto c =
            read_sourced(node, "cards_per_node", Unit::NONE, file.name, path, sink, true, 1, 64, plain_ok)) {
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

std::vector<std::string> assignment_keys(const std::vector<std::string>& assignments)
{
  std::vector<std::string> keys;
  for (const auto& a : assignments)
    keys.push_back(a.substr(0, a.find('=')));
  return keys;
}

const std::vector<std::string>& path_keys()
{
  static const std::vector<std::string> keys{"platform.preset", "calibration", "interference_table",
                                             "workload.trace", "workload.profiles"};
  return keys;
}

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
  const auto& info = find_policy(s.policy);
  const auto needs = effective_requirements(info, s.policy_params);
  if (const auto mismatch = requirement_mismatch(platform, needs); !mismatch.empty())
    throw InputError(SourceLocation{s.file}, "policy",
                     "policy '" + s.policy + "' needs " + describe(needs) + ", but " + mismatch +
                         "; expected a platform that meets it (platform.preset, platform.sharing) or another "
                         "policy (colocsim policies lists what each needs)");
  return info.factory(s.policy_params);
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

std::string describe_scenario_keys()
{
  std::ostringstream os;
  auto section = [&](const std::string& title, const std::vector<ParamSpec>& specs) {
    os << title << "\n" << describe_params(specs, "  ");
  };
  section("top level:", top_specs());
  section("platform:", platform_specs());
  section("workload:", workload_specs());
  section("workload.synthetic (instead of workload.trace):", synthetic_param_specs());
  os << "policy: a policy name, or {name, params}; see `colocsim policies` for each policy's params\n";
  section("memory:", memory_specs());
  section("power:", power_specs());
  section("outputs:", output_specs());
  return os.str();
}

} // namespace colocsim
