#pragma once
// The engine's events and their subscribers (docs/architecture.md, The engine's components), the way
// SimGrid's plugins follow its signals: a component subscribes to the events it needs and keeps its own state
// up to date from their payloads. Integrating components (energy, idle-while-waiting, node baselines)
// subscribe to the "changing" events, fired before a state changes, and integrate up to now there, as
// SimGrid's energy plugin does on its "state about to change" signals; the others follow what happened
// ("changed", "started", "ended", "applied").
//
// Each event has its own list of subscribers, in registration order: that order is the order of the side
// effects, part of the engine's determinism (Simulation's constructor registers the engine's own, and
// RunSetup::subscribers follow). A subscriber says which events it takes (events()); it is called for those
// only. Payloads are small structs of values and views, valid during the call only; nothing here allocates
// once the subscribers are registered. Knows no SimGrid.
#include "policies/Policy.hpp"
#include "sim/Engine.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

namespace colocsim {

/// The events, one bit each in an EngineEventSet.
enum class EngineEvent : std::uint8_t {
  DEVICE_CHANGING,      ///< a device's power, residents, share or frequency is about to change
  RESIDENTS_CHANGED,    ///< a job joined or left a device
  AVAILABILITY_CHANGED, ///< a device's availability may have changed (start, node power, boot, repartition)
  QUEUE_CHANGED,        ///< a job joined or left the queue of waiting jobs
  JOB_STARTED,          ///< a job started an attempt
  JOB_ENDED,            ///< a job ended for good (its JobRecord)
  NODES_CHANGING,       ///< node power states are about to change
  POLICY_CALLING,       ///< the policy is about to decide on the events of an instant
  DECISION_APPLYING,    ///< one of its decisions is about to be applied
  DECISION_APPLIED,     ///< that decision was applied
  PASS_ENDED,           ///< every decision of the call was applied: the cluster's state (a time point)
  COUNT                 ///< the number of events, not an event
};
inline constexpr std::size_t ENGINE_EVENT_COUNT = static_cast<std::size_t>(EngineEvent::COUNT);

class EngineEventSet {
public:
  constexpr EngineEventSet(std::initializer_list<EngineEvent> events)
  {
    for (const auto e : events)
      bits_ |= std::uint32_t{1} << static_cast<unsigned>(e);
  }
  constexpr bool has(EngineEvent e) const { return ((bits_ >> static_cast<unsigned>(e)) & 1U) != 0; }

private:
  std::uint32_t bits_ = 0;
};

/// Before device `device`'s power, residents, allocated share or frequency change, at sim time t_s: the
/// state that has held since the device last changed (integrate it up to t_s).
struct DeviceChanging {
  DeviceIndex device = 0;
  double t_s = 0;
  double power_w = 0;                  ///< the device's power
  std::span<const JobIndex> residents; ///< its residents
  std::span<const double> share_w;     ///< the power attributed to each of them
};

/// After job `job` joined (placed) or left (ended, failed, requeued) device `device`.
struct ResidentsChanged {
  DeviceIndex device = 0;
  JobIndex job = 0;
  double t_s = 0;
  bool joined = true;
  double share = 0; ///< the share of the device the job requests (gpu_milli / 1000, a mig instance's)
  std::size_t residents = 0; ///< residents now
  bool idle = false;         ///< no resident now, and the device is available
};

/// After device `device`'s availability may have changed (the run's start, its node powered on, off or
/// booted, a repartition begun or ended).
struct AvailabilityChanged {
  DeviceIndex device = 0;
  double t_s = 0;
  bool idle = false; ///< no resident, and the device is available
};

/// After job `job` joined (submitted, released, requeued) or left (placed, rejected) the queue.
struct QueueChanged {
  JobIndex job = 0;
  double t_s = 0;
  bool joined = true;
  std::uint32_t size = 1; ///< devices the job needs
  std::uint64_t fitting_types =
      0; ///< bit t: one device of type t could take it (type accepted, memory holds it)
};

/// Job `job` starts an attempt on `devices` at sim time t_s, published before it joins their residents.
struct JobStarted {
  JobIndex job = 0;
  double t_s = 0;
  std::span<const DeviceIndex> devices;
  int attempt = 1; ///< 1 for the first
};

/// Job `job` ended for good (completed, failed, killed, rejected, cancelled, never started).
struct JobEnded {
  JobIndex job = 0;
  double t_s = 0;
  const JobRecord& record; ///< what jobs.csv gets
  double run_s = 0;        ///< sim seconds of its last attempt (end − its start); 0 if it never started
  const ClusterView& view; ///< the engine's, for the event log
};

/// The policy is about to decide: the events of the instant, in the order it gets them; `waiting` and
/// `running` jobs after the engine has applied them.
struct PolicyCalling {
  const ClusterView& view;
  std::span<const Event> events;
  std::uint32_t waiting = 0, running = 0;
};

/// One decision of the policy, before (DECISION_APPLYING) or after (DECISION_APPLIED) the engine applies it;
/// `waiting` jobs at that moment. An infeasible decision throws between the two.
struct DecisionEvent {
  const ClusterView& view;
  const Decision& decision;
  std::uint32_t waiting = 0;
};

/// A subscriber: the handlers of the events it names in events(); the others are never called.
class EngineSubscriber {
public:
  EngineSubscriber() = default;
  EngineSubscriber(const EngineSubscriber&) = default;
  EngineSubscriber& operator=(const EngineSubscriber&) = default;
  EngineSubscriber(EngineSubscriber&&) = default;
  EngineSubscriber& operator=(EngineSubscriber&&) = default;
  virtual ~EngineSubscriber() = default;
  virtual EngineEventSet events() const = 0;
  virtual void device_changing(const DeviceChanging&) {}
  virtual void residents_changed(const ResidentsChanged&) {}
  virtual void availability_changed(const AvailabilityChanged&) {}
  virtual void queue_changed(const QueueChanged&) {}
  virtual void job_started(const JobStarted&) {}
  virtual void job_ended(const JobEnded&) {}
  virtual void nodes_changing(double /*t_s*/) {}
  virtual void policy_calling(const PolicyCalling&) {}
  virtual void decision_applying(const DecisionEvent&) {}
  virtual void decision_applied(const DecisionEvent&) {}
  virtual void pass_ended(const TimePoint&) {}
};

/// The engine's publisher: one subscriber list per event, in registration order. A handler may publish
/// further events (a job ended may end its dependents); lists do not change while the run goes on.
class EngineEvents {
public:
  /// Adds `s` at the end of the list of every event it names. `s` must outlive the publisher's use.
  void subscribe(EngineSubscriber& s)
  {
    const auto which = s.events();
    for (std::size_t e = 0; e < ENGINE_EVENT_COUNT; ++e)
      if (which.has(static_cast<EngineEvent>(e))) lists_[e].push_back(&s);
  }
  /// Some subscriber takes `e` (the engine builds a costly payload only then).
  bool wanted(EngineEvent e) const { return !list(e).empty(); }

  void device_changing(const DeviceChanging& e) const
  {
    for (auto* s : list(EngineEvent::DEVICE_CHANGING))
      s->device_changing(e);
  }
  void residents_changed(const ResidentsChanged& e) const
  {
    for (auto* s : list(EngineEvent::RESIDENTS_CHANGED))
      s->residents_changed(e);
  }
  void availability_changed(const AvailabilityChanged& e) const
  {
    for (auto* s : list(EngineEvent::AVAILABILITY_CHANGED))
      s->availability_changed(e);
  }
  void queue_changed(const QueueChanged& e) const
  {
    for (auto* s : list(EngineEvent::QUEUE_CHANGED))
      s->queue_changed(e);
  }
  void job_started(const JobStarted& e) const
  {
    for (auto* s : list(EngineEvent::JOB_STARTED))
      s->job_started(e);
  }
  void job_ended(const JobEnded& e) const
  {
    for (auto* s : list(EngineEvent::JOB_ENDED))
      s->job_ended(e);
  }
  void nodes_changing(double t_s) const
  {
    for (auto* s : list(EngineEvent::NODES_CHANGING))
      s->nodes_changing(t_s);
  }
  void policy_calling(const PolicyCalling& e) const
  {
    for (auto* s : list(EngineEvent::POLICY_CALLING))
      s->policy_calling(e);
  }
  void decision_applying(const DecisionEvent& e) const
  {
    for (auto* s : list(EngineEvent::DECISION_APPLYING))
      s->decision_applying(e);
  }
  void decision_applied(const DecisionEvent& e) const
  {
    for (auto* s : list(EngineEvent::DECISION_APPLIED))
      s->decision_applied(e);
  }
  void pass_ended(const TimePoint& p) const
  {
    for (auto* s : list(EngineEvent::PASS_ENDED))
      s->pass_ended(p);
  }

private:
  const std::vector<EngineSubscriber*>& list(EngineEvent e) const
  {
    return lists_[static_cast<std::size_t>(e)];
  }
  std::array<std::vector<EngineSubscriber*>, ENGINE_EVENT_COUNT> lists_;
};

} // namespace colocsim
