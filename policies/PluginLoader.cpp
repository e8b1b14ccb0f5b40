#include "policies/PluginLoader.hpp"

#include "policies/PluginApi.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <map>
#include <sstream>

namespace colocsim {

namespace {
std::string hex(std::uint64_t v)
{
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}
} // namespace

std::vector<std::string> load_policy_plugin(const std::string& path, const SourceLocation& where)
{
  static std::map<std::string, std::vector<std::string>> loaded; // canonical path → names
  auto fail = [&](const std::string& what) {
    throw InputError(where.file.empty() ? SourceLocation{path} : where, "policy-plugin",
                     (where.file.empty() ? std::string() : path + ": ") + what);
  };
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(path, ec);
  const std::string key = ec ? path : canonical.string();
  if (const auto it = loaded.find(key); it != loaded.end()) return it->second;
  if (!std::filesystem::exists(path, ec))
    fail("no such file; expected the path of a policy plugin (a shared library built against the installed "
         "colocsim headers, policies/README.md)");

  // A path without '/' would make dlopen search the library path: name the file itself.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    fail(std::string("cannot load it: ") + (why ? why : "unknown dlopen error") +
         "; expected a shared library built against the installed colocsim headers");
  }
  ::dlerror();
  void* sym = ::dlsym(handle, COLOCSIM_POLICY_PLUGIN_SYMBOL);
  if (!sym) {
    ::dlclose(handle);
    fail(std::string("exports no function '") + COLOCSIM_POLICY_PLUGIN_SYMBOL +
         "'; expected a plugin that defines its policies with COLOCSIM_POLICY_PLUGIN(...) "
         "(policies/PluginApi.hpp)");
  }
  using Entry = const PluginInfo* (*)();
  const PluginInfo* info = reinterpret_cast<Entry>(sym)();
  if (!info) fail(std::string("its function '") + COLOCSIM_POLICY_PLUGIN_SYMBOL + "' returned no plugin");
  // Only the two leading integers are read until both checks pass.
  if (info->abi_version != COLOCSIM_POLICY_ABI_VERSION)
    fail("built for policy ABI version " + std::to_string(info->abi_version) +
         ", this colocsim has version " + std::to_string(COLOCSIM_POLICY_ABI_VERSION) +
         "; rebuild the plugin against this colocsim's installed headers (cmake --install)");
  if (info->abi_fingerprint != policy_abi_fingerprint())
    fail("built against headers with another layout of the policy API types (fingerprint " +
         hex(info->abi_fingerprint) + ", this colocsim " + hex(policy_abi_fingerprint()) +
         "); rebuild the plugin against this colocsim's installed headers (cmake --install)");
  if (info->policies.empty()) fail("registers no policy");

  std::vector<std::string> names;
  DiagnosticSink sink;
  for (const auto& p : info->policies) {
    if (p.name.empty() || !p.factory) {
      sink.add(where.file.empty() ? SourceLocation{path} : where, "policy-plugin",
               path + ": a policy without a name or a factory");
      continue;
    }
    bool clash = false;
    for (const auto& existing : policy_registry())
      if (existing.name == p.name) clash = true;
    if (clash)
      sink.add(where.file.empty() ? SourceLocation{path} : where, "policy-plugin",
               path + ": policy '" + p.name + "' is already registered (built in, or by another plugin); " +
                   "expected a new name");
    names.push_back(p.name);
  }
  sink.throw_if_any();
  register_policies(info->policies);
  loaded[key] = names;
  return names;
}

} // namespace colocsim
