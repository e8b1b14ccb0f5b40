#include "policies/FractionalPolicy.hpp"

#include <algorithm>

namespace colocsim {

std::vector<ParamSpec> FractionalPolicy::fractional_params()
{
  auto specs = slot_params("48");
  specs.push_back(ParamSpec{.name = "mps_share",
                            .type = ParamType::BOOL,
                            .default_text = "true",
                            .help = "on mps devices, cap each job's active threads at its gpu_milli share "
                                    "(CUDA_MPS_ACTIVE_THREAD_PERCENTAGE), as GPU-sharing clusters enforce it",
                            .choices = {}});
  specs.push_back(
      ParamSpec{.name = "no_fit",
                .type = ParamType::CHOICE,
                .default_text = "wait",
                .help = "a job that fits no device when its turn comes: wait (it blocks the jobs behind "
                        "it) or drop (rejected, counted with the reason, as the FGD study counts a "
                        "failed pod)",
                .choices = {"wait", "drop"}});
  return specs;
}

FractionalPolicy::FractionalPolicy(const ParamSet& p, bool node_tags)
    : SlotPolicy(p), node_tags_(node_tags), mps_share_(p.flag("mps_share")), drop_(p.text("no_fit") == "drop")
{
}

FractionalPolicy::Tag FractionalPolicy::tag_of(const Job& job)
{
  if (job.gpu_milli < MILLI_PER_DEVICE) return SHARE;
  switch (job.devices) {
  case 1:
    return WHOLE_1;
  case 2:
    return WHOLE_2;
  case 4:
    return WHOLE_4;
  case 8:
    return WHOLE_8;
  default:
    return WHOLE_OTHER;
  }
}

FractionalPolicy::Request FractionalPolicy::request(const ClusterView& view, JobIndex j, double mem) const
{
  const auto& job = view.job(j);
  return Request{j, std::clamp(job.gpu_milli, 1, MILLI_PER_DEVICE), job.devices, mem, tag_of(job)};
}

double FractionalPolicy::thread_share(const ClusterView& view, JobIndex j) const
{
  if (!mps_share_) return 1.0;
  return std::clamp(view.job(j).gpu_milli, 1, MILLI_PER_DEVICE) / static_cast<double>(MILLI_PER_DEVICE);
}

void FractionalPolicy::initialised(const ClusterView& view)
{
  const std::size_t n = view.device_count();
  where_.assign(n, Slot{});
  mem_capacity_.resize(n);
  node_of_.resize(n);
  for (DeviceIndex d = 0; d < n; ++d) {
    const auto dv = view.device(d);
    mem_capacity_[d] = dv.memory_bytes;
    node_of_[d] = dv.node;
    if (dv.node >= node_devices_.size()) node_devices_.resize(dv.node + 1);
    node_devices_[dv.node].push_back(d);
  }
  node_tag_count_.assign(node_devices_.size(), {});
  node_mask_.assign(node_devices_.size(), 0);
  if (node_tags_) // jobs already running; SlotPolicy buckets every device after this
    for (DeviceIndex d = 0; d < n; ++d)
      for (const JobIndex r : view.residents(d)) {
        const Tag t = tag_of(view.job(r));
        ++node_tag_count_[node_of_[d]][t];
        node_mask_[node_of_[d]] |= tag_bit(t);
      }
}

void FractionalPolicy::add_tag(std::uint32_t node, Tag t, int sign)
{
  auto& count = node_tag_count_[node][t];
  count = static_cast<std::uint32_t>(static_cast<int>(count) + sign);
  const auto mask =
      static_cast<std::uint8_t>(count > 0 ? node_mask_[node] | tag_bit(t) : node_mask_[node] & ~tag_bit(t));
  if (mask == node_mask_[node]) return;
  node_mask_[node] = mask;
  for (const DeviceIndex d : node_devices_[node])
    on_device_changed(d);
}

void FractionalPolicy::on_job_moved(const ClusterView& view, JobIndex j,
                                    const std::vector<DeviceIndex>& devices, int sign)
{
  if (!node_tags_) return;
  const Tag t = tag_of(view.job(j));
  for (const DeviceIndex d : devices)
    add_tag(node_of_[d], t, sign);
}

void FractionalPolicy::on_device_changed(DeviceIndex d)
{
  auto& w = where_[d];
  if (w.present) {
    auto it = buckets_.find(w.key);
    auto& b = it->second;
    b.by_memory.erase({w.mem, d});
    const DeviceIndex moved = b.members.back(); // swap-remove keeps members dense
    b.members[w.pos] = moved;
    where_[moved].pos = w.pos;
    b.members.pop_back();
    if (b.members.empty()) buckets_.erase(it);
    w.present = false;
  }
  const int free_milli = milli_free(d);
  if (!has_slot(d) || free_milli <= 0) return;
  w.key = BucketKey{std::min(free_milli, MILLI_PER_DEVICE), slots_left(d) == 1,
                    node_tags_ ? node_mask_[node_of_[d]] : std::uint8_t{0}};
  w.mem = mem_free(d);
  auto& b = buckets_[w.key];
  b.by_memory.insert({w.mem, d});
  w.pos = b.members.size();
  b.members.push_back(d);
  w.present = true;
}

std::vector<DeviceIndex> FractionalPolicy::choose(const ClusterView& view, JobIndex j, double mem)
{
  const Request r = request(view, j, mem);
  prepare(r);
  struct Scored {
    double score;
    std::map<BucketKey, Bucket>::const_iterator bucket;
    std::set<std::pair<double, DeviceIndex>>::const_iterator first;
  };
  std::vector<Scored> candidates;
  for (auto it = buckets_.lower_bound(BucketKey{r.milli, false, 0}); it != buckets_.end(); ++it) {
    const auto first = it->second.by_memory.lower_bound({mem, DeviceIndex{0}});
    if (first == it->second.by_memory.end()) continue;
    candidates.push_back(Scored{score(r, it->first, first->second), it, first});
  }
  std::sort(candidates.begin(), candidates.end(), [](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score < b.score;
    if (a.bucket->first.free_milli != b.bucket->first.free_milli)
      return a.bucket->first.free_milli < b.bucket->first.free_milli;
    return *a.first < *b.first; // less free memory, then the lower index
  });
  // The buckets in score order, each by free memory: the policy's order of preference, which also decides
  // among nodes under `pack` (policies/GangPlacement.hpp).
  GangPicker gang = gang_picker(view, j);
  bool done = false;
  for (auto c = candidates.begin(); c != candidates.end() && !done; ++c)
    for (auto it = c->first; it != c->bucket->second.by_memory.end() && !done; ++it)
      if (view.device(it->second).available && view.allows(j, it->second))
        done = gang.offer(it->second, node_of(it->second));
  return gang.take();
}

} // namespace colocsim
