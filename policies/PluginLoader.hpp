#pragma once
// Loading out-of-tree policy plugins (policies/PluginApi.hpp): dlopen, the exported function, the ABI
// checks, then registration next to the built-in policies (policies/PolicyRegistry.hpp).
#include "models/Errors.hpp"

#include <string>
#include <vector>

namespace colocsim {

/// Loads the plugin at `path` and registers its policies; returns their names. Loading the same file again
/// is a no-op (same names returned). Throws InputError at `where` (field "policy-plugin") when the file
/// cannot be loaded (dlopen's message: missing, not a shared object, unresolved symbol), exports no
/// COLOCSIM_POLICY_PLUGIN_SYMBOL, was built for another ABI version or layout, or registers a policy name
/// that already exists. The library stays loaded for the life of the process.
std::vector<std::string> load_policy_plugin(const std::string& path, const SourceLocation& where = {});

} // namespace colocsim
