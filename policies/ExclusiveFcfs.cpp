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
  nodes_.init(view);
  initialised_ = true;
}

std::vector<Decision> ExclusiveFcfs::decide(const ClusterView& view, std::span<const Event> events)
{
  if (!initialised_) init(view);
  std::vector<Decision> out;
  queue_.handle(view, events, out, [&](JobIndex, const std::vector<DeviceIndex>& devices) {
    free_.insert(devices.begin(), devices.end());
  });
  while (!queue_.empty()) {
    const JobIndex j = queue_.front();
    const auto need = static_cast<std::size_t>(view.job(j).devices);
    if (free_.size() < need) break;
    GangPicker gang = nodes_.picker(view, j, gang_rule_, need, true); // free_ ascends
    for (auto it = free_.begin(); it != free_.end(); ++it)
      if (view.device(*it).available && view.allows(j, *it) && // not repartitioning, node on, of its type
          gang.offer(*it, nodes_.node(*it)))
        break;
    Place p{j, gang.take()};
    if (p.devices.size() < need) break;
    for (auto d : p.devices)
      free_.erase(d);
    queue_.erase(j);
    out.emplace_back(std::move(p));
  }
  return out;
}

} // namespace colocsim
