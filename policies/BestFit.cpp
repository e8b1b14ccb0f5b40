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
  // Under `pack` the job goes to the node whose tightest devices fit it best (the first node to gather the
  // job's devices in this order), keeping the emptier nodes' holes for later gangs, as best-fit does.
  GangPicker gang = gang_picker(view, j);
  for (auto it = open_.lower_bound({mem, 0}); it != open_.end(); ++it)
    if (view.device(it->second).available && view.allows(j, it->second) &&
        gang.offer(it->second, node_of(it->second)))
      break;
  return gang.take();
}

} // namespace colocsim
