// Checking and applying a policy's decisions (policies/Policy.hpp, Decision): one function per decision type,
// each refusing an infeasible decision with a DecisionError that says why, before anything changes.
#include "sim/Simulation.hpp"

#include <algorithm>
#include <string>
#include <type_traits>
#include <variant>

namespace colocsim::engine {

/// The policy's decision `decision` cannot be applied: a DecisionError naming the policy, the time, the
/// decision and why.
void Simulation::fail(const Decision& decision, const std::string& why) const
{
  throw DecisionError("policy '" + setup_.policy_name + "' made an infeasible decision at t=" +
                      std::to_string(now()) + " s: " + describe(decision) + ": " + why);
}

void Simulation::apply(const Decision& decision)
{
  std::visit(
      [&](const auto& d) {
        using T = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<T, Place>)
          apply_place(decision, d);
        else if constexpr (std::is_same_v<T, Reject>)
          apply_reject(decision, d);
        else if constexpr (std::is_same_v<T, SetNodePower>)
          apply_node_power(decision, d);
        else if constexpr (std::is_same_v<T, Repartition>)
          apply_repartition(decision, d);
        else if constexpr (std::is_same_v<T, ReconfigureMig>)
          apply_reconfigure_mig(decision, d);
        else if constexpr (std::is_same_v<T, SetFrequency>)
          apply_frequency(decision, d);
        else
          apply_wakeup(decision, d);
      },
      decision);
}

void Simulation::apply_place(const Decision& decision, const Place& d)
{
  if (d.job >= jobs_.size()) fail(decision, "no such job");
  if (!jobs_.find(d.job)) fail(decision, "the job has ended, not waiting");
  const auto& js = jobs_[d.job];
  if (js.status != JobStatus::WAITING)
    fail(decision, "the job is " + std::string(to_string(js.status)) + ", not waiting");
  if (d.devices.size() != static_cast<std::size_t>(js.job.devices))
    fail(decision, "the job requests " + std::to_string(js.job.devices) + " device(s)");
  if (!(d.thread_share >= 0.01 && d.thread_share <= 1))
    fail(decision, "thread_share must be in [0.01, 1] (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE 1..100)");
  if (!d.instances.empty() && d.instances.size() != d.devices.size())
    fail(decision, "instances must name one MIG instance per device");
  for (std::size_t i = 0; i < d.devices.size(); ++i)
    check_place_device(decision, d, i);
  start_job(d.job, d);
}

/// The i-th device of a Place decision can take the job now: it exists, is listed once, is available, of a
/// type the job accepts, below its mode's resident limit, and on a mig device the named instance is free
/// and ready.
void Simulation::check_place_device(const Decision& decision, const Place& d, std::size_t i) const
{
  const DeviceIndex dev = d.devices[i];
  if (dev >= phys_.size())
    fail(decision,
         "device " + std::to_string(dev) + " does not exist (" + std::to_string(phys_.size()) + " devices)");
  if (std::find(d.devices.begin(), d.devices.begin() + static_cast<long>(i), dev) !=
      d.devices.begin() + static_cast<long>(i))
    fail(decision, "device " + std::to_string(dev) + " is listed twice");
  if (phys_.repartitioning(dev)) fail(decision, "device " + std::to_string(dev) + " is being repartitioned");
  if (!allows(d.job, dev))
    fail(decision, "device " + std::to_string(dev) + " is of type '" + type(dev).spec->name +
                       "', not one the job's gpu_types '" + jobs_[d.job].job.gpu_types + "' name");
  if (!nodes_.on(setup_.platform->devices[dev].node))
    fail(decision, "device " + std::to_string(dev) + " is on node " +
                       std::to_string(setup_.platform->devices[dev].node) +
                       ", which is off or still booting");
  const auto mode = phys_.mode(dev);
  const unsigned limit = max_residents(mode);
  if (limit != 0 && phys_.residents(dev).size() >= limit)
    fail(decision, "device " + std::to_string(dev) + " is in " + std::string(to_string(mode)) +
                       " mode and already runs " + std::to_string(phys_.residents(dev).size()) +
                       " job(s), its limit");
  if (mode == SharingMode::MIG)
    check_mig_instance(decision, d, i);
  else if (!d.instances.empty())
    fail(decision, "device " + std::to_string(dev) + " is not in mig mode: instances are for mig devices");
}

/// The i-th device of a Place decision is in mig mode: the decision names one of its instances, which holds
/// no job and is ready.
void Simulation::check_mig_instance(const Decision& decision, const Place& d, std::size_t i) const
{
  const DeviceIndex dev = d.devices[i];
  const auto& gis = phys_.mig(dev);
  if (d.instances.empty())
    fail(decision,
         "device " + std::to_string(dev) + " is in mig mode: name its GPU instance (Place::instances)");
  const auto gi = d.instances[i];
  if (gi >= gis.size())
    fail(decision, "device " + std::to_string(dev) + " has " + std::to_string(gis.size()) +
                       " MIG instance(s), no instance " + std::to_string(gi));
  if (gis.job(gi) >= 0)
    fail(decision, "MIG instance " + std::to_string(gi) + " (" + type(dev).mig->describe(gis[gi]) +
                       ") of device " + std::to_string(dev) + " already runs job " +
                       std::to_string(gis.job(gi)));
  if (!gis.ready(gi, sim_now() + time_slack(sim_now())))
    fail(decision, "MIG instance " + std::to_string(gi) + " of device " + std::to_string(dev) +
                       " is still being created (ready at t=" + std::to_string(origin_ + gis.ready_at(gi)) +
                       " s)");
}

void Simulation::apply_reject(const Decision& decision, const Reject& d)
{
  auto* found = jobs_.find(d.job); // null for a job never read or already freed
  if (!found || found->status != JobStatus::WAITING) fail(decision, "the job is not waiting");
  auto& js = *found;
  js.status = JobStatus::REJECTED;
  js.reason = reason_id(d.reason.empty() ? "policy '" + setup_.policy_name + "' gave no reason"
                                         : "policy '" + setup_.policy_name + "': " + d.reason);
  remove_waiting(d.job);
  ++totals_.rejected;
  record_end(d.job); // its dependents cancelled (JOB_ENDED)
}

void Simulation::apply_node_power(const Decision& decision, const SetNodePower& d)
{
  if (d.node >= nodes_.size()) fail(decision, "node " + std::to_string(d.node) + " does not exist");
  if (d.on == !nodes_.off(d.node)) return; // already on (or booting) / already off
  if (!d.on)
    for (auto dev : node_devices_[d.node])
      if (!phys_.residents(dev).empty())
        fail(decision,
             "node " + std::to_string(d.node) + " still runs jobs on device " + std::to_string(dev));
  touch_nodes();
  for (auto dev : node_devices_[d.node])
    touch(dev);
  if (d.on)
    nodes_.power_on(d.node, sim_now(), setup_.node_boot_s);
  else
    nodes_.power_off(d.node);
  for (auto dev : node_devices_[d.node]) {
    phys_.set_powered(dev, !nodes_.off(d.node));
    availability_changed(dev);
  }
}

void Simulation::apply_repartition(const Decision& decision, const Repartition& d)
{
  if (d.device >= phys_.size()) fail(decision, "device " + std::to_string(d.device) + " does not exist");
  const auto& spec = *setup_.platform->devices[d.device].spec;
  if (std::find(spec.sharing_modes.begin(), spec.sharing_modes.end(), d.mode) == spec.sharing_modes.end())
    fail(decision, "device type '" + spec.name + "' does not support " + std::string(to_string(d.mode)));
  if (!phys_.residents(d.device).empty())
    fail(decision, "the device still runs " + std::to_string(phys_.residents(d.device).size()) +
                       " job(s); drain it first");
  if (phys_.repartitioning(d.device)) fail(decision, "the device is already being repartitioned");
  if (d.mode == SharingMode::MIG && !type(d.device).mig)
    fail(decision,
         "device type '" + spec.name + "' has no MIG table loaded (platform.sharing: mig loads it)");
  phys_.begin_repartition(d.device, d.mode);
  availability_changed(d.device);
  repartitions_.insert({sim_now() + setup_.repartition_delay_s, d.device});
}

void Simulation::apply_reconfigure_mig(const Decision& decision, const ReconfigureMig& d)
{
  if (d.device >= phys_.size()) fail(decision, "device " + std::to_string(d.device) + " does not exist");
  if (phys_.mode(d.device) != SharingMode::MIG) fail(decision, "the device is not in mig mode");
  const auto& geo = *type(d.device).mig;
  const auto verdict = geo.check_change(phys_.mig(d.device).layout(), phys_.mig(d.device).busy(), d.change);
  if (!verdict.ok()) fail(decision, verdict.reason);
  phys_.reconfigure_mig(d.device, d.change, sim_now());
  const double at = sim_now() + geo.reconfiguration_latency_s(); // when the created instances are ready
  if (!d.change.create.empty()) repartitions_.insert({at, d.device});
}

void Simulation::apply_frequency(const Decision& decision, const SetFrequency& d)
{
  if (d.device >= phys_.size()) fail(decision, "device " + std::to_string(d.device) + " does not exist");
  const auto& spec = *setup_.platform->devices[d.device].spec;
  if (!(d.freq_hz >= spec.freq_min_hz.value && d.freq_hz <= spec.freq_max_hz.value))
    fail(decision, "frequency outside the device's range [" + std::to_string(spec.freq_min_hz.value / 1e6) +
                       ", " + std::to_string(spec.freq_max_hz.value / 1e6) + "] MHz");
  phys_.set_frequency(d.device, d.freq_hz);
}

void Simulation::apply_wakeup(const Decision& decision, const WakeAt& d)
{
  const double at = d.at_s - origin_;
  if (!(at >= sim_now() - time_slack(sim_now())))
    fail(decision, "the time is in the past (now " + std::to_string(now()) + " s)");
  wakeups_.insert(std::max(at, sim_now()));
}

} // namespace colocsim::engine
