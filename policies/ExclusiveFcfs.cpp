#include "policies/ExclusiveFcfs.hpp"

#include <algorithm>

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
  for (DeviceIndex d = 0; d < view.device_count(); ++d) {
    const std::uint32_t node = nodes_.node(d);
    if (node_devices_.size() <= node) node_devices_.resize(node + std::size_t{1});
    node_devices_[node].push_back(d);
  }
  initialised_ = true;
}

std::vector<Decision> ExclusiveFcfs::decide(const ClusterView& view, std::span<const Event> events)
{
  if (!initialised_) init(view);
  std::vector<Decision> out;
  queue_.handle(
      view, events, out,
      [&](JobIndex, const std::vector<DeviceIndex>& devices) {
        free_.insert(devices.begin(), devices.end());
        for (const DeviceIndex d : devices)
          waiting_.touch(nodes_.node(d));
      },
      {}, [&](const Event&) { waiting_.forget(); }); // a device may have been made available
  while (!queue_.empty()) {
    const JobIndex j = queue_.front();
    const auto need = static_cast<std::size_t>(view.job(j).devices);
    if (free_.size() < need) break;
    const auto acceptable = [&](DeviceIndex d) { // not repartitioning, node on, of its type
      return view.device(d).available && view.allows(j, d);
    };
    // The gang that waited at the last try: only the nodes with devices freed since are counted again.
    if (waiting_.still_waits(j, [&](std::uint32_t node) {
          return static_cast<std::size_t>(
              std::count_if(node_devices_[node].begin(), node_devices_[node].end(),
                            [&](DeviceIndex d) { return free_.contains(d) && acceptable(d); }));
        }))
      break;
    GangPicker gang = nodes_.picker(view, j, gang_rule_, need, true); // free_ ascends
    offered_.clear();
    bool settled = false;
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (!acceptable(*it)) continue;
      if (need > 1) offered_.push_back(nodes_.node(*it));
      if (gang.offer(*it, nodes_.node(*it))) {
        settled = true;
        break;
      }
    }
    Place p{j, gang.take()};
    if (p.devices.size() < need) {
      if (need > 1 && !settled) // every acceptable device was offered
        waiting_.remember(j, gang_rule_, need, nodes_.min_nodes(view, j, need), offered_);
      break;
    }
    for (auto d : p.devices)
      free_.erase(d);
    queue_.erase(j);
    out.emplace_back(std::move(p));
  }
  return out;
}

} // namespace colocsim
