#pragma once
// A scenario is one YAML file (DESIGN.md §4): platform, calibration, workload, sharing, interference,
// policy + parameters, memory, power, seed, outputs. Every key is declared once in Scenario.cpp's
// tables (name, type, default, range, help); those tables drive parsing, `colocsim run --help-scenario`
// and docs/formats/scenario.md. Unknown keys and bad values are errors with file:line:col and the valid
// values; all problems of a file are reported together.
#include "calibration/Calibration.hpp"
#include "models/Params.hpp"
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

struct Scenario {
  std::string file; ///< where it was read from (a path, or builtin:<path>)
  std::string name, description;
  std::vector<std::string>
      plugins; ///< policy plugins the scenario loads (paths resolved from the file's folder)
  long long seed = 1;
  // platform
  std::string platform_preset;
  std::optional<long long> nodes;
  std::optional<long long> cards_per_node;
  std::optional<long long> devices_per_card;
  SharingMode sharing = SharingMode::TIME_SLICE;
  double repartition_delay_s = 5.0;
  double node_boot_s = 300.0;
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
  // policy
  std::string policy;
  ParamSet policy_params;
  // memory, power, outputs
  double oom_delay_s = 60;
  int max_retries = 3;
  double pue = 1.0;
  OutputOptions outputs;
};

/// Where the embedded default scenario lives.
inline constexpr const char* DEFAULT_SCENARIO = "builtin:experiments/scenarios/default/scenario.yaml";

/// Parses a scenario. `overrides` are "dotted.key=value" assignments applied on top of the file (--set);
/// `policy_override` is "name[:k=v,...]" (--policy). Throws InputError listing every problem.
Scenario load_scenario(const std::string& file, const std::vector<std::string>& overrides = {},
                       const std::string& policy_override = {});

/// Everything a run needs, loaded and validated from a scenario.
struct RunInputs {
  Scenario scenario;
  std::shared_ptr<DeviceSpec> device; ///< the platform's reference device type (platform.types[0])
  Calibration calibration;            ///< the reference type's calibration (or the one the scenario names)
  std::string calibration_file;
  Platform platform; ///< with every device type's models (power, interference, MIG table, speed)
  ProfileCatalog profiles;
  std::string interference_table_file; ///< interference: pair-total: the pair table read (name or builtin:)
  std::unique_ptr<JobReader> reader;
  std::unique_ptr<Policy> policy;

  RunSetup setup(); ///< engine setup pointing into this object
};

/// Resolves and loads the scenario's files (device, calibration, platform, profiles, trace, policy).
RunInputs build_run(const Scenario& scenario);

/// The declared keys, for --help and docs: "section.key  type, default  help" lines.
std::string describe_scenario_keys();

} // namespace colocsim
