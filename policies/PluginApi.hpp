#pragma once
// Policies built out of tree (issue 5, policies/README.md "Plugins"): a shared library that includes the
// installed colocsim headers (find_package(colocsim), target colocsim::policy_api), defines its Policy
// classes and ends with one COLOCSIM_POLICY_PLUGIN(...), which exports the data symbol
// COLOCSIM_POLICY_PLUGIN_SYMBOL, a PluginDescriptor. The colocsim binary loads it with
// `--policy-plugin path/to/libfoo.so` (or the scenario key `plugins`, with consent: policies/README.md)
// and registers its policies next to the built-in ones.
//
//   #include "policies/PluginApi.hpp"
//   COLOCSIM_POLICY_PLUGIN(
//       {"my-policy", "what it does", "the paper it follows", MyPolicy::params(),
//        [](const colocsim::ParamSet& p) { return std::make_unique<MyPolicy>(p); },
//        {{colocsim::SharingMode::MPS}, {}, "", "it sets MPS thread shares"}}) // optional requirements
//
// ABI: the plugin and the binary exchange C++ objects (PolicyInfo, the view, decisions), so they must be
// built with the same compiler family and standard library, and against the same layout of the API types.
// The handshake comes before any plugin function is called: the loader checks that the exported symbol is
// a data object of the descriptor's size and reads it as plain data: a magic number, the
// COLOCSIM_POLICY_ABI_VERSION (bumped by hand when the API's meaning changes), the descriptor's size and a
// fingerprint of the sizes and alignments of the types that cross the boundary (it changes by itself when
// their layout does). A mismatch is refused with an error naming the file, what it exports and what was
// expected; the plugin must be rebuilt against this version's installed headers. Only then is the
// descriptor's `entry` called, once, for the PluginInfo.
#include "policies/Policy.hpp"
#include "policies/PolicyRegistry.hpp"

#include <cstdint>
#include <vector>

/// Bump when the policy API changes meaning without changing layout (new semantics of a field, a new
/// decision the engine requires plugins to understand, ...). Layout changes are caught by the fingerprint.
/// 3: the descriptor handshake (versions 1 and 2 exported a function `colocsim_policy_plugin`).
/// 4: PolicyInfo::requirements (what the policy needs from the platform, checked before a run).
/// 5: ClusterView gained estimate() and time_limit() (a longer vtable, which the fingerprint cannot see), and
/// decide() receives every event of an instant in one call.
/// 6: ClusterView gained mig_slowdown_alone() (a longer vtable).
/// 7: Policy gained set_gang_rule() and gang_rule() (a longer vtable; the scenario's policy.placement).
#define COLOCSIM_POLICY_ABI_VERSION 7u

/// The first 8 bytes of a descriptor: "COLOCPLG" read as a little-endian integer.
#define COLOCSIM_POLICY_PLUGIN_MAGIC 0x474c50434f4c4f43ull

/// The data symbol a plugin exports (extern "C", so no C++ name mangling): a PluginDescriptor.
#define COLOCSIM_POLICY_PLUGIN_SYMBOL "colocsim_policy_plugin_descriptor"

namespace colocsim {

/// What a plugin's entry function returns: its policies.
struct PluginInfo {
  const char* plugin_name = "";     ///< for messages, e.g. the library's name
  std::vector<PolicyInfo> policies; ///< registered as if they were built in (names must be new)
};

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
  type(sizeof(PolicyRequirements), alignof(PolicyRequirements));
  type(sizeof(SourceLocation), alignof(SourceLocation));
  type(sizeof(PluginInfo), alignof(PluginInfo));
  mix(std::variant_size_v<Event>);
  mix(std::variant_size_v<Decision>);
  return h;
}

/// The exported handshake, plain data at fixed offsets that the loader reads before calling anything.
/// Its first 16 bytes (magic, abi_version, size) keep their place in every future version.
struct PluginDescriptor {
  std::uint64_t magic;           ///< COLOCSIM_POLICY_PLUGIN_MAGIC
  std::uint32_t abi_version;     ///< COLOCSIM_POLICY_ABI_VERSION the plugin was built with
  std::uint32_t size;            ///< sizeof(PluginDescriptor) the plugin was built with
  std::uint64_t abi_fingerprint; ///< policy_abi_fingerprint() the plugin was built with
  const PluginInfo* (*entry)();  ///< called once, after every check passed
};
static_assert(sizeof(PluginDescriptor) == 32, "the descriptor's layout is part of the ABI");

} // namespace colocsim

/// Defines a plugin's descriptor and entry function from a list of PolicyInfo initialisers.
#define COLOCSIM_POLICY_PLUGIN(...)                                                                          \
  static const colocsim::PluginInfo* colocsim_policy_plugin_entry()                                          \
  {                                                                                                          \
    static const colocsim::PluginInfo info{COLOCSIM_PLUGIN_NAME, {__VA_ARGS__}};                             \
    return &info;                                                                                            \
  }                                                                                                          \
  extern "C" __attribute__((visibility("default")))                                                          \
  const colocsim::PluginDescriptor colocsim_policy_plugin_descriptor{                                        \
      COLOCSIM_POLICY_PLUGIN_MAGIC, COLOCSIM_POLICY_ABI_VERSION, sizeof(colocsim::PluginDescriptor),         \
      colocsim::policy_abi_fingerprint(), &colocsim_policy_plugin_entry};

#ifndef COLOCSIM_PLUGIN_NAME
#define COLOCSIM_PLUGIN_NAME __FILE__
#endif
