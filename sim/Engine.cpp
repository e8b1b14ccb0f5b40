// The engine (sim/Engine.hpp): the controller on SimGrid, the event core, arrivals, ends and the run; a
// policy's decisions are checked and applied in EngineDecisions.cpp. sim/README.md says why it is built this
// way.
#include "sim/Engine.hpp"

#include "models/GpuTypes.hpp"
#include "sim/Simulation.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <deque>
#include <iterator>
#include <stdexcept>
#include <string_view>

namespace sg4 = simgrid::s4u;

namespace colocsim {

std::string_view to_string(JobStatus s)
{
  switch (s) {
  case JobStatus::WAITING:
    return "waiting";
  case JobStatus::RUNNING:
    return "running";
  case JobStatus::COMPLETED:
    return "completed";
  case JobStatus::FAILED:
    return "failed";
  case JobStatus::REJECTED:
    return "rejected";
  case JobStatus::NEVER_STARTED:
    return "never-started";
  case JobStatus::BLOCKED:
    return "blocked";
  case JobStatus::CANCELLED:
    return "cancelled";
  case JobStatus::KILLED:
    return "killed";
  }
  return "unknown";
}

namespace engine {

Simulation::Simulation(const RunSetup& setup, RunObserver& observer)
    : setup_(setup), observer_feed_(observer, setup.record_timeseries),
      phys_(*setup.platform, setup.durations_include_scaling, *this, setup.model_error)
{
  // The registration order is the order of each event's side effects (docs/architecture.md, The engine's
  // components): the meters first, then the run time history, the reporters (jobs.csv before the event log),
  // the caller's subscribers, and the dependency graph last: ending a job's dependents publishes their ends,
  // which every other subscriber must see after the job's own.
  events_.subscribe(meters_);
  events_.subscribe(idle_wait_);
  events_.subscribe(nodes_);
  if (setup_.estimates == EstimateSource::PREDICTED) events_.subscribe(user_runs_);
  events_.subscribe(observer_feed_);
  if (setup_.trace) events_.subscribe(trace_feed_.emplace(*setup_.trace));
  for (auto* s : setup_.subscribers)
    events_.subscribe(*s);
  deps_.set_outcomes(this);
  events_.subscribe(deps_);
  const auto& profiles = setup_.profiles->profiles();
  comm_outputs_ =
      setup_.platform->network && std::any_of(profiles.begin(), profiles.end(),
                                              [](const Profile& p) { return p.communication.has_value(); });
  link_outputs_ = comm_outputs_ && events_.wanted(EngineEvent::PASS_ENDED);
}

double Simulation::estimate(JobIndex j) const
{
  const Job& job = jobs_[j].job;
  const double requested = job.requested_s > 0 ? job.requested_s : job.duration_s; // none stated: exact
  switch (setup_.estimates) {
  case EstimateSource::EXACT:
    return job.duration_s;
  case EstimateSource::REQUESTED:
    return requested;
  case EstimateSource::PREDICTED: // Tsafrir et al. 2007 (sim/engine/UserRunHistory.hpp)
    return user_runs_.predict(job.user, requested);
  }
  return job.duration_s;
}

PlacementPrediction Simulation::predict(JobIndex j, std::span<const DeviceIndex> devices,
                                        std::span<const JobIndex> also) const
{
  for (const DeviceIndex d : devices)
    if (d >= phys_.size()) throw std::out_of_range("device " + std::to_string(d) + " does not exist");
  also_sigs_.clear();
  for (const JobIndex k : also)
    also_sigs_.push_back(jobs_[k].sig);
  return phys_.predict(physics_of(jobs_[j]), devices, also_sigs_, sim_now() + time_slack(sim_now()));
}

void Simulation::build_platform()
{
  const auto& platform = *setup_.platform;
  if (platform.devices.empty()) throw std::invalid_argument("the platform has no devices");
  for (DeviceIndex d = 0; d < phys_.size(); ++d) {
    const auto node = platform.devices[d].node;
    if (node >= node_devices_.size()) node_devices_.resize(node + 1);
    node_devices_[node].push_back(d);
  }
  totals_.device_count = static_cast<double>(phys_.size());
  if (platform.types.size() > 64) throw std::invalid_argument("a platform has at most 64 device types");
  std::vector<std::uint32_t> device_types(phys_.size());
  for (DeviceIndex d = 0; d < phys_.size(); ++d)
    device_types[d] = platform.devices[d].type;
  idle_wait_ = IdleWaitMeter(platform.types.size(), std::move(device_types));
  const std::size_t node_count = std::max<std::size_t>(platform.nodes, node_devices_.size());
  nodes_ = NodePower(node_count, platform.node_baseline_w);
  // SimGrid's platform holds what SimGrid computes (docs/architecture.md, The engine). A device is not a
  // SimGrid host: the engine's event core runs the devices' work. Nodes become hosts, the network's
  // endpoints, once the platform gives SimGrid a network to carry; until then SimGrid runs the controller
  // alone, on a host of its own, since a host per node would cost about 830 bytes each for nothing (53 MB for
  // the 63,744 nodes of `colocsim bench` on 127,488 tiles). A network no profile communicates over carries no
  // flow (the Aurora presets declare one, and most runs on them communicate nothing): no hosts then either.
  if (comm_outputs_) {
    // Flows as the α–β model's NIC tier moves bytes (BENCHMARKS.md, Network: design measurements): CM02 with
    // SimGrid's TCP corrections neutralised, so a flow alone on its links runs at its bound or their
    // bandwidth exactly, and flows that share a link get max-min fair shares of it. Set before the zone
    // exists (SimGrid builds its models with the first zone), and only for runs with a network.
    for (const char* c : {"network/model:CM02", "network/latency-factor:1", "network/bandwidth-factor:1",
                          "network/weight-S:0", "network/crosstraffic:0", "network/TCP-gamma:0"})
      sg4::Engine::set_config(c);
  }
  auto* zone = sg4::create_star_zone("colocsim");
  controller_host_ = zone->create_host("controller", 1.0)->seal();
  if (comm_outputs_) build_network(zone, node_count);
  zone->seal();
  meters_ = DeviceMeters(phys_.size());
  for (DeviceIndex d = 0; d < phys_.size(); ++d)
    availability_changed(d);
}

void Simulation::build_network(sg4::NetZone* root, std::size_t node_count)
{
  // A host per node, each with a split-duplex link for its NICs together: outgoing flows take its UP half,
  // incoming ones its DOWN half. Latency 0: the α terms are in the job's c/(c+T) already.
  const Network& net = *setup_.platform->network;
  const double nic_bw = 1.0 / net.tiers.nic.beta.value;
  link_capacity_.assign(2 * node_count, nic_bw);
  // With a spine and more than one leaf switch, each leaf is a zone of its own whose split-duplex uplink
  // (its uplinks together, as the spine tier's β says) joins the root: a flow between leaves crosses its
  // source leaf's uplink UP and its destination leaf's DOWN, a flow inside a leaf neither. Leaves are
  // zones, not nodes: SimGrid seals each zone by walking every host of the platform, so zones per node
  // would cost quadratic time (166 leaves on Aurora's 10,624 nodes cost a few tenths of a second).
  const bool leaves = net.tiers.spine && net.nodes_per_leaf > 0 && node_count > net.nodes_per_leaf;
  uplink_nodes_ = leaves ? net.nodes_per_leaf : 0;
  const std::size_t leaf_count = leaves ? (node_count + net.nodes_per_leaf - 1) / net.nodes_per_leaf : 0;
  const double uplink_bw = leaves ? 1.0 / net.tiers.spine->beta.value : 0.0;
  link_capacity_.resize(2 * node_count + 2 * leaf_count, uplink_bw);
  link_load_.assign(link_capacity_.size(), 0.0);
  link_flows_.assign(link_capacity_.size(), 0);
  if (link_outputs_) link_bytes_.assign(link_capacity_.size(), 0.0);
  node_hosts_.reserve(node_count);
  sg4::NetZone* leaf = root;
  for (std::size_t n = 0; n < node_count; ++n) {
    const std::string number = std::to_string(n);
    if (leaves && n % net.nodes_per_leaf == 0) {
      const std::string l = std::to_string(n / net.nodes_per_leaf);
      leaf = sg4::create_star_zone("leaf" + l);
      leaf->set_parent(root);
      auto* gateway = leaf->create_router("leaf" + l + "-switch");
      auto* uplink = root->create_split_duplex_link("uplink" + l, uplink_bw)->set_latency(0);
      uplink->seal();
      root->add_route(leaf->get_netpoint(), nullptr, gateway, nullptr,
                      {{uplink, sg4::LinkInRoute::Direction::UP}}, true);
    }
    auto* host = leaf->create_host(std::string("node") + number, 1.0);
    auto* nic = leaf->create_split_duplex_link(std::string("nic") + number, nic_bw)->set_latency(0);
    nic->seal();
    leaf->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{nic, sg4::LinkInRoute::Direction::UP}},
                    true);
    node_hosts_.push_back(host->seal());
    if (leaves && ((n + 1) % net.nodes_per_leaf == 0 || n + 1 == node_count)) leaf->seal();
  }
}

RunTotals Simulation::run()
{
  wall_start_ = last_progress_ = std::chrono::steady_clock::now();
  now_ = 0;
  build_platform();
  // 8 MiB for the controller, which runs the policies. Actor::set_stacksize takes KiB in SimGrid 3.32
  // (s4u/Actor.cpp multiplies by 1024; its header does not say so).
  sg4::Actor::init("controller", controller_host_)->set_stacksize(8 * 1024)->start([this] {
    try {
      wake_controller_ = sg4::Semaphore::create(0); // created in actor context (it crashes from maestro)
      if (!node_hosts_.empty()) relay_done_ = sg4::Semaphore::create(0);
      controller();
    } catch (...) {
      error_ = std::current_exception();
      sg4::Actor::kill_all();
    }
  });
  sg4::Engine::get_instance()->run();
  if (error_) {
    if (setup_.progress_tty && progress_shown_) std::fputc('\n', stderr); // the error on a line of its own
    std::rethrow_exception(error_);
  }
  const double end = sim_now();
  for (DeviceIndex d = 0; d < phys_.size(); ++d)
    touch(d);
  totals_.t_first_submit_s = origin_;
  totals_.t_end_s = origin_ + end;
  for (DeviceIndex d = 0; d < meters_.size(); ++d) {
    const auto& m = meters_.meter(d);
    totals_.energy_device_j += m.energy_j();
    totals_.busy_device_s += m.busy_s();
    totals_.resident_s += m.resident_s();
    totals_.allocated_device_s += m.allocated_s();
    totals_.fragmented_device_s += m.fragmented_s();
  }
  touch_nodes();
  totals_.energy_node_j = nodes_.energy_j();
  totals_.idle_while_waiting_device_s = idle_wait_.total(sim_now());
  // Jobs left waiting when nothing could run any more.
  for (const JobIndex j : jobs_.live_indices()) {
    if (jobs_[j].status == JobStatus::WAITING || jobs_[j].status == JobStatus::BLOCKED) {
      jobs_[j].reason = jobs_[j].status == JobStatus::BLOCKED
                            ? reason_id("a job it depends on never ran")
                            : reason_id("policy '" + setup_.policy_name +
                                        "' left it waiting: nothing ran and nothing was left to arrive");
      jobs_[j].status = JobStatus::NEVER_STARTED;
      ++totals_.never_started;
      record_end(j);
    }
  }
  totals_.peak_live_jobs = jobs_.peak();
  progress(true);
  return totals_;
}

bool Simulation::read_next_job()
{
  if (lookahead_ || reader_done_) return lookahead_.has_value();
  lookahead_ = setup_.reader->next();
  if (!lookahead_) {
    reader_done_ = true;
    return false;
  }
  if (totals_.jobs_read == 0) {
    origin_ = lookahead_->submit_s;
    index_ids_ = setup_.reader->may_have_dependencies(); // known once the first job (the header) is read
  }
  return true;
}

void Simulation::controller()
{
  while (true) {
    if (setup_.stop && *setup_.stop != 0)
      throw RunInterrupted(*setup_.stop, "stopped at t=" + std::to_string(now()) + " s of simulated time");
    // One scheduling pass per instant: every job end due at this instant is taken first, in job order, every
    // event of the instant is applied, then the policy is called once with all of them, in a documented
    // order (policies/Policy.hpp "Who calls what, when").
    for (const JobIndex j : started_in_pass_)
      if (auto* js = jobs_.find(j)) js->launched = true;
    started_in_pass_.clear();
    take_due_ends(sim_now());
    // The pass's buffers keep their capacity from pass to pass (no allocation per pass).
    auto& events = pass_events_;
    auto& notices = pass_notices_;
    events.clear();
    notices.clear();
    notices.swap(notices_);
    std::sort(notices.begin(), notices.end(), [](const Notice& a, const Notice& b) { return a.job < b.job; });
    for (const auto& n : notices)
      handle_notice(n, events);
    handle_arrivals(events);
    const double now = sim_now();
    while (const auto booted = nodes_.finish_boot(now + time_slack(now))) {
      const auto node = *booted;
      for (auto dev : node_devices_[node])
        availability_changed(dev);
      ++totals_.engine_events;
      events.emplace_back(std::in_place_type<NodePowered>, NodePowered{node, true});
    }
    while (!repartitions_.empty() && repartitions_.begin()->first <= now + time_slack(now)) {
      const DeviceIndex d = repartitions_.begin()->second;
      repartitions_.erase(repartitions_.begin());
      phys_.end_repartition(d);
      availability_changed(d);
      ++totals_.engine_events;
      events.emplace_back(std::in_place_type<DeviceRepartitioned>, DeviceRepartitioned{d, phys_.mode(d)});
    }
    {
      bool any = false;
      while (const auto released = deps_.pop_release(now + time_slack(now))) {
        const JobIndex j = *released;
        auto* found = jobs_.find(j);
        if (!found || found->status != JobStatus::BLOCKED) continue; // cancelled meanwhile
        auto& js = *found;
        js.status = JobStatus::WAITING;
        js.submitted = now;
        add_waiting(j);
        events.emplace_back(std::in_place_type<JobSubmitted>, JobSubmitted{j});
        any = true;
      }
      if (any) ++totals_.engine_events;
    }
    while (!wakeups_.empty() && *wakeups_.begin() <= now + time_slack(now)) {
      const double at = *wakeups_.begin();
      wakeups_.erase(wakeups_.begin());
      ++totals_.engine_events;
      events.emplace_back(std::in_place_type<Wakeup>, Wakeup{origin_ + at});
    }
    if (!events.empty() && !nodes_.powered_off().empty()) {
      std::vector<Event> all;
      all.reserve(nodes_.powered_off().size() + events.size());
      for (const auto node : nodes_.powered_off())
        all.emplace_back(std::in_place_type<NodePowered>, NodePowered{node, false});
      std::move(events.begin(), events.end(), std::back_inserter(all));
      events.swap(all);
      nodes_.clear_powered_off();
    }
    if (!events.empty())
      call_policy(events);
    else if (flow_woke_ && link_outputs_)
      emit_timepoint(); // a flow ended: the others' rates change, and the busiest link's load with them
    flow_woke_ = false;
    release_ended();
    const double end = next_end();
    if (end <= now + end_slack(now)) continue; // a job started in this pass ends at once (no work)
    double next = std::numeric_limits<double>::infinity();
    if (read_next_job()) next = lookahead_->submit_s - origin_;
    if (!wakeups_.empty()) next = std::min(next, *wakeups_.begin());
    if (!repartitions_.empty()) next = std::min(next, repartitions_.begin()->first);
    if (const auto boot = nodes_.next_boot()) next = std::min(next, *boot);
    if (const auto release = deps_.next_release()) next = std::min(next, *release);
    // A job held for its flows (its device work done) has no end in the heap until they end.
    const bool holding = held_jobs_ > 0;
    if (running_ == 0 && std::isinf(next) && !holding)
      break; // nothing runs, nothing will arrive: done (jobs still waiting never start)
    if (next <= now + time_slack(now)) {
      // Something the decisions made due at this very instant (WakeAt(now), a repartition or boot of no
      // delay): one more round at it now. Waiting on the semaphore for 0 s instead makes SimGrid see no
      // actor and no activity left and abort the process ("Deadlock detected").
      check_same_instant_rounds(now);
      continue;
    }
    next = std::min(next, end); // an end a little after now (beyond end_slack) is an instant of its own
    if (std::isinf(next) && !holding)
      throw std::logic_error(
          "the engine has running jobs that never end (a rate of 0) and nothing else to do");
    wait_for(next);
    progress(false);
  }
  if (now_ > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(now_);
}

void Simulation::handle_arrivals(std::vector<Event>& events)
{
  auto& batch = arrival_batch_; // keeps its capacity from pass to pass
  batch.clear();
  double batch_time = 0;
  while (read_next_job()) {
    const double t = lookahead_->submit_s - origin_;
    const double now = sim_now();
    if (t > now + time_slack(now)) break;
    if (!batch.empty() && t != batch_time) {
      ++totals_.engine_events; // submissions at one trace time count as one engine event
      std::move(batch.begin(), batch.end(), std::back_inserter(events));
      batch.clear();
    }
    batch_time = t;
    Job& job = *lookahead_;
    ++totals_.jobs_read;
    if (job.profile.empty()) job.profile = setup_.default_profile;
    if (job.profile.empty())
      throw InputError(job.origin, "profile",
                       "the job names no profile and workload.default_profile is not set; valid profiles: " +
                           join(setup_.profiles->names()));
    const auto& profile = setup_.profiles->at(job.profile, job.origin);
    if (job.devices < 1)
      throw InputError(job.origin, "devices",
                       "expected at least 1 device (got " + std::to_string(job.devices) + ")");
    auto [j, js] = jobs_.add();
    js.job = std::move(job);
    lookahead_.reset();
    js.sig = &profile.sig;
    js.comm = profile.communication ? &*profile.communication : nullptr;
    if (js.job.batch_size > 0 && profile.depends_on_batch()) {
      auto [it, fresh] = batch_sigs_.try_emplace(js.job.profile + '\n' + std::to_string(js.job.batch_size));
      if (fresh) it->second = profile.signature_for_batch(js.job.batch_size);
      js.sig = &it->second;
    }
    js.submitted = t;
    if (index_ids_) deps_.index(js.job.id, j); // the first job of an id wins
    const TypeChoice& types = type_choice(js.job.gpu_types);
    js.type_mask = types.mask;
    if (setup_.durations_on_named_type && !js.job.gpu_types.empty()) js.base_speed = types.speed;
    if (setup_.estimates != EstimateSource::EXACT && js.job.requested_s > 0) js.limit_s = js.job.requested_s;
    if (js.type_mask == 0) {
      // No device of the platform is of a type the job accepts: it could only wait for ever (and hold up a
      // FCFS queue), so it is refused now.
      js.status = JobStatus::REJECTED;
      js.end = t;
      js.reason = reason_id("its gpu_types '" + js.job.gpu_types + "' name no device type of the platform");
      ++totals_.rejected;
      if (totals_.rejected_gpu_types++ == 0)
        totals_.first_rejected_gpu_types = "job '" + js.job.id + "' (" + js.job.origin.to_string() +
                                           ") asks for gpu_types '" + js.job.gpu_types + "'";
      record_end(j);
      continue;
    }
    if (!js.job.depends_on.empty()) {
      resolve_dependencies(j, batch);
      continue;
    }
    add_waiting(j);
    batch.emplace_back(std::in_place_type<JobSubmitted>, JobSubmitted{j});
  }
  if (!batch.empty()) {
    ++totals_.engine_events;
    std::move(batch.begin(), batch.end(), std::back_inserter(events));
  }
}

/// A job with depends_on has just been read (sim time = its submit time): it is submitted now if every
/// dependency has completed and the think time has passed, held (BLOCKED) otherwise, or cancelled if a
/// dependency failed for good, was rejected or cancelled. Ids no earlier job had are ignored and counted.
void Simulation::resolve_dependencies(JobIndex j, std::vector<Event>& batch)
{
  auto& js = jobs_[j];
  double ready = js.submitted;
  bool cancel = false;
  JobStatus cause = JobStatus::CANCELLED;
  for (const auto& id : js.job.depends_on) {
    const auto found = deps_.find(id);
    if (!found || *found == j) {
      if (totals_.dependencies_ignored++ == 0)
        totals_.first_ignored_dependency =
            "job '" + js.job.id + "' (" + js.job.origin.to_string() + ") depends on '" + id + "'";
      continue;
    }
    // A dependency ended in an earlier pass has only its outcome kept (ended_dependencies_).
    const auto* alive = jobs_.find(*found);
    const EndedDependency dep =
        alive ? EndedDependency{alive->status, alive->end} : ended_dependencies_.at(*found);
    switch (dep.status) {
    case JobStatus::COMPLETED:
      ready = std::max(ready, dep.end + js.job.think_time_s);
      break;
    case JobStatus::FAILED:
    case JobStatus::KILLED: // killed at its requested time: it will never complete either
    case JobStatus::REJECTED:
    case JobStatus::CANCELLED:
    case JobStatus::NEVER_STARTED:
      if (!cancel) cause = dep.status;
      cancel = true;
      break;
    default: // waiting, running, blocked
      ++js.deps_pending;
      deps_.wait_for(*found, j);
    }
  }
  if (cancel) {
    js.status = JobStatus::CANCELLED;
    js.end = sim_now();
    js.reason = dependency_reason(cause);
    ++totals_.cancelled;
    record_end(j); // nobody waits for j yet: its end cancels nothing
    return;
  }
  js.submitted = ready;
  if (js.deps_pending > 0 || ready > sim_now() + time_slack(sim_now())) {
    js.status = JobStatus::BLOCKED;
    if (js.deps_pending == 0) deps_.release_at(ready, j);
    return;
  }
  add_waiting(j);
  batch.emplace_back(std::in_place_type<JobSubmitted>, JobSubmitted{j});
}

/// A job that blocked job k waits for completed (deps_, when it ends): k is submitted once this was its last
/// dependency (now, or after its think time), into the events of the controller pass (released_).
void Simulation::dependency_completed(JobIndex k)
{
  auto& ks = jobs_[k];
  if (ks.status != JobStatus::BLOCKED) return;
  const double now = sim_now();
  ks.submitted = std::max(ks.submitted, now + ks.job.think_time_s);
  if (--ks.deps_pending > 0) return;
  if (ks.submitted > now + time_slack(now)) {
    deps_.release_at(ks.submitted, k);
    return;
  }
  ks.status = JobStatus::WAITING;
  ks.submitted = now;
  add_waiting(k);
  released_->emplace_back(std::in_place_type<JobSubmitted>, JobSubmitted{k});
}

/// Job b waits for job k, which will never complete (deps_, when k ends, for every job that transitively
/// waits for it): b is cancelled now; its end (record_end) is published like any other.
bool Simulation::cancel(JobIndex b, JobIndex k)
{
  auto& bs = jobs_[b];
  if (bs.status != JobStatus::BLOCKED) return false;
  bs.status = JobStatus::CANCELLED;
  bs.end = sim_now();
  bs.reason = dependency_reason(jobs_[k].status);
  ++totals_.cancelled;
  record_end(b);
  return true;
}

const Simulation::TypeChoice& Simulation::type_choice(const std::string& gpu_types)
{
  if (const auto it = type_choices_.find(gpu_types); it != type_choices_.end()) return it->second;
  const auto& types = setup_.platform->types;
  const std::uint64_t all = types.size() >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << types.size()) - 1;
  TypeChoice c;
  c.mask = gpu_types.empty() || !setup_.honour_gpu_types ? all : 0;
  bool speed_found = false;
  any_gpu_type(gpu_types, [&](std::string_view name) {
    for (std::size_t t = 0; t < types.size(); ++t) {
      if (!types[t].answers_to(name)) continue;
      if (setup_.honour_gpu_types) c.mask |= std::uint64_t{1} << t;
      if (!speed_found) {
        c.speed = types[t].speed;
        speed_found = true;
      }
    }
    return false;
  });
  return type_choices_.emplace(gpu_types, c).first->second;
}

void Simulation::handle_notice(const Notice& n, std::vector<Event>& events)
{
  ++totals_.engine_events;
  auto& js = jobs_[n.job];
  remove_job(n.job);
  // The event's copy of its devices; record_end then takes js.devices itself (the job's attempt is over).
  const auto& devs = js.devices;
  if (n.kind == NoticeKind::KILLED) {
    // Killed at its requested time, as a resource manager does: it ends for good, and jobs that depend on
    // it are cancelled.
    js.status = JobStatus::KILLED;
    js.end = sim_now();
    js.reason = reason_id("killed at its requested time (workload.estimates)");
    ++totals_.killed;
    events.emplace_back(std::in_place_type<JobFailed>,
                        JobFailed{n.job, devs, "killed at its requested time", false});
    record_end(n.job); // its run time into the user's history, its dependents cancelled (JOB_ENDED)
    return;
  }
  if (n.kind == NoticeKind::FINISHED) {
    js.status = JobStatus::COMPLETED;
    js.end = sim_now();
    ++totals_.completed;
    // The policy gets the completion before the submissions of the dependents it releases: those are
    // appended to `events` when the job's end is published (JOB_ENDED: deps_ → dependency_completed).
    events.emplace_back(std::in_place_type<JobCompleted>, JobCompleted{n.job, devs});
    released_ = &events;
    record_end(n.job); // its run time into the user's history, its dependents released
    released_ = nullptr;
    return;
  }
  ++totals_.oom_events;
  const bool requeue = js.attempts <= setup_.max_retries;
  events.emplace_back(std::in_place_type<JobFailed>, JobFailed{n.job, devs, "out of memory", requeue});
  if (requeue) {
    js.status = JobStatus::WAITING;
    add_waiting(n.job);
  } else {
    js.status = JobStatus::FAILED;
    js.end = sim_now();
    js.reason = reason_id("out of memory on every attempt (memory.max_retries " +
                          std::to_string(setup_.max_retries) + ")");
    ++totals_.failed;
    record_end(n.job); // its dependents cancelled (JOB_ENDED)
  }
}

void Simulation::call_policy(const std::vector<Event>& events)
{
  events_.policy_calling(PolicyCalling{*this, events, waiting_, running_});
  const auto decisions = setup_.policy->decide(*this, events);
  for (const auto& d : decisions) {
    events_.decision_applying(DecisionEvent{*this, d, waiting_});
    apply(d);
    events_.decision_applied(DecisionEvent{*this, d, waiting_});
  }
  emit_timepoint();
}

void Simulation::check_same_instant_rounds(double sim_t)
{
  if (same_instant_at_ != sim_t) {
    same_instant_at_ = sim_t;
    same_instant_rounds_ = 0;
  }
  if (++same_instant_rounds_ <= SAME_INSTANT_ROUNDS_MAX) return;
  const bool wakeup = !wakeups_.empty() && *wakeups_.begin() <= sim_t + time_slack(sim_t);
  throw DecisionError(
      "policy '" + setup_.policy_name + "' kept simulated time from advancing at t=" + std::to_string(now()) +
      " s: " + std::to_string(SAME_INSTANT_ROUNDS_MAX) + " calls of decide() in a row at this instant, " +
      (wakeup
           ? "each asking to be woken at the current time (WakeAt(now) calls decide() once more at the same "
             "instant); ask for a later time, e.g. WakeAt(now + delay)"
           : "each making something happen at it again (a repartition or node boot that takes 0 s)"));
}

void Simulation::start_job(JobIndex j, const Place& place)
{
  auto& js = jobs_[j];
  const auto& devs = place.devices;
  js.status = JobStatus::RUNNING;
  js.devices = devs;
  js.rate = 0;
  js.ending = false;
  js.launched = false;
  js.oom_pending = false;
  // For a job held by its dependencies, `submitted` is when they released it: its wait is never negative.
  js.attempt_start = std::max(sim_now(), js.submitted);
  if (js.first_start < 0) js.first_start = js.attempt_start;
  js.remaining = js.job.duration_s;
  js.progressed_at = sim_now();
  js.link_factor = 1.0;
  ++js.attempts;
  remove_waiting(j);
  ++running_;
  events_.job_started(JobStarted{j, js.attempt_start, js.devices, js.attempts});
  js.run_slot = phys_.begin(j, physics_of(js), place.thread_share,
                            std::clamp(js.job.gpu_milli, 1, 1000) / 1000.0, devs, place.instances);
  for (std::uint32_t pos = 0; pos < devs.size(); ++pos) {
    const DeviceIndex d = devs[pos];
    if (phys_.residents(d).empty()) ++busy_devices_;
    // The job whose arrival overflows a device's memory is the one that fails (docs/architecture.md, Memory
    // and out-of-memory).
    if (phys_.join(js.run_slot, pos)) js.oom_pending = true;
    events_.residents_changed(ResidentsChanged{d, j, sim_now(), true, phys_.requested_share(js.run_slot, pos),
                                               phys_.residents(d).size(), false});
  }
  // An overflowing job fails after the out-of-memory delay; a job with a time limit (its requested time) is
  // killed there; whichever comes first.
  js.oom_first = js.oom_pending && setup_.oom_delay_s <= js.limit_s;
  js.deadline = sim_now() + (js.oom_first ? setup_.oom_delay_s : js.limit_s);
  if (!node_hosts_.empty()) open_flows(j); // its flows start once its rate is known (rates_settled)
  phys_.update(js.run_slot);
  started_in_pass_.push_back(j);
}

void Simulation::advance(JobState& js) const
{
  const double now = sim_now();
  if (now > js.progressed_at) {
    js.remaining = std::max(0.0, js.remaining - js.rate * (now - js.progressed_at));
    js.progressed_at = now;
  }
}

void Simulation::schedule_end(JobIndex j)
{
  const auto& js = jobs_[j];
  const double complete = js.remaining <= 0 ? js.progressed_at
                          : js.rate > 0     ? js.progressed_at + js.remaining / js.rate
                                            : std::numeric_limits<double>::infinity();
  // It completes unless its deadline comes first. A job whose work ends at its time limit, at the same
  // instant, completes (a 22 s job that asked for 22 s is not killed): work left at the limit within 1e-9 of
  // its duration counts as done. The out-of-memory deadline has no such grace.
  const double grace =
      js.oom_first || !(js.rate > 0) ? 0.0 : 1e-9 * std::max(1.0, js.job.duration_s) / js.rate;
  if (complete <= js.deadline + grace)
    ends_.set(j, complete, NoticeKind::FINISHED);
  else
    ends_.set(j, js.deadline, js.oom_first ? NoticeKind::OUT_OF_MEMORY : NoticeKind::KILLED);
}

double Simulation::next_end() const
{
  return ends_.empty() ? std::numeric_limits<double>::infinity() : ends_.top().t;
}

void Simulation::take_due_ends(double now)
{
  while (next_end() <= now + end_slack(now)) {
    const auto e = ends_.top();
    ends_.pop();
    auto& js = jobs_[e.job];
    js.ending = true;
    if (e.kind == NoticeKind::FINISHED && !flows_done(e.job)) {
      // Its device work is done, its flows are not: it holds its devices until they are (wait_for ends it
      // then), unless its deadline comes first.
      if (std::isfinite(js.deadline))
        ends_.set(e.job, std::max(js.deadline, now),
                  js.oom_first ? NoticeKind::OUT_OF_MEMORY : NoticeKind::KILLED);
      continue;
    }
    notices_.push_back(Notice{e.job, e.kind});
  }
}

void Simulation::remove_job(JobIndex j)
{
  auto& js = jobs_[j];
  for (std::uint32_t pos = 0; pos < js.devices.size(); ++pos) {
    const DeviceIndex d = js.devices[pos];
    const double share = phys_.requested_share(js.run_slot, pos);
    phys_.leave(js.run_slot, pos);
    if (phys_.residents(d).empty()) --busy_devices_;
    events_.residents_changed(
        ResidentsChanged{d, j, sim_now(), false, share, phys_.residents(d).size(), idle(d)});
  }
  --running_;
  js.rate = 0;
  if (!flows_.empty()) close_flows(j);
  ends_.erase(j); // a no-op today: a running job is removed only once its end is taken (handle_notice)
  phys_.update(js.run_slot);
}

/// Device d is about to change (power, residents, share, frequency): its meters integrate up to now at the
/// state that held since its last change, and attribute that energy to its residents (DEVICE_CHANGING).
void Simulation::touch(DeviceIndex d)
{
  events_.device_changing(
      DeviceChanging{d, sim_now(), phys_.power_w(d), phys_.residents(d), phys_.share_w(d)});
}

void Simulation::rate_changing(JobIndex j, double rate)
{
  // Its work is brought up to now at the old rate, and its end moves once every rate of the update is final.
  auto& js = jobs_[j];
  advance(js);
  js.rate = rate;
  if (!js.ending && !js.end_moved) {
    js.end_moved = true;
    moved_ends_.push_back(j);
  }
  // One per device, as when each device held a SimGrid activity.
  if (!js.ending && js.launched) totals_.rate_updates += js.devices.size();
}

void Simulation::rates_settled()
{
  // Every rate is final: the jobs whose rate changed get their new end, once each.
  for (const JobIndex j : moved_ends_) {
    auto& js = jobs_[j];
    js.end_moved = false;
    if (js.status == JobStatus::RUNNING && !js.ending) {
      schedule_end(j);
      if (!flows_.empty()) restart_flows(j);
    }
  }
  moved_ends_.clear();
}

void Simulation::sync_simgrid_clock()
{
  if (now_ > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(now_);
}

std::vector<std::uint32_t> Simulation::nodes_of(std::span<const DeviceIndex> devices) const
{
  std::vector<std::uint32_t> nodes;
  nodes.reserve(devices.size());
  for (const DeviceIndex d : devices)
    nodes.push_back(setup_.platform->devices[d].node);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

void Simulation::open_flows(JobIndex j)
{
  const auto& js = jobs_[j];
  const double per_work = phys_.nic_bytes_per_work(physics_of(js), js.devices);
  if (!(per_work > 0)) return; // it does not communicate, or only inside one node
  const std::vector<std::uint32_t> nodes = nodes_of(js.devices);
  JobFlows f;
  f.bytes_per_work = per_work;
  f.comms.resize(nodes.size());
  f.gets.resize(nodes.size());
  f.left.assign(nodes.size(), per_work * js.remaining);
  f.seen.assign(nodes.size(), 0.0);
  f.earliest_end.assign(nodes.size(), 0.0);
  f.loaded.assign(nodes.size(), 0);
  f.nodes = nodes;
  close_flows(j); // none under way: a job's flows are closed when it leaves its devices
  flows_.emplace(j, std::move(f));
}

void Simulation::restart_flows(JobIndex j)
{
  const auto it = flows_.find(j);
  if (it == flows_.end() || it->second.device_done_at >= 0) return;
  auto& f = it->second;
  // Each flow goes on with its bytes left, at the job's new bound: off the links at the old one, on at the
  // new one.
  take_flows(j, f);
  f.bound = f.bytes_per_work * jobs_[j].rate;
  f.since = now_;
  bool pushed_over = false;
  for (std::size_t i = 0; i < f.left.size(); ++i) {
    f.seen[i] = f.left[i];
    if (f.left[i] == 0 || !(f.bound > 0)) continue; // done, or the job stands still: it goes on when it moves
    f.loaded[i] = 1;
    for_flow_links(f, i, [&](std::uint32_t link) { pushed_over |= load_link(link, f.bound); });
  }
  // Its flows run in SimGrid when a link they cross is asked more than it carries; otherwise each runs at its
  // bound, which SimGrid's max-min sharing would give it too (docs/architecture.md, Network).
  if (crosses_overloaded_link(f)) start_real_flows(j, f);
  if (pushed_over) make_overloaded_links_real();
}

void Simulation::take_flows(JobIndex j, JobFlows& f)
{
  if (f.real) {
    sync_simgrid_clock(); // its flows are read at the engine's now
    for (std::size_t i = 0; i < f.comms.size(); ++i) {
      if (auto& c = f.comms[i]) {
        f.left[i] = c->get_state() == sg4::Activity::State::FINISHED ? 0.0 : c->get_remaining();
        if (c->get_state() != sg4::Activity::State::FINISHED) c->cancel();
        c = nullptr;
        f.gets[i] = nullptr;
        flows_by_end_.erase({f.earliest_end[i], j, i});
      }
    }
    f.real = false;
  } else {
    bring_free_flows_to_now(f);
  }
  for (std::size_t i = 0; i < f.left.size(); ++i)
    unload_flow(f, i);
}

double Simulation::free_flow_left(const JobFlows& f, std::size_t i, double t)
{
  return std::max(0.0, f.left[i] - f.bound * (t - f.since));
}

void Simulation::bring_free_flows_to_now(JobFlows& f) const
{
  for (std::size_t i = 0; i < f.left.size(); ++i)
    if (f.loaded[i]) f.left[i] = free_flow_left(f, i, now_);
  f.since = now_;
}

bool Simulation::load_link(std::uint32_t link, double bound)
{
  const bool was_over = link_load_[link] > link_capacity_[link];
  link_load_[link] += bound;
  ++link_flows_[link];
  return !was_over && link_load_[link] > link_capacity_[link];
}

void Simulation::unload_flow(JobFlows& f, std::size_t i)
{
  if (!f.loaded[i]) return;
  f.loaded[i] = 0;
  for_flow_links(f, i, [&](std::uint32_t link) {
    // Back to exactly 0 with its last flow, so that rounding does not build up over a run.
    link_load_[link] = --link_flows_[link] == 0 ? 0.0 : link_load_[link] - f.bound;
  });
}

bool Simulation::crosses_overloaded_link(const JobFlows& f) const
{
  bool over = false;
  for (std::size_t i = 0; i < f.left.size() && !over; ++i)
    if (f.loaded[i])
      for_flow_links(f, i, [&](std::uint32_t link) { over |= link_load_[link] > link_capacity_[link]; });
  return over;
}

void Simulation::make_overloaded_links_real()
{
  // A link now asked more than it carries: every job whose flows cross one and run outside SimGrid moves
  // into it with its bytes left, so that SimGrid shares the link among all of them. Rare in runs whose jobs
  // fit their links (none at all in `colocsim bench --network`), so the running jobs are scanned.
  for (auto& [j, f] : flows_)
    if (!f.real && crosses_overloaded_link(f)) {
      bring_free_flows_to_now(f);
      start_real_flows(j, f);
    }
}

void Simulation::start_real_flows(JobIndex j, JobFlows& f)
{
  sync_simgrid_clock(); // a flow starts at the engine's now
  f.real = true;
  const double bound = f.bound;
  std::vector<FlowRelay*> gets;
  std::vector<FlowRelay*> puts;
  std::vector<std::size_t> started;
  for (std::size_t i = 0; i < f.comms.size(); ++i) {
    if (!f.loaded[i]) continue;
    const auto bytes = static_cast<std::uint64_t>(std::llround(f.left[i]));
    if (bytes == 0) {
      unload_flow(f, i);
      f.left[i] = 0;
      continue;
    }
    // A mailbox comm, put from its source node and got on its destination: SimGrid 3.32 bounds such a comm at
    // its rate, but drops the rate of a host-to-host one (Comm::sendto_init; probed: 1e9 B at rate 1e8 over a
    // 1e9 B/s link took 1 s, not 10). Each side is started by its node's relay, so that the controller never
    // changes host (docs/architecture.md, Network). All the gets first, then the puts in flow order: each
    // node of the ring is the destination of one flow and the source of one, so each get is matched by its
    // flow's put, and the flows start with their puts in flow order, as when the controller started both.
    auto& to = relay(f.nodes[(i + 1) % f.nodes.size()]);
    auto& from = relay(f.nodes[i]);
    to.get = FlowRequest{&f, i, nullptr, 0, 0};
    from.put = FlowRequest{&f, i, to.inbox, bytes, bound};
    gets.push_back(&to);
    puts.push_back(&from);
    started.push_back(i);
  }
  if (started.empty()) return;
  start_flows(gets, false);
  start_flows(puts, true);
  for (const std::size_t i : started) {
    const auto bytes = static_cast<double>(std::llround(f.left[i]));
    f.left[i] = bytes;
    f.seen[i] = bytes;
    f.earliest_end[i] = sg4::Engine::get_clock() + bytes / bound;
    flows_by_end_.emplace(f.earliest_end[i], j, i);
  }
}

Simulation::FlowRelay& Simulation::relay(std::uint32_t node)
{
  if (relays_.empty()) relays_.resize(node_hosts_.size());
  auto& r = relays_[node];
  if (r) return *r;
  r = std::make_unique<FlowRelay>();
  r->wake = sg4::Semaphore::create(0);
  const std::string name = std::string("node") + std::to_string(node);
  r->inbox = sg4::Mailbox::by_name(name);
  // A daemon: it ends with the controller. 64 KiB of stack (SimGrid's default is 8 MiB, its contexts mapped
  // once per actor): a relay only starts comms, whose work SimGrid does on its own stack.
  auto actor = sg4::Actor::init(name, node_hosts_[node])->set_stacksize(64)->start([this, relay = r.get()] {
    for (;;) {
      relay->wake->acquire();
      if (relay_puts_) {
        const FlowRequest& q = relay->put;
        auto put = q.to->put_init(&flow_sink_, q.bytes);
        put->set_rate(q.bound);
        put->start();
        q.flows->comms[q.flow] = std::move(put);
      } else {
        const FlowRequest& q = relay->get;
        auto get = relay->inbox->get_init();
        get->set_dst_data(&flow_sink_, sizeof(void*));
        get->start();
        q.flows->gets[q.flow] = std::move(get);
      }
      if (--relay_left_ == 0) relay_done_->release();
    }
  });
  actor->daemonize();
  ++relay_count_;
  return *r;
}

void Simulation::start_flows(std::span<FlowRelay* const> relays, bool puts)
{
  relay_puts_ = puts;
  relay_left_ = relays.size();
  for (FlowRelay* r : relays)
    r->wake->release();
  // The controller goes on once every relay has stored the comm it started: never before (a semaphore, not
  // SimGrid's order of running actors, makes it so).
  relay_done_->acquire();
  assert(std::all_of(relays.begin(), relays.end(), [puts](const FlowRelay* r) {
    return puts ? r->put.flows->comms[r->put.flow] != nullptr : r->get.flows->gets[r->get.flow] != nullptr;
  }));
}

void Simulation::close_flows(JobIndex j)
{
  const auto it = flows_.find(j);
  if (it == flows_.end()) return;
  auto& f = it->second;
  if (f.real) {
    sync_simgrid_clock(); // its flows stop at the engine's now
    for (std::size_t i = 0; i < f.comms.size(); ++i) {
      const auto& c = f.comms[i];
      if (!c) continue;
      if (c->get_state() != sg4::Activity::State::FINISHED) c->cancel();
      flows_by_end_.erase({f.earliest_end[i], j, i});
    }
  }
  for (std::size_t i = 0; i < f.left.size(); ++i)
    unload_flow(f, i);
  if (f.device_done_at >= 0) --held_jobs_;
  flows_.erase(it);
}

bool Simulation::flows_done(JobIndex j)
{
  const auto it = flows_.find(j);
  if (it == flows_.end()) return true;
  auto& f = it->second;
  // Uncontended, its flows end with its device work, up to rounding (whole bytes at each restart, SimGrid's
  // precision): bytes worth up to 1 µs at its bound count as sent.
  const double slack = 1.0 + f.bytes_per_work * jobs_[j].rate * 1e-6;
  if (!f.real) {
    bool all = true;
    for (std::size_t i = 0; i < f.left.size(); ++i)
      if (f.loaded[i] && free_flow_left(f, i, now_) > slack) all = false;
    if (all) {
      for (std::size_t i = 0; i < f.left.size(); ++i)
        unload_flow(f, i);
      return true;
    }
    // Not expected (a flow at its bound ends with the device work), but exact all the same: the rest goes
    // through SimGrid and the job is held for it.
    bring_free_flows_to_now(f);
    start_real_flows(j, f);
  }
  sync_simgrid_clock(); // its flows are read at the engine's now
  bool done = true;
  for (std::size_t i = 0; i < f.comms.size(); ++i) {
    auto& c = f.comms[i];
    if (!c) continue;
    if (c->get_state() != sg4::Activity::State::FINISHED && c->get_remaining() > slack) {
      done = false;
      continue;
    }
    if (c->get_state() != sg4::Activity::State::FINISHED) c->cancel();
    c = nullptr;
    f.gets[i] = nullptr;
    flows_by_end_.erase({f.earliest_end[i], j, i});
    unload_flow(f, i);
  }
  if (!done) {
    if (f.device_done_at < 0) ++held_jobs_;
    f.device_done_at = sim_now();
  }
  return done;
}

void Simulation::wait_for(double next)
{
  // SimGrid's clock follows the engine's. When SimGrid has something of its own to run (network flows, or an
  // actor other than the controller), the controller waits for its next event in SimGrid, so that they
  // progress up to that instant; then it takes that event's time as computed. When it has nothing, a wait
  // would only advance its clock, at about 1.5 µs and seven allocations a wait (its activity, timer and
  // solver round): the clock is brought up to the engine's when a flow starts, and at the end.
  // Only the flows that can end before `next` are waited on (each wait costs SimGrid a step per flow waited
  // on); the others move on all the same. A margin of 1 µs per second covers SimGrid's rounding.
  const double until = next + 1e-6 * (1.0 + std::abs(next));
  waited_.clear();
  waited_keys_.clear();
#ifndef NDEBUG
  // The index holds exactly the flows under way, each under the earliest end it was started with.
  std::size_t under_way = 0;
  for (const auto& [j, f] : flows_)
    for (std::size_t i = 0; i < f.comms.size(); ++i)
      if (f.comms[i]) {
        ++under_way;
        assert(flows_by_end_.contains({f.earliest_end[i], j, i}));
      }
  assert(under_way == flows_by_end_.size());
#endif
  for (auto it = flows_by_end_.begin(); it != flows_by_end_.end() && std::get<0>(*it) <= until; ++it) {
    waited_keys_.push_back(*it);
    waited_.push_back(flows_.find(std::get<1>(*it))->second.comms[std::get<2>(*it)]);
  }
  if (waited_.empty()) {
    // No flow can end before next: SimGrid has nothing to tell the controller until then, and its clock is
    // brought up to the engine's only when a flow is next started, read, stopped or waited on (each wait
    // costs SimGrid a step, a timer and a solver round). An actor other than the controller and the relays (a
    // test's) runs in time order with the engine, so the controller waits for it.
    if (sg4::Engine::get_instance()->get_actor_count() > 1 + relay_count_) // besides the relays
      wake_controller_->acquire_timeout(std::max(0.0, next - sg4::Engine::get_clock()));
    now_ = next;
    measure_links(now_);
    return;
  }
  const double timeout = std::isinf(next) ? -1.0 : std::max(0.0, next - sg4::Engine::get_clock());
  if (sg4::Comm::wait_any_for(waited_, timeout) < 0) {
    now_ = next;
    measure_links(now_);
    return;
  }
  // A flow ended before the engine's next event: every flow ended by now is done, and a job held for its
  // flows (its device work done) ends now.
  now_ = std::min(next, sg4::Engine::get_clock());
  measure_links(now_);
  flow_woke_ = true;
  // Only the flows waited on can have ended (the others cannot before next); their jobs in job order.
  std::vector<JobIndex> woke;
  for (std::size_t k = 0; k < waited_.size(); ++k) {
    if (waited_[k]->get_state() != sg4::Activity::State::FINISHED) continue;
    const auto [t, j, i] = waited_keys_[k];
    auto& f = flows_.find(j)->second;
    f.comms[i] = nullptr;
    f.gets[i] = nullptr;
    f.left[i] = 0;
    unload_flow(f, i);
    flows_by_end_.erase(waited_keys_[k]);
    woke.push_back(j);
  }
  waited_.clear(); // the comms are not kept beyond their flows
  std::sort(woke.begin(), woke.end());
  woke.erase(std::unique(woke.begin(), woke.end()), woke.end());
  for (const JobIndex j : woke) {
    const auto& f = flows_.find(j)->second;
    const bool all = std::none_of(f.comms.begin(), f.comms.end(), [](const auto& c) { return c != nullptr; });
    if (!all || f.device_done_at < 0) continue;
    auto& js = jobs_[j];
    if (f.device_done_at > js.attempt_start)
      js.link_factor = (now_ - js.attempt_start) / (f.device_done_at - js.attempt_start);
    ends_.set(j, now_, NoticeKind::FINISHED);
  }
}

void Simulation::measure_links(double t)
{
  if (!link_outputs_ || !(t > links_measured_at_)) return;
  if (!flows_by_end_.empty()) sync_simgrid_clock(); // the flows in SimGrid are read at the engine's now (t)
  for (auto& [j, f] : flows_) {
    for (std::size_t i = 0; i < f.left.size(); ++i) {
      double left = 0;
      if (f.real) {
        const auto& c = f.comms[i];
        if (!c) continue;
        left = c->get_state() == sg4::Activity::State::FINISHED ? 0.0 : c->get_remaining();
      } else {
        if (!f.loaded[i]) continue;
        left = free_flow_left(f, i, t);
      }
      const double moved = f.seen[i] - left;
      f.seen[i] = left;
      if (!(moved > 0)) continue;
      for_flow_links(f, i, [&](std::uint32_t link) {
        if (link_bytes_[link] == 0) links_loaded_.push_back(link);
        link_bytes_[link] += moved;
      });
    }
  }
  const double dt = t - links_measured_at_;
  double busiest = 0;
  for (const std::uint32_t link : links_loaded_) {
    busiest = std::max(busiest, link_bytes_[link] / (link_capacity_[link] * dt));
    link_bytes_[link] = 0;
  }
  links_loaded_.clear();
  // Max-min sharing never gives a link more than its capacity; rounding in SimGrid's byte counts can.
  link_util_s_ += std::min(1.0, busiest) * dt;
  links_measured_at_ = t;
}

void Simulation::record_end(JobIndex j)
{
  auto& js = jobs_[j];
  JobRecord r;
  r.job = &js.job;
  r.status = js.status;
  // Clamped in trace time: origin_ + (submit − origin_) can round below submit (e.g. 95.256 and 501.075
  // give a wait of −5.7e-14 s, printed −0.0), so wait and JCT could come out negative.
  r.submit_s = trace_time(origin_, js.submitted, js.job.submit_s);
  r.start_s = js.first_start < 0 ? -1 : trace_time(origin_, js.first_start, r.submit_s);
  r.last_start_s = js.attempt_start < 0 ? -1 : trace_time(origin_, js.attempt_start, r.start_s);
  r.end_s = js.end < 0 ? -1 : trace_time(origin_, js.end, std::max(r.last_start_s, r.submit_s));
  r.energy_j = meters_.job_energy_j(j);
  r.attempts = js.attempts;
  r.reason = reasons_.text(js.reason);
  if (comm_outputs_) { // the communication columns (JobRecord::comm_outputs)
    r.nodes = static_cast<std::uint32_t>(nodes_of(js.devices).size());
    r.communicated = phys_.communicates(physics_of(js), js.devices.size());
    if (r.communicated) {
      r.comm_slowdown = 1.0 / phys_.comm_efficiency(physics_of(js), js.devices) * js.link_factor;
      r.link_contended = js.link_factor > 1.0;
    }
    r.comm_outputs = true;
  }
  // The job has ended for good: nothing reads its per-attempt devices again, so the record takes them (their
  // heap block goes back once the record is written, not at the end of the run).
  r.devices = std::move(js.devices);
  js.devices = {};
  if (js.status == JobStatus::COMPLETED && js.job.duration_s > 0)
    r.slowdown = (js.end - js.attempt_start) / js.job.duration_s;
  // The run time the system saw (a killed job's: its limit), for the user's history.
  const double run_s = js.attempt_start < 0 || js.end < 0 ? 0.0 : js.end - js.attempt_start;
  events_.job_ended(JobEnded{j, sim_now(), r, run_s, *this});
  ended_.push_back(j);
}

/// The jobs ended in this pass: the policy call that reported their ends has returned (a job rejected when
/// read, or cancelled by its dependencies before it was submitted, was never reported), so nothing reads
/// their state again; a dependent read later needs only its outcome, kept for the job its id names.
void Simulation::release_ended()
{
  for (const JobIndex j : ended_) {
    if (index_ids_) {
      const auto& js = jobs_[j];
      if (deps_.find(js.job.id) == j) ended_dependencies_.emplace(j, EndedDependency{js.status, js.end});
    }
    jobs_.release(j);
    meters_.forget(j);
  }
  ended_.clear();
}

void Simulation::emit_timepoint()
{
  if (!events_.wanted(EngineEvent::PASS_ENDED)) return; // timeseries.csv off, no other subscriber
  TimePoint p;
  p.t_s = now();
  p.device_power_w = phys_.total_power_w();
  p.node_power_w = nodes_.baseline_w();
  p.busy_devices = busy_devices_;
  p.running_jobs = running_;
  p.waiting_jobs = waiting_;
  p.link_outputs = comm_outputs_;
  p.link_util_s = link_util_s_;
  events_.pass_ended(p);
}

void Simulation::progress(bool force)
{
  if (setup_.progress_interval_s <= 0) return;
  // Reading the clock costs little, but not nothing: once every PROGRESS_CHECK_EVERY rounds.
  if (!force && ++progress_rounds_ < PROGRESS_CHECK_EVERY) return;
  progress_rounds_ = 0;
  const auto wall = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(wall - last_progress_).count();
  const double total = std::chrono::duration<double>(wall - wall_start_).count();
  if (!force && since < setup_.progress_interval_s) return;
  if (force && total < setup_.progress_interval_s && !progress_shown_) return; // short runs stay quiet
  last_progress_ = wall;
  const std::uint64_t ended = totals_.completed + totals_.failed + totals_.rejected + totals_.never_started +
                              totals_.cancelled + totals_.killed;
  const std::string line = progress_line(totals_.jobs_read, setup_.jobs_total, ended, now(), total);
  if (setup_.progress_tty)
    std::fprintf(stderr, "\r%s\033[K%s", line.c_str(), force ? "\n" : "");
  else
    std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  progress_shown_ = true;
}

} // namespace engine

std::string progress_line(std::uint64_t read, std::uint64_t total, std::uint64_t ended, double sim_t_s,
                          double wall_s)
{
  char buf[256];
  std::string jobs = std::to_string(read) + (total > 0 ? " of " + std::to_string(total) : std::string());
  // The time left is estimated from the jobs that ended: before the first one ends it is not known, even
  // when the number of jobs is.
  std::string left = total > 0 ? "time left unknown until a job ends" : "remaining unknown";
  if (total > 0 && ended > 0) {
    const double rest =
        wall_s * static_cast<double>(total > ended ? total - ended : 0) / static_cast<double>(ended);
    std::snprintf(buf, sizeof buf, "about %.0f s left", rest);
    left = buf;
  }
  std::snprintf(buf, sizeof buf, "colocsim: %s jobs read, %llu ended, t=%.0f s simulated, %.1f s wall, %s",
                jobs.c_str(), static_cast<unsigned long long>(ended), sim_t_s, wall_s, left.c_str());
  return buf;
}
} // namespace colocsim

// SimGrid 3.32 keeps its clock in the static member simgrid::kernel::EngineImpl::now_ (src/kernel/
// EngineImpl.cpp), which neither a new Engine nor the old one's destruction resets; libsimgrid.so exports it
// (nm -D: a B symbol), no public API sets it. Declared here by its mangled name.
extern double colocsim_simgrid_clock asm("_ZN7simgrid6kernel10EngineImpl4now_E");
// Likewise its configuration's stage, the global _sg_cfg_init_status (src/simgrid/sg_config.cpp; exported,
// a B symbol): 0 before its options exist, 1 once they do, 2 once a platform has built its models, after
// which setting network/model aborts ("Cannot change the model after the initialization") even for a new
// Engine. A run with a network sets its network model (Simulation::build_platform), so each new Engine puts
// it back to 1 once the options exist.
extern int colocsim_simgrid_cfg_status asm("_sg_cfg_init_status");

namespace colocsim {
namespace {

/// A fresh SimGrid Engine for each run: 3.32 allows one at a time, and a new one after the previous is
/// destroyed (probed). Its clock is set back to 0 first: carried over from an earlier simulation of the same
/// process, it offset every time by a large value and changed results in the last bits (a second
/// colocsim.run() in one Python process differed from `colocsim run`; python/tests/test_run.py).
std::unique_ptr<sg4::Engine> make_engine()
{
  colocsim_simgrid_clock = 0;
  if (colocsim_simgrid_cfg_status > 1) colocsim_simgrid_cfg_status = 1;
  // One actor, the controller, with the stack it asks for (Simulation::run); the default guard page stays.
  static char arg0[] = "colocsim";
  static char log1[] = "--log=root.thres:warning";
  static char log2[] = "--log=xbt_cfg.thres:warning";
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer does not know SimGrid's hand-made actor stacks: an exception thrown in an actor (a bad
  // trace row, a policy's invalid decision) makes it scan stale shadow memory and report false
  // stack-use-after-scope errors (google/sanitizers#189). Sanitizer builds run actors as threads instead.
  static char cfg1[] = "--cfg=contexts/factory:thread";
  char* argv[] = {arg0, log1, log2, cfg1, nullptr};
  int argc = 4;
#else
  char* argv[] = {arg0, log1, log2, nullptr};
  int argc = 3;
#endif
  return std::make_unique<sg4::Engine>(&argc, argv);
}

} // namespace

RunTotals run_simulation(const RunSetup& setup, RunObserver& observer)
{
  if (!setup.platform || !setup.profiles || !setup.reader || !setup.policy || setup.platform->types.empty())
    throw std::invalid_argument("run_simulation: incomplete RunSetup");
  for (const auto& t : setup.platform->types)
    if (!t.spec || !t.interference || !(t.speed > 0))
      throw std::invalid_argument("run_simulation: a device type without spec, interference model or speed");
  const auto engine = make_engine();
  if (setup.after_engine_created) setup.after_engine_created();
  engine::Simulation sim(setup, observer);
  return sim.run();
}

} // namespace colocsim
