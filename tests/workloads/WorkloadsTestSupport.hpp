#pragma once
// Shared by the workloads tests: the fixture directory (Catch2 shim and file helpers: tests/CatchCompat.hpp),
// a reader over jobs held in memory, and a helper to drain a reader (input_error_of: tests/CatchCompat.hpp).
#include "tests/CatchCompat.hpp"

#include "workloads/JobReader.hpp"

#include <functional>
#include <string>
#include <vector>

namespace colocsim::test {

/// Directory of the workloads fixtures, with a trailing slash.
inline const std::string WORKLOADS_DATA = std::string(COLOCSIM_TEST_DATA) + "/workloads/";

/// Hands out the given jobs in order (for decorator tests).
class VectorReader final : public colocsim::JobReader {
public:
  explicit VectorReader(std::vector<colocsim::Job> jobs) : jobs_(std::move(jobs)) {}
  std::optional<colocsim::Job> next() override
  {
    if (next_ >= jobs_.size()) return std::nullopt;
    return jobs_[next_++];
  }
  std::string describe() const override { return "vector of " + std::to_string(jobs_.size()); }

private:
  std::vector<colocsim::Job> jobs_;
  std::size_t next_ = 0;
};

inline std::vector<colocsim::Job> drain(colocsim::JobReader& r)
{
  std::vector<colocsim::Job> jobs;
  while (auto j = r.next())
    jobs.push_back(*j);
  return jobs;
}

} // namespace colocsim::test
