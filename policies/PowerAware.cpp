#include "policies/PowerAware.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

namespace colocsim {

std::vector<ParamSpec> PowerAware::params()
{
  return {
      ParamSpec{.name = "inner",
                .type = ParamType::STRING,
                .default_text = "first-fit",
                .help = "the placement policy underneath (any registered policy but power-aware)"},
      ParamSpec{.name = "inner_params",
                .type = ParamType::STRING,
                .default_text = "",
                .help = "the inner policy's parameters as \"k=v;k=v\" (default: its defaults)"},
      ParamSpec{.name = "idle_s",
                .type = ParamType::REAL,
                .default_text = "600",
                .help = "seconds a node's devices stay empty before it is powered off (SLURM SuspendTime)",
                .min = 0,
                .max = 1e9},
      ParamSpec{.name = "min_on",
                .type = ParamType::INT,
                .default_text = "1",
                .help = "nodes kept on (or booting) at all times",
                .min = 0,
                .max = 1e9},
      ParamSpec{.name = "max_boots",
                .type = ParamType::INT,
                .default_text = "1000000",
                .help = "most nodes powered on per decision",
                .min = 1,
                .max = 1e9}};
}

PowerAware::PowerAware(const ParamSet& p)
    : idle_s_(p.real("idle_s")), min_on_(static_cast<std::size_t>(p.integer("min_on"))),
      max_boots_(static_cast<std::size_t>(p.integer("max_boots")))
{
  const std::string name = p.text("inner");
  const SourceLocation where{"policy power-aware"};
  if (name == "power-aware") throw InputError(where, "inner", "power-aware cannot wrap itself");
  const auto& info = find_policy(name, where);
  std::map<std::string, GivenValue> given;
  DiagnosticSink sink;
  std::stringstream items(p.text_or("inner_params", ""));
  for (std::string item; std::getline(items, item, ';');) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      sink.add(where, "inner_params", "expected k=v items separated by ';' (got '" + item + "')");
    else
      given[item.substr(0, eq)] = GivenValue{item.substr(eq + 1), where};
  }
  const ParamSet inner_params = parse_params(info.params, given, "inner_params", sink);
  sink.throw_if_any();
  inner_ = info.factory(inner_params);
}

std::vector<Decision> PowerAware::decide(const ClusterView& view, std::span<const Event> events)
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
        out.emplace_back(SetNodePower{static_cast<std::uint32_t>(n), true});
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
          out.emplace_back(SetNodePower{static_cast<std::uint32_t>(n), false});
          state_[n] = Node::OFF;
          --on_or_booting;
        }
      } else {
        next_wake = std::min(next_wake, idle_since_[n] + idle_s_);
      }
    }
  if (next_wake < std::numeric_limits<double>::infinity() && on_or_booting > min_on_ &&
      (wake_at_ < 0 || next_wake < wake_at_)) {
    out.emplace_back(WakeAt{next_wake});
    wake_at_ = next_wake;
  }
  return out;
}

} // namespace colocsim
