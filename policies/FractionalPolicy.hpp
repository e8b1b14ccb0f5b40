#pragma once
// Shared bookkeeping of the fractional-GPU placement policies of the FGD study (Weng et al., "Beware of
// Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC'23): fgd
// and its baselines random, dot-product, gpu-clustering, gpu-packing and best-fit-frac.
//
// Each device holds 1000 milli-GPU. A job takes job.gpu_milli on each of its job.devices devices; a device
// fits it if that share is still unallocated (Σ gpu_milli ≤ 1000), it has a free slot (SlotPolicy:
// max_per_device and the sharing mode's limit) and enough free memory by the memory notion. Jobs are
// placed in submission order (SlotPolicy: the queue head blocks the rest; with no_fit=drop a job that fits
// nowhere when its turn comes is rejected instead, as the FGD study drops a pod).
//
// Simplifications, documented in policies/README.md: the paper's nodes carry CPUs and several GPUs and a pod
// lands on one node; here every device is scored on its own (a multi-device job takes its devices one by
// one from the best-scored, possibly on different nodes, as the engine allows). Nodes enter only through
// the node's task-type mask that gpu-clustering and gpu-packing read. Device memory is the second resource
// dimension where the paper has CPU.
//
// Cost: devices with a free slot and a non-zero free share sit in buckets keyed by (free share, whether
// the next job takes the last slot, the node's task-type mask). A decision scores each non-empty bucket
// with enough free share (at most 2 · 1000 · 64, in practice a few dozen) and takes the best devices from
// the best buckets: O(B · log D) for B non-empty buckets, never a scan of the devices.
#include "policies/SlotPolicy.hpp"

#include <array>
#include <compare>
#include <set>

namespace colocsim {

class FractionalPolicy : public SlotPolicy {
public:
  /// slot_params with max_per_device defaulting to the mps limit (48), and mps_share.
  static std::vector<ParamSpec> fractional_params();
  /// node_tags: keep the node task-type mask in the bucket key (gpu-clustering, gpu-packing).
  FractionalPolicy(const ParamSet& params, bool node_tags);

  /// Task types of the FGD simulator's GPU affinity: a share of one GPU, or k whole GPUs.
  enum Tag : std::uint8_t { SHARE, WHOLE_1, WHOLE_2, WHOLE_4, WHOLE_8, WHOLE_OTHER, TAG_COUNT };
  static Tag tag_of(const Job& job);
  static std::uint8_t tag_bit(Tag t) { return static_cast<std::uint8_t>(1u << t); }

protected:
  struct BucketKey {
    int free_milli = 0;         ///< unallocated share of the devices, 1..1000
    bool last_slot = false;     ///< the next job placed there takes the device's last slot
    std::uint8_t node_tags = 0; ///< task types running on the device's node (0 unless node_tags)
    // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 flags the 0 of the synthesised comparison
    auto operator<=>(const BucketKey&) const = default;
  };
  struct Bucket {
    std::set<std::pair<double, DeviceIndex>> by_memory; ///< (free memory, device)
    std::vector<DeviceIndex> members;                   ///< the same devices, for uniform sampling
  };
  /// What is being placed: the job's share per device (1..1000), its device count, memory and task type.
  struct Request {
    JobIndex job = 0;
    int milli = 0;
    int devices = 1;
    double mem = 0;
    Tag tag = SHARE;
  };

  /// Score of placing the request on `device`, a device of bucket `key` (the one with the least free
  /// memory that fits): lower is better. Ties go to the bucket with the smaller free share, then the device
  /// with less free memory, then the lower index.
  virtual double score(const Request& r, const BucketKey& key, DeviceIndex device) const = 0;
  /// Called once per choice before any score() (e.g. to refresh a table of the workload).
  virtual void prepare(const Request&) {}

  std::vector<DeviceIndex> choose(const ClusterView& view, JobIndex j, double mem) override;
  Request request(const ClusterView& view, JobIndex j, double mem) const;
  const std::map<BucketKey, Bucket>& buckets() const { return buckets_; }
  double mem_capacity(DeviceIndex d) const { return mem_capacity_[d]; }

private:
  void initialised(const ClusterView& view) override;
  void on_device_changed(DeviceIndex d) override;
  void on_job_moved(const ClusterView& view, JobIndex j, const std::vector<DeviceIndex>& devices,
                    int sign) override;
  double thread_share(const ClusterView& view, JobIndex j) const override;
  bool drop_if_no_fit() const override { return drop_; }
  void add_tag(std::uint32_t node, Tag t, int sign);

  bool node_tags_;
  bool mps_share_;
  bool drop_; ///< no_fit=drop
  std::map<BucketKey, Bucket> buckets_;
  struct Slot {
    bool present = false;
    BucketKey key;
    double mem = 0;
    std::size_t pos = 0; ///< index in the bucket's members
  };
  std::vector<Slot> where_; ///< each device's place in buckets_
  std::vector<double> mem_capacity_;
  std::vector<std::uint32_t> node_of_;
  std::vector<std::vector<DeviceIndex>> node_devices_;
  std::vector<std::array<std::uint32_t, TAG_COUNT>> node_tag_count_;
  std::vector<std::uint8_t> node_mask_;
};

} // namespace colocsim
