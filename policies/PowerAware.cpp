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

PowerAware::Inner PowerAware::inner_policy(const ParamSet& p)
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
  Inner inner{.info = &info, .params = parse_params(info.params, given, "inner_params", sink)};
  sink.throw_if_any();
  return inner;
}

PowerAware::PowerAware(const ParamSet& p)
    : idle_s_(p.real("idle_s")), min_on_(static_cast<std::size_t>(p.integer("min_on"))),
      max_boots_(static_cast<std::size_t>(p.integer("max_boots")))
{
  const Inner inner = inner_policy(p);
  inner_ = inner.info->factory(inner.params);
}

void PowerAware::set_jobs(std::uint32_t n, long delta, double now)
{
  const bool was_empty = node_jobs_[n] == 0;
  node_jobs_[n] += delta;
  const bool empty = node_jobs_[n] == 0;
  if (was_empty == empty) return;
  if (!empty) {
    unmark_idle(n);
  } else if (idle_since_[n] < 0) {
    idle_since_[n] = now;
    if (state_[n] == Node::ON) idle_.insert({now, n});
  }
}

void PowerAware::unmark_idle(std::uint32_t n)
{
  if (idle_since_[n] >= 0) idle_.erase({idle_since_[n], n});
  idle_since_[n] = -1;
}

std::vector<Decision> PowerAware::decide(const ClusterView& view, std::span<const Event> events)
{
  const double now = view.now();
  if (state_.empty()) { // first call: learn the nodes and the jobs already running
    for (DeviceIndex d = 0; d < view.device_count(); ++d) {
      const auto n = view.device(d).node;
      if (n >= node_devices_.size()) {
        node_devices_.resize(n + 1, 0);
        node_jobs_.resize(n + 1, 0);
      }
      ++node_devices_[n];
      node_jobs_[n] += static_cast<long>(view.residents(d).size());
    }
    state_.assign(node_devices_.size(), Node::ON);
    on_or_booting_ = state_.size();
    idle_since_.assign(node_devices_.size(), -1);
    for (std::uint32_t n = 0; n < state_.size(); ++n)
      if (node_jobs_[n] == 0) {
        idle_since_[n] = now;
        idle_.insert({now, n});
      }
  }
  for (const auto& e : events) {
    if (const auto* s = std::get_if<JobSubmitted>(&e))
      waiting_.push_back(s->job);
    else if (const auto* f = std::get_if<JobFailed>(&e)) {
      for (auto dev : f->devices)
        set_jobs(view.device(dev).node, -1, now);
      if (f->requeued) waiting_.push_back(f->job);
    } else if (const auto* c = std::get_if<JobCompleted>(&e)) {
      for (auto dev : c->devices)
        set_jobs(view.device(dev).node, -1, now);
    } else if (const auto* np = std::get_if<NodePowered>(&e); np && np->node < state_.size()) {
      const auto n = np->node;
      if (state_[n] == Node::BOOTING) booting_devices_ -= node_devices_[n];
      if (np->on && state_[n] == Node::OFF) ++on_or_booting_;
      if (!np->on && state_[n] != Node::OFF) --on_or_booting_;
      if (state_[n] == Node::OFF) off_.erase(n);
      state_[n] = np->on ? Node::ON : Node::OFF;
      if (np->on) {
        if (idle_since_[n] >= 0) idle_.insert({idle_since_[n], n});
      } else {
        if (idle_since_[n] >= 0) idle_.erase({idle_since_[n], n});
        off_.insert(n);
      }
    } else if (std::get_if<Wakeup>(&e) && wake_at_ <= now)
      wake_at_ = -1;
  }

  std::vector<Decision> out = inner_->decide(view, events);
  // What the inner policy did: placed or rejected jobs leave the queue; placements occupy nodes now.
  for (const auto& d : out) {
    if (const auto* p = std::get_if<Place>(&d)) {
      waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), p->job), waiting_.end());
      for (auto dev : p->devices)
        set_jobs(view.device(dev).node, +1, now);
    } else if (const auto* r = std::get_if<Reject>(&d)) {
      waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), r->job), waiting_.end());
    }
  }

  // Power on for the jobs still waiting: as many off nodes as their device requests need.
  if (!waiting_.empty()) {
    double need = 0;
    for (JobIndex j : waiting_)
      need += view.job(j).devices;
    // Devices that booting nodes will bring count as supply already.
    need -= static_cast<double>(booting_devices_);
    std::size_t boots = 0;
    for (auto it = off_.begin(); it != off_.end() && need > 0 && boots < max_boots_;) {
      const std::uint32_t n = *it;
      it = off_.erase(it);
      out.emplace_back(std::in_place_type<SetNodePower>, SetNodePower{n, true});
      state_[n] = Node::BOOTING;
      booting_devices_ += node_devices_[n];
      // Empty once it is up (its idle time counts from now; it joins idle_ when it is on).
      if (idle_since_[n] >= 0) idle_since_[n] = now;
      need -= static_cast<double>(node_devices_[n]);
      ++boots;
      ++on_or_booting_;
    }
  }

  // Power off nodes idle for idle_s, the highest-numbered first, keeping min_on nodes; jobs waiting means
  // the load is rising: keep everything then. idle_ holds the empty nodes that are on, by idle time.
  double next_wake = std::numeric_limits<double>::infinity();
  if (waiting_.empty()) {
    std::vector<std::uint32_t> due;
    auto it = idle_.begin();
    for (; it != idle_.end() && now - it->first >= idle_s_ - 1e-9; ++it)
      due.push_back(it->second);
    if (it != idle_.end()) next_wake = it->first + idle_s_;
    std::sort(due.begin(), due.end(), std::greater<>());
    for (const std::uint32_t n : due) {
      if (on_or_booting_ <= min_on_) break;
      out.emplace_back(std::in_place_type<SetNodePower>, SetNodePower{n, false});
      idle_.erase({idle_since_[n], n});
      state_[n] = Node::OFF;
      off_.insert(n);
      --on_or_booting_;
    }
  }
  if (next_wake < std::numeric_limits<double>::infinity() && on_or_booting_ > min_on_ &&
      (wake_at_ < 0 || next_wake < wake_at_)) {
    out.emplace_back(WakeAt{next_wake});
    wake_at_ = next_wake;
  }
  return out;
}

} // namespace colocsim
