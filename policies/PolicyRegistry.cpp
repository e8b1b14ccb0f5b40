#include "policies/PolicyRegistry.hpp"

#include "policies/ExclusiveFcfs.hpp"
#include "policies/FirstFit.hpp"

#include <algorithm>

namespace colocsim {

namespace {
template <class P> std::function<std::unique_ptr<Policy>(const ParamSet&)> make()
{
  return [](const ParamSet& params) -> std::unique_ptr<Policy> { return std::make_unique<P>(params); };
}
} // namespace

const std::vector<PolicyInfo>& policy_registry()
{
  static const std::vector<PolicyInfo> registry = {
      {"exclusive-fcfs", "every job gets whole devices of its own, strict submission order",
       "FCFS batch scheduling; the no-sharing baseline of Costa et al. (SSCAD 2025)", ExclusiveFcfs::params(),
       make<ExclusiveFcfs>()},
      {"first-fit", "co-locate jobs on the lowest-index device with a free slot and enough memory",
       "first-fit packing as in GPU co-location baselines (Gandiva, CARMA; reference §3.4, §3.6)",
       FirstFit::params(), make<FirstFit>()},
  };
  return registry;
}

const PolicyInfo& find_policy(const std::string& name, const SourceLocation& where)
{
  const auto& reg = policy_registry();
  auto it = std::find_if(reg.begin(), reg.end(), [&](const PolicyInfo& p) { return p.name == name; });
  if (it == reg.end()) {
    std::vector<std::string> names;
    for (const auto& p : reg)
      names.push_back(p.name);
    throw InputError(where, "policy", "unknown policy '" + name + "'; valid: " + join(names));
  }
  return *it;
}

} // namespace colocsim
