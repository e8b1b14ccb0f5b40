#pragma once
// Shared by the workloads tests: the fixture directory (Catch2 shim and file helpers: tests/CatchCompat.hpp),
// a reader over jobs held in memory, and helpers to drain a reader or catch its error.
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

/// The InputError message `f` throws, or "(no error)".
inline std::string input_error_of(const std::function<void()>& f)
{
  try {
    f();
  } catch (const colocsim::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace colocsim::test
