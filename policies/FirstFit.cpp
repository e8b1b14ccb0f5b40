#include "policies/FirstFit.hpp"

namespace colocsim {

bool FirstFit::acceptable(const ClusterView& view, JobIndex j, double mem, DeviceIndex d) const
{
  // first_fitting()'s test (a free slot, powered, at least `mem` free), then the scan's own.
  return has_slot(d) && powered(d) && mem_free(d) >= mem && view.device(d).available && view.allows(j, d);
}

void FirstFit::on_device_changed(DeviceIndex d)
{
  waiting_.touch(node_of(d));
}

std::vector<DeviceIndex> FirstFit::choose(const ClusterView& view, JobIndex j, double mem)
{
  const auto need = static_cast<std::size_t>(view.job(j).devices);
  // The same gang as at the last try, nothing made available since: only the nodes whose devices changed
  // are counted again, and the scan runs only when the counts place it (WaitingGang).
  if (waiting_epoch_ != availability_epoch()) waiting_.forget();
  if (waiting_.still_waits(j, [&](std::uint32_t node) {
        std::size_t count = 0;
        for (const DeviceIndex d : node_devices(node))
          count += acceptable(view, j, mem, d) ? 1 : 0;
        return count;
      }))
    return {};
  GangPicker gang = gang_picker_in_device_order(view, j); // first_fitting() ascends
  offered_.clear();
  bool settled = false;
  for (std::size_t from = 0;;) {
    const std::size_t d = first_fitting(mem, from);
    if (d == FitIndex::NONE) break;
    from = d + 1;
    const auto dev = static_cast<DeviceIndex>(d);
    // Repartitioning, its node off, or of a device type the job does not accept.
    if (!view.device(dev).available || !view.allows(j, dev)) continue;
    if (need > 1) offered_.push_back(node_of(dev));
    if (gang.offer(dev, node_of(dev))) {
      settled = true;
      break;
    }
  }
  auto devices = gang.take();
  if (devices.empty() && need > 1 && !settled) { // every acceptable device was offered
    waiting_.remember(j, gang_rule(), need, min_nodes(view, j), offered_);
    waiting_epoch_ = availability_epoch();
  }
  return devices;
}

} // namespace colocsim
