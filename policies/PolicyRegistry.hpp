#pragma once
// The one registry of policies: name, description, declared parameters, factory. Explicit table (no
// static self-registration, which the linker drops from static libraries). The parameter declarations
// drive YAML parsing, `--policy name:key=value`, `colocsim policies` and the docs.
#include "models/Params.hpp"
#include "policies/Policy.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace colocsim {

struct PolicyInfo {
  std::string name;
  std::string description;
  std::string source; ///< paper or rule it follows
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Policy>(const ParamSet&)> factory;
  /// One line: where it puts a job, shared or idle devices first (its documented intent); `colocsim
  /// policies` prints it. Optional for plugins.
  std::string intent = {};
};

/// The built-in policies, then those of the loaded plugins (policies/PluginLoader.hpp), in that order.
const std::vector<PolicyInfo>& policy_registry();

/// Adds policies (from a plugin) after the built-in ones. The caller checks that the names are new.
void register_policies(const std::vector<PolicyInfo>& policies);

/// Looks up a policy; throws InputError "unknown policy 'x'; valid: a, b" at `where`.
const PolicyInfo& find_policy(const std::string& name, const SourceLocation& where = {});

} // namespace colocsim
