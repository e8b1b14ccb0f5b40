#pragma once
// The engine's per-job state, kept only while something can still read it (docs/architecture.md, The
// engine's components): a job's state is added when it is read and freed once it has ended and the policy
// call that reported its end has returned, so the engine's memory follows the jobs alive (waiting, blocked,
// running, or ended in the current policy call), not the jobs read. Job indices count the jobs read and are
// never reused: a policy's map keyed by JobIndex never mixes two jobs, and asking for a freed job's state is
// a std::logic_error that names it, never another job's data.
#include "policies/Policy.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace colocsim {

template <class State> class JobSlots {
public:
  /// A new job, of index the number of jobs added before it; its state is default-constructed. References
  /// to the states stay valid until their own job is freed.
  std::pair<JobIndex, State&> add()
  {
    if (next_ == std::numeric_limits<JobIndex>::max())
      throw std::length_error("more than " + std::to_string(next_) + " jobs: JobIndex is 32-bit");
    const JobIndex j = next_++;
    auto& state = live_.try_emplace(j).first->second;
    peak_ = std::max(peak_, live_.size());
    return {j, state};
  }
  State& operator[](JobIndex j)
  {
    const auto it = live_.find(j);
    if (it == live_.end()) missing(j);
    return it->second;
  }
  const State& operator[](JobIndex j) const
  {
    const auto it = live_.find(j);
    if (it == live_.end()) missing(j);
    return it->second;
  }
  /// Job j's state if it is still kept, else null (never read, or freed).
  const State* find(JobIndex j) const
  {
    const auto it = live_.find(j);
    return it == live_.end() ? nullptr : &it->second;
  }
  State* find(JobIndex j)
  {
    const auto it = live_.find(j);
    return it == live_.end() ? nullptr : &it->second;
  }
  /// Job j's state is freed: nothing reads it any more.
  void release(JobIndex j) { live_.erase(j); }
  /// Jobs added so far (the next job's index).
  std::size_t size() const { return next_; }
  /// States kept now, and the most kept at once since the start.
  std::size_t live() const { return live_.size(); }
  std::size_t peak() const { return peak_; }
  /// The indices of the states kept, in increasing order.
  std::vector<JobIndex> live_indices() const
  {
    std::vector<JobIndex> out;
    out.reserve(live_.size());
    for (const auto& [j, state] : live_)
      out.push_back(j);
    std::sort(out.begin(), out.end());
    return out;
  }

private:
  [[noreturn]] void missing(JobIndex j) const
  {
    if (j >= next_)
      throw std::out_of_range("job " + std::to_string(j) + " does not exist (" + std::to_string(next_) +
                              " jobs read so far)");
    throw std::logic_error("job " + std::to_string(j) +
                           " has ended and its state was freed after the policy call that reported its end: "
                           "a policy may read a job only until then");
  }

  std::unordered_map<JobIndex, State> live_;
  JobIndex next_ = 0;
  std::size_t peak_ = 0;
};

} // namespace colocsim
