#include "policies/FirstFit.hpp"

#include <algorithm>

namespace colocsim {

std::vector<ParamSpec> FirstFit::params()
{
  return {
      ParamSpec{.name = "max_per_device",
                .type = ParamType::INT,
                .default_text = "2",
                .help = "most jobs co-located on one device (devices in exclusive mode take 1)",
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

FirstFit::FirstFit(const ParamSet& p)
    : max_per_device_(static_cast<std::uint32_t>(p.integer("max_per_device"))),
      memory_(p.text("memory") == "declared"  ? MemoryNotion::DECLARED
              : p.text("memory") == "profile" ? MemoryNotion::PROFILE
                                              : MemoryNotion::NONE)
{
}

void FirstFit::init(const ClusterView& view)
{
  const std::size_t n = view.device_count();
  index_ = FitIndex(n);
  slots_.assign(n, 0);
  capacity_.resize(n);
  mem_free_.resize(n);
  for (DeviceIndex d = 0; d < n; ++d) {
    const auto dv = view.device(d);
    capacity_[d] = capacity_for(dv.mode);
    mem_free_[d] = dv.memory_bytes;
    max_memory_ = std::max(max_memory_, dv.memory_bytes);
    slots_[d] = dv.residents;
    update_slot(d);
  }
  initialised_ = true;
}

double FirstFit::job_mem(const ClusterView& view, JobIndex j) const
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

std::uint32_t FirstFit::capacity_for(SharingMode mode) const
{
  const unsigned limit = max_residents(mode); // 0: the mode sets no limit
  return limit == 0 ? max_per_device_ : std::min<std::uint32_t>(max_per_device_, limit);
}

void FirstFit::update_slot(DeviceIndex d)
{
  index_.set(d, slots_[d] < capacity_[d] ? mem_free_[d] : FitIndex::UNAVAILABLE);
}

void FirstFit::release(const ClusterView& view, JobIndex j, const std::vector<DeviceIndex>& devices)
{
  const double m = job_mem(view, j);
  for (auto d : devices) {
    --slots_[d];
    mem_free_[d] += m;
    update_slot(d);
  }
}

std::vector<Decision> FirstFit::decide(const ClusterView& view, std::span<const Event> events)
{
  if (!initialised_) init(view);
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
            release(view, ev.job, ev.devices);
          } else if constexpr (std::is_same_v<T, JobFailed>) {
            release(view, ev.job, ev.devices);
            if (ev.requeued) queue_.push(ev.job);
          } else if constexpr (std::is_same_v<T, DeviceRepartitioned>) {
            capacity_[ev.device] = capacity_for(ev.mode);
            update_slot(ev.device);
          }
        },
        e);
  }
  while (!queue_.empty()) {
    const JobIndex j = queue_.front();
    const auto need = static_cast<std::size_t>(view.job(j).devices);
    const double m = job_mem(view, j);
    Place p{j, {}};
    std::size_t from = 0;
    while (p.devices.size() < need) {
      const std::size_t d = index_.find_first(m, from);
      if (d == FitIndex::NONE) break;
      p.devices.push_back(static_cast<DeviceIndex>(d));
      from = d + 1;
    }
    if (p.devices.size() < need) break;
    for (auto d : p.devices) {
      ++slots_[d];
      mem_free_[d] -= m;
      update_slot(d);
    }
    queue_.erase(j);
    out.emplace_back(std::move(p));
  }
  return out;
}

} // namespace colocsim
