// Deliberately broken policy plugins for tests/policies/PluginLoader_test.cpp, one per BAD_PLUGIN_KIND:
//   1 no exported descriptor   2 another ABI version   3 another type layout   4 a built-in policy's name
//   5 a good plugin with a new name (loads; loading it again is a no-op)
//   6 `colocsim_policy_plugin` is an int (42), not a function (the ABI 2 loader called it: SIGSEGV)
//   7 a descriptor with a wrong magic number   8 the descriptor's name on a function
//   9 a good plugin whose constructor writes a marker file ($COLOCSIM_TEST_PLUGIN_MARKER): proves whether
//     a command loaded it (tests/sim/PluginConsent_test.cpp)
// They use no colocsim symbol, so the test executable can load them without exporting its own. The broken
// descriptors' entry aborts: a loader that called it before refusing the descriptor would crash the test.
#include "policies/PluginApi.hpp"

#include <cstdio>
#include <cstdlib>

#if BAD_PLUGIN_KIND == 2 || BAD_PLUGIN_KIND == 3 || BAD_PLUGIN_KIND == 7
static const colocsim::PluginInfo* must_not_be_called()
{
  std::abort();
}
#endif

#if BAD_PLUGIN_KIND == 1
extern "C" __attribute__((visibility("default"))) int not_the_registrar()
{
  return 1;
}
#elif BAD_PLUGIN_KIND == 2
extern "C" __attribute__((visibility("default")))
const colocsim::PluginDescriptor colocsim_policy_plugin_descriptor{
    COLOCSIM_POLICY_PLUGIN_MAGIC, 999u, sizeof(colocsim::PluginDescriptor),
    colocsim::policy_abi_fingerprint(), &must_not_be_called};
#elif BAD_PLUGIN_KIND == 3
extern "C" __attribute__((visibility("default")))
const colocsim::PluginDescriptor colocsim_policy_plugin_descriptor{
    COLOCSIM_POLICY_PLUGIN_MAGIC, COLOCSIM_POLICY_ABI_VERSION, sizeof(colocsim::PluginDescriptor),
    colocsim::policy_abi_fingerprint() ^ 1u, &must_not_be_called};
#elif BAD_PLUGIN_KIND == 6
extern "C" __attribute__((visibility("default"))) int colocsim_policy_plugin = 42;
#elif BAD_PLUGIN_KIND == 7
extern "C" __attribute__((visibility("default")))
const colocsim::PluginDescriptor colocsim_policy_plugin_descriptor{
    0x1234567890abcdefull, COLOCSIM_POLICY_ABI_VERSION, sizeof(colocsim::PluginDescriptor),
    colocsim::policy_abi_fingerprint(), &must_not_be_called};
#elif BAD_PLUGIN_KIND == 8
extern "C" __attribute__((visibility("default"))) int colocsim_policy_plugin_descriptor()
{
  std::abort();
}
#elif BAD_PLUGIN_KIND == 4 || BAD_PLUGIN_KIND == 5 || BAD_PLUGIN_KIND == 9
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
#if BAD_PLUGIN_KIND == 9
// Runs inside dlopen, before any handshake: what the trust rule guards against.
__attribute__((constructor)) static void write_marker()
{
  if (const char* file = std::getenv("COLOCSIM_TEST_PLUGIN_MARKER"))
    if (std::FILE* f = std::fopen(file, "a")) {
      std::fputs("loaded\n", f);
      std::fclose(f);
    }
}
#define TEST_POLICY_NAME "test-marker"
#elif BAD_PLUGIN_KIND == 4
#define TEST_POLICY_NAME "first-fit"
#else
#define TEST_POLICY_NAME "test-nothing"
#endif
COLOCSIM_POLICY_PLUGIN({TEST_POLICY_NAME,
                        "places nothing",
                        "a test",
                        {},
                        [](const colocsim::ParamSet&) -> std::unique_ptr<colocsim::Policy> {
                          return std::make_unique<Nothing>();
                        }})
#endif
