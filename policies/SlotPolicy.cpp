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
  slots_.assign(n, 0);
  capacity_.resize(n);
  mem_free_.resize(n);
  for (DeviceIndex d = 0; d < n; ++d) {
    const auto dv = view.device(d);
    capacity_[d] = capacity_for(dv.mode);
    mem_free_[d] = dv.memory_bytes;
    max_memory_ = std::max(max_memory_, dv.memory_bytes);
    slots_[d] = dv.residents;
  }
  initialised_ = true;
  initialised(view);
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
  for (auto d : devices) {
    slots_[d] = static_cast<std::uint32_t>(static_cast<int>(slots_[d]) + sign);
    mem_free_[d] -= sign * m;
    device_changed(d);
  }
}

std::vector<Decision> SlotPolicy::decide(const ClusterView& view, std::span<const Event> events)
{
  if (!initialised_) init(view);
  placed_now_.clear();
  std::vector<Decision> out;
  for (const auto& e : events) {
    std::visit(
        [&](const auto& ev) {
          using T = std::decay_t<decltype(ev)>;
          if constexpr (std::is_same_v<T, JobSubmitted>) {
            const auto& job = view.job(ev.job);
            if (static_cast<std::size_t>(job.devices) > view.device_count())
              out.push_back(Reject{ev.job, "requests more devices than the platform has"});
            else if (job_mem(view, ev.job) > max_memory_)
              out.push_back(Reject{ev.job, "needs more memory than any device has"});
            else
              queue_.push(ev.job);
          } else if constexpr (std::is_same_v<T, JobCompleted>) {
            occupy(view, ev.job, ev.devices, -1);
          } else if constexpr (std::is_same_v<T, JobFailed>) {
            occupy(view, ev.job, ev.devices, -1);
            if (ev.requeued) queue_.push(ev.job);
          } else if constexpr (std::is_same_v<T, DeviceRepartitioned>) {
            capacity_[ev.device] = capacity_for(ev.mode);
            device_changed(ev.device);
          }
        },
        e);
  }
  // Strict submission order: the queue head blocks the rest (no backfilling).
  while (!queue_.empty()) {
    const JobIndex j = queue_.front();
    auto devices = choose(view, j, job_mem(view, j));
    if (devices.size() != static_cast<std::size_t>(view.job(j).devices)) break;
    occupy(view, j, devices, +1);
    for (auto d : devices)
      placed_now_[d].push_back(j);
    queue_.erase(j);
    out.push_back(Place{j, std::move(devices)});
  }
  return out;
}

} // namespace colocsim
