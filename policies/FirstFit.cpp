#include "policies/FirstFit.hpp"

namespace colocsim {

std::vector<DeviceIndex> FirstFit::choose(const ClusterView& view, JobIndex j, double mem)
{
  GangPicker gang = gang_picker_in_device_order(view, j); // first_fitting() ascends
  for (std::size_t from = 0;;) {
    const std::size_t d = first_fitting(mem, from);
    if (d == FitIndex::NONE) break;
    from = d + 1;
    const auto dev = static_cast<DeviceIndex>(d);
    // Repartitioning, its node off, or of a device type the job does not accept.
    if (!view.device(dev).available || !view.allows(j, dev)) continue;
    if (gang.offer(dev, node_of(dev))) break;
  }
  return gang.take();
}

} // namespace colocsim
