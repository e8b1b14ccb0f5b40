#pragma once
// The dependency bookkeeping of the engine (Job::depends_on; docs/architecture.md, The engine's
// components): the jobs by id, the jobs blocked on each job, and the releases waiting for their think time.
// It knows no job state: the engine decides what a dependency's outcome means (submit, hold, cancel) and
// asks this graph who waits on whom and which releases are due.
//
// A subscriber of JOB_ENDED: a job that completed releases its dependents, one that failed, was killed,
// rejected or cancelled cancels them (depth first, cancel_from), each through the engine's
// DependencyOutcomes. Cancelling a dependent ends it, so JOB_ENDED is published again from inside the walk;
// the walk in progress reaches that job's own dependents itself, so no second walk starts. A job that never
// started cancels nothing (at the run's end its blocked dependents never start either).
#include "policies/Policy.hpp"
#include "sim/engine/EngineEvents.hpp"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace colocsim {

/// What a dependency's outcome does to a job that waits for it: the engine's job states.
class DependencyOutcomes {
public:
  DependencyOutcomes() = default;
  DependencyOutcomes(const DependencyOutcomes&) = default;
  DependencyOutcomes& operator=(const DependencyOutcomes&) = default;
  DependencyOutcomes(DependencyOutcomes&&) = default;
  DependencyOutcomes& operator=(DependencyOutcomes&&) = default;
  virtual ~DependencyOutcomes() = default;
  /// A job that `blocked` waits for completed (once per edge, in the order the waits were added).
  virtual void dependency_completed(JobIndex blocked) = 0;
  /// `blocked` waits for `cause`, which will never complete: cancel it (true), or it was not blocked any
  /// more (false: its own dependents are not walked).
  virtual bool cancel(JobIndex blocked, JobIndex cause) = 0;
};

class DependencyGraph final : public EngineSubscriber {
public:
  /// Who decides the dependents' fate when a job ends (JOB_ENDED); none: the graph only answers queries.
  void set_outcomes(DependencyOutcomes* outcomes) { outcomes_ = outcomes; }
  EngineEventSet events() const override { return {EngineEvent::JOB_ENDED}; }
  void job_ended(const JobEnded& e) override;

  /// Job j has id `id` (copied: the job's own state is freed once it has ended); the first job of an id wins.
  void index(std::string_view id, JobIndex j) { ids_.emplace(std::string(id), j); }
  /// The first job read with this id, if any.
  std::optional<JobIndex> find(std::string_view id) const
  {
    const auto it = ids_.find(std::string(id));
    if (it == ids_.end()) return std::nullopt;
    return it->second;
  }
  /// `blocked` waits for job `dep` to complete.
  void wait_for(JobIndex dep, JobIndex blocked) { dependents_[dep].push_back(blocked); }
  /// The jobs that wait for job j, in the order they were added; j no longer has any afterwards.
  std::vector<JobIndex> take_dependents(JobIndex j);
  /// Job j leaves the blocked state at sim time t (its dependencies are done, its think time runs).
  void release_at(double t, JobIndex j) { releases_.emplace(t, j); }
  /// The earliest release due at or before `limit` (sim time), removed; releases come in time order, ties
  /// by job index.
  std::optional<JobIndex> pop_release(double limit);
  /// Sim time of the next release, if any.
  std::optional<double> next_release() const
  {
    if (releases_.empty()) return std::nullopt;
    return releases_.begin()->first;
  }
  /// Job j will never complete: `cancel(b, k)` is called for every job b waiting for k, k = j and then
  /// (depth first: the last job cancelled is the next k) every b it returned true for, transitively. A job
  /// is visited once per edge; each k's list is taken before its jobs are visited.
  template <class Cancel> void cancel_from(JobIndex j, Cancel&& cancel)
  {
    if (!dependents_.contains(j)) return; // nobody waits for j (most jobs)
    std::vector<JobIndex> stack{j};
    while (!stack.empty()) {
      const JobIndex k = stack.back();
      stack.pop_back();
      const auto it = dependents_.find(k);
      if (it == dependents_.end()) continue;
      const std::vector<JobIndex> blocked = std::move(it->second);
      dependents_.erase(it);
      for (const JobIndex b : blocked)
        if (cancel(b, k)) stack.push_back(b);
    }
  }

private:
  DependencyOutcomes* outcomes_ = nullptr;
  bool cancelling_ = false; ///< inside cancel_from's walk (a job ended by it ends no walk of its own)
  std::unordered_map<std::string, JobIndex> ids_;
  std::unordered_map<JobIndex, std::vector<JobIndex>> dependents_; ///< job → blocked jobs waiting for it
  std::set<std::pair<double, JobIndex>> releases_; ///< (sim time, job): dependencies done, think time running
};

} // namespace colocsim
