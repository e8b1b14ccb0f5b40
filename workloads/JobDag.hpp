#pragma once
// The dependency graph of a trace (Job::depends_on), for `colocsim validate`. Boost.Graph orders it
// (topological sort), finds a cycle if there is one, and gives the critical path: the longest chain of
// jobs through their dependencies (durations plus think times), a lower bound on the makespan of any
// replay whatever the platform and policy.
//
// A replay reads the trace as a stream, so it can only honour a dependency on an EARLIER job; a cycle needs
// a dependency on a later one. validate reports both (the replay ignores such dependencies, with a
// warning). Memory: O(jobs) — used only for traces whose reader may have dependencies.
#include "models/Job.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace colocsim {

struct DagSummary {
  std::size_t jobs = 0;              ///< jobs added
  std::size_t with_dependencies = 0; ///< jobs that name at least one dependency
  std::size_t edges = 0;             ///< dependencies on jobs of the trace
  std::size_t missing = 0;           ///< dependencies naming no job of the trace
  std::size_t forward = 0;           ///< dependencies naming a job that comes later in the trace
  std::vector<std::string> problems; ///< the first few missing/forward dependencies, "file:line: ..."
  std::vector<std::string> cycle;    ///< job ids around one cycle (first repeated at the end); empty if none
  double critical_path_s = 0;        ///< longest chain of durations and think times (0 with a cycle)
  std::vector<std::string> critical_chain; ///< its job ids, first to last
};

class JobDag {
public:
  /// Adds a job in trace order (only its id, duration, dependencies and origin are kept).
  void add(const Job& job);
  DagSummary summarize(std::size_t max_problems = 5) const;

private:
  struct Node {
    std::string id;
    double duration_s = 0, think_time_s = 0;
    std::vector<std::string> depends_on;
    SourceLocation origin;
  };
  std::vector<Node> nodes_;
};

} // namespace colocsim
