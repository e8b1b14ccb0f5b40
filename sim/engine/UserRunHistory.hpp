#pragma once
// Run-time predictions from each user's history (workload.estimates: predicted; docs/architecture.md, The
// engine's components): Tsafrir, Etsion & Feitelson, "Backfilling using system-generated predictions rather
// than user runtime estimates", IEEE TPDS 18(6) 2007: the average of the user's two last run times, never
// more than the requested time; the requested time until the user has two. A subscriber of JOB_ENDED: a job
// that completed or was killed adds its last attempt's run time to its user's history.
#include "sim/engine/EngineEvents.hpp"

#include <string>
#include <unordered_map>

namespace colocsim {

class UserRunHistory final : public EngineSubscriber {
public:
  EngineEventSet events() const override { return {EngineEvent::JOB_ENDED}; }
  /// A completed or killed job: its run time the system saw (a killed job's: its limit) is recorded.
  void job_ended(const JobEnded& e) override;
  /// A job of `user` ran `run_s` seconds (the run time the system saw: a killed job's is its limit). Jobs
  /// with no user are not recorded.
  void record(const std::string& user, double run_s);
  /// The estimate for a job of `user` that requested `requested_s`.
  double predict(const std::string& user, double requested_s) const;

private:
  struct Runs {
    double last = 0, before = 0;
    int count = 0;
  };
  std::unordered_map<std::string, Runs> runs_;
};

} // namespace colocsim
