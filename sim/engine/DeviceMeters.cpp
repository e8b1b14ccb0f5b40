#include "sim/engine/DeviceMeters.hpp"

#include <algorithm>

namespace colocsim {

void DeviceMeters::device_changing(const DeviceChanging& e)
{
  const double dt = meters_[e.device].advance(e.t_s, e.power_w, e.residents.size());
  if (dt <= 0) return;
  // The same interval's energy, attributed to the residents.
  for (std::size_t i = 0; i < e.residents.size(); ++i)
    job_energy_j_[e.residents[i]] += e.share_w[i] * dt;
}

void DeviceMeters::residents_changed(const ResidentsChanged& e)
{
  auto& m = meters_[e.device];
  if (e.joined) {
    m.add_share(e.share);
    return;
  }
  m.remove_share(e.share);
  if (e.residents == 0) m.clear_share(); // no drift from repeated add/subtract
}

void DeviceMeters::job_started(const JobStarted& e)
{
  // Grown by doubling here rather than by one job at a time: one resize call per doubling, not per job.
  if (e.job >= job_energy_j_.size())
    job_energy_j_.resize(std::max<std::size_t>(static_cast<std::size_t>(e.job) + 1, 2 * job_energy_j_.size()),
                         0.0);
}

} // namespace colocsim
