#pragma once
// Waiting jobs in first-come-first-served order, shared by the FCFS-based policies, and the event handling
// they all share. A requeued job (after an out-of-memory failure) goes back in its original submission
// position, since JobIndex is assigned in submission order.
#include "policies/Policy.hpp"

#include <functional>
#include <optional>
#include <set>
#include <string>

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

  /// The event handling every queue-based policy shares: a submitted job that can never run is rejected
  /// (it asks for more devices than the platform has, or `never_runs` gives a reason), otherwise queued;
  /// completions and failures give their devices back through `release`; a requeued failure rejoins the
  /// queue. Other events go to `other` when given.
  void handle(const ClusterView& view, std::span<const Event> events, std::vector<Decision>& out,
              const std::function<void(JobIndex, const std::vector<DeviceIndex>&)>& release,
              const std::function<std::optional<std::string>(JobIndex)>& never_runs = {},
              const std::function<void(const Event&)>& other = {});

private:
  std::set<JobIndex> jobs_;
};

} // namespace colocsim
