#pragma once
// The devices' meters and the per-job energy attribution (docs/architecture.md, The engine's components): one
// DeviceMeter per device and each job's attributed energy over all its attempts, kept up to date from the
// engine's events. Before a device changes (DEVICE_CHANGING) it integrates the interval since the device's
// last change at the power and residents of that interval, and attributes the same interval's energy to the
// residents by their attributed power; a job joining or leaving a device (RESIDENTS_CHANGED) changes the
// device's allocated share; a job starting (JOB_STARTED) gets its energy counter, which the engine drops
// (forget) once the job has ended and its end was reported.
#include "sim/engine/DeviceMeter.hpp"
#include "sim/engine/EngineEvents.hpp"

#include <cmath>
#include <cstddef>
#include <deque>
#include <vector>

namespace colocsim {

class DeviceMeters final : public EngineSubscriber {
public:
  DeviceMeters() = default; ///< no devices (replaced before the run)
  explicit DeviceMeters(std::size_t devices) : meters_(devices) {}

  EngineEventSet events() const override
  {
    return {EngineEvent::DEVICE_CHANGING, EngineEvent::RESIDENTS_CHANGED, EngineEvent::JOB_STARTED};
  }
  void device_changing(const DeviceChanging& e) override;
  void residents_changed(const ResidentsChanged& e) override;
  void job_started(const JobStarted& e) override;

  const DeviceMeter& meter(DeviceIndex d) const { return meters_[d]; }
  std::size_t size() const { return meters_.size(); }
  /// Energy attributed to job j so far (J; 0 for a job that never started or was forgotten).
  double job_energy_j(JobIndex j) const
  {
    const double* e = counter(j);
    return e ? *e : 0.0;
  }
  /// Job j has ended and its energy was reported: its counter goes (the table holds the jobs alive only).
  void forget(JobIndex j);
  /// Jobs with an energy counter now.
  std::size_t jobs_counted() const { return counted_; }

private:
  std::vector<DeviceMeter> meters_;
  /// The energy counters of the jobs started and not yet forgotten, in a window of slots from the lowest such
  /// job index to the highest (NaN: no counter), like JobSlots: an index, not a hash look-up, per resident at
  /// every device change.
  std::deque<double> job_energy_j_;
  JobIndex base_ = 0;
  std::size_t counted_ = 0;
  const double* counter(JobIndex j) const
  {
    if (j < base_ || j - base_ >= job_energy_j_.size()) return nullptr;
    const double* e = &job_energy_j_[j - base_];
    return std::isnan(*e) ? nullptr : e;
  }
};

} // namespace colocsim
