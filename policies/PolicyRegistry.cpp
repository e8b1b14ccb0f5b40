#include "policies/PolicyRegistry.hpp"

#include "policies/BestFit.hpp"
#include "policies/BestFitFrac.hpp"
#include "policies/Complementary.hpp"
#include "policies/DotProduct.hpp"
#include "policies/ExclusiveEasy.hpp"
#include "policies/ExclusiveFcfs.hpp"
#include "policies/Fgd.hpp"
#include "policies/FirstFit.hpp"
#include "policies/GpuClustering.hpp"
#include "policies/GpuPacking.hpp"
#include "policies/Heshare.hpp"
#include "policies/InterferenceAware.hpp"
#include "policies/MigManager.hpp"
#include "policies/PowerAware.hpp"
#include "policies/RandomFit.hpp"

#include <algorithm>

namespace colocsim {

namespace {
template <class P> std::function<std::unique_ptr<Policy>(const ParamSet&)> make()
{
  return [](const ParamSet& params) -> std::unique_ptr<Policy> { return std::make_unique<P>(params); };
}
} // namespace

namespace {
/// Every built-in policy but mig-manager places with Place{job, devices} and no MIG instance, which the
/// engine refuses on a device in mig mode (Place::instances).
PolicyRequirements not_mig()
{
  using enum SharingMode;
  return {{EXCLUSIVE, TIME_SLICE, CCS_2, CCS_4, MPS},
          {},
          "",
          "it never names the MIG instance a mig device needs"};
}

std::vector<PolicyInfo>& registry_storage()
{
  static std::vector<PolicyInfo> registry = {
      {"exclusive-fcfs", "every job gets whole devices of its own, strict submission order",
       "FCFS batch scheduling; the no-sharing baseline of Costa et al. (SSCAD 2025)", ExclusiveFcfs::params(),
       make<ExclusiveFcfs>(), "no sharing: each job takes whole idle devices, the lowest-index first",
       not_mig()},
      {"exclusive-easy", "whole devices per job; EASY backfilling behind the queue head's reservation",
       "Lifka 1995; Mu'alem & Feitelson, IEEE TPDS 2001", ExclusiveEasy::params(), make<ExclusiveEasy>(),
       "no sharing: whole idle devices; later jobs backfill where they do not delay the head", not_mig()},
      {"first-fit", "co-locate jobs on the lowest-index device with a free slot and enough memory",
       "first-fit packing as in GPU co-location baselines (Gandiva, CARMA; reference §3.4, §3.6)",
       FirstFit::params(), make<FirstFit>(),
       "packs: the lowest-index device with a free slot, so it doubles up before using an idle device",
       not_mig()},
      {"best-fit", "co-locate jobs on the device with the least free memory that still fits",
       "best-fit bin packing; the Best-fit baseline of FGD (Weng et al., USENIX ATC'23)", BestFit::params(),
       make<BestFit>(),
       "packs: the device with the least free memory that fits, so shared devices fill before idle ones",
       not_mig()},
      {"complementary", "pair waiting jobs by maximum-weight matching of their predicted co-run benefit",
       "Costa et al., SSCAD 2025 (allocation from prior characterisation); Edmonds' matching (Galil 1986; "
       "our own, policies/MaxWeightMatching.hpp)",
       Complementary::params(), make<Complementary>(),
       "pairs: one complementary pair (or a lone job) per idle device; a device left with one job takes "
       "the waiting job that complements it best",
       not_mig()},
      {"interference-aware", "first-fit, refusing devices where the predicted slowdown exceeds a bound",
       "interference-aware packing (Gandiva introspection, CARMA; reference §3.4, §3.6)",
       InterferenceAware::params(), make<InterferenceAware>(),
       "packs where harmless: the lowest-index device, shared or idle, within max_slowdown; idle devices are "
       "always reached",
       not_mig()},
      {"fgd", "fractional GPUs: the device whose fragmentation (w.r.t. the jobs seen so far) grows least",
       "Fragmentation Gradient Descent, Weng et al., USENIX ATC'23", Fgd::params(), make<Fgd>(),
       "defragments: the device, shared or idle, whose fragmentation grows least", not_mig()},
      {"random", "fractional GPUs: a device drawn uniformly among those that fit (seeded)",
       "the Random-fit baseline of FGD (Weng et al., USENIX ATC'23)", RandomFit::params(), make<RandomFit>(),
       "spreads at random: any device that fits, shared or idle, uniformly", not_mig()},
      {"dot-product", "fractional GPUs: the smallest dot product of free resources and request",
       "Tetris (Grandl et al., SIGCOMM'14) as the DotProd baseline of FGD (Weng et al., USENIX ATC'23)",
       DotProduct::params(), make<DotProduct>(),
       "packs by alignment: the smallest dot product of free share and memory with the request", not_mig()},
      {"gpu-clustering", "fractional GPUs: next to jobs of the same GPU-request type, then idle nodes",
       "the GPU Clustering baseline of FGD (Weng et al., USENIX ATC'23)", GpuClustering::params(),
       make<GpuClustering>(), "clusters: devices of nodes running the same task type first, then idle nodes",
       not_mig()},
      {"gpu-packing",
       "fractional GPUs: shared devices first, then idle devices of busy nodes, then idle nodes",
       "the GPU Packing baseline of FGD (Weng et al., USENIX ATC'23)", GpuPacking::params(),
       make<GpuPacking>(), "packs: shared devices first, then idle devices of busy nodes, then idle nodes",
       not_mig()},
      {"best-fit-frac", "fractional GPUs: the device left with the least free share and memory",
       "the Best-fit baseline of FGD (Weng et al., USENIX ATC'23)", BestFitFrac::params(),
       make<BestFitFrac>(), "packs: the device left with the least free share and memory", not_mig()},
      {"heshare", "energy- and time-aware placement with per-job MPS shares and per-device DVFS",
       "HeShare (Jiang et al., IEEE Transactions on Computers 2026; reference §3.2), our reading of its "
       "abstract",
       Heshare::params(), make<Heshare>(),
       "least predicted energy plus priced completion time (time_price_w), within max_slowdown", not_mig()},
      {"mig-manager",
       "NVIDIA MIG: instance per job by memory estimate and predicted slowdown, fission and fusion of "
       "instances, OOM restart, EASY backfilling behind a waiting head",
       "Saraha et al., Managing Multi Instance GPUs for High Throughput and Energy Savings (arXiv "
       "2508.18556, "
       "2025; reference §3.3), our reading of its abstract",
       MigManager::params(),
       make<MigManager>(),
       "isolates: one job per MIG instance sized to its memory estimate and max_slowdown",
       {{SharingMode::MIG}, {}, "", "it places each job on a MIG instance"}},
      {"power-aware",
       "any placement policy, plus powering idle nodes off and back on for waiting jobs",
       "idle-node shutdown of HPC resource managers (SLURM power saving: SuspendTime, ResumeTimeout); "
       "Pinheiro "
       "et al., COLP 2001",
       PowerAware::params(),
       make<PowerAware>(),
       "as its inner policy; idle nodes powered off, and on again for waiting jobs",
       {{}, {}, "inner", "it places jobs through its inner policy"}},
  };
  return registry;
}
} // namespace

const std::vector<PolicyInfo>& policy_registry()
{
  return registry_storage();
}

void register_policies(const std::vector<PolicyInfo>& policies)
{
  auto& r = registry_storage();
  r.insert(r.end(), policies.begin(), policies.end());
}

namespace {
/// "a", "a or b", "a, b or c"
std::string one_of(const std::vector<std::string>& items)
{
  if (items.size() <= 1) return join(items);
  return join(std::vector<std::string>(items.begin(), items.end() - 1)) + " or " + items.back();
}
} // namespace

std::string describe(const PolicyRequirements& r)
{
  std::vector<std::string> parts;
  if (!r.sharing.empty()) {
    std::vector<std::string> modes;
    for (const auto m : r.sharing)
      modes.emplace_back(to_string(m));
    parts.push_back("platform.sharing " + one_of(modes));
  }
  if (!r.device_types.empty()) parts.push_back("devices of type " + one_of(r.device_types));
  if (parts.empty()) return "";
  return join(parts, "; ") + (r.why.empty() ? "" : " (" + r.why + ")");
}

PolicyRequirements effective_requirements(const PolicyInfo& policy, const ParamSet& params)
{
  PolicyRequirements r = policy.requirements;
  const PolicyInfo* outer = &policy;
  const ParamSet* outer_params = &params;
  ParamSet inner_params;
  // A chain of wrappers (power-aware around a policy); at most as deep as the registry is long.
  for (std::size_t depth = 0; !outer->requirements.inner_policy_param.empty(); ++depth) {
    const auto& key = outer->requirements.inner_policy_param;
    std::string name;
    if (outer_params->has(key))
      name = outer_params->text(key);
    else
      for (const auto& spec : outer->params)
        if (spec.name == key) name = spec.default_text;
    if (name == outer->name || depth > policy_registry().size()) break;
    const PolicyInfo& inner = find_policy(name, SourceLocation{"policy " + policy.name});
    const auto& q = inner.requirements;
    auto intersect = [](auto& mine, const auto& theirs) {
      if (theirs.empty()) return;
      if (mine.empty()) {
        mine = theirs;
        return;
      }
      std::erase_if(
          mine, [&](const auto& x) { return std::find(theirs.begin(), theirs.end(), x) == theirs.end(); });
    };
    const bool inner_asks = !q.sharing.empty() || !q.device_types.empty();
    intersect(r.sharing, q.sharing);
    intersect(r.device_types, q.device_types);
    if (inner_asks) r.why = "its inner policy " + inner.name + (q.why.empty() ? "" : ": " + q.why);
    outer = &inner;
    inner_params = ParamSet(); // the inner policy's own parameters are not needed: defaults decide
    outer_params = &inner_params;
  }
  return r;
}

const PolicyInfo& find_policy(const std::string& name, const SourceLocation& where)
{
  const auto& reg = policy_registry();
  auto it = std::find_if(reg.begin(), reg.end(), [&](const PolicyInfo& p) { return p.name == name; });
  if (it == reg.end()) {
    std::vector<std::string> names;
    for (const auto& p : reg)
      names.push_back(p.name);
    throw InputError(where, "policy",
                     "unknown policy '" + name + "'; valid: " + join(names) +
                         " (a policy from a plugin needs --policy-plugin FILE or the scenario key plugins)");
  }
  return *it;
}

} // namespace colocsim
