#include "sim/engine/UserRunHistory.hpp"

#include <algorithm>

namespace colocsim {

void UserRunHistory::job_ended(const JobEnded& e)
{
  if (e.record.status == JobStatus::COMPLETED || e.record.status == JobStatus::KILLED)
    record(e.record.job->user, e.run_s);
}

void UserRunHistory::record(const std::string& user, double run_s)
{
  if (user.empty()) return;
  auto& runs = runs_[user];
  runs.before = runs.last;
  runs.last = run_s;
  ++runs.count;
}

double UserRunHistory::predict(const std::string& user, double requested_s) const
{
  if (const auto it = runs_.find(user); !user.empty() && it != runs_.end() && it->second.count >= 2)
    return std::min(requested_s, 0.5 * (it->second.last + it->second.before));
  return requested_s;
}

} // namespace colocsim
