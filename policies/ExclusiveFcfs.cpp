#include "policies/ExclusiveFcfs.hpp"

namespace colocsim {

std::vector<ParamSpec> ExclusiveFcfs::params()
{
  return {};
}

ExclusiveFcfs::ExclusiveFcfs(const ParamSet&) {}

void ExclusiveFcfs::init(const ClusterView& view)
{
  for (DeviceIndex d = 0; d < view.device_count(); ++d)
    if (view.device(d).residents == 0) free_.insert(free_.end(), d);
  initialised_ = true;
}

std::vector<Decision> ExclusiveFcfs::decide(const ClusterView& view, std::span<const Event> events)
{
  if (!initialised_) init(view);
  std::vector<Decision> out;
  for (const auto& e : events) {
    std::visit(
        [&](const auto& ev) {
          using T = std::decay_t<decltype(ev)>;
          if constexpr (std::is_same_v<T, JobSubmitted>) {
            if (static_cast<std::size_t>(view.job(ev.job).devices) > view.device_count())
              out.push_back(Reject{ev.job, "requests more devices than the platform has"});
            else
              queue_.push(ev.job);
          } else if constexpr (std::is_same_v<T, JobCompleted>) {
            free_.insert(ev.devices.begin(), ev.devices.end());
          } else if constexpr (std::is_same_v<T, JobFailed>) {
            free_.insert(ev.devices.begin(), ev.devices.end());
            if (ev.requeued) queue_.push(ev.job);
          }
        },
        e);
  }
  while (!queue_.empty()) {
    const JobIndex j = queue_.front();
    const auto need = static_cast<std::size_t>(view.job(j).devices);
    if (free_.size() < need) break;
    Place p{j, {}};
    for (std::size_t k = 0; k < need; ++k) {
      p.devices.push_back(*free_.begin());
      free_.erase(free_.begin());
    }
    queue_.erase(j);
    out.emplace_back(std::move(p));
  }
  return out;
}

} // namespace colocsim
