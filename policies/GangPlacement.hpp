#pragma once
// The one implementation of the gang rules (policies/GangRule.hpp) that every built-in policy placing jobs
// of more than one device goes through. The policy offers the devices it would accept for the job right now
// (its own test: a free slot, memory, device type, node powered...) one at a time, in its own order of
// preference; GangPicker says when no further device can change the choice and then returns the job's
// devices by the rule. The policy's order decides among nodes too: under `pack` the job goes to the node
// that gathers `need` acceptable devices first in that order, i.e. the node whose need-th preferred device
// comes earliest (first-fit: the first node in device order with enough free devices; best-fit: the node
// whose devices are the tightest fits). So a policy keeps its own character across nodes, and no second
// ranking of nodes has to be invented per policy.
//
// Cost: under `pack` a job that fits in one node stops at the first node that gathers `need` devices, so at
// most nodes × (need − 1) + 1 devices are offered, whatever the number of devices. A job larger than every
// node stops as soon as the nodes already passed decide its devices when the caller offers each node's
// devices one after another (GangPicker::nodes_in_order: first-fit, exclusive-fcfs and exclusive-easy, which
// offer in device order, on a platform whose nodes hold consecutive devices): once it has passed as many
// nodes with every device acceptable as the job takes whole, and, if a remainder is left, a node with
// exactly that many; otherwise (another order, or nodes that never qualify) it is offered every acceptable
// device. A `spread` job with fewer nodes offering devices than it needs is offered every acceptable device.
// `any` and single-device jobs stop after `need` devices, as before the rule existed. A gang that waits at
// the head of first-fit's or exclusive-fcfs's queue is offered every acceptable device at its first try only
// (WaitingGang, below): later tries count again the nodes whose devices changed.
#include "policies/GangRule.hpp"
#include "policies/Policy.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace colocsim {

class GangPicker;

/// The platform's nodes as the rules need them: each device's node, and how many devices of each type each
/// node has (O(D) once, at a policy's first call).
class NodeShape {
public:
  void init(const ClusterView& view);
  bool ready() const { return !node_.empty(); }
  std::uint32_t node(DeviceIndex d) const { return node_[d]; }
  /// The fewest nodes that can ever hold `need` devices of the types job j accepts: 1 if one node has that
  /// many, else the count of the largest nodes (by such devices) that together have enough. O(T) per call
  /// for T device types once the job's set of accepted types has been seen with this `need`.
  std::size_t min_nodes(const ClusterView& view, JobIndex j, std::size_t need) const;
  /// The most devices of the types job j accepts that one node has. O(T) per call, as min_nodes.
  std::size_t largest_node(const ClusterView& view, JobIndex j) const;
  /// Whether every node's devices are consecutive device indexes (the platforms colocsim builds), so that
  /// devices offered in increasing index come node after node.
  bool contiguous() const { return contiguous_; }
  /// A GangPicker for job j's `need` devices under `rule` (min_nodes for it). `in_device_order`: the caller
  /// offers devices in increasing index; on a contiguous() platform the picker is then told so
  /// (GangPicker::nodes_in_order), and a `pack` job larger than a node stops early.
  GangPicker picker(const ClusterView& view, JobIndex j, GangRule rule, std::size_t need,
                    bool in_device_order) const;

private:
  /// Per device type: '1' if job j accepts it and the platform has some, else '0'.
  std::string accepted_types(const ClusterView& view, JobIndex j) const;
  /// Per node: how many devices of the accepted types (accepted_types()) it has.
  std::vector<std::size_t> node_sizes(const std::string& accepted) const;

  std::vector<std::uint32_t> node_;                    ///< per device
  std::vector<std::vector<std::uint32_t>> type_nodes_; ///< [type][node]: devices of that type on the node
  std::vector<DeviceIndex> type_device_;               ///< one device of each type (to ask allows())
  bool contiguous_ = true;
  mutable std::map<std::pair<std::string, std::size_t>, std::size_t> min_nodes_;
  mutable std::map<std::string, std::size_t> largest_node_; ///< by accepted_types()
};

/// Chooses a gang's devices among those a policy offers (see the top of this file).
class GangPicker {
public:
  /// `min_nodes`: NodeShape::min_nodes for the job (used by `pack` only).
  GangPicker(GangRule rule, std::size_t need, std::size_t min_nodes);
  /// Offers the next acceptable device in the policy's order of preference, on `node`. True once no
  /// further device can change the choice: the caller stops offering.
  bool offer(DeviceIndex d, std::uint32_t node);
  /// The caller's promise, before the first offer: it offers each node's devices one after another (never a
  /// device of a node once it has offered a device of a later node), and no node has more than
  /// `largest_node` devices it would accept for the job (NodeShape::largest_node). A `pack` job larger than
  /// a node then stops once the nodes passed decide its devices (the top of this file): the same devices as
  /// if every acceptable device had been offered. An offer that breaks the promise throws
  /// std::logic_error. No effect under other rules or for a job that fits in a node.
  void nodes_in_order(std::size_t largest_node);
  /// The job's `need` devices by the rule (in the order offered), or none if the offered devices cannot
  /// hold it by the rule (it waits): fewer than `need` in all, or, under `pack`, not on as few nodes as
  /// min_nodes.
  std::vector<DeviceIndex> take() const;

private:
  GangRule rule_;
  std::size_t need_;
  std::size_t min_nodes_;
  std::vector<std::pair<DeviceIndex, std::uint32_t>> offered_;
  std::unordered_map<std::uint32_t, std::size_t> count_; ///< devices offered per node
  std::vector<std::uint32_t> nodes_;                     ///< nodes in the order of their first offer
  DeviceIndex single_ = 0;                               ///< need_ 1: the device offered
  bool has_single_ = false;
  bool complete_ = false; ///< pack, one node: a node gathered need_ devices
  std::uint32_t complete_node_ = 0;
  // nodes_in_order (pack, larger than a node): the nodes passed, whose counts can no longer change.
  void close_node(std::size_t count);
  std::size_t largest_ = 0;     ///< the promised bound on a node's count; 0: no promise
  bool open_ = false;           ///< a node is being offered and can still gain devices
  std::uint32_t open_node_ = 0; ///< that node
  std::size_t full_passed_ = 0; ///< nodes passed with largest_ devices
  bool rest_passed_ = false;    ///< a node passed with exactly need_ % largest_ devices
};

/// How many acceptable devices each node has, as devices are added (EASY backfilling's look ahead at the
/// devices that running jobs will free) or a node's count is set again (first-fit's memory of a waiting
/// gang): whether the rule could place a gang on them. O(log N) per add or set.
class NodeTally {
public:
  void add(std::uint32_t node, std::size_t devices = 1);
  /// Node `node` now has `devices` acceptable devices (more or fewer than before).
  void set(std::uint32_t node, std::size_t devices);
  /// Whether `need` devices can be taken by `rule`: under `pack` on at most `min_nodes` nodes; otherwise
  /// anywhere. O(min_nodes). With the counts of every device a policy would offer, this is exactly whether
  /// GangPicker::take() returns the job's devices rather than none (pack takes the fewest nodes, the
  /// fullest first, and waits only if that is more than min_nodes).
  bool fits(GangRule rule, std::size_t need, std::size_t min_nodes) const;
  /// The devices added on `node`.
  std::size_t count(std::uint32_t node) const
  {
    const auto it = count_.find(node);
    return it == count_.end() ? 0 : it->second;
  }

private:
  std::unordered_map<std::uint32_t, std::size_t> count_;
  std::multiset<std::size_t, std::greater<>> counts_; ///< the nodes' counts, largest first
  std::size_t total_ = 0;
};

/// A gang that waits at the head of a strict FCFS queue (first-fit, exclusive-fcfs): after a try that offered
/// every acceptable device and found none by the rule, the policy remember()s the nodes of the devices
/// offered; it touch()es the node of every device whose state changed since, and the next try asks
/// still_waits(), which counts again only the touched nodes (`count`: how many devices of the node the
/// policy would offer now) and answers by NodeTally::fits on the counts, exactly what the scan would find.
/// So a waiting gang costs the nodes that changed per try, not every free device. The policy forget()s when
/// anything else may have changed what it would offer (a device made available, a repartition).
class WaitingGang {
public:
  /// Job j's try offered devices on `offered` (a node once per device) and found none.
  void remember(JobIndex j, GangRule rule, std::size_t need, std::size_t min_nodes,
                const std::vector<std::uint32_t>& offered);
  void forget();
  bool active() const { return active_; }
  /// A device of `node` changed (no effect unless active()).
  void touch(std::uint32_t node)
  {
    if (!active_) return;
    if (touched_flag_.size() <= node) touched_flag_.resize(node + std::size_t{1}, 0);
    if (touched_flag_[node]) return;
    touched_flag_[node] = 1;
    touched_.push_back(node);
  }
  /// Whether job j still waits: true only if it is the job remembered and the counts (the touched nodes
  /// counted again by `count(node)`) do not place it by the rule. Otherwise forgets: the caller scans.
  template <class Count> bool still_waits(JobIndex j, Count count)
  {
    if (!active_) return false;
    if (job_ != j) {
      forget();
      return false;
    }
    for (const std::uint32_t node : touched_) {
      touched_flag_[node] = 0;
      tally_.set(node, count(node));
    }
    touched_.clear();
    if (tally_.fits(rule_, need_, min_nodes_)) {
      forget();
      return false;
    }
    return true;
  }

private:
  bool active_ = false;
  JobIndex job_ = 0;
  GangRule rule_ = GangRule::ANY;
  std::size_t need_ = 0;
  std::size_t min_nodes_ = 1;
  NodeTally tally_;
  std::vector<char> touched_flag_;     ///< per node: in touched_
  std::vector<std::uint32_t> touched_; ///< nodes with a device changed since the counts
};

} // namespace colocsim
