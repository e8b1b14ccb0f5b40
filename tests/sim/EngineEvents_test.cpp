// The engine publishes its events (sim/engine/EngineEvents.hpp) at the points of a run worked out by hand:
// a subscriber given through RunSetup::subscribers records every event with its payload.
#include "tests/CatchCompat.hpp"
#include "tests/sim/EngineTestSupport.hpp"

#include "sim/engine/EngineEvents.hpp"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace colocsim;
using namespace colocsim::test;

namespace {

/// Prints a number with 6 significant digits (the run's times and powers are round by construction).
std::string num(double x)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

template <class T> std::string list(const T& xs)
{
  std::string out = "[";
  for (const auto& x : xs) {
    if (out.size() > 1) out += ',';
    out += num(static_cast<double>(x));
  }
  out += ']';
  return out;
}

std::string describe_events(std::span<const Event> events)
{
  std::string out = "[";
  for (const auto& e : events) {
    if (out.size() > 1) out += ',';
    if (const auto* s = std::get_if<JobSubmitted>(&e))
      out += "submitted " + std::to_string(s->job);
    else if (const auto* c = std::get_if<JobCompleted>(&e))
      out += "completed " + std::to_string(c->job);
    else
      out += "other";
  }
  out += ']';
  return out;
}

/// Every event, one line each. DEVICE_CHANGING is kept only when it closes an interval (the device's first,
/// or at a later time than its last): the others, at the same instant, integrate nothing, and how many
/// there are is the engine's business (one per rate change).
class Recorder final : public EngineSubscriber {
public:
  EngineEventSet events() const override
  {
    return {EngineEvent::DEVICE_CHANGING,  EngineEvent::RESIDENTS_CHANGED, EngineEvent::AVAILABILITY_CHANGED,
            EngineEvent::QUEUE_CHANGED,    EngineEvent::JOB_STARTED,       EngineEvent::JOB_ENDED,
            EngineEvent::NODES_CHANGING,   EngineEvent::POLICY_CALLING,    EngineEvent::DECISION_APPLYING,
            EngineEvent::DECISION_APPLIED, EngineEvent::PASS_ENDED};
  }
  void device_changing(const DeviceChanging& e) override
  {
    const auto last = last_t_.find(e.device);
    if (last != last_t_.end() && !(e.t_s > last->second)) return;
    last_t_[e.device] = e.t_s;
    lines.push_back("changing d" + std::to_string(e.device) + " t=" + num(e.t_s) + " " + num(e.power_w) +
                    " W residents " + list(e.residents) + " shares " + list(e.share_w));
  }
  void residents_changed(const ResidentsChanged& e) override
  {
    lines.push_back(std::string(e.joined ? "joined" : "left") + " d" + std::to_string(e.device) + " job " +
                    std::to_string(e.job) + " t=" + num(e.t_s) + " share " + num(e.share) + " residents " +
                    std::to_string(e.residents) + (e.idle ? " idle" : " busy"));
  }
  void availability_changed(const AvailabilityChanged& e) override
  {
    lines.push_back("availability d" + std::to_string(e.device) + " t=" + num(e.t_s) +
                    (e.idle ? " idle" : " busy"));
  }
  void queue_changed(const QueueChanged& e) override
  {
    lines.push_back(std::string(e.joined ? "queue+ " : "queue- ") + std::to_string(e.job) +
                    " t=" + num(e.t_s) + " size " + std::to_string(e.size) + " types " +
                    std::to_string(e.fitting_types));
  }
  void job_started(const JobStarted& e) override
  {
    lines.push_back("started " + std::to_string(e.job) + " t=" + num(e.t_s) + " on " + list(e.devices) +
                    " attempt " + std::to_string(e.attempt));
  }
  void job_ended(const JobEnded& e) override
  {
    lines.push_back("ended " + std::to_string(e.job) + " " + e.record.job->id + " " +
                    std::string(to_string(e.record.status)) + " t=" + num(e.t_s) + " run " + num(e.run_s) +
                    " energy " + num(e.record.energy_j));
  }
  void nodes_changing(double t_s) override { lines.push_back("nodes t=" + num(t_s)); }
  void policy_calling(const PolicyCalling& e) override
  {
    lines.push_back("policy " + describe_events(e.events) + " waiting " + std::to_string(e.waiting) +
                    " running " + std::to_string(e.running));
  }
  void decision_applying(const DecisionEvent& e) override
  {
    lines.push_back("applying " + describe(e.decision) + " waiting " + std::to_string(e.waiting));
  }
  void decision_applied(const DecisionEvent& e) override
  {
    lines.push_back("applied " + describe(e.decision) + " waiting " + std::to_string(e.waiting));
  }
  void pass_ended(const TimePoint& p) override
  {
    lines.push_back("pass t=" + num(p.t_s) + " " + num(p.device_power_w) + " W + nodes " +
                    num(p.node_power_w) + " W busy " + std::to_string(p.busy_devices) + " running " +
                    std::to_string(p.running_jobs) + " waiting " + std::to_string(p.waiting_jobs));
  }
  std::vector<std::string> lines;

private:
  std::map<DeviceIndex, double> last_t_;
};

} // namespace

TEST_CASE("the engine publishes a run's events in order: two jobs sharing one tile",
          "[engine][components][events]")
{
  // pair.csv on base.yaml (Engine_test, "two jobs sharing one tile"): one node, one card of two tiles;
  // jobs a (0) and b (1), 100 s of busy work each, submitted at 0; first-fit puts both on tile 0, where each
  // runs at 0.4 and ends at 250 s. Powers (Engine_test's header): an idle tile 100 W; tile 0 with a alone
  // (rate 1) 100 + 20 + 100·0.5 = 170 W, with both (rate 0.4) 100 + 20 + 100·(2·0.5·0.4) = 160 W, 80 W
  // each. Card cap 600 W: never throttled. Node baseline 500 W.
  RunInputs in = build_run(load_scenario(SIM_DATA + "base.yaml", {"workload.trace=pair.csv"}));
  Recorder rec;
  RunSetup setup = in.setup();
  setup.subscribers.push_back(&rec);
  RunObserver none;
  run_simulation(setup, none);
  // By hand, in the engine's order (docs/architecture.md, The engine's components):
  const std::vector<std::string> expected{
      // the platform is built: both tiles available and idle
      "availability d0 t=0 idle",
      "availability d1 t=0 idle",
      // t = 0: both jobs read and queued (one device, fitting the one type)
      "queue+ 0 t=0 size 1 types 1",
      "queue+ 1 t=0 size 1 types 1",
      "policy [submitted 0,submitted 1] waiting 2 running 0",
      "applying place job 0 on devices [0] waiting 2",
      "queue- 0 t=0 size 1 types 1",
      "started 0 t=0 on [0] attempt 1",
      // tile 0 is about to change: nothing to integrate yet (t = 0), idle power, no residents
      "changing d0 t=0 100 W residents [] shares []",
      "joined d0 job 0 t=0 share 1 residents 1 busy",
      "applied place job 0 on devices [0] waiting 1",
      "applying place job 1 on devices [0] waiting 1",
      "queue- 1 t=0 size 1 types 1",
      "started 1 t=0 on [0] attempt 1",
      "joined d0 job 1 t=0 share 1 residents 2 busy",
      "applied place job 1 on devices [0] waiting 0",
      // tile 0 at 160 W, tile 1 idle at 100 W
      "pass t=0 260 W + nodes 500 W busy 1 running 2 waiting 0",
      // t = 250: both complete (by job index); tile 0 integrates [0, 250] at 160 W, 80 W each
      "changing d0 t=250 160 W residents [0,1] shares [80,80]",
      "left d0 job 0 t=250 share 1 residents 1 busy",
      "ended 0 a completed t=250 run 250 energy 20000",
      "left d0 job 1 t=250 share 1 residents 0 idle",
      "ended 1 b completed t=250 run 250 energy 20000",
      "policy [completed 0,completed 1] waiting 0 running 0",
      "pass t=250 200 W + nodes 500 W busy 0 running 0 waiting 0",
      // the run's end: tile 1 integrates [0, 250] idle, the nodes' baselines up to 250
      "changing d1 t=250 100 W residents [] shares []",
      "nodes t=250",
  };
  CHECK(rec.lines == expected);
}
