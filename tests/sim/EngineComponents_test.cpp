// The engine's components (sim/engine/), each alone, without SimGrid: hand-made sequences of the engine's
// events and the values they must give, worked out by hand in the comments.
#include "tests/CatchCompat.hpp"

#include "sim/engine/DependencyGraph.hpp"
#include "sim/engine/DeviceMeter.hpp"
#include "sim/engine/DeviceMeters.hpp"
#include "sim/engine/EngineEvents.hpp"
#include "sim/engine/IdleWaitMeter.hpp"
#include "sim/engine/JobSlots.hpp"
#include "sim/engine/MigInstances.hpp"
#include "sim/engine/NodePower.hpp"
#include "sim/engine/ReasonTable.hpp"
#include "sim/engine/SmallVec.hpp"
#include "sim/engine/TimeSlack.hpp"
#include "sim/engine/UserRunHistory.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace colocsim;
using colocsim::test::WithinAbs;

TEST_CASE("idle-while-waiting meter: device-seconds of idle devices some waiting job fits",
          "[engine][components]")
{
  // Devices 0 and 1 of type 0, device 2 of type 1. All three idle from t = 0; nobody waits: nothing counts.
  IdleWaitMeter m(2, {0, 0, 1});
  for (std::size_t d = 0; d < 3; ++d)
    m.device_idle(d, true, 0);
  CHECK(m.counting_now() == 0);
  // t = 10: a one-device job that fits both types joins the queue: 2 + 1 idle devices count.
  m.job_waiting(0b11, 1, true, 10);
  CHECK(m.counting_now() == 3);
  // t = 20: device 0 gets a job: 2 count. [10, 20]: 3 × 10 = 30.
  m.device_idle(0, false, 20);
  CHECK(m.counting_now() == 2);
  m.device_idle(0, false, 21); // no change: nothing happens
  // t = 25: the job leaves the queue: 0 count. [20, 25]: 2 × 5 = 10.
  m.job_waiting(0b11, 1, false, 25);
  CHECK(m.counting_now() == 0);
  // t = 30: a 2-device gang job of type 0 only: one idle device of type 0 (device 1) is too few: 0 count.
  m.job_waiting(0b01, 2, true, 30);
  CHECK(m.counting_now() == 0);
  // t = 40: device 0 idle again: 2 idle of type 0 hold the gang job: 2 count.
  m.device_idle(0, true, 40);
  CHECK(m.counting_now() == 2);
  // t = 50: a one-device job of type 1 only: device 2 counts too: 3. [40, 50]: 2 × 10 = 20.
  m.job_waiting(0b10, 1, true, 50);
  CHECK(m.counting_now() == 3);
  // t = 60: [50, 60]: 3 × 10 = 30. Total 30 + 10 + 20 + 30 = 90 device-seconds.
  CHECK_THAT(m.total(60), WithinAbs(90.0, 1e-12));
  CHECK_THAT(m.total(60), WithinAbs(90.0, 1e-12)); // reading twice adds nothing
}

TEST_CASE("idle-while-waiting meter: a gang job counts only where one type has enough idle devices",
          "[engine][components]")
{
  // One idle device of each of two types; a 2-device job that accepts both waits: no type holds it alone.
  IdleWaitMeter m(2, {0, 1});
  m.device_idle(0, true, 0);
  m.device_idle(1, true, 0);
  m.job_waiting(0b11, 2, true, 0);
  CHECK(m.counting_now() == 0);
  // t = 100: a one-device job joins: both devices count until t = 130: 2 × 30 = 60.
  m.job_waiting(0b11, 1, true, 100);
  m.device_idle(1, false, 130); // device 1 taken: 1 counts to t = 150: + 20
  CHECK_THAT(m.total(150), WithinAbs(80.0, 1e-12));
}

TEST_CASE("dependency graph: ids, blocked jobs, releases in time order", "[engine][components]")
{
  DependencyGraph g;
  g.index("a", 0);
  g.index("b", 1);
  g.index("a", 3); // the first job of an id wins
  CHECK(g.find("a") == std::optional<JobIndex>(0));
  CHECK(g.find("b") == std::optional<JobIndex>(1));
  CHECK_FALSE(g.find("c").has_value());

  g.wait_for(0, 2);
  g.wait_for(0, 1);
  g.wait_for(1, 3);
  CHECK(g.take_dependents(0) == std::vector<JobIndex>{2, 1}); // in the order they were added
  CHECK(g.take_dependents(0).empty());                        // taken once
  CHECK(g.take_dependents(1) == std::vector<JobIndex>{3});

  // Releases come in time order, ties by job index, only when due.
  g.release_at(50, 4);
  g.release_at(20, 7);
  g.release_at(20, 5);
  CHECK(g.next_release() == std::optional<double>(20));
  CHECK_FALSE(g.pop_release(10).has_value());
  CHECK(g.pop_release(20) == std::optional<JobIndex>(5));
  CHECK(g.pop_release(20) == std::optional<JobIndex>(7));
  CHECK_FALSE(g.pop_release(20).has_value());
  CHECK(g.next_release() == std::optional<double>(50));
  CHECK(g.pop_release(60) == std::optional<JobIndex>(4));
  CHECK_FALSE(g.next_release().has_value());
}

TEST_CASE("dependency graph: cancelling walks the waiting jobs depth first, each cause its own parent",
          "[engine][components]")
{
  // 0 ← {1, 2}; 1 ← {3}; 2 ← {3, 4}; 4 ← {5}; and apart: 6 ← {7}. Job 0 fails.
  DependencyGraph g;
  g.wait_for(0, 1);
  g.wait_for(0, 2);
  g.wait_for(1, 3);
  g.wait_for(2, 3);
  g.wait_for(2, 4);
  g.wait_for(4, 5);
  g.wait_for(6, 7);
  // By hand: stack [0]; 0's list {1, 2}: cancel 1 (cause 0), 2 (cause 0), stack [1, 2]; pop 2: cancel 3
  // (cause 2), 4 (cause 2), stack [1, 3, 4]; pop 4: cancel 5 (cause 4); pop 5, pop 3: none wait; pop 1: 3
  // again, already cancelled (no second cancellation, not walked again).
  std::set<JobIndex> cancelled;
  std::vector<std::pair<JobIndex, JobIndex>> calls;
  g.cancel_from(0, [&](JobIndex b, JobIndex k) {
    calls.emplace_back(b, k);
    return cancelled.insert(b).second;
  });
  const std::vector<std::pair<JobIndex, JobIndex>> expected{{1, 0}, {2, 0}, {3, 2}, {4, 2}, {5, 4}, {3, 1}};
  CHECK(calls == expected);
  CHECK(cancelled == std::set<JobIndex>{1, 2, 3, 4, 5});
  CHECK(g.take_dependents(6) == std::vector<JobIndex>{7}); // untouched
  CHECK(g.take_dependents(2).empty());                     // walked lists are gone
}

TEST_CASE("node power: baseline energy across off, boot and on", "[engine][components]")
{
  // Three nodes: 100 W, 200 W, and a third the baseline list does not name (0 W).
  NodePower n(3, {100.0, 200.0});
  CHECK(n.size() == 3);
  CHECK(n.baseline_w() == 300.0);
  CHECK(n.powered() == 3);
  n.integrate(10); // [0, 10]: 300 W × 10 s = 3,000 J
  n.power_off(1);
  CHECK(n.off(1));
  CHECK(n.baseline_w() == 100.0);
  n.integrate(30); // [10, 30]: 100 × 20 = 2,000 J
  n.power_on(1, 30, 50);
  CHECK(n.state(1) == NodePower::State::BOOTING);
  CHECK_FALSE(n.on(1));
  CHECK(n.baseline_w() == 300.0); // a booting node draws its baseline
  CHECK(n.next_boot() == std::optional<double>(80));
  CHECK_FALSE(n.finish_boot(79.9).has_value());
  n.integrate(80); // [30, 80]: 300 × 50 = 15,000 J
  CHECK(n.finish_boot(80) == std::optional<std::uint32_t>(1));
  CHECK(n.on(1));
  CHECK_FALSE(n.next_boot().has_value());
  n.integrate(100); // [80, 100]: 300 × 20 = 6,000 J
  n.power_off(0);
  n.power_off(2);
  CHECK(n.powered() == 1);
  CHECK(n.powered_off() == std::vector<std::uint32_t>{1, 0, 2}); // in the order they went off
  n.clear_powered_off();
  CHECK(n.powered_off().empty());
  n.integrate(110); // [100, 110]: 200 × 10 = 2,000 J
  n.integrate(105); // the past: nothing
  // 3,000 + 2,000 + 15,000 + 6,000 + 2,000 = 28,000 J
  CHECK_THAT(n.energy_j(), WithinAbs(28000.0, 1e-9));
}

TEST_CASE("reason table: each text stored once, dependency causes worded by status", "[engine][components]")
{
  ReasonTable r;
  CHECK(r.text(ReasonTable::NONE).empty()); // index 0: a completed job's
  const auto x = r.id("x");
  const auto y = r.id("y");
  CHECK(x == 1);
  CHECK(y == 2);
  CHECK(r.id("x") == 1); // the same text, the same index
  CHECK(r.size() == 3);
  CHECK(r.text(r.dependency(JobStatus::FAILED)) == "a job it depends on failed");
  CHECK(r.text(r.dependency(JobStatus::REJECTED)) == "a job it depends on was rejected");
  CHECK(r.text(r.dependency(JobStatus::NEVER_STARTED)) == "a job it depends on never started");
  CHECK(r.text(r.dependency(JobStatus::CANCELLED)) == "a job it depends on was cancelled");
  CHECK(r.text(r.dependency(JobStatus::KILLED)) == "a job it depends on was killed");
  CHECK(r.dependency(JobStatus::FAILED) == 3); // the first new text after x and y
  CHECK(r.size() == 8);                        // killed has its own text
}

TEST_CASE(
    "user run history: Tsafrir's prediction, the mean of the user's last two runs capped by the request",
    "[engine][components]")
{
  UserRunHistory h;
  CHECK(h.predict("u", 100) == 100); // no history: the request
  h.record("u", 30);
  CHECK(h.predict("u", 100) == 100); // one run is not enough
  h.record("u", 50);
  CHECK(h.predict("u", 100) == 40); // (30 + 50) / 2
  CHECK(h.predict("u", 35) == 35);  // never more than the request
  h.record("u", 90);
  CHECK(h.predict("u", 100) == 70);  // (50 + 90) / 2: the oldest run dropped
  CHECK(h.predict("v", 100) == 100); // another user's history is not u's
  h.record("", 5);
  h.record("", 5);
  CHECK(h.predict("", 100) == 100); // jobs without a user have no history
}

TEST_CASE("MIG instances: free and ready instances, placing, and a reconfiguration's new indices",
          "[engine][components]")
{
  const std::string rel = "models/mig/a100-40gb.yaml";
  const MigGeometry geo(load_mig_table(colocsim::test::read_source_file(rel), rel));
  REQUIRE(geo.reconfiguration_latency_s() == 5.0); // the table's estimate
  // An A100-40GB as {2g.10gb@0, 1g.5gb@2, 1g.5gb@3, 3g.20gb@4}: 28, 14, 14 and 42 SMs.
  const MigLayout layout{geo.instance("2g.10gb", 0), geo.instance("1g.5gb", 2), geo.instance("1g.5gb", 3),
                         geo.instance("3g.20gb", 4)};
  MigInstances m;
  m.reset(layout);
  REQUIRE(m.size() == 4);
  CHECK(m.busy() == std::vector<bool>{false, false, false, false});
  CHECK(m.largest_free(geo, 0) == std::optional<std::size_t>(3)); // 3g: the most SMs
  m.place(3, 7);
  CHECK(m.largest_free(geo, 0) == std::optional<std::size_t>(0)); // then 2g
  m.place(0, 5);
  CHECK(m.largest_free(geo, 0) == std::optional<std::size_t>(1)); // two 1g: the lower index
  CHECK(m.job(3) == 7);
  // At t = 100 the two empty 1g instances become one 2g.10gb@2. Kept: 2g@0 (index 0 → 0) and 3g@4 (3 → 1),
  // the new 2g@2 last (index 2), empty, ready at 100 + 5 = 105; the jobs stay on their instances.
  const MigChange change{{1, 2}, {geo.instance("2g.10gb", 2)}};
  REQUIRE(geo.check_change(m.layout(), m.busy(), change).ok());
  const auto remap = m.reconfigure(geo, change, 100);
  CHECK(remap == std::vector<std::int64_t>{0, -1, -1, 1});
  REQUIRE(m.size() == 3);
  CHECK(geo.describe(m.layout()) == "{2g.10gb@0, 3g.20gb@4, 2g.10gb@2}");
  CHECK(m.job(0) == 5);
  CHECK(m.job(1) == 7);
  CHECK(m.job(2) == -1);
  CHECK(m.ready_at(2) == 105);
  CHECK(m.ready(0, 100));
  CHECK_FALSE(m.ready(2, 104.9));
  CHECK_FALSE(m.largest_free(geo, 104.9).has_value()); // the new instance is still being created
  CHECK(m.largest_free(geo, 105) == std::optional<std::size_t>(2));
  m.vacate(0);
  CHECK(m.busy() == std::vector<bool>{false, true, false});
  m.clear();
  CHECK(m.size() == 0);
}

TEST_CASE("device meter: energy, busy, resident, allocated and fragmented time between events",
          "[engine][components]")
{
  DeviceMeter m;
  // [0, 10]: idle at 100 W: 1,000 J, nothing else.
  CHECK(m.advance(10, 100, 0) == 10);
  // Two jobs arrive at t = 10, asking for 0.25 and 0.5 of the device. [10, 30] at 300 W: + 6,000 J; busy
  // 20 s; residents × time 2 × 20 = 40; allocated 0.75 × 20 = 15; fragmented 0.25 × 20 = 5.
  m.add_share(0.25);
  m.add_share(0.5);
  CHECK(m.advance(30, 300, 2) == 20);
  CHECK(m.advance(30, 300, 2) == 0); // the same instant: nothing
  CHECK(m.advance(25, 300, 2) == 0); // the past: nothing
  // A third job (0.75) at t = 30: the device is oversubscribed (1.5). [30, 40] at 400 W: + 4,000 J; busy
  // + 10; residents + 3 × 10 = 30; allocated + min(1, 1.5) × 10 = 10; fragmented + 0 (nothing left).
  m.add_share(0.75);
  CHECK(m.advance(40, 400, 3) == 10);
  // All leave at t = 40: shares cleared. [40, 50] idle at 100 W: + 1,000 J only.
  m.remove_share(0.25);
  m.clear_share();
  CHECK(m.share() == 0);
  CHECK(m.advance(50, 100, 0) == 10);
  CHECK_THAT(m.energy_j(), WithinAbs(12000.0, 1e-9)); // 1,000 + 6,000 + 4,000 + 1,000
  CHECK_THAT(m.busy_s(), WithinAbs(30.0, 1e-12));
  CHECK_THAT(m.resident_s(), WithinAbs(70.0, 1e-12));
  CHECK_THAT(m.allocated_s(), WithinAbs(25.0, 1e-12));
  CHECK_THAT(m.fragmented_s(), WithinAbs(5.0, 1e-12));
}

// ---- The components as subscribers: driven through EngineEvents, as the engine drives them. ----

namespace {
/// Records the name of every event it gets, to check lists, order and nesting.
class Names final : public EngineSubscriber {
public:
  Names(std::string tag, EngineEventSet which, std::vector<std::string>& log)
      : tag_(std::move(tag)), which_(which), log_(log)
  {
  }
  EngineEventSet events() const override { return which_; }
  void device_changing(const DeviceChanging& e) override { add("changing d" + std::to_string(e.device)); }
  void residents_changed(const ResidentsChanged&) override { add("residents"); }
  void availability_changed(const AvailabilityChanged&) override { add("availability"); }
  void queue_changed(const QueueChanged&) override { add("queue"); }
  void job_started(const JobStarted& e) override { add("started " + std::to_string(e.job)); }
  void job_ended(const JobEnded& e) override { add("ended " + std::to_string(e.job)); }
  void nodes_changing(double) override { add("nodes"); }
  void policy_calling(const PolicyCalling&) override { add("policy"); }
  void decision_applying(const DecisionEvent&) override { add("applying"); }
  void decision_applied(const DecisionEvent&) override { add("applied"); }
  void pass_ended(const TimePoint&) override { add("pass"); }

private:
  void add(const std::string& what) { log_.push_back(tag_ + ": " + what); }
  std::string tag_;
  EngineEventSet which_;
  std::vector<std::string>& log_;
};

/// A JobRecord of `status` for job `job` (its user: "u").
JobRecord ended(const Job& job, JobStatus status)
{
  JobRecord r;
  r.job = &job;
  r.status = status;
  return r;
}

/// A ClusterView nobody reads (the payloads' view is the event log's): any use fails the test.
class NoView final : public ClusterView {
public:
  double now() const override { throw std::logic_error("read"); }
  std::size_t device_count() const override { throw std::logic_error("read"); }
  DeviceView device(DeviceIndex) const override { throw std::logic_error("read"); }
  const Job& job(JobIndex) const override { throw std::logic_error("read"); }
  std::span<const JobIndex> residents(DeviceIndex) const override { throw std::logic_error("read"); }
  const ResourceSignature& signature(JobIndex) const override { throw std::logic_error("read"); }
  PlacementPrediction predict(JobIndex, std::span<const DeviceIndex>,
                              std::span<const JobIndex>) const override
  {
    throw std::logic_error("read");
  }
};
const NoView NO_VIEW;
} // namespace

TEST_CASE("engine events: each event goes to its own subscribers, in registration order",
          "[engine][components][events]")
{
  std::vector<std::string> log;
  Names a("a", {EngineEvent::DEVICE_CHANGING, EngineEvent::JOB_ENDED}, log);
  Names b("b", {EngineEvent::JOB_ENDED, EngineEvent::PASS_ENDED}, log);
  EngineEvents events;
  events.subscribe(b);
  events.subscribe(a);
  CHECK(events.wanted(EngineEvent::JOB_ENDED));
  CHECK_FALSE(events.wanted(EngineEvent::QUEUE_CHANGED)); // nobody named it
  const std::vector<JobIndex> none;
  const std::vector<double> no_w;
  events.device_changing(DeviceChanging{3, 1.0, 100.0, none, no_w});
  Job job;
  const JobRecord r = ended(job, JobStatus::COMPLETED);
  events.job_ended(JobEnded{7, 2.0, r, 0.0, NO_VIEW});
  events.queue_changed(QueueChanged{}); // nobody: nothing
  events.pass_ended(TimePoint{});
  // By hand: device_changing reaches a only; job_ended b then a (registration order, not the order of the
  // events() sets); pass_ended b only.
  const std::vector<std::string> expected{"a: changing d3", "b: ended 7", "a: ended 7", "b: pass"};
  CHECK(log == expected);
}

TEST_CASE("device meters through the events: device integrals and each job's attributed energy",
          "[engine][components][events]")
{
  DeviceMeters m(2);
  EngineEvents events;
  events.subscribe(m);
  const std::vector<JobIndex> none, one{4}, two{4, 2};
  const std::vector<double> no_w, w1{50.0}, w2{30.0, 90.0};
  // Jobs 4 and 2 start (their counters exist from here). Device 0: idle at 100 W over [0, 10]: 1,000 J.
  events.job_started(JobStarted{4, 10, {}, 1});
  events.job_started(JobStarted{2, 10, {}, 1});
  events.device_changing(DeviceChanging{0, 10, 100, none, no_w});
  // Job 4 joins device 0 (share 0.5); [10, 20] at 150 W, 50 W of it job 4's: + 1,500 J; job 4: 500 J.
  events.residents_changed(ResidentsChanged{0, 4, 10, true, 0.5, 1, false});
  events.device_changing(DeviceChanging{0, 20, 150, one, w1});
  events.device_changing(DeviceChanging{0, 20, 150, one, w1}); // same instant: nothing more
  // Job 2 joins (share 0.25); [20, 40] at 220 W, 30 W job 4's and 90 W job 2's: + 4,400 J; job 4 + 600 J,
  // job 2: 1,800 J. Allocated 0.5 × 10 + 0.75 × 20 = 20 s; fragmented 0.5 × 10 + 0.25 × 20 = 10 s.
  events.residents_changed(ResidentsChanged{0, 2, 20, true, 0.25, 2, false});
  events.device_changing(DeviceChanging{0, 40, 220, two, w2});
  // Both leave at 40: the share is cleared. [40, 45] idle at 100 W: + 500 J. Device 1: idle 80 W × 45 s.
  events.residents_changed(ResidentsChanged{0, 4, 40, false, 0.5, 1, false});
  events.residents_changed(ResidentsChanged{0, 2, 40, false, 0.25, 0, true});
  CHECK(m.meter(0).share() == 0);
  events.device_changing(DeviceChanging{0, 45, 100, none, no_w});
  events.device_changing(DeviceChanging{1, 45, 80, none, no_w});
  CHECK_THAT(m.meter(0).energy_j(), WithinAbs(7400.0, 1e-9)); // 1,000 + 1,500 + 4,400 + 500
  CHECK_THAT(m.meter(1).energy_j(), WithinAbs(3600.0, 1e-9));
  CHECK_THAT(m.job_energy_j(4), WithinAbs(1100.0, 1e-9));
  CHECK_THAT(m.job_energy_j(2), WithinAbs(1800.0, 1e-9));
  CHECK(m.job_energy_j(3) == 0);  // never started
  CHECK(m.job_energy_j(99) == 0); // not even read
  CHECK_THAT(m.meter(0).busy_s(), WithinAbs(30.0, 1e-12));
  CHECK_THAT(m.meter(0).resident_s(), WithinAbs(50.0, 1e-12)); // 1 × 10 + 2 × 20
  CHECK_THAT(m.meter(0).allocated_s(), WithinAbs(20.0, 1e-12));
  CHECK_THAT(m.meter(0).fragmented_s(), WithinAbs(10.0, 1e-12));
}

TEST_CASE("idle-while-waiting meter through the events: residents, availability and the queue",
          "[engine][components][events]")
{
  // Two devices of one type. The engine reports both available and idle at t = 0.
  IdleWaitMeter m(1, {0, 0});
  EngineEvents events;
  events.subscribe(m);
  events.availability_changed(AvailabilityChanged{0, 0, true});
  events.availability_changed(AvailabilityChanged{1, 0, true});
  // t = 5: job 0 (one device, fits type 0) waits: 2 count. t = 15: it joins device 0 and leaves the queue:
  // nothing waits, 0 count. [5, 15]: 2 × 10 = 20.
  events.queue_changed(QueueChanged{0, 5, true, 1, 0b1});
  events.queue_changed(QueueChanged{0, 15, false, 1, 0b1});
  events.residents_changed(ResidentsChanged{0, 0, 15, true, 1.0, 1, false});
  CHECK(m.counting_now() == 0);
  // t = 20: job 1 waits: device 1 counts (device 0 is busy). t = 30: device 1's node goes off (not
  // available): 0 count. [20, 30]: 1 × 10 = 10.
  events.queue_changed(QueueChanged{1, 20, true, 1, 0b1});
  CHECK(m.counting_now() == 1);
  events.availability_changed(AvailabilityChanged{1, 30, false});
  CHECK(m.counting_now() == 0);
  // t = 40: job 0 leaves device 0, which is idle: 1 counts until t = 50: + 10. Total 40.
  events.residents_changed(ResidentsChanged{0, 0, 40, false, 1.0, 0, true});
  CHECK_THAT(m.total(50), WithinAbs(40.0, 1e-12));
}

TEST_CASE("node power through the events: integrated up to each change", "[engine][components][events]")
{
  NodePower n(2, {100.0, 300.0});
  EngineEvents events;
  events.subscribe(n);
  // [0, 10]: 400 W = 4,000 J; node 1 off at 10; [10, 25]: 100 W = 1,500 J; the run's end at 25.
  events.nodes_changing(10);
  n.power_off(1);
  events.nodes_changing(25);
  CHECK_THAT(n.energy_j(), WithinAbs(5500.0, 1e-9));
}

TEST_CASE("user run history through the events: completed and killed jobs count, others do not",
          "[engine][components][events]")
{
  UserRunHistory h;
  EngineEvents events;
  events.subscribe(h);
  Job job;
  job.user = "u";
  auto end = [&](JobStatus s, double run_s) {
    const JobRecord r = ended(job, s);
    events.job_ended(JobEnded{0, 0, r, run_s, NO_VIEW});
  };
  end(JobStatus::COMPLETED, 30);
  end(JobStatus::FAILED, 1000);     // not a run time the user asked for: ignored
  end(JobStatus::CANCELLED, 1000);  // never ran
  end(JobStatus::KILLED, 50);       // killed at its limit: its run time is the limit
  CHECK(h.predict("u", 100) == 40); // (30 + 50) / 2
  end(JobStatus::NEVER_STARTED, 1000);
  end(JobStatus::REJECTED, 1000);
  CHECK(h.predict("u", 100) == 40);
}

namespace {
/// The engine's side of the dependency graph, by hand: releases and cancellations are logged; a cancelled
/// job's end is published again, as the engine's record_end does.
class Outcomes final : public DependencyOutcomes {
public:
  Outcomes(EngineEvents& events, std::vector<std::string>& log) : events_(events), log_(log) {}
  void dependency_completed(JobIndex k) override { log_.push_back("release " + std::to_string(k)); }
  bool cancel(JobIndex b, JobIndex k) override
  {
    if (!blocked.contains(b)) return false;
    blocked.erase(b);
    log_.push_back("cancel " + std::to_string(b) + " for " + std::to_string(k));
    const JobRecord r = ended(job_, JobStatus::CANCELLED);
    events_.job_ended(JobEnded{b, 0, r, 0, NO_VIEW});
    return true;
  }
  std::set<JobIndex> blocked;

private:
  EngineEvents& events_;
  std::vector<std::string>& log_;
  Job job_;
};
} // namespace

TEST_CASE("dependency graph through the events: a completion releases, a failure cancels depth first",
          "[engine][components][events]")
{
  // 0 ← {1, 2}; 1 ← {3}; 2 ← {3, 4}; 4 ← {5}; and 6 ← {7, 8}.
  std::vector<std::string> log;
  EngineEvents events;
  Names seen("seen", {EngineEvent::JOB_ENDED}, log); // registered before the graph, as the engine does
  DependencyGraph g;
  Outcomes outcomes(events, log);
  g.set_outcomes(&outcomes);
  events.subscribe(seen);
  events.subscribe(g);
  for (const auto& [dep, b] : std::vector<std::pair<JobIndex, JobIndex>>{
           {0, 1}, {0, 2}, {1, 3}, {2, 3}, {2, 4}, {4, 5}, {6, 7}, {6, 8}})
    g.wait_for(dep, b);
  outcomes.blocked = {1, 2, 3, 4, 5, 7, 8};
  Job job;
  auto end = [&](JobIndex j, JobStatus s) {
    const JobRecord r = ended(job, s);
    events.job_ended(JobEnded{j, 0, r, 0, NO_VIEW});
  };
  // Job 6 completes: 7 and 8 are told, in the order they were added; taken once.
  end(6, JobStatus::COMPLETED);
  end(6, JobStatus::COMPLETED);
  // Job 0 never started (the run's end): nothing is cancelled.
  end(0, JobStatus::NEVER_STARTED);
  // Job 0 fails. By hand (the walk of "cancelling walks the waiting jobs depth first" above): cancel 1 and 2
  // for 0, then 3 and 4 for 2, then 5 for 4; 3 again for 1 is refused (already cancelled). Each cancelled
  // job's end is seen right after its cancellation, and starts no walk of its own (5 would otherwise be
  // cancelled before 2).
  end(0, JobStatus::FAILED);
  const std::vector<std::string> expected{
      "seen: ended 6",  "release 7",     "release 8",      "seen: ended 6", "seen: ended 0",  "seen: ended 0",
      "cancel 1 for 0", "seen: ended 1", "cancel 2 for 0", "seen: ended 2", "cancel 3 for 2", "seen: ended 3",
      "cancel 4 for 2", "seen: ended 4", "cancel 5 for 4", "seen: ended 5"};
  CHECK(log == expected);
  CHECK(outcomes.blocked == std::set<JobIndex>{7, 8}); // released, not cancelled
}

TEST_CASE(
    "end_slack: 8 ulps of t read from its exponent, the value of the nextafter form, 1e-9 s below 2^20 s",
    "[engine][components]")
{
  // The definition it replaced, by brute force over special values and 2 million random doubles (every bit
  // pattern, and magnitudes around the simulated times of real runs).
  const auto by_nextafter = [](double t) {
    const double a = std::abs(t);
    return std::max(1e-9, 8 * (std::nextafter(a, HUGE_VAL) - a));
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (const double t : {0.0, -0.0, 1.0, 0.5, 1048575.0, 1048576.0, 2097152.0, 1e9, 1e300, 1e-300, -3e7,
                         std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(), inf,
                         -inf, std::numeric_limits<double>::quiet_NaN()}) {
    INFO("t = " << t);
    CHECK(std::bit_cast<std::uint64_t>(end_slack(t)) == std::bit_cast<std::uint64_t>(by_nextafter(t)));
  }
  // Worked by hand: below 2^20 s the 8 ulps are under 1e-9; at 2^20 (ulp 2^-32) they are 2^-29 = 1.86e-9;
  // at 1e6 s (exponent 19) 8 × 2^-33 = 9.3e-10 < 1e-9.
  CHECK(end_slack(1e6) == 1e-9);
  CHECK(end_slack(1048576.0) == std::ldexp(1.0, -29));
  CHECK(end_slack(-1048576.0) == std::ldexp(1.0, -29));
  std::mt19937_64 rng(7);
  std::size_t differ = 0;
  for (int i = 0; i < 1000000; ++i) {
    const double any = std::bit_cast<double>(rng());
    const double time = std::ldexp(static_cast<double>(rng() >> 11), -static_cast<int>(rng() % 90));
    for (const double t : {any, time})
      if (std::abs(t) != std::numeric_limits<double>::max() &&
          std::bit_cast<std::uint64_t>(end_slack(t)) != std::bit_cast<std::uint64_t>(by_nextafter(t)))
        ++differ;
  }
  CHECK(differ == 0);
}

TEST_CASE("SmallVec: in place up to N, on the heap past it, order kept by erase, copies and moves whole",
          "[engine][components]")
{
  SmallVec<std::uint32_t, 2> v;
  CHECK(v.empty());
  CHECK(v.capacity() == 2);
  v.push_back(7);
  v.push_back(8);
  const auto* in_place = v.data();
  CHECK(v.capacity() == 2); // still in place
  v.push_back(v[0]);        // an element of its own, pushed as it grows onto the heap
  CHECK(v.data() != in_place);
  CHECK(v.capacity() == 4);
  v.push_back(10);
  v.push_back(11); // grows again: 8
  CHECK(v.capacity() == 8);
  CHECK(std::vector<std::uint32_t>(v.begin(), v.end()) == std::vector<std::uint32_t>{7, 8, 7, 10, 11});
  // erase keeps the order of the others and returns the position after the erased one
  CHECK(*v.erase(v.begin() + 1) == 7);
  v.erase(v.end() - 1);
  CHECK(std::vector<std::uint32_t>(v.begin(), v.end()) == std::vector<std::uint32_t>{7, 7, 10});
  const std::span<const std::uint32_t> view = v; // what DevicePhysics::residents returns
  CHECK(view.size() == 3);
  CHECK(view[2] == 10);
  // copies: a heap one into an in-place one and back; moves take the heap block or copy the in-place values
  SmallVec<std::uint32_t, 2> small;
  small.push_back(1);
  SmallVec<std::uint32_t, 2> copy = v;
  CHECK(std::vector<std::uint32_t>(copy.begin(), copy.end()) == std::vector<std::uint32_t>{7, 7, 10});
  copy = small;
  CHECK(copy.size() == 1);
  CHECK(copy[0] == 1);
  const auto* heap = v.data();
  SmallVec<std::uint32_t, 2> moved = std::move(v);
  CHECK(moved.data() == heap);
  CHECK(v.empty()); // NOLINT(bugprone-use-after-move): a moved-from SmallVec is empty and in place
  CHECK(v.capacity() == 2);
  SmallVec<std::uint32_t, 2> moved_small = std::move(small);
  CHECK(moved_small.size() == 1);
  CHECK(moved_small[0] == 1);
  moved = std::move(moved_small); // frees moved's heap block (the sanitizers would see a leak)
  CHECK(moved.size() == 1);
  CHECK(moved.capacity() == 2);
  // down to nothing by erase, then in place again only through a move or a copy of a small one
  while (!copy.empty())
    copy.erase(copy.begin());
  CHECK(copy.empty());
}

namespace {
/// A job state that counts its constructions and destructions.
struct Counted {
  static inline int alive = 0;
  std::vector<int> v{1, 2, 3}; // a heap block of its own, which a leak would show under the sanitizers
  Counted() { ++alive; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
  ~Counted() { --alive; }
};
} // namespace

TEST_CASE("job slots: a freed job's block is reused for a later job, its state destroyed at release",
          "[engine][components]")
{
  {
    JobSlots<Counted> slots;
    auto [j0, s0] = slots.add();
    auto [j1, s1] = slots.add();
    s0.v.push_back(4);
    const Counted* block0 = &s0;
    CHECK(Counted::alive == 2);
    slots.release(j0);
    CHECK(Counted::alive == 1); // destroyed at release, not when the block is reused
    auto [j2, s2] = slots.add();
    CHECK(j2 == 2);
    CHECK(&s2 == block0);                     // the freed block
    CHECK(s2.v == std::vector<int>{1, 2, 3}); // a fresh state, not job 0's
    CHECK(Counted::alive == 2);
    auto [j3, s3] = slots.add(); // no spare block left: a new one
    CHECK(&s3 != block0);
    CHECK(&s3 != &s1);
    slots.release(j1);
    slots.release(j3);
    CHECK(Counted::alive == 1);
  } // the live state is destroyed and the spare blocks freed
  CHECK(Counted::alive == 0);
}

TEST_CASE("job slots: states kept from read to release, a window from the oldest kept, freed jobs refused",
          "[engine][components]")
{
  JobSlots<int> slots;
  for (int i = 0; i < 5; ++i) {
    auto [j, state] = slots.add();
    CHECK(j == static_cast<JobIndex>(i));
    state = 10 * i;
  }
  int& four = slots[4];
  CHECK(slots.live() == 5);
  CHECK(slots.peak() == 5);
  // Out of order: 3, then 1. Job 0 is still kept, so the window stays at 0..4 with two holes.
  slots.release(3);
  slots.release(1);
  slots.release(1); // a job already freed: nothing changes
  CHECK(slots.live() == 3);
  CHECK(slots.find(1) == nullptr);
  CHECK(slots.find(3) == nullptr);
  REQUIRE(slots.find(2) != nullptr);
  CHECK(*slots.find(2) == 20);
  CHECK(slots.live_indices() == std::vector<JobIndex>{0, 2, 4});
  // Releasing 0 frees the window's head and the hole after it: jobs 2 and 4 keep their states and addresses.
  slots.release(0);
  CHECK(slots.live_indices() == std::vector<JobIndex>{2, 4});
  CHECK(&slots[4] == &four);
  CHECK(slots[4] == 40);
  CHECK_THROWS_AS(slots[0], std::logic_error);  // freed
  CHECK_THROWS_AS(slots[3], std::logic_error);  // freed inside the window
  CHECK_THROWS_AS(slots[5], std::out_of_range); // never read
  CHECK(slots.find(5) == nullptr);
  // New jobs continue the numbering; the peak stays the most kept at once.
  auto [j5, s5] = slots.add();
  CHECK(j5 == 5);
  s5 = 50;
  slots.release(2);
  slots.release(4);
  CHECK(slots.live_indices() == std::vector<JobIndex>{5});
  CHECK(slots[5] == 50);
  CHECK(slots.live() == 1);
  CHECK(slots.peak() == 5);
  CHECK(slots.size() == 6);
}
