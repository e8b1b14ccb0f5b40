#pragma once
// power-aware: idle-node power-down on top of any placement policy (issue 5). Source: the idle-node
// shutdown of HPC resource managers — SLURM's power saving (`SuspendTime`: a node idle that long is
// powered down; `ResumeTimeout`: the boot delay; the scheduler powers nodes up for pending jobs), and
// Pinheiro et al., "Load balancing and unbalancing for power and performance in cluster-based systems"
// (COLP 2001), which turns nodes off when the load allows and on when it rises.
//
// The inner policy (`inner`, any registered policy, with `inner_params` "k=v;k=v") places jobs exactly as it
// would alone: it sees devices of nodes that are off or booting as unavailable. On top:
//   * a node whose devices have all been empty for `idle_s` seconds is powered off (SetNodePower), the
//     highest-numbered first, keeping at least `min_on` nodes on (or booting);
//   * when jobs wait after the inner policy's decisions and some nodes are off, enough nodes are powered on
//     for the waiting jobs' device requests (at most `max_boots` per decision); they accept jobs after the
//     platform's node boot delay (NodePowered), when the inner policy is called again.
// A node off draws nothing; one booting draws its baseline and idle device power (sim/Engine.cpp).
// Cost per decision: O(log N) per node whose state changes, from the jobs placed and ended (events and the
// inner policy's Place decisions) — no scan of the devices or nodes (it scanned every device's residents).
// Intent (also in `colocsim policies`): as its inner policy; idle nodes powered off, and on again for waiting
// jobs.
#include "policies/Policy.hpp"
#include "policies/PolicyRegistry.hpp"

#include <memory>
#include <set>
#include <utility>
#include <vector>

namespace colocsim {

class PowerAware final : public Policy {
public:
  static std::vector<ParamSpec> params();
  /// The policy underneath, as the parameters inner and inner_params name it.
  struct Inner {
    const PolicyInfo* info = nullptr;
    ParamSet params;
  };
  /// Throws InputError for power-aware itself, an unknown policy or bad inner_params.
  static Inner inner_policy(const ParamSet& params);
  explicit PowerAware(const ParamSet& params);
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override;
  /// The inner policy places the jobs, so it follows the rule.
  void set_gang_rule(GangRule rule) override
  {
    Policy::set_gang_rule(rule);
    inner_->set_gang_rule(rule);
  }

private:
  enum class Node { ON, OFF, BOOTING };
  std::unique_ptr<Policy> inner_;
  double idle_s_;
  std::size_t min_on_, max_boots_;
  /// Adds delta to node n's job count (jobs × devices there); keeps idle_since_ and idle_ in step.
  void set_jobs(std::uint32_t n, long delta, double now);
  void unmark_idle(std::uint32_t n);

  std::vector<Node> state_;
  std::vector<double> idle_since_;                  ///< per node: when it last became empty (< 0: busy)
  std::vector<std::size_t> node_devices_;           ///< devices per node
  std::vector<long> node_jobs_;                     ///< per node: Σ over its devices of the jobs on them
  std::size_t on_or_booting_ = 0;                   ///< nodes not OFF
  std::size_t booting_devices_ = 0;                 ///< devices of BOOTING nodes
  std::set<std::uint32_t> off_;                     ///< OFF nodes, lowest first (powered on in that order)
  std::set<std::pair<double, std::uint32_t>> idle_; ///< (idle since, node) of the empty nodes that are ON
  std::vector<JobIndex> waiting_;                   ///< submitted (or requeued), not yet placed or rejected
  double wake_at_ = -1;                             ///< the wake-up already asked for
};

} // namespace colocsim
