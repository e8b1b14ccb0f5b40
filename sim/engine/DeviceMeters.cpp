#include "sim/engine/DeviceMeters.hpp"

#include <limits>

namespace colocsim {

void DeviceMeters::device_changing(const DeviceChanging& e)
{
  const double dt = meters_[e.device].advance(e.t_s, e.power_w, e.residents.size());
  if (dt <= 0) return;
  // The same interval's energy, attributed to the residents.
  for (std::size_t i = 0; i < e.residents.size(); ++i)
    job_energy_j_[e.residents[i] - base_] += e.share_w[i] * dt; // every resident has started
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
  constexpr double NONE = std::numeric_limits<double>::quiet_NaN();
  if (job_energy_j_.empty()) base_ = e.job;
  while (e.job < base_) { // a job read before every job counted so far starts only now
    job_energy_j_.push_front(NONE);
    --base_;
  }
  while (e.job - base_ >= job_energy_j_.size())
    job_energy_j_.push_back(NONE);
  double& c = job_energy_j_[e.job - base_];
  if (std::isnan(c)) { // a retry keeps the energy of the earlier attempts
    c = 0.0;
    ++counted_;
  }
}

void DeviceMeters::forget(JobIndex j)
{
  if (!counter(j)) return;
  job_energy_j_[j - base_] = std::numeric_limits<double>::quiet_NaN();
  --counted_;
  while (!job_energy_j_.empty() &&
         std::isnan(job_energy_j_.front())) { // the window starts at the oldest kept
    job_energy_j_.pop_front();
    ++base_;
  }
  while (!job_energy_j_.empty() && std::isnan(job_energy_j_.back()))
    job_energy_j_.pop_back();
}

} // namespace colocsim
