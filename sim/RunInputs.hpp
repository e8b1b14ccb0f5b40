#pragma once
// Building a run from a scenario that has been read (sim/Scenario.hpp, load_scenario()): build_run() resolves
// and loads the files the scenario names — platform preset, device types with their calibrations and
// interference models, profiles, the trace — and makes the policy; RunInputs holds them for the engine.
#include "calibration/Calibration.hpp"
#include "sim/Engine.hpp"
#include "sim/Platform.hpp"
#include "sim/Scenario.hpp"
#include "workloads/ProfileCatalog.hpp"

#include <memory>
#include <string>
#include <vector>

namespace colocsim {

/// Everything a run needs, loaded and validated from a scenario.
struct RunInputs {
  Scenario scenario;
  std::shared_ptr<DeviceSpec> device; ///< the platform's reference device type (platform.types[0])
  Calibration calibration;            ///< the reference type's calibration (or the one the scenario names)
  std::string calibration_file;
  Platform platform; ///< with every device type's models (power, interference, MIG table, speed)
  ProfileCatalog profiles;
  std::string interference_table_file; ///< interference: pair-total: the pair table read (name or builtin:)
  /// "file: key = value" for each number a user's platform or device file gave without provenance (recorded
  /// as user-supplied: summary.json user_supplied).
  std::vector<std::string> user_supplied;
  std::unique_ptr<JobReader> reader;
  std::unique_ptr<Policy> policy;

  RunSetup setup(); ///< engine setup pointing into this object
};

/// Resolves and loads the scenario's files (device, calibration, platform, profiles, trace, policy).
RunInputs build_run(const Scenario& scenario);

struct PolicyRequirements; // policies/PolicyRegistry.hpp

/// Whether `platform` meets a policy's requirements (PolicyInfo::requirements): "" if it does, else what the
/// platform has instead, e.g. "platform 'aurora-node' has max1550-aurora-tile devices in time-slice (that
/// device supports exclusive, time-slice, ccs-2, ccs-4)".
std::string requirement_mismatch(const Platform& platform, const PolicyRequirements& requirements);

} // namespace colocsim
