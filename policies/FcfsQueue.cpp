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
      if (static_cast<std::size_t>(view.job(s->job).devices) > view.device_count())
        why = "requests more devices than the platform has";
      else if (never_runs)
        why = never_runs(s->job);
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
