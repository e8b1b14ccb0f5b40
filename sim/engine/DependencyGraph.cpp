#include "sim/engine/DependencyGraph.hpp"

namespace colocsim {

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
