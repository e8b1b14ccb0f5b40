// A complete policy in one file (the example of policies/README.md, compiled and run by the tests):
// whole devices, and among the waiting jobs the one asking for the most devices goes first.
#pragma once
#include "policies/Policy.hpp"

#include <set>

namespace colocsim::example {

class LargestFirst final : public Policy {
public:
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    if (free_.empty() && waiting_.empty() && !seen_)
      for (DeviceIndex d = 0; d < view.device_count(); ++d)
        free_.insert(d);
    seen_ = true;
    for (const auto& e : events) {
      if (const auto* s = std::get_if<JobSubmitted>(&e))
        waiting_.insert({-view.job(s->job).devices, s->job});
      else if (const auto* c = std::get_if<JobCompleted>(&e))
        free_.insert(c->devices.begin(), c->devices.end());
    }
    std::vector<Decision> out;
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      const auto need = static_cast<std::size_t>(-it->first);
      if (need > free_.size()) {
        ++it;
        continue;
      }
      Place p{it->second, {}};
      while (p.devices.size() < need) {
        p.devices.push_back(*free_.begin());
        free_.erase(free_.begin());
      }
      out.push_back(std::move(p));
      it = waiting_.erase(it);
    }
    return out;
  }

private:
  bool seen_ = false;
  std::set<DeviceIndex> free_;
  std::set<std::pair<int, JobIndex>> waiting_; ///< (−devices, job): largest first, then submission order
};

} // namespace colocsim::example
