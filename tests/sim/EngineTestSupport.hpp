// The engine tests' one fixture (Engine_test, Mig_test, Dependencies_test, Heterogeneous_test): build a
// fixture scenario (tests/data/sim/), run it to the end and keep what the tests check: the run's totals, each
// job's record by id and every time point.
#pragma once
#include "policies/Policy.hpp"
#include "sim/Engine.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"

#include <map>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace colocsim::test {

/// The engine fixtures' folder (tests/data/sim/), with a trailing slash.
inline const std::string SIM_DATA = std::string(COLOCSIM_TEST_DATA) + "/sim/";

/// What a run left for the tests to check.
struct RunOutcome {
  RunTotals totals;
  /// Each job's record by job id; JobRecord::job is null (the engine's Job storage is gone after the run).
  std::map<std::string, JobRecord> jobs;
  std::vector<TimePoint> points; ///< every time point, as the engine reported them
};

/// Runs `in` (a scenario built with build_run, its policy possibly replaced) to the end.
inline RunOutcome run_collect(RunInputs& in)
{
  class Collect final : public RunObserver {
  public:
    explicit Collect(RunOutcome& o) : o_(o) {}
    void on_job_end(const JobRecord& r) override
    {
      auto& kept = o_.jobs[r.job->id];
      kept = r;
      kept.job = nullptr;
    }
    void on_timepoint(const TimePoint& p) override { o_.points.push_back(p); }

  private:
    RunOutcome& o_;
  };
  RunOutcome o;
  Collect c(o);
  o.totals = run_simulation(in.setup(), c);
  return o;
}

/// A policy that places every job on `devices` as it is submitted, whatever they are: for the decisions the
/// engine must refuse (a device that does not exist, a mig device without an instance).
class PlaceOnSubmit final : public Policy {
public:
  explicit PlaceOnSubmit(std::vector<DeviceIndex> devices) : devices_(std::move(devices)) {}
  std::vector<Decision> decide(const ClusterView&, std::span<const Event> events) override
  {
    std::vector<Decision> out;
    for (const auto& e : events)
      if (const auto* s = std::get_if<JobSubmitted>(&e)) out.push_back(Place{s->job, devices_});
    return out;
  }

private:
  std::vector<DeviceIndex> devices_;
};

/// Builds `scenario` with the overrides `sets` (--set) and `policy` (--policy), replaces its policy with
/// `custom` if one is given, and runs it to the end.
inline RunOutcome run_scenario(const std::string& scenario, const std::vector<std::string>& sets = {},
                               const std::string& policy = {}, std::unique_ptr<Policy> custom = {})
{
  RunInputs in = build_run(load_scenario(scenario, sets, policy));
  if (custom) in.policy = std::move(custom);
  return run_collect(in);
}

} // namespace colocsim::test
