#include "sim/engine/ReasonTable.hpp"

namespace colocsim {

std::uint32_t ReasonTable::id(const std::string& text)
{
  const auto [it, added] = index_.emplace(text, static_cast<std::uint32_t>(texts_.size()));
  if (added) texts_.push_back(text);
  return it->second;
}

std::uint32_t ReasonTable::dependency(JobStatus dep)
{
  switch (dep) {
  case JobStatus::FAILED:
    return id("a job it depends on failed");
  case JobStatus::KILLED:
    return id("a job it depends on was killed");
  case JobStatus::REJECTED:
    return id("a job it depends on was rejected");
  case JobStatus::NEVER_STARTED:
    return id("a job it depends on never started");
  default:
    return id("a job it depends on was cancelled");
  }
}

} // namespace colocsim
