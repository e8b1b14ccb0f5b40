#include "policies/FirstFit.hpp"

namespace colocsim {

std::vector<DeviceIndex> FirstFit::choose(const ClusterView& view, JobIndex j, double mem)
{
  const auto need = static_cast<std::size_t>(view.job(j).devices);
  std::vector<DeviceIndex> devices;
  std::size_t from = 0;
  while (devices.size() < need) {
    const std::size_t d = first_fitting(mem, from);
    if (d == FitIndex::NONE) return {};
    from = d + 1;
    // Repartitioning, its node off, or of a device type the job does not accept.
    if (!view.device(static_cast<DeviceIndex>(d)).available || !view.allows(j, static_cast<DeviceIndex>(d)))
      continue;
    devices.push_back(static_cast<DeviceIndex>(d));
  }
  return devices;
}

} // namespace colocsim
