#include "policies/SlotPolicy.hpp"

#include <algorithm>

namespace colocsim {

std::vector<ParamSpec> SlotPolicy::slot_params(const std::string& default_max_per_device)
{
  return {
      ParamSpec{.name = "max_per_device",
                .type = ParamType::INT,
                .default_text = default_max_per_device,
                .help = "most jobs co-located on one device (a sharing mode's own limit still applies: "
                        "1 exclusive, 2/4 ccs-2/ccs-4, 48 mps)",
                .min = 1,
                .max = 48},
      ParamSpec{.name = "memory",
                .type = ParamType::CHOICE,
                .default_text = "declared",
                .help =
                    "memory each job is assumed to need: declared (the trace's request; 0 if the trace "
                    "states none), profile (the profile's real footprint: an oracle), none (ignore memory)",
                .choices = {"declared", "profile", "none"}},
  };
}

SlotPolicy::SlotPolicy(const ParamSet& p)
    : max_per_device_(static_cast<std::uint32_t>(p.integer("max_per_device"))),
      memory_(p.text("memory") == "declared"  ? MemoryNotion::DECLARED
              : p.text("memory") == "profile" ? MemoryNotion::PROFILE
                                              : MemoryNotion::NONE)
{
}

std::uint32_t SlotPolicy::capacity_for(SharingMode mode) const
{
  const unsigned limit = max_residents(mode); // 0: the mode sets no limit
  return limit == 0 ? max_per_device_ : std::min<std::uint32_t>(max_per_device_, limit);
}

void SlotPolicy::init(const ClusterView& view)
{
  const std::size_t n = view.device_count();
  nodes_.init(view);
  slots_.assign(n, 0);
  capacity_.resize(n);
  mem_free_.resize(n);
  milli_used_.assign(n, 0);
  placed_entry_.assign(n, 0);
  type_.resize(n);
  for (DeviceIndex d = 0; d < n; ++d) {
    const auto dv = view.device(d);
    type_[d] = dv.type;
    capacity_[d] = capacity_for(dv.mode);
    mem_free_[d] = dv.memory_bytes;
    max_memory_ = std::max(max_memory_, dv.memory_bytes);
    if (dv.type >= type_memory_.size()) type_memory_.resize(dv.type + 1);
    auto& tm = type_memory_[dv.type];
    if (tm.memory < 0) tm.device = d;
    tm.memory = std::max(tm.memory, dv.memory_bytes);
    slots_[d] = dv.residents;
    for (const JobIndex r : view.residents(d)) { // jobs already running when the policy starts
      mem_free_[d] -= job_mem(view, r);
      milli_used_[d] += view.job(r).gpu_milli;
    }
  }
  node_off_.assign(n, 0);
  std::size_t nodes = 0;
  for (DeviceIndex d = 0; d < n; ++d)
    nodes = std::max<std::size_t>(nodes, view.device(d).node + std::size_t{1});
  node_start_.assign(nodes + 1, 0);
  for (DeviceIndex d = 0; d < n; ++d)
    ++node_start_[view.device(d).node + 1];
  for (std::size_t k = 0; k < nodes; ++k)
    node_start_[k + 1] += node_start_[k];
  node_devices_.resize(n);
  std::vector<std::size_t> next(node_start_.begin(), node_start_.end() - 1);
  for (DeviceIndex d = 0; d < n; ++d)
    node_devices_[next[view.device(d).node]++] = d;
  index_ = FitIndex(n);
  idle_by_type_.assign(type_memory_.size(), FitIndex(n));
  initialised_ = true;
  initialised(view);
  for (DeviceIndex d = 0; d < n; ++d)
    device_changed(d);
}

std::size_t SlotPolicy::next_idle(const ClusterView& view, JobIndex j, double mem, std::size_t from) const
{
  for (;;) {
    std::size_t best = FitIndex::NONE;
    for (std::size_t t = 0; t < idle_by_type_.size(); ++t)
      if (type_allows(view, j, static_cast<std::uint16_t>(t)))
        best = std::min(best, idle_by_type_[t].find_first(mem, from));
    if (best == FitIndex::NONE || view.device(static_cast<DeviceIndex>(best)).available) return best;
    from = best + 1; // its node is off or booting, or it is being repartitioned
  }
}

double SlotPolicy::job_mem(const ClusterView& view, JobIndex j) const
{
  switch (memory_) {
  case MemoryNotion::DECLARED:
    return view.job(j).mem_request_bytes;
  case MemoryNotion::PROFILE:
    return view.signature(j).mem_bytes;
  case MemoryNotion::NONE:
    return 0.0;
  }
  return 0.0;
}

void SlotPolicy::occupy(const ClusterView& view, JobIndex j, const std::vector<DeviceIndex>& devices,
                        int sign)
{
  const double m = job_mem(view, j);
  const int milli = view.job(j).gpu_milli;
  for (auto d : devices) {
    slots_[d] = static_cast<std::uint32_t>(static_cast<int>(slots_[d]) + sign);
    mem_free_[d] -= sign * m;
    milli_used_[d] += sign * milli;
  }
  on_job_moved(view, j, devices, sign);
  for (auto d : devices)
    device_changed(d);
}

void SlotPolicy::device_changed(DeviceIndex d)
{
  const bool open = has_slot(d) && powered(d);
  index_.set(d, open ? mem_free_[d] : FitIndex::UNAVAILABLE);
  idle_by_type_[type_[d]].set(d, open && idle(d) ? mem_free_[d] : FitIndex::UNAVAILABLE);
  on_device_changed(d);
}

void SlotPolicy::node_powered(const NodePowered& e)
{
  if (e.node + std::size_t{1} >= node_start_.size()) return; // no device of ours
  for (std::size_t k = node_start_[e.node]; k < node_start_[e.node + 1]; ++k) {
    const DeviceIndex d = node_devices_[k];
    const char off = e.on ? 0 : 1;
    if (node_off_[d] == off) continue;
    node_off_[d] = off;
    device_changed(d);
  }
}

void SlotPolicy::note_placed(DeviceIndex d, JobIndex j)
{
  std::uint32_t& e = placed_entry_.at(d);
  if (e == 0) {
    if (placed_devices_ == placed_now_.size()) placed_now_.emplace_back();
    auto& entry = placed_now_[placed_devices_++];
    entry.device = d;
    entry.jobs.clear();
    e = static_cast<std::uint32_t>(placed_devices_);
  }
  placed_now_[e - 1].jobs.push_back(j);
}

void SlotPolicy::clear_placed()
{
  for (std::size_t i = 0; i < placed_devices_; ++i)
    placed_entry_[placed_now_[i].device] = 0;
  placed_devices_ = 0;
}

std::vector<Decision> SlotPolicy::decide(const ClusterView& view, std::span<const Event> events)
{
  if (!initialised_) init(view);
  clear_placed();
  std::vector<Decision> out;
  for (const auto& e : events)
    if (const auto* s = std::get_if<JobSubmitted>(&e)) on_submitted(view, s->job);
  queue_.handle(
      view, events, out,
      [&](JobIndex j, const std::vector<DeviceIndex>& devices) { occupy(view, j, devices, -1); },
      [&](JobIndex j) -> std::optional<std::string> {
        const double need = job_mem(view, j);
        if (need > max_memory_) return "needs more memory than any device has";
        if (!view.job(j).gpu_types.empty()) {
          double most = 0;
          for (const auto& tm : type_memory_)
            if (tm.memory >= 0 && view.allows(j, tm.device)) most = std::max(most, tm.memory);
          if (need > most)
            return "needs more memory than any device of its types '" + view.job(j).gpu_types + "' has";
        }
        return std::nullopt;
      },
      [&](const Event& e) {
        if (const auto* r = std::get_if<DeviceRepartitioned>(&e)) {
          ++availability_epoch_;
          capacity_[r->device] = capacity_for(r->mode);
          device_changed(r->device);
        } else if (const auto* np = std::get_if<NodePowered>(&e)) {
          ++availability_epoch_;
          node_powered(*np);
        }
      });
  // Strict submission order: the queue head blocks the rest (no backfilling), unless it is dropped.
  while (!queue_.empty()) {
    const JobIndex j = queue_.front();
    auto devices = choose(view, j, job_mem(view, j));
    if (devices.size() != static_cast<std::size_t>(view.job(j).devices)) {
      if (!drop_if_no_fit()) break;
      queue_.erase(j);
      out.push_back(Reject{j, "fits no device at its arrival (no_fit=drop)"});
      continue;
    }
    occupy(view, j, devices, +1);
    for (auto d : devices)
      note_placed(d, j);
    queue_.erase(j);
    out.push_back(Place{j, std::move(devices), thread_share(view, j)});
  }
  return out;
}

} // namespace colocsim
