#pragma once
// Waiting jobs in first-come-first-served order, shared by the FCFS-based policies. A requeued job
// (after an out-of-memory failure) goes back in its original submission position, since JobIndex is
// assigned in submission order.
#include "policies/Policy.hpp"

#include <set>

namespace colocsim {

class FcfsQueue {
public:
  void push(JobIndex j) { jobs_.insert(j); }
  void erase(JobIndex j) { jobs_.erase(j); }
  bool empty() const { return jobs_.empty(); }
  std::size_t size() const { return jobs_.size(); }
  JobIndex front() const { return *jobs_.begin(); }
  auto begin() const { return jobs_.begin(); }
  auto end() const { return jobs_.end(); }

private:
  std::set<JobIndex> jobs_;
};

} // namespace colocsim
