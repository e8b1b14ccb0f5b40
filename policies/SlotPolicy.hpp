#pragma once
// Shared bookkeeping of the co-locating policies (first-fit, best-fit, interference-aware, and the
// fractional-GPU family through FractionalPolicy): per device, the jobs this policy placed, the slots its
// sharing mode allows (max_per_device, capped by the mode's own limit), the free memory by the chosen memory
// notion and the milli-GPU share its jobs requested; the FCFS queue; and the handling of submissions,
// completions, failures and repartitions. A subclass only chooses devices (choose()).
#include "base/Params.hpp"
#include "policies/FcfsQueue.hpp"
#include "policies/FitIndex.hpp"
#include "policies/GangPlacement.hpp"
#include "policies/Policy.hpp"

#include <cstdint>
#include <map>
#include <span>
#include <vector>

namespace colocsim {

class SlotPolicy : public Policy {
public:
  enum class MemoryNotion { DECLARED, PROFILE, NONE };
  /// max_per_device and memory, declared once for every co-locating policy.
  static std::vector<ParamSpec> slot_params(const std::string& default_max_per_device);

  explicit SlotPolicy(const ParamSet& params);
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override;

protected:
  /// Devices for waiting job j (job.devices of them), or an empty list if it cannot start now.
  virtual std::vector<DeviceIndex> choose(const ClusterView& view, JobIndex j, double mem) = 0;
  /// Called whenever a device's free slots or memory change (after the base class updated them).
  virtual void on_device_changed(DeviceIndex) {}
  virtual void initialised(const ClusterView&) {}
  /// Called for every submitted job (before it is queued or rejected): policies that learn the workload.
  virtual void on_submitted(const ClusterView&, JobIndex) {}
  /// Called when job j starts (sign +1) or leaves (−1) `devices`, after the base class's counts changed and
  /// before on_device_changed() for each of them.
  virtual void on_job_moved(const ClusterView&, JobIndex, const std::vector<DeviceIndex>&, int) {}
  /// Place::thread_share for job j (the MPS active-thread fraction; ignored by other sharing modes).
  virtual double thread_share(const ClusterView&, JobIndex) const { return 1.0; }
  /// A job that no devices fit when it reaches the queue head: false (default) waits there, blocking the
  /// jobs behind it; true rejects it (reason "fits no device at its arrival") and goes on with the next.
  virtual bool drop_if_no_fit() const { return false; }
  /// The lowest powered() device at or after `from` with a free slot and at least `mem` free, or
  /// FitIndex::NONE: O(log D).
  std::size_t first_fitting(double mem, std::size_t from = 0) const { return index_.find_first(mem, from); }
  /// Idle devices: none of this policy's jobs (nor any resident found at start), a free slot and powered().
  /// The lowest
  /// idle device of device type `type` at or after `from` with at least `mem` free, or FitIndex::NONE:
  /// O(log D), whatever the number of busy devices before it.
  std::size_t first_idle(double mem, std::uint16_t type, std::size_t from = 0) const
  {
    return type < idle_by_type_.size() ? idle_by_type_[type].find_first(mem, from) : FitIndex::NONE;
  }
  /// The lowest available idle device at or after `from` with at least `mem` free whose type job j accepts
  /// (ClusterView::allows), or FitIndex::NONE: O(T · log D) for T device types, plus one step per idle
  /// device being repartitioned passed over (devices of nodes off or booting are not in the index).
  std::size_t next_idle(const ClusterView& view, JobIndex j, double mem, std::size_t from = 0) const;
  /// Device types of the platform (DeviceView::type is below this) and whether job j accepts type t (false
  /// if the platform has no device of it).
  std::size_t type_count() const { return type_memory_.size(); }
  bool type_allows(const ClusterView& view, JobIndex j, std::uint16_t t) const
  {
    return t < type_memory_.size() && type_memory_[t].memory >= 0 && view.allows(j, type_memory_[t].device);
  }
  bool idle(DeviceIndex d) const { return slots_[d] == 0; }

  bool has_slot(DeviceIndex d) const { return slots_[d] < capacity_[d]; }
  /// False while device d's node is off or booting (from NodePowered{node, false} until
  /// NodePowered{node, true}): such devices are out of the fit indexes, so that no decision steps over the
  /// devices of nodes switched off (it did: O(devices off) per placement attempt while jobs waited).
  /// Subclasses keeping their own candidate sets leave these devices out too. All nodes are taken to be on
  /// at the first call (the engine starts them on).
  bool powered(DeviceIndex d) const { return node_off_[d] == 0; }
  std::uint32_t slots_left(DeviceIndex d) const
  {
    return slots_[d] < capacity_[d] ? capacity_[d] - slots_[d] : 0;
  }
  /// Unallocated share of device d in milli-GPU (1000 − Σ gpu_milli of its jobs; may be negative for
  /// policies that do not check shares).
  int milli_free(DeviceIndex d) const { return MILLI_PER_DEVICE - milli_used_[d]; }
  static constexpr int MILLI_PER_DEVICE = 1000;
  /// Jobs placed on device d earlier in the current decide() call (not yet residents in the view).
  std::span<const JobIndex> placed_now(DeviceIndex d) const
  {
    const std::uint32_t e = d < placed_entry_.size() ? placed_entry_[d] : 0;
    return e == 0 ? std::span<const JobIndex>() : std::span<const JobIndex>(placed_now_[e - 1].jobs);
  }
  double mem_free(DeviceIndex d) const { return mem_free_[d]; }
  std::size_t device_count() const { return slots_.size(); }
  /// A chooser of job j's devices by the scenario's placement rule: choose() offers it the devices it
  /// accepts in its own order and stops when offer() says so (policies/GangPlacement.hpp).
  GangPicker gang_picker(const ClusterView& view, JobIndex j) const
  {
    return nodes_.picker(view, j, gang_rule(), static_cast<std::size_t>(view.job(j).devices), false);
  }
  /// The same for a choose() that offers devices in increasing index: a `pack` job larger than a node then
  /// stops once the nodes passed decide its devices (NodeShape::picker), instead of being offered every
  /// acceptable device.
  GangPicker gang_picker_in_device_order(const ClusterView& view, JobIndex j) const
  {
    return nodes_.picker(view, j, gang_rule(), static_cast<std::size_t>(view.job(j).devices), true);
  }
  std::uint32_t node_of(DeviceIndex d) const { return nodes_.node(d); }
  /// The fewest nodes that can hold job j's devices (NodeShape::min_nodes; O(T) for T device types).
  std::size_t min_nodes(const ClusterView& view, JobIndex j) const
  {
    return nodes_.min_nodes(view, j, static_cast<std::size_t>(view.job(j).devices));
  }
  /// The devices of node `node` (none for a node past the platform's).
  std::span<const DeviceIndex> node_devices(std::uint32_t node) const
  {
    if (node + std::size_t{1} >= node_start_.size()) return {};
    return std::span<const DeviceIndex>(node_devices_)
        .subspan(node_start_[node], node_start_[node + 1] - node_start_[node]);
  }
  /// Counts the events after which ClusterView's DeviceView::available may have changed
  /// (DeviceRepartitioned, NodePowered). Between two equal values, a device's slots, memory and power can
  /// only have changed through on_device_changed().
  std::uint64_t availability_epoch() const { return availability_epoch_; }

private:
  void init(const ClusterView& view);
  double job_mem(const ClusterView& view, JobIndex j) const;
  std::uint32_t capacity_for(SharingMode mode) const;
  void occupy(const ClusterView& view, JobIndex j, const std::vector<DeviceIndex>& devices, int sign);
  void device_changed(DeviceIndex d);
  void node_powered(const NodePowered& e);

  std::uint32_t max_per_device_;
  MemoryNotion memory_;
  bool initialised_ = false;
  FcfsQueue queue_;
  std::vector<std::uint32_t> slots_;    ///< jobs this policy has placed per device
  std::vector<std::uint32_t> capacity_; ///< slots per device
  std::vector<double> mem_free_;        ///< by the memory notion
  std::vector<int> milli_used_;         ///< Σ gpu_milli of the jobs on each device
  /// This decide() call's placements: per device placed on, its jobs in the order placed. The first
  /// `placed_devices_` entries are this call's; the others keep their capacity for later calls, so that a
  /// placement allocates nothing once the policy has run a while.
  struct PlacedOn {
    DeviceIndex device = 0;
    std::vector<JobIndex> jobs;
  };
  std::vector<PlacedOn> placed_now_;
  std::size_t placed_devices_ = 0;
  std::vector<std::uint32_t> placed_entry_; ///< per device: 1 + its entry in placed_now_, 0 if none
  void note_placed(DeviceIndex d, JobIndex j);
  void clear_placed();
  double max_memory_ = 0;
  /// Per device type: its largest device memory and one device of it (to ask ClusterView::allows), so that a
  /// job that names GPU types is refused when none of its types can hold it instead of blocking the queue.
  struct TypeMemory {
    DeviceIndex device = 0; ///< the first device of the type
    double memory = -1;     ///< the largest memory of its devices (-1: the platform has none of the type)
  };
  std::vector<TypeMemory> type_memory_; ///< by DeviceView::type
  FitIndex index_;                      ///< free memory of powered devices with a free slot
  std::vector<std::uint16_t> type_;     ///< each device's DeviceView::type
  std::vector<FitIndex> idle_by_type_;  ///< per device type: free memory of its idle devices
  std::vector<char> node_off_;          ///< per device: 1 while its node is off or booting
  std::vector<std::size_t>
      node_start_; ///< devices of node n: node_devices_[node_start_[n], node_start_[n+1])
  std::vector<DeviceIndex> node_devices_;
  NodeShape nodes_;
  std::uint64_t availability_epoch_ = 0;
};

} // namespace colocsim
