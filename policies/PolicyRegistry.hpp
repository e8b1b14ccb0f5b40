#pragma once
// The one registry of policies: name, description, declared parameters, factory. Explicit table (no
// static self-registration, which the linker drops from static libraries). The parameter declarations
// drive YAML parsing, `--policy name:key=value`, `colocsim policies` and the docs.
#include "base/Params.hpp"
#include "policies/Policy.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace colocsim {

/// What a policy needs from the platform, declared with its registry entry (a plugin declares it the same
/// way). run, replay, validate and sweep (--dry-run too) refuse a platform that does not meet it before
/// simulating anything; `colocsim policies` shows it. Empty fields ask for nothing.
struct PolicyRequirements {
  /// The platform.sharing modes the policy can place jobs in (mig-manager: mig; a policy that never names
  /// a MIG instance cannot place on mig devices). Empty: every mode.
  std::vector<SharingMode> sharing;
  /// Device types it can place on (catalog names, or names from the devices' trace_names): every device
  /// type of the platform must be one of them. Empty: any type.
  std::vector<std::string> device_types;
  /// The name of a parameter that names another policy (power-aware's `inner`): that policy's requirements
  /// apply too.
  std::string inner_policy_param;
  /// Why, in a few words (shown with the requirement in errors and `colocsim policies`).
  std::string why;
};

struct PolicyInfo {
  std::string name;
  std::string description;
  std::string source; ///< paper or rule it follows
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Policy>(const ParamSet&)> factory;
  /// One line: where it puts a job, shared or idle devices first (its documented intent); `colocsim
  /// policies` prints it. Optional for plugins.
  std::string intent = {};
  PolicyRequirements requirements = {}; ///< last, so that a plugin's {name, ..., factory} still compiles
};

/// The built-in policies, then those of the loaded plugins (policies/PluginLoader.hpp), in that order.
const std::vector<PolicyInfo>& policy_registry();

/// Adds policies (from a plugin) after the built-in ones. The caller checks that the names are new.
void register_policies(const std::vector<PolicyInfo>& policies);

/// "platform.sharing exclusive, time-slice, ccs-2, ccs-4 or mps; ..." (what `colocsim policies` and the
/// errors show), or "" when it needs nothing.
std::string describe(const PolicyRequirements& r);

/// The requirements of `policy` run with `params`: its own and those of the policy its inner_policy_param
/// names (sharing modes and device types intersected; an empty list asks for nothing). Throws InputError
/// if that parameter names no policy.
PolicyRequirements effective_requirements(const PolicyInfo& policy, const ParamSet& params);

/// Looks up a policy; throws InputError "unknown policy 'x'; valid: a, b" at `where`.
const PolicyInfo& find_policy(const std::string& name, const SourceLocation& where = {});

} // namespace colocsim
