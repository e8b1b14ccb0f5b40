#include "policies/FcfsQueue.hpp"

namespace colocsim {

void FcfsQueue::handle(const ClusterView& view, std::span<const Event> events, std::vector<Decision>& out,
                       const std::function<void(JobIndex, const std::vector<DeviceIndex>&)>& release,
                       const std::function<std::optional<std::string>(JobIndex)>& never_runs,
                       const std::function<void(const Event&)>& other)
{
  for (const auto& e : events) {
    if (const auto* s = std::get_if<JobSubmitted>(&e)) {
      std::optional<std::string> why;
      const auto& job = view.job(s->job);
      const auto need = static_cast<std::size_t>(job.devices);
      if (need > view.device_count()) {
        why = "requests more devices than the platform has";
      } else if (!job.gpu_types.empty() && need > 1) {
        // A gang that names GPU types needs that many devices of those types (a scan, for such jobs only).
        std::size_t fit = 0;
        for (DeviceIndex d = 0; d < view.device_count() && fit < need; ++d)
          fit += view.allows(s->job, d) ? 1 : 0;
        if (fit < need)
          why = "requests " + std::to_string(need) + " devices of types '" + job.gpu_types +
                "'; the platform has " + std::to_string(fit);
      }
      if (!why && never_runs) why = never_runs(s->job);
      if (why)
        out.push_back(Reject{s->job, *why});
      else
        push(s->job);
    } else if (const auto* c = std::get_if<JobCompleted>(&e)) {
      release(c->job, c->devices);
    } else if (const auto* f = std::get_if<JobFailed>(&e)) {
      release(f->job, f->devices);
      if (f->requeued) push(f->job);
    } else if (other) {
      other(e);
    }
  }
}

} // namespace colocsim
