#include "sim/engine/DependencyGraph.hpp"

namespace colocsim {

void DependencyGraph::job_ended(const JobEnded& e)
{
  if (!outcomes_) return;
  switch (e.record.status) {
  case JobStatus::COMPLETED:
    for (const JobIndex k : take_dependents(e.job))
      outcomes_->dependency_completed(k);
    return;
  case JobStatus::FAILED:
  case JobStatus::KILLED:
  case JobStatus::REJECTED:
  case JobStatus::CANCELLED: {
    if (cancelling_) return; // ended by the walk in progress, which goes on to its dependents
    struct Walking {
      bool& flag;
      explicit Walking(bool& f) : flag(f) { flag = true; }
      Walking(const Walking&) = delete;
      Walking& operator=(const Walking&) = delete;
      ~Walking() { flag = false; }
    } walking(cancelling_);
    cancel_from(e.job, [this](JobIndex b, JobIndex k) { return outcomes_->cancel(b, k); });
    return;
  }
  default: // never started (the run's end), or not an end
    return;
  }
}

std::vector<JobIndex> DependencyGraph::take_dependents(JobIndex j)
{
  const auto it = dependents_.find(j);
  if (it == dependents_.end()) return {};
  std::vector<JobIndex> waiting = std::move(it->second);
  dependents_.erase(it);
  return waiting;
}

std::optional<JobIndex> DependencyGraph::pop_release(double limit)
{
  if (releases_.empty() || releases_.begin()->first > limit) return std::nullopt;
  const JobIndex j = releases_.begin()->second;
  releases_.erase(releases_.begin());
  return j;
}

} // namespace colocsim
