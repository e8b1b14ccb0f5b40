#pragma once
// Streaming source of jobs in submit order. Readers hold O(1) jobs in memory whatever the trace length.
#include "models/Job.hpp"

#include <optional>
#include <string>
#include <vector>

namespace colocsim {

class JobReader {
public:
  virtual ~JobReader() = default;
  /// Next job in non-decreasing submit order, or nullopt at the end. Throws InputError on a bad row
  /// (file:line: field: what was expected).
  virtual std::optional<Job> next() = 0;
  /// Documented tolerances applied so far (rows skipped or reordered), one line each, for the user.
  virtual std::vector<std::string> warnings() const { return {}; }
  /// One line saying where the jobs come from and how they were changed (format, options, transforms,
  /// profile mapping), for recording in the outputs. Empty if the reader has nothing to add.
  virtual std::string describe() const { return {}; }
  /// True if jobs may carry depends_on (then the engine indexes job ids to resolve them). Readers that
  /// wrap another reader forward it.
  virtual bool may_have_dependencies() const { return false; }
};

} // namespace colocsim
