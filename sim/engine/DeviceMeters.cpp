#include "sim/engine/DeviceMeters.hpp"

namespace colocsim {

void DeviceMeters::device_changing(const DeviceChanging& e)
{
  const double dt = meters_[e.device].advance(e.t_s, e.power_w, e.residents.size());
  if (dt <= 0) return;
  // The same interval's energy, attributed to the residents.
  for (std::size_t i = 0; i < e.residents.size(); ++i)
    job_energy_j_.at(e.residents[i]) += e.share_w[i] * dt;
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
  job_energy_j_.try_emplace(e.job, 0.0); // a retry keeps the energy of the earlier attempts
}

} // namespace colocsim
