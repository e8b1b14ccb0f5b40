#pragma once
// exclusive-fcfs: the no-sharing baseline. Every job gets whole devices of its own; jobs start in strict
// submission order (the queue head blocks the rest), each on the lowest-index free devices of the types it
// accepts (a job of several devices: by the scenario's placement rule, policies/GangRule.hpp, among them).
// Like a batch scheduler it does not read memory requests: on a platform of several memory sizes a job that
// names no type may land on a device too small for it, run out of memory and be requeued. Source: the classic
// FCFS batch scheduler (Feitelson et al.); the "every job gets a whole device" baseline of Costa et al.
// (SSCAD 2025) and of the co-location literature (reference §3). Intent (also in `colocsim policies`): no
// sharing: each job takes whole idle devices, the lowest-index first. A gang that waits is scanned once, then
// counted again only on the nodes whose devices were freed (WaitingGang).
#include "base/Params.hpp"
#include "policies/FcfsQueue.hpp"
#include "policies/GangPlacement.hpp"
#include "policies/Policy.hpp"

#include <set>
#include <vector>

namespace colocsim {

class ExclusiveFcfs final : public Policy {
public:
  static std::vector<ParamSpec> params();
  explicit ExclusiveFcfs(const ParamSet& params);
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override;

private:
  void init(const ClusterView& view);
  bool initialised_ = false;
  FcfsQueue queue_;
  std::set<DeviceIndex> free_;
  NodeShape nodes_;
  std::vector<std::vector<DeviceIndex>> node_devices_; ///< per node, its devices
  WaitingGang waiting_;                                ///< the queue head's counts while it waits
  std::vector<std::uint32_t> offered_;                 ///< the node of each device offered by a try
};

} // namespace colocsim
