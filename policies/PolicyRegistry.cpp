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
std::vector<PolicyInfo>& registry_storage()
{
  static std::vector<PolicyInfo> registry = {
      {"exclusive-fcfs", "every job gets whole devices of its own, strict submission order",
       "FCFS batch scheduling; the no-sharing baseline of Costa et al. (SSCAD 2025)", ExclusiveFcfs::params(),
       make<ExclusiveFcfs>(), "no sharing: each job takes whole idle devices, the lowest-index first"},
      {"exclusive-easy", "whole devices per job; EASY backfilling behind the queue head's reservation",
       "Lifka 1995; Mu'alem & Feitelson, IEEE TPDS 2001", ExclusiveEasy::params(), make<ExclusiveEasy>(),
       "no sharing: whole idle devices; later jobs backfill where they do not delay the head"},
      {"first-fit", "co-locate jobs on the lowest-index device with a free slot and enough memory",
       "first-fit packing as in GPU co-location baselines (Gandiva, CARMA; reference §3.4, §3.6)",
       FirstFit::params(), make<FirstFit>(),
       "packs: the lowest-index device with a free slot, so it doubles up before using an idle device"},
      {"best-fit", "co-locate jobs on the device with the least free memory that still fits",
       "best-fit bin packing; the Best-fit baseline of FGD (Weng et al., USENIX ATC'23)", BestFit::params(),
       make<BestFit>(),
       "packs: the device with the least free memory that fits, so shared devices fill before idle ones"},
      {"complementary", "pair waiting jobs by maximum-weight matching of their predicted co-run benefit",
       "Costa et al., SSCAD 2025 (allocation from prior characterisation); Edmonds' matching (Boost.Graph)",
       Complementary::params(), make<Complementary>(),
       "pairs: one complementary pair (or a lone job) per idle device; never joins a busy device"},
      {"interference-aware", "first-fit, refusing devices where the predicted slowdown exceeds a bound",
       "interference-aware packing (Gandiva introspection, CARMA; reference §3.4, §3.6)",
       InterferenceAware::params(), make<InterferenceAware>(),
       "packs where harmless: the lowest-index device, shared or idle, within max_slowdown; idle devices are "
       "always reached"},
      {"fgd", "fractional GPUs: the device whose fragmentation (w.r.t. the jobs seen so far) grows least",
       "Fragmentation Gradient Descent, Weng et al., USENIX ATC'23", Fgd::params(), make<Fgd>(),
       "defragments: the device, shared or idle, whose fragmentation grows least"},
      {"random", "fractional GPUs: a device drawn uniformly among those that fit (seeded)",
       "the Random-fit baseline of FGD (Weng et al., USENIX ATC'23)", RandomFit::params(), make<RandomFit>(),
       "spreads at random: any device that fits, shared or idle, uniformly"},
      {"dot-product", "fractional GPUs: the smallest dot product of free resources and request",
       "Tetris (Grandl et al., SIGCOMM'14) as the DotProd baseline of FGD (Weng et al., USENIX ATC'23)",
       DotProduct::params(), make<DotProduct>(),
       "packs by alignment: the smallest dot product of free share and memory with the request"},
      {"gpu-clustering", "fractional GPUs: next to jobs of the same GPU-request type, then idle nodes",
       "the GPU Clustering baseline of FGD (Weng et al., USENIX ATC'23)", GpuClustering::params(),
       make<GpuClustering>(), "clusters: devices of nodes running the same task type first, then idle nodes"},
      {"gpu-packing",
       "fractional GPUs: shared devices first, then idle devices of busy nodes, then idle nodes",
       "the GPU Packing baseline of FGD (Weng et al., USENIX ATC'23)", GpuPacking::params(),
       make<GpuPacking>(), "packs: shared devices first, then idle devices of busy nodes, then idle nodes"},
      {"best-fit-frac", "fractional GPUs: the device left with the least free share and memory",
       "the Best-fit baseline of FGD (Weng et al., USENIX ATC'23)", BestFitFrac::params(),
       make<BestFitFrac>(), "packs: the device left with the least free share and memory"},
      {"heshare", "energy-aware packing with per-job MPS shares and per-device DVFS",
       "HeShare (Jiang et al., IEEE Transactions on Computers 2026; reference §3.2), our reading of its "
       "abstract",
       Heshare::params(), make<Heshare>(),
       "packs for energy: busy devices (static power already paid) before idle ones, within max_slowdown"},
      {"mig-manager",
       "NVIDIA MIG: instance per job by memory estimate, fission and fusion of instances, OOM restart",
       "Saraha et al., Managing Multi Instance GPUs for High Throughput and Energy Savings (arXiv "
       "2508.18556, "
       "2025; reference §3.3), our reading of its abstract",
       MigManager::params(), make<MigManager>(),
       "isolates: one job per MIG instance sized to its memory estimate"},
      {"power-aware", "any placement policy, plus powering idle nodes off and back on for waiting jobs",
       "idle-node shutdown of HPC resource managers (SLURM power saving: SuspendTime, ResumeTimeout); "
       "Pinheiro "
       "et al., COLP 2001",
       PowerAware::params(), make<PowerAware>(),
       "as its inner policy; idle nodes powered off, and on again for waiting jobs"},
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
