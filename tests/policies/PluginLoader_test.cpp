// The plugin loader (policies/PluginLoader.hpp) refuses what it cannot use, with the file and the reason:
// a missing file, a file that is not a shared library, no exported descriptor, a descriptor that is not a
// data object, has another magic, ABI version or type layout, a policy name that is taken. The handshake
// reads the descriptor as data: the broken descriptors' entry functions abort, so calling one would crash
// this test (as `colocsim_policy_plugin = 42` crashed the ABI 2 loader, which called it). A good plugin
// registers its policy once, however often it is loaded, and its file's SHA-256 is recorded.
#include "tests/CatchCompat.hpp"

#include "base/Sha256.hpp"
#include "policies/PluginApi.hpp"
#include "policies/PluginLoader.hpp"

#include <fstream>

using namespace colocsim;
using colocsim::test::ContainsSubstring;

namespace {
std::string error_of(const std::string& path)
{
  try {
    load_policy_plugin(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
} // namespace

TEST_CASE("a policy plugin that cannot be used is refused with the reason", "[plugins]")
{
  CHECK_THAT(error_of("/nonexistent/libx.so"),
             ContainsSubstring("/nonexistent/libx.so: policy-plugin: no such file"));
  const std::string text = std::string(COLOCSIM_SOURCE_DIR) + "/README.md";
  CHECK_THAT(error_of(text),
             ContainsSubstring("cannot load it: ") && ContainsSubstring("invalid ELF header"));
  CHECK_THAT(
      error_of(PLUGIN_no_symbol),
      ContainsSubstring(std::string(PLUGIN_no_symbol) +
                        ": policy-plugin: exports no 'colocsim_policy_plugin_descriptor'; expected the "
                        "data symbol 'colocsim_policy_plugin_descriptor' (a 32-byte descriptor with "
                        "magic 0x474c50434f4c4f43, policy ABI version " +
                        std::to_string(COLOCSIM_POLICY_ABI_VERSION) + ")"));
  // `extern "C" int colocsim_policy_plugin = 42;`: the old entry's name on 4 bytes of data.
  CHECK_THAT(error_of(PLUGIN_int_symbol),
             ContainsSubstring(std::string(PLUGIN_int_symbol) +
                               ": policy-plugin: exports 'colocsim_policy_plugin' (a data object of 4 bytes, "
                               "the entry of plugins built for policy ABI version 2 or older) but no "
                               "'colocsim_policy_plugin_descriptor'; expected the data symbol") &&
                 ContainsSubstring("rebuild the plugin"));
  CHECK_THAT(
      error_of(PLUGIN_wrong_magic),
      ContainsSubstring("exports 'colocsim_policy_plugin_descriptor' (a data object of 32 bytes) with "
                        "magic 0x1234567890abcdef, not a colocsim plugin descriptor; expected the data "
                        "symbol 'colocsim_policy_plugin_descriptor' (a 32-byte descriptor with magic "
                        "0x474c50434f4c4f43"));
  CHECK_THAT(error_of(PLUGIN_function_descriptor),
             ContainsSubstring("exports 'colocsim_policy_plugin_descriptor' as a function; expected the data "
                               "symbol"));
  CHECK_THAT(error_of(PLUGIN_old_abi),
             ContainsSubstring("built for policy ABI version 999, this colocsim has version " +
                               std::to_string(COLOCSIM_POLICY_ABI_VERSION)) &&
                 ContainsSubstring("rebuild the plugin"));
  CHECK_THAT(error_of(PLUGIN_other_layout), ContainsSubstring("another layout of the policy API types"));
  CHECK_THAT(error_of(PLUGIN_name_clash),
             ContainsSubstring("policy 'first-fit' is already registered (built in, or by another plugin)"));
  // None of them registered anything.
  for (const auto& p : policy_registry())
    CHECK(p.name != "test-nothing");
}

TEST_CASE("a good policy plugin registers its policy next to the built-in ones, once", "[plugins]")
{
  const auto before = policy_registry().size();
  const auto loaded = load_policy_plugin(PLUGIN_good);
  const auto names = loaded.policies;
  CHECK(names == std::vector<std::string>{"test-nothing"});
  CHECK(loaded.sha256 == sha256_file(PLUGIN_good));
  REQUIRE(loaded_policy_plugin(PLUGIN_good));
  CHECK(loaded_policy_plugin(PLUGIN_good)->sha256 == loaded.sha256);
  CHECK(policy_registry().size() == before + 1);
  CHECK(policy_registry().back().name == "test-nothing");
  CHECK(find_policy("test-nothing").description == "places nothing");
  auto policy = find_policy("test-nothing").factory(ParamSet{});
  REQUIRE(policy);
  CHECK(load_policy_plugin(PLUGIN_good).policies == names); // again: a no-op
  CHECK(policy_registry().size() == before + 1);
  // The ABI fingerprint is a compile-time constant of the headers.
  static_assert(policy_abi_fingerprint() != 0);
}
