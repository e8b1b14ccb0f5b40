#include "policies/BestFit.hpp"

#include <cmath>
#include <limits>

namespace colocsim {

void BestFit::initialised(const ClusterView& view)
{
  key_.assign(view.device_count(), std::numeric_limits<double>::quiet_NaN());
}

void BestFit::on_device_changed(DeviceIndex d)
{
  if (d >= key_.size()) return;
  if (!std::isnan(key_[d])) open_.erase({key_[d], d});
  key_[d] = std::numeric_limits<double>::quiet_NaN();
  if (has_slot(d) && powered(d)) {
    key_[d] = mem_free(d);
    open_.insert({key_[d], d});
  }
}

std::vector<DeviceIndex> BestFit::choose(const ClusterView& view, JobIndex j, double mem)
{
  const auto need = static_cast<std::size_t>(view.job(j).devices);
  std::vector<DeviceIndex> devices;
  for (auto it = open_.lower_bound({mem, 0}); it != open_.end() && devices.size() < need; ++it)
    if (view.device(it->second).available && view.allows(j, it->second)) devices.push_back(it->second);
  if (devices.size() < need) return {};
  return devices;
}

} // namespace colocsim
