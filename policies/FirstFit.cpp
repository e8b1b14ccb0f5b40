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
    if (!view.device(static_cast<DeviceIndex>(d)).available) continue; // repartitioning, or its node is off
    devices.push_back(static_cast<DeviceIndex>(d));
  }
  return devices;
}

} // namespace colocsim
