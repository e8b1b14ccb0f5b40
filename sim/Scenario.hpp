#pragma once
// A scenario is one YAML file (docs/architecture.md, Scenarios, command line and outputs): platform,
// calibration, workload, sharing, interference, policy + parameters, memory, power, seed, outputs. Every key
// is declared once in Scenario.cpp's tables (name, type, default, range, help); those tables drive parsing,
// `colocsim run --help-scenario` and docs/formats/scenario.md. Unknown keys and bad values are errors with
// file:line:col and the valid values; all problems of a file are reported together.
#include "base/Params.hpp"
#include "calibration/Calibration.hpp"
#include "policies/GangRule.hpp"
#include "policies/PolicyRegistry.hpp"
#include "sim/Engine.hpp"
#include "sim/Outputs.hpp"
#include "sim/Platform.hpp"
#include "workloads/ProfileCatalog.hpp"
#include "workloads/SyntheticGenerator.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace colocsim {

/// A policy plugin a scenario names (key `plugins`: a path, or `{path, sha256}` as `replay` saves it), or one
/// given on the command line (--policy-plugin).
struct ScenarioPlugin {
  std::string path;            ///< absolute (a scenario's entries are relative to its folder)
  SourceLocation where;        ///< its place in the scenario, or "command line --policy-plugin"
  bool exists = false;         ///< the file exists
  std::string sha256;          ///< of the file's bytes now (as loaded, when loaded); empty if missing
  std::string recorded_sha256; ///< the hash saved with the scenario (`{path, sha256}`); empty: none
  bool loaded = false;         ///< false only where the command loads nothing (validate, sweep --dry-run)
};

/// Consent to load the plugins a scenario names. Loading a plugin runs its code, so a scenario (or a sweep
/// spec's scenario) from someone else never loads one without consent on the command line: --allow-plugins
/// (every plugin the file names) or the same file given with --policy-plugin. Without it load_scenario
/// throws InputError before loading any, listing each plugin the file wants with its path and SHA-256.
struct PluginConsent {
  bool allow_all = false;                ///< --allow-plugins
  std::vector<std::string> command_line; ///< --policy-plugin files (the same file: same canonical path)
  /// false (validate, sweep --dry-run): consent is still required, but no plugin is loaded that
  /// command_line does not name; a policy that may be one of an unloaded plugin's is left unchecked.
  bool load = true;
  bool allows(const std::string& path) const;
};

struct Scenario {
  std::string file; ///< where it was read from (a path, or builtin:<path>)
  std::string name, description;
  std::vector<ScenarioPlugin> plugins; ///< the plugins it names, then those of the command line
  std::vector<std::string> warnings; ///< for the command to print (e.g. a plugin changed since it was saved)
  /// The keys --set gave on the command line ("workload.trace", ...; the CLI fills it, assignment_keys()). A
  /// relative path among their values resolves against the current directory (it was typed there); one
  /// written in the file, or given as an override by code (an experiment driver), against the file's folder.
  std::vector<std::string> set_on_command_line;
  long long seed = 1;
  // platform
  std::string platform_preset;
  std::optional<long long> nodes;
  std::optional<long long> cards_per_node;
  std::optional<long long> devices_per_card;
  SharingMode sharing = SharingMode::TIME_SLICE;
  double repartition_delay_s = 5.0;
  double node_boot_s = 300.0;
  /// platform.clock: the clock an idle device holds (static power): "device" (the catalog's freq_pinned),
  /// "pinned" (the operating clock), "idle" (freq_min).
  std::string idle_clock = "device";
  std::string
      mig_layout; ///< sharing mig: the initial GPU instances, "profile,profile,..."; empty = whole GPU
  // models
  std::string calibration;
  std::string interference;
  std::string interference_table; ///< interference: pair-total: bundled pair table name or path
  // workload
  std::string trace;
  std::string trace_format;
  bool honour_gpu_types = true;        ///< workload.gpu_types: honour (true) or ignore
  bool durations_on_named_type = true; ///< workload.durations: named-type (true) or reference
  std::string durations_at = "auto";   ///< workload.durations_at: auto, own-gpu-count or perfect-scaling
  std::string estimates = "exact";     ///< workload.estimates: exact, requested or predicted
  int procs_per_device = 1;            ///< swf
  std::string profile_map;   ///< profile map (workloads/ProfileMapper.hpp); empty = the format's default
  std::string trace_options; ///< the format's options, "key=value,..." (workloads/TraceFormats.hpp)
  std::string transforms;    ///< "window=A..B,load=F,..." (workloads/JobTransforms.hpp)
  std::string profiles;
  std::string default_profile;
  std::optional<SyntheticSpec> synthetic; ///< instead of a trace
  /// Jobs the trace is known to give after its transforms (replay counts them before the run), for the
  /// progress line; 0: not known. Not a scenario key.
  std::uint64_t jobs_known = 0;
  // policy
  std::string policy;
  ParamSet policy_params;
  /// The policy, looked up in the registry once, when the scenario is read (a copy of its entry: loading a
  /// plugin later may move the registry's entries); build_run makes the policy with it. Null where
  /// policy_unchecked.
  std::shared_ptr<const PolicyInfo> policy_info;
  bool policy_unchecked = false; ///< PluginConsent::load false: the policy may be an unloaded plugin's
  /// policy.placement: how jobs of more than one device are laid out over nodes (policies/GangRule.hpp).
  GangRule placement = GangRule::PACK;
  // memory, power, outputs
  double oom_delay_s = 60;
  int max_retries = 3;
  double pue = 1.0;
  /// model_error: the lognormal σ of the interference and MIG models' error the engine applies (0: exact;
  /// sim/engine/ModelError.hpp).
  double model_error_interference = 0;
  double model_error_mig = 0;
  OutputOptions outputs;
};

/// Where the embedded default scenario lives.
inline constexpr const char* DEFAULT_SCENARIO = "builtin:sim/scenarios/default/scenario.yaml";

/// The keys of "key=value" assignments: {"workload.trace"} for {"workload.trace=mine.csv"}.
std::vector<std::string> assignment_keys(const std::vector<std::string>& assignments);

/// The keys whose value is a file path, or a bundled name or a path (models/Resources.hpp): platform.preset,
/// calibration, interference_table, workload.trace, workload.profiles.
const std::vector<std::string>& path_keys();

/// Parses a scenario. `overrides` are "dotted.key=value" assignments applied on top of the file (--set);
/// `policy_override` is "name[:k=v,...]" (--policy). Throws InputError listing every problem. Plugins the
/// file names are loaded only with `consent` (none by default).
Scenario load_scenario(const std::string& file, const std::vector<std::string>& overrides = {},
                       const std::string& policy_override = {}, const PluginConsent& consent = {});

/// Adds the plugins given on the command line (already loaded) to the scenario's list, once per file, so
/// that the run records every plugin it used.
void add_command_line_plugins(Scenario& scenario, const std::vector<std::string>& paths);

/// The declared keys, for --help and docs: "section.key  type, default  help" lines.
std::string describe_scenario_keys();

} // namespace colocsim
