#pragma once
// Policies built out of tree (issue 5, policies/README.md "Plugins"): a shared library that includes the
// installed colocsim headers (find_package(colocsim), target colocsim::policy_api), defines its Policy
// classes and exports one C function, COLOCSIM_POLICY_PLUGIN_SYMBOL, returning a PluginInfo. The colocsim
// binary loads it with `--policy-plugin path/to/libfoo.so` (or the scenario key `plugins`) and registers
// its policies next to the built-in ones.
//
//   #include "policies/PluginApi.hpp"
//   COLOCSIM_POLICY_PLUGIN(
//       {"my-policy", "what it does", "the paper it follows", MyPolicy::params(),
//        [](const colocsim::ParamSet& p) { return std::make_unique<MyPolicy>(p); }})
//
// ABI: the plugin and the binary exchange C++ objects (PolicyInfo, the view, decisions), so they must be
// built with the same compiler family and standard library, and against the same layout of the API types.
// PluginInfo starts with two plain integers the loader checks before touching anything else:
// COLOCSIM_POLICY_ABI_VERSION (bumped by hand when the API's meaning changes) and a fingerprint of the
// sizes and alignments of the types that cross the boundary (it changes by itself when their layout does).
// A mismatch is refused with an error naming both; the plugin must be rebuilt against this version's
// installed headers.
#include "policies/Policy.hpp"
#include "policies/PolicyRegistry.hpp"

#include <cstdint>
#include <vector>

/// Bump when the policy API changes meaning without changing layout (new semantics of a field, a new
/// decision the engine requires plugins to understand, ...). Layout changes are caught by the fingerprint.
/// 3: ClusterView gained estimate() and time_limit() (a longer vtable, which the fingerprint cannot see), and
/// decide() receives every event of an instant in one call.
#define COLOCSIM_POLICY_ABI_VERSION 3u

/// The function a plugin exports (extern "C", so no C++ name mangling).
#define COLOCSIM_POLICY_PLUGIN_SYMBOL "colocsim_policy_plugin"

namespace colocsim {

/// A fingerprint of the layout of every type a plugin and the binary exchange: FNV-1a over their sizes and
/// alignments. Computed at compile time on both sides; equal values mean the headers agreed.
constexpr std::uint64_t policy_abi_fingerprint()
{
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xffu;
      h *= 1099511628211ull;
    }
  };
  auto type = [&mix](std::uint64_t size, std::uint64_t align) {
    mix(size);
    mix(align);
  };
  type(sizeof(Job), alignof(Job));
  type(sizeof(ResourceSignature), alignof(ResourceSignature));
  type(sizeof(DeviceView), alignof(DeviceView));
  type(sizeof(PlacementPrediction), alignof(PlacementPrediction));
  type(sizeof(Event), alignof(Event));
  type(sizeof(Decision), alignof(Decision));
  type(sizeof(Place), alignof(Place));
  type(sizeof(ParamSpec), alignof(ParamSpec));
  type(sizeof(ParamSet), alignof(ParamSet));
  type(sizeof(PolicyInfo), alignof(PolicyInfo));
  type(sizeof(SourceLocation), alignof(SourceLocation));
  mix(std::variant_size_v<Event>);
  mix(std::variant_size_v<Decision>);
  return h;
}

/// What a plugin's exported function returns. The first two members are plain integers at fixed offsets:
/// the loader reads them before anything else.
struct PluginInfo {
  std::uint32_t abi_version = COLOCSIM_POLICY_ABI_VERSION;
  std::uint64_t abi_fingerprint = policy_abi_fingerprint();
  const char* plugin_name = "";     ///< for messages, e.g. the library's name
  std::vector<PolicyInfo> policies; ///< registered as if they were built in (names must be new)
};

} // namespace colocsim

/// Defines the exported function of a plugin from a list of PolicyInfo initialisers.
#define COLOCSIM_POLICY_PLUGIN(...)                                                                          \
  extern "C" __attribute__((visibility("default"))) const colocsim::PluginInfo* colocsim_policy_plugin()     \
  {                                                                                                          \
    static const colocsim::PluginInfo info{COLOCSIM_POLICY_ABI_VERSION,                                      \
                                           colocsim::policy_abi_fingerprint(),                               \
                                           COLOCSIM_PLUGIN_NAME,                                             \
                                           {__VA_ARGS__}};                                                   \
    return &info;                                                                                            \
  }

#ifndef COLOCSIM_PLUGIN_NAME
#define COLOCSIM_PLUGIN_NAME __FILE__
#endif
