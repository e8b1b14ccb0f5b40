// Deliberately broken policy plugins for tests/policies/PluginLoader_test.cpp, one per BAD_PLUGIN_KIND:
//   1 no exported function   2 another ABI version   3 another type layout   4 a built-in policy's name
//   5 a good plugin with a new name (loads; loading it again is a no-op)
// They use no colocsim symbol, so the test executable can load them without exporting its own.
#include "policies/PluginApi.hpp"

#if BAD_PLUGIN_KIND == 1
extern "C" __attribute__((visibility("default"))) int not_the_registrar()
{
  return 1;
}
#elif BAD_PLUGIN_KIND == 2
extern "C" __attribute__((visibility("default"))) const colocsim::PluginInfo* colocsim_policy_plugin()
{
  static const colocsim::PluginInfo info{999u, colocsim::policy_abi_fingerprint(), "old", {}};
  return &info;
}
#elif BAD_PLUGIN_KIND == 3
extern "C" __attribute__((visibility("default"))) const colocsim::PluginInfo* colocsim_policy_plugin()
{
  static const colocsim::PluginInfo info{
      COLOCSIM_POLICY_ABI_VERSION, colocsim::policy_abi_fingerprint() ^ 1u, "other-layout", {}};
  return &info;
}
#elif BAD_PLUGIN_KIND == 4 || BAD_PLUGIN_KIND == 5
namespace {
class Nothing final : public colocsim::Policy {
public:
  std::vector<colocsim::Decision> decide(const colocsim::ClusterView&,
                                         std::span<const colocsim::Event>) override
  {
    return {};
  }
};
} // namespace
COLOCSIM_POLICY_PLUGIN({BAD_PLUGIN_KIND == 4 ? "first-fit" : "test-nothing",
                        "places nothing",
                        "a test",
                        {},
                        [](const colocsim::ParamSet&) -> std::unique_ptr<colocsim::Policy> {
                          return std::make_unique<Nothing>();
                        }})
#endif
