#pragma once
// Loading out-of-tree policy plugins (policies/PluginApi.hpp): dlopen, the descriptor handshake (read as
// data before any plugin function is called), the entry function, then registration next to the built-in
// policies (policies/PolicyRegistry.hpp).
//
// Trust: loading a shared object runs its code (its constructors run inside dlopen). The loader itself
// loads what it is asked to; deciding whether a plugin named by a file (a scenario, a sweep spec) may be
// loaded at all is the caller's (sim/Scenario.hpp, PluginConsent): only with consent on the command line.
#include "base/Errors.hpp"

#include <optional>
#include <string>
#include <vector>

namespace colocsim {

/// A loaded plugin: the path it was loaded from, the SHA-256 of the file's bytes as read just before
/// dlopen, and the policies it registered.
struct LoadedPlugin {
  std::string path;   ///< as given
  std::string sha256; ///< 64 hex digits
  std::vector<std::string> policies;
};

/// Loads the plugin at `path` and registers its policies. Loading the same file again is a no-op (the
/// first load's result is returned). Throws InputError at `where` (field "policy-plugin") when the file
/// cannot be loaded (dlopen's message: missing, not a shared object, unresolved symbol), exports no
/// descriptor COLOCSIM_POLICY_PLUGIN_SYMBOL (naming what it exports instead, e.g. the function of a plugin
/// built for ABI version 2), exports one that is not a data object of the descriptor's size, has another
/// magic number, ABI version or type layout, or registers a policy name that already exists. No function
/// of the plugin is called before the descriptor passed every check. The library stays loaded for the
/// life of the process.
LoadedPlugin load_policy_plugin(const std::string& path, const SourceLocation& where = {});

/// The plugin already loaded from `path` (same file by canonical path), if any.
std::optional<LoadedPlugin> loaded_policy_plugin(const std::string& path);

} // namespace colocsim
