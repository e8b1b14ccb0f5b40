#include "policies/FirstFit.hpp"

namespace colocsim {

void FirstFit::initialised(const ClusterView& view)
{
  index_ = FitIndex(view.device_count());
  for (DeviceIndex d = 0; d < view.device_count(); ++d)
    device_changed(d);
}

void FirstFit::device_changed(DeviceIndex d)
{
  if (d < index_.size()) index_.set(d, has_slot(d) ? mem_free(d) : FitIndex::UNAVAILABLE);
}

std::vector<DeviceIndex> FirstFit::choose(const ClusterView& view, JobIndex j, double mem)
{
  const auto need = static_cast<std::size_t>(view.job(j).devices);
  std::vector<DeviceIndex> devices;
  std::size_t from = 0;
  while (devices.size() < need) {
    const std::size_t d = index_.find_first(mem, from);
    if (d == FitIndex::NONE) return {};
    devices.push_back(static_cast<DeviceIndex>(d));
    from = d + 1;
  }
  return devices;
}

} // namespace colocsim
