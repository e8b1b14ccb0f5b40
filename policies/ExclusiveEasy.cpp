#include "policies/ExclusiveEasy.hpp"

#include <limits>

namespace colocsim {

std::vector<ParamSpec> ExclusiveEasy::params()
{
  return {ParamSpec{.name = "window",
                    .type = ParamType::INT,
                    .default_text = "256",
                    .help = "most waiting jobs behind the queue head examined for backfilling per decision",
                    .min = 1,
                    .max = 1e7}};
}

ExclusiveEasy::ExclusiveEasy(const ParamSet& p) : window_(static_cast<std::size_t>(p.integer("window"))) {}

void ExclusiveEasy::finish(JobIndex j, const std::vector<DeviceIndex>& devices)
{
  free_.insert(devices.begin(), devices.end());
  if (auto it = running_.find(j); it != running_.end()) {
    ends_.erase(it->second);
    running_.erase(it);
  }
}

bool ExclusiveEasy::start(const ClusterView& view, JobIndex j, std::vector<Decision>& out, double* end_s)
{
  const auto need = static_cast<std::size_t>(view.job(j).devices);
  if (free_.size() < need) return false;
  std::vector<DeviceIndex> devices;
  for (auto it = free_.begin(); it != free_.end() && devices.size() < need; ++it)
    if (view.device(*it).available && view.allows(j, *it)) // not repartitioning, node on, of its type
      devices.push_back(*it);
  if (devices.size() < need) return false;
  const double end = view.now() + view.job(j).duration_s * view.predict(j, devices).job_slowdown;
  if (end_s && *end_s < end) return false; // the caller's limit (the shadow time) would be exceeded
  for (auto d : devices)
    free_.erase(d);
  running_[j] = ends_.insert({end, {j, need}});
  queue_.erase(j);
  out.push_back(Place{j, std::move(devices)});
  return true;
}

std::vector<Decision> ExclusiveEasy::decide(const ClusterView& view, std::span<const Event> events)
{
  if (!initialised_) {
    for (DeviceIndex d = 0; d < view.device_count(); ++d)
      if (view.device(d).residents == 0) free_.insert(free_.end(), d);
    initialised_ = true;
  }
  std::vector<Decision> out;
  queue_.handle(view, events, out,
                [&](JobIndex j, const std::vector<DeviceIndex>& devices) { finish(j, devices); });
  // 1. FCFS while the head fits.
  while (!queue_.empty() && start(view, queue_.front(), out)) {
  }
  if (queue_.empty()) return out;
  // 2. The head's reservation: the earliest expected end at which enough devices are free, and how many
  //    devices will be spare then.
  const JobIndex head = queue_.front();
  const auto head_need = static_cast<std::size_t>(view.job(head).devices);
  std::size_t available = free_.size();
  double shadow = std::numeric_limits<double>::infinity();
  std::size_t extra = 0;
  for (const auto& [end, job] : ends_) {
    available += job.second;
    if (available >= head_need) {
      shadow = end;
      extra = available - head_need;
      break;
    }
  }
  // 3. Backfill: a later job may start now if it ends before the shadow time, or if it only takes devices
  //    the head will not need at the shadow time.
  std::vector<JobIndex> candidates;
  for (auto it = std::next(queue_.begin()); it != queue_.end() && candidates.size() < window_; ++it)
    candidates.push_back(*it);
  for (const JobIndex j : candidates) {
    if (free_.empty()) break;
    const auto need = static_cast<std::size_t>(view.job(j).devices);
    double limit = shadow;
    if (start(view, j, out, &limit)) continue;
    if (need <= extra && start(view, j, out)) // ends after the shadow time: uses spare devices only
      extra -= need;
  }
  return out;
}

} // namespace colocsim
