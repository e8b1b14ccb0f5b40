// Placements of complementary and power-aware equal those of their scanning versions: the code before their
// decisions stopped scanning the cluster (its decide() and device bookkeeping copied below, renamed
// ScanningComplementary and ScanningPowerAware: complementary looked at every free device on each decision,
// power-aware at every device's residents and every node). Both are run through the real engine on the same
// scenarios — nodes powered off after idle_s and on again for bursts — and every job must start at the same
// time on the same devices. ScanningComplementary has since gained complementary's fill of a device left with
// one job (Complementary.hpp), written as a scan of every device in index order.
//
// What is compared is how each finds free, idle and half-empty devices (take(), release(), the scans): that
// is the code the change to indexed sets rewrote, and it stays a copy of the old scanning code here. The
// parts that change left alone — the parameters, power-aware's inner policy, complementary's window, pair
// weights, partner choice, and the order in which it places a gang and a matching (namespace complementary,
// handed this file's own take()) — are the policies' own functions: a copy of them would be compared with
// itself and prove nothing, and would be one more copy to keep in step.
#include "tests/CatchCompat.hpp"

#include "base/Params.hpp"
#include "policies/Complementary.hpp"
#include "policies/FcfsQueue.hpp"
#include "policies/MaxWeightMatching.hpp"
#include "policies/Policy.hpp"
#include "policies/PolicyRegistry.hpp"
#include "policies/PowerAware.hpp"
#include "sim/Engine.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"
#include "tests/policies/BurstTrace.hpp"
#include "tests/sim/EngineTestSupport.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace colocsim::scanning {

class ScanningPowerAware final : public Policy {
public:
  static std::vector<ParamSpec> params();
  explicit ScanningPowerAware(const ParamSet& params);
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override;

private:
  enum class Node { ON, OFF, BOOTING };
  std::unique_ptr<Policy> inner_;
  double idle_s_;
  std::size_t min_on_, max_boots_;
  std::vector<Node> state_;
  std::vector<double> idle_since_;        ///< per node: when it last became empty (< 0: busy)
  std::vector<std::size_t> node_devices_; ///< devices per node
  std::vector<JobIndex> waiting_;         ///< submitted (or requeued), not yet placed or rejected
  double wake_at_ = -1;                   ///< the wake-up already asked for
};

class ScanningComplementary final : public Policy {
public:
  static std::vector<ParamSpec> params();
  explicit ScanningComplementary(const ParamSet& params);
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override;

private:
  void release(const std::vector<DeviceIndex>& devices);
  /// The lowest empty device that accepts job a (and b, if given: ClusterView::allows), taken out of the
  /// free set; nullopt if there is none.
  std::optional<DeviceIndex> take(const ClusterView& view, JobIndex a, std::optional<JobIndex> b = {});
  void drop_unavailable(const ClusterView& view); ///< O(free devices): moves them to/from aside_
  std::size_t window_;
  bool initialised_ = false;
  FcfsQueue queue_;
  std::set<DeviceIndex> free_; ///< devices with none of our jobs, available
  NodeShape nodes_;
  std::set<DeviceIndex> aside_;          ///< devices with none of our jobs, unavailable now
  std::vector<std::uint32_t> occupants_; ///< our jobs per device
};

std::vector<ParamSpec> ScanningPowerAware::params()
{
  return PowerAware::params();
}

ScanningPowerAware::ScanningPowerAware(const ParamSet& p)
    : idle_s_(p.real("idle_s")), min_on_(static_cast<std::size_t>(p.integer("min_on"))),
      max_boots_(static_cast<std::size_t>(p.integer("max_boots")))
{
  const PowerAware::Inner inner = PowerAware::inner_policy(p);
  // (test) the scanning complementary underneath, so that the pair is compared as it was.
  inner_ = p.text("inner") == "complementary" ? std::make_unique<ScanningComplementary>(inner.params)
                                              : inner.info->factory(inner.params);
}

std::vector<Decision> ScanningPowerAware::decide(const ClusterView& view, std::span<const Event> events)
{
  const double now = view.now();
  if (state_.empty()) { // first call: learn the nodes
    for (DeviceIndex d = 0; d < view.device_count(); ++d) {
      const auto n = view.device(d).node;
      if (n >= node_devices_.size()) node_devices_.resize(n + 1, 0);
      ++node_devices_[n];
    }
    state_.assign(node_devices_.size(), Node::ON);
    idle_since_.assign(node_devices_.size(), now);
  }
  for (const auto& e : events) {
    if (const auto* s = std::get_if<JobSubmitted>(&e))
      waiting_.push_back(s->job);
    else if (const auto* f = std::get_if<JobFailed>(&e); f && f->requeued)
      waiting_.push_back(f->job);
    else if (const auto* np = std::get_if<NodePowered>(&e); np && np->node < state_.size())
      state_[np->node] = np->on ? Node::ON : Node::OFF;
    else if (std::get_if<Wakeup>(&e) && wake_at_ <= now)
      wake_at_ = -1;
  }

  std::vector<Decision> out = inner_->decide(view, events);
  // What the inner policy did: placed or rejected jobs leave the queue; placements occupy nodes now.
  std::vector<bool> placed_on(state_.size(), false);
  for (const auto& d : out) {
    if (const auto* p = std::get_if<Place>(&d)) {
      waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), p->job), waiting_.end());
      for (auto dev : p->devices)
        placed_on[view.device(dev).node] = true;
    } else if (const auto* r = std::get_if<Reject>(&d)) {
      waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), r->job), waiting_.end());
    }
  }

  // Which nodes are empty now (no resident, nothing placed in this call), and since when.
  std::vector<bool> busy(state_.size(), false);
  for (DeviceIndex d = 0; d < view.device_count(); ++d)
    if (!view.residents(d).empty()) busy[view.device(d).node] = true;
  for (std::size_t n = 0; n < state_.size(); ++n) {
    if (busy[n] || placed_on[n])
      idle_since_[n] = -1;
    else if (idle_since_[n] < 0)
      idle_since_[n] = now;
  }

  // Power on for the jobs still waiting: as many off nodes as their device requests need.
  std::size_t on_or_booting = 0;
  for (auto s : state_)
    on_or_booting += s != Node::OFF ? 1 : 0;
  if (!waiting_.empty()) {
    double need = 0;
    for (JobIndex j : waiting_)
      need += view.job(j).devices;
    // Devices that booting nodes will bring count as supply already.
    for (std::size_t n = 0; n < state_.size(); ++n)
      if (state_[n] == Node::BOOTING) need -= static_cast<double>(node_devices_[n]);
    std::size_t boots = 0;
    for (std::size_t n = 0; n < state_.size() && need > 0 && boots < max_boots_; ++n)
      if (state_[n] == Node::OFF) {
        out.emplace_back(std::in_place_type<SetNodePower>, SetNodePower{static_cast<std::uint32_t>(n), true});
        state_[n] = Node::BOOTING;
        idle_since_[n] = now; // empty once it is up
        need -= static_cast<double>(node_devices_[n]);
        ++boots;
        ++on_or_booting;
      }
  }

  // Power off nodes idle for idle_s, the highest-numbered first, keeping min_on nodes; jobs waiting means
  // the load is rising: keep everything then.
  double next_wake = std::numeric_limits<double>::infinity();
  if (waiting_.empty())
    for (std::size_t n = state_.size(); n-- > 0;) {
      if (state_[n] != Node::ON || idle_since_[n] < 0) continue;
      if (now - idle_since_[n] >= idle_s_ - 1e-9) {
        if (on_or_booting > min_on_) {
          out.emplace_back(std::in_place_type<SetNodePower>,
                           SetNodePower{static_cast<std::uint32_t>(n), false});
          state_[n] = Node::OFF;
          --on_or_booting;
        }
      } else {
        next_wake = std::min(next_wake, idle_since_[n] + idle_s_);
      }
    }
  if (next_wake < std::numeric_limits<double>::infinity() && on_or_booting > min_on_ &&
      (wake_at_ < 0 || next_wake < wake_at_)) {
    out.emplace_back(std::in_place_type<WakeAt>, WakeAt{next_wake});
    wake_at_ = next_wake;
  }
  return out;
}

std::vector<ParamSpec> ScanningComplementary::params()
{
  return Complementary::params();
}

ScanningComplementary::ScanningComplementary(const ParamSet& p)
    : window_(static_cast<std::size_t>(p.integer("window")))
{
}

void ScanningComplementary::release(const std::vector<DeviceIndex>& devices)
{
  for (auto d : devices)
    if (--occupants_[d] == 0) free_.insert(d);
}

std::optional<DeviceIndex> ScanningComplementary::take(const ClusterView& view, JobIndex a,
                                                       std::optional<JobIndex> b)
{
  for (auto it = free_.begin(); it != free_.end(); ++it)
    if (view.allows(a, *it) && (!b || view.allows(*b, *it))) {
      const DeviceIndex d = *it;
      free_.erase(it);
      return d;
    }
  return std::nullopt;
}

void ScanningComplementary::drop_unavailable(const ClusterView& view)
{
  // Devices being repartitioned or on nodes that are off wait aside until they are available again.
  complementary::move_devices(view, free_, aside_, /*available=*/false);
  complementary::move_devices(view, aside_, free_, /*available=*/true);
}

std::vector<Decision> ScanningComplementary::decide(const ClusterView& view, std::span<const Event> events)
{
  if (!initialised_) {
    occupants_.assign(view.device_count(), 0);
    for (DeviceIndex d = 0; d < view.device_count(); ++d)
      if (view.device(d).residents == 0) free_.insert(free_.end(), d);
    initialised_ = true;
  }
  std::vector<Decision> out;
  queue_.handle(view, events, out,
                [&](JobIndex, const std::vector<DeviceIndex>& devices) { release(devices); });
  drop_unavailable(view);
  std::map<DeviceIndex, JobIndex> placed_alone; // single-device jobs placed alone in this call
  auto place = [&](JobIndex j, std::vector<DeviceIndex> devices) {
    for (auto d : devices)
      ++occupants_[d];
    if (devices.size() == 1) {
      if (occupants_[devices[0]] == 1)
        placed_alone[devices[0]] = j;
      else
        placed_alone.erase(devices[0]);
    }
    queue_.erase(j);
    out.push_back(Place{j, std::move(devices)});
  };

  while (!queue_.empty() && !free_.empty()) {
    // Multi-device jobs at the head run alone, in submission order.
    const JobIndex head = queue_.front();
    const auto need = static_cast<std::size_t>(view.job(head).devices);
    if (need > 1) {
      if (!nodes_.ready()) nodes_.init(view);
      auto devices = complementary::take_gang(
          free_, head, need, GangPicker(gang_rule_, need, nodes_.min_nodes(view, head, need)),
          [&](JobIndex j) { return take(view, j); }, [&](DeviceIndex d) { return nodes_.node(d); });
      if (!devices) break;
      place(head, std::move(*devices));
      continue;
    }
    // The single-device jobs among the first `window` waiting: pair them by maximum-weight matching.
    const std::vector<JobIndex> jobs = complementary::window_singles(view, queue_, window_);
    const DeviceIndex probe = *free_.begin(); // an empty device stands for all of them (of any type)
    // (free_ holds only available devices here: drop_unavailable() ran.)
    const auto edges = complementary::pair_edges(view, jobs, probe, free_);
    const std::vector<int> mate = max_weight_matching(static_cast<int>(jobs.size()), edges);
    const bool placed = complementary::place_matching(
        jobs, mate, free_, [&](JobIndex a, std::optional<JobIndex> b) { return take(view, a, b); },
        [&](JobIndex j, DeviceIndex d) { place(j, {d}); });
    if (!placed) break;
  }
  // The fill of a device left with one single-device job (added with it to Complementary.cpp), scanning
  // every device in index order instead of the set of such devices.
  const bool gang_waits = !queue_.empty() && view.job(queue_.front()).devices > 1;
  for (DeviceIndex d = 0; !gang_waits && d < view.device_count() && !queue_.empty(); ++d) {
    if (occupants_[d] != 1) continue;
    std::vector<JobIndex> also;
    if (const auto alone = placed_alone.find(d); alone != placed_alone.end())
      also.push_back(alone->second);
    else if (view.residents(d).size() != 1 || view.job(view.residents(d)[0]).devices != 1)
      continue;
    const DeviceView device = view.device(d);
    if (!device.available || max_residents(device.mode) == 1) continue;
    const auto best = complementary::best_partner(view, queue_, window_, d, also);
    if (best) place(*best, {d});
  }
  return out;
}

} // namespace colocsim::scanning

using namespace colocsim;

namespace {

std::map<std::string, JobRecord> run(const std::string& trace, const std::string& policy,
                                     std::unique_ptr<Policy> replace = nullptr)
{
  const std::vector<std::string> sets{"platform.nodes=6", "platform.node_boot=300s",
                                      "workload.trace=" + trace};
  RunInputs in = build_run(load_scenario(std::string(COLOCSIM_TEST_DATA) + "/sim/base.yaml", sets, policy));
  if (replace) in.policy = std::move(replace);
  return test::run_collect(in).jobs;
}

ParamSet params_of(const std::string& name, const std::string& text)
{
  DiagnosticSink sink;
  const auto given = split_assignments(text, "--policy", sink);
  auto p = parse_params(find_policy(name).params, given, "policy.params", sink);
  sink.throw_if_any();
  return p;
}

void check_same(const std::map<std::string, JobRecord>& a, const std::map<std::string, JobRecord>& b)
{
  REQUIRE(a.size() == b.size());
  REQUIRE(a.size() == 160);
  for (const auto& [id, r] : a) {
    INFO(id);
    CHECK(r.devices == b.at(id).devices);
    CHECK(r.start_s == b.at(id).start_s);
    // Ends may differ in the last bits: two runs of the same policy in one process already do (the engine's
    // floating-point state carries over between runs).
    CHECK_THAT(r.end_s, Catch::Matchers::WithinRel(b.at(id).end_s, 1e-12));
  }
}

} // namespace

TEST_CASE("complementary and power-aware place exactly as their scanning versions did",
          "[policies][power-aware][complementary]")
{
  const std::string trace = test::write_burst_trace("scanning", 12345, 160);
  for (const std::string inner : {"first-fit", "complementary", "exclusive-fcfs"})
    for (const std::string knobs :
         {"idle_s=600,min_on=1", "idle_s=0,min_on=0", "idle_s=120,min_on=2,max_boots=1"}) {
      const std::string text = "inner=" + inner + "," + knobs;
      DYNAMIC_SECTION("power-aware:" << text)
      {
        const auto now = run(trace, "power-aware:" + text);
        const auto before =
            run(trace, "power-aware:" + text,
                std::make_unique<scanning::ScanningPowerAware>(params_of("power-aware", text)));
        check_same(now, before);
      }
    }
  SECTION("complementary alone")
  {
    const auto now = run(trace, "complementary");
    const auto before =
        run(trace, "complementary",
            std::make_unique<scanning::ScanningComplementary>(params_of("complementary", "")));
    check_same(now, before);
  }
  std::filesystem::remove(trace);
}
