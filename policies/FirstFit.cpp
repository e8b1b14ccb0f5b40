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
    devices.push_back(static_cast<DeviceIndex>(d));
    from = d + 1;
  }
  return devices;
}

} // namespace colocsim
