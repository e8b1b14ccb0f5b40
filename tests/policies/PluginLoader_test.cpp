// The plugin loader (policies/PluginLoader.hpp) refuses what it cannot use, with the file and the reason:
// a missing file, a file that is not a shared library, no exported function, another ABI version or type
// layout, a policy name that is taken. A good plugin registers its policy once, however often it is loaded.
#include "tests/CatchCompat.hpp"

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
  CHECK_THAT(error_of(PLUGIN_no_symbol), ContainsSubstring("exports no function 'colocsim_policy_plugin'"));
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
  const auto names = load_policy_plugin(PLUGIN_good);
  CHECK(names == std::vector<std::string>{"test-nothing"});
  CHECK(policy_registry().size() == before + 1);
  CHECK(policy_registry().back().name == "test-nothing");
  CHECK(find_policy("test-nothing").description == "places nothing");
  auto policy = find_policy("test-nothing").factory(ParamSet{});
  REQUIRE(policy);
  CHECK(load_policy_plugin(PLUGIN_good) == names); // again: a no-op
  CHECK(policy_registry().size() == before + 1);
  // The ABI fingerprint is a compile-time constant of the headers.
  static_assert(policy_abi_fingerprint() != 0);
}
