#pragma once
// The run's reporters as subscribers of the engine's events (docs/architecture.md, The engine's components):
// the RunObserver (jobs.csv, timeseries.csv; sim/Outputs.hpp) follows each job's end and each policy call's
// time point; the RunTrace (the event log, --log-events; sim/EventLog.hpp) follows each policy call, each
// decision before it is applied and each job's end.
#include "sim/Engine.hpp"
#include "sim/engine/EngineEvents.hpp"

namespace colocsim {

class ObserverFeed final : public EngineSubscriber {
public:
  /// `timepoints`: the observer also gets the time points (RunSetup::record_timeseries).
  ObserverFeed(RunObserver& observer, bool timepoints) : observer_(observer), timepoints_(timepoints) {}
  EngineEventSet events() const override
  {
    if (timepoints_) return {EngineEvent::JOB_ENDED, EngineEvent::PASS_ENDED};
    return {EngineEvent::JOB_ENDED};
  }
  void job_ended(const JobEnded& e) override { observer_.on_job_end(e.record); }
  void pass_ended(const TimePoint& p) override { observer_.on_timepoint(p); }

private:
  RunObserver& observer_;
  bool timepoints_;
};

class TraceFeed final : public EngineSubscriber {
public:
  explicit TraceFeed(RunTrace& trace) : trace_(trace) {}
  EngineEventSet events() const override
  {
    return {EngineEvent::POLICY_CALLING, EngineEvent::DECISION_APPLYING, EngineEvent::JOB_ENDED};
  }
  void policy_calling(const PolicyCalling& e) override
  {
    trace_.on_events(e.view, e.events, e.waiting, e.running);
  }
  void decision_applying(const DecisionEvent& e) override
  {
    trace_.on_decision(e.view, e.decision, e.waiting);
  }
  void job_ended(const JobEnded& e) override { trace_.on_job_end(e.view, e.record); }

private:
  RunTrace& trace_;
};

} // namespace colocsim
