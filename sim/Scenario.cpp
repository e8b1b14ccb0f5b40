// Scenario files: the declared keys, parsing with located errors, --set/--policy overrides and the consent
// to load a scenario's plugins. What a run is then built from a Scenario is RunInputs.cpp's business.
// Format reference: docs/formats/scenario.md.
#include "sim/Scenario.hpp"

#include "policies/PluginLoader.hpp"

#include "base/Sha256.hpp"
#include "base/Yaml.hpp"
#include "calibration/InterferenceRegistry.hpp"
#include "sim/Resources.hpp"
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

const std::vector<ParamSpec>& model_error_specs()
{
  static const std::vector<ParamSpec> specs{
      {.name = "interference",
       .type = ParamType::REAL,
       .default_text = "0",
       .help = "lognormal sigma of the co-run interference factor the engine applies (0: the model is taken "
               "as exact); 0.573 is the interference model's measured error [estimate: the sigma whose mean "
               "absolute error equals the leave-one-family-out MAPE of 45.1 %, "
               "experiments/validate-interference]",
       .min = 0,
       .max = 3},
      {.name = "mig",
       .type = ParamType::REAL,
       .default_text = "0",
       .help =
           "lognormal sigma of a job's slowdown on a MIG instance (0: exact); 0.090 is the MIG law's "
           "measured error [estimate: the sigma whose mean absolute error equals the leave-one-workload-out "
           "MAPE of 7.2 %, experiments/validate-mig]",
       .min = 0,
       .max = 3},
  };
  return specs;
}

const std::vector<std::string>& section_names()
{
  static const std::vector<std::string> names{"platform", "workload",    "policy",  "memory",
                                              "power",    "model_error", "outputs", "plugins"};
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
    // --policy replaces the policy and its parameters, not the placement rule the scenario chose.
    if (const YAML::Node old = root["policy"]; old.IsMap() && old["placement"].IsDefined())
      p["placement"] = YAML::Clone(old["placement"]);
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
  const auto model_error = read_params(root["model_error"], model_error_specs(), f, "model_error", sink);
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
  s.model_error_interference = model_error.real("interference");
  s.model_error_mig = model_error.real("mig");
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
    check_keys(pol, {"name", "params", "placement"}, f, "policy", sink);
    if (!pol["name"].IsDefined() || !pol["name"].IsScalar())
      sink.add(given.where, "policy.name", "missing required key; expected a policy name");
    else {
      s.policy = pol["name"].Scalar();
      given.where = location_of(pol["name"], f);
    }
    given.params = given_map(pol["params"], f, "policy.params", sink);
    if (const YAML::Node rule = pol["placement"]; rule.IsDefined()) {
      const auto parsed = rule.IsScalar() ? parse_gang_rule(rule.Scalar()) : std::nullopt;
      if (parsed)
        s.placement = *parsed;
      else
        sink.add(
            location_of(rule, f), "policy.placement",
            (rule.IsScalar() ? "unknown placement rule '" + rule.Scalar() + "'" : std::string("not a name")) +
                "; expected " + std::string(GANG_RULE_NAMES) +
                " (how a job of more than one device is laid out over nodes)");
    }
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
      s.policy_info = std::make_shared<const PolicyInfo>(info);
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
  if (!policy_override.empty()) given.where = SourceLocation{"command line --policy"}; // not in the file
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
  os << "policy: a policy name, or {name, params, placement}; see `colocsim policies` for each policy's "
        "params; placement (pack, spread or any; default pack): how a job of several devices is laid out "
        "over nodes\n";
  section("memory:", memory_specs());
  section("power:", power_specs());
  section("model_error (the models' error the simulated world carries; policies still see the models):",
          model_error_specs());
  section("outputs:", output_specs());
  return os.str();
}

} // namespace colocsim
