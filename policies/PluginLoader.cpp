#include "policies/PluginLoader.hpp"

#include "base/Sha256.hpp"
#include "policies/PluginApi.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstring>
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

std::map<std::string, LoadedPlugin>& loaded_plugins() // canonical path → plugin
{
  static std::map<std::string, LoadedPlugin> loaded;
  return loaded;
}

std::string canonical_key(const std::string& path)
{
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : canonical.string();
}

/// What an exported symbol is, from its ELF symbol table entry (dladdr1 reads the entry; nothing of the
/// plugin runs): "a function", "a data object of 4 bytes", ...
struct SymbolKind {
  bool known = false;
  unsigned type = STT_NOTYPE;
  std::size_t size = 0;
  std::string describe() const
  {
    if (!known) return "a symbol of unknown kind";
    switch (type) {
    case STT_FUNC:
      return "a function";
    case STT_GNU_IFUNC:
      return "an indirect function";
    case STT_OBJECT:
      return "a data object of " + std::to_string(size) + " bytes";
    case STT_TLS:
      return "a thread-local object";
    default:
      return "a symbol of ELF type " + std::to_string(type);
    }
  }
};

SymbolKind kind_of(void* address)
{
  SymbolKind k;
  Dl_info info{};
  void* entry = nullptr; // dladdr1 stores a `const ElfW(Sym)*` here
  if (::dladdr1(address, &info, &entry, RTLD_DL_SYMENT) != 0 && entry && info.dli_saddr == address) {
    const auto* sym = static_cast<const ElfW(Sym)*>(entry);
    k.known = true;
    k.type = ELF64_ST_TYPE(sym->st_info);
    k.size = sym->st_size;
  }
  return k;
}
} // namespace

std::optional<LoadedPlugin> loaded_policy_plugin(const std::string& path)
{
  const auto it = loaded_plugins().find(canonical_key(path));
  if (it == loaded_plugins().end()) return std::nullopt;
  return it->second;
}

LoadedPlugin load_policy_plugin(const std::string& path, const SourceLocation& where)
{
  auto fail = [&](const std::string& what) {
    throw InputError(where.file.empty() ? SourceLocation{path} : where, "policy-plugin",
                     (where.file.empty() ? std::string() : path + ": ") + what);
  };
  const std::string key = canonical_key(path);
  if (const auto it = loaded_plugins().find(key); it != loaded_plugins().end()) return it->second;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    fail("no such file; expected the path of a policy plugin (a shared library built against the installed "
         "colocsim headers, policies/README.md)");
  const auto sha256 = sha256_file(path);
  if (!sha256) fail("cannot read it; expected a readable policy plugin (a shared library)");

  // A path without '/' would make dlopen search the library path: name the file itself.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    fail(std::string("cannot load it: ") + (why ? why : "unknown dlopen error") +
         "; expected a shared library built against the installed colocsim headers");
  }
  // The handshake: everything below reads the descriptor as data; no plugin function runs until it passed.
  const std::string expected =
      std::string("expected the data symbol '") + COLOCSIM_POLICY_PLUGIN_SYMBOL + "' (a " +
      std::to_string(sizeof(PluginDescriptor)) + "-byte descriptor with magic " +
      hex(COLOCSIM_POLICY_PLUGIN_MAGIC) + ", policy ABI version " +
      std::to_string(COLOCSIM_POLICY_ABI_VERSION) +
      ") that COLOCSIM_POLICY_PLUGIN(...) defines (policies/PluginApi.hpp); "
      "rebuild the plugin against this colocsim's installed headers (cmake --install)";
  auto refuse = [&](const std::string& what) {
    ::dlclose(handle);
    fail(what + "; " + expected);
  };
  ::dlerror();
  void* sym = ::dlsym(handle, COLOCSIM_POLICY_PLUGIN_SYMBOL);
  if (!sym) {
    // Plugins of policy ABI versions 1 and 2 exported a function under this name.
    if (void* old = ::dlsym(handle, "colocsim_policy_plugin"))
      refuse("exports 'colocsim_policy_plugin' (" + kind_of(old).describe() +
             ", the entry of plugins built for policy ABI version 2 or older) but no '" +
             COLOCSIM_POLICY_PLUGIN_SYMBOL + "'");
    refuse(std::string("exports no '") + COLOCSIM_POLICY_PLUGIN_SYMBOL + "'");
  }
  const SymbolKind kind = kind_of(sym);
  if (!kind.known || kind.type != STT_OBJECT || kind.size < 16)
    refuse(std::string("exports '") + COLOCSIM_POLICY_PLUGIN_SYMBOL + "' as " + kind.describe());
  // The first 16 bytes (magic, version, size) keep their place in every version; memcpy: no alignment
  // assumption about a foreign object.
  std::uint64_t magic = 0;
  std::uint32_t version = 0, size = 0;
  const auto* bytes = static_cast<const unsigned char*>(sym);
  std::memcpy(&magic, bytes, sizeof magic);
  std::memcpy(&version, bytes + 8, sizeof version);
  std::memcpy(&size, bytes + 12, sizeof size);
  if (magic != COLOCSIM_POLICY_PLUGIN_MAGIC)
    refuse(std::string("exports '") + COLOCSIM_POLICY_PLUGIN_SYMBOL + "' (" + kind.describe() +
           ") with magic " + hex(magic) + ", not a colocsim plugin descriptor");
  if (version != COLOCSIM_POLICY_ABI_VERSION)
    refuse("built for policy ABI version " + std::to_string(version) + ", this colocsim has version " +
           std::to_string(COLOCSIM_POLICY_ABI_VERSION));
  if (size != sizeof(PluginDescriptor) || kind.size < sizeof(PluginDescriptor))
    refuse("its descriptor has " + std::to_string(size) + " bytes (the symbol " + std::to_string(kind.size) +
           ")");
  PluginDescriptor d{};
  std::memcpy(&d, sym, sizeof d);
  if (d.abi_fingerprint != policy_abi_fingerprint())
    refuse("built against headers with another layout of the policy API types (fingerprint " +
           hex(d.abi_fingerprint) + ", this colocsim " + hex(policy_abi_fingerprint()) + ")");
  if (!d.entry) refuse("its descriptor has no entry function");

  const PluginInfo* info = d.entry();
  if (!info) fail("its entry function returned no plugin");
  if (info->policies.empty()) fail("registers no policy");

  LoadedPlugin result{path, *sha256, {}};
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
    result.policies.push_back(p.name);
  }
  sink.throw_if_any();
  register_policies(info->policies);
  loaded_plugins()[key] = result;
  return result;
}

} // namespace colocsim
