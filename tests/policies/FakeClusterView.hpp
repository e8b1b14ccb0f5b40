// Test double for unit tests of policies (no engine): a ClusterView over plain vectors. Devices, jobs with
// their signatures, residents and the clock are public data; predict() applies the engine's own prediction
// (models/Placement: predict_device; time-slice θ = 1, ε = 0, no interference model on top) and the real
// footprints; set_type() gives a device a type, speed and power (predict() then reports the power a job
// adds); decide() hands events to a policy and applies its Place decisions as residents, checking them as
// the engine does (exactly job.devices distinct devices, the sharing mode's resident limit, a waiting job)
// and, optionally, that no device's Σ gpu_milli exceeds 1000. Each device's DeviceView::version changes with
// every change made through the view (residents, type, frequency); predict_calls counts the predictions.
#pragma once
#include "models/Interference.hpp"
#include "models/Placement.hpp"
#include "policies/Policy.hpp"
#include "policies/PolicyRegistry.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace colocsim::test {

inline constexpr double GB = 1e9;

/// A job as a trace row: `devices` devices at `gpu_milli` each, declared memory `mem_bytes`.
inline Job make_job(int devices = 1, int gpu_milli = 1000, double duration_s = 100, double mem_bytes = 0)
{
  Job j;
  j.devices = devices;
  j.gpu_milli = gpu_milli;
  j.duration_s = duration_s;
  j.mem_request_bytes = mem_bytes;
  return j;
}

/// Signatures: compute-bound (busy the whole time) and light (a low duty cycle, e.g. small-batch inference).
inline ResourceSignature busy_signature(double mem_bytes = 0)
{
  ResourceSignature s;
  s.job_class = JobClass::C;
  s.duty_cycle = 1.0;
  s.vec_util = 1.0;
  s.mem_bytes = mem_bytes;
  return s;
}
inline ResourceSignature light_signature(double mem_bytes = 0)
{
  ResourceSignature s;
  s.job_class = JobClass::L;
  s.duty_cycle = 0.25;
  s.vec_util = 0.25;
  s.mem_bytes = mem_bytes;
  return s;
}

/// A registered policy from "name" or "name:key=value,...", exactly as `--policy` parses it (InputError on
/// an unknown name or a bad parameter).
inline std::unique_ptr<Policy> make_policy(const std::string& spec)
{
  const auto colon = spec.find(':');
  const auto& info = find_policy(spec.substr(0, colon));
  DiagnosticSink sink;
  std::map<std::string, GivenValue> given;
  if (colon != std::string::npos) given = split_assignments(spec.substr(colon + 1), "--policy", sink);
  const ParamSet params = parse_params(info.params, given, "policy.params", sink);
  sink.throw_if_any();
  return info.factory(params);
}

class FakeClusterView final : public ClusterView {
public:
  double now_s = 0;
  bool check_milli = false;              ///< also refuse placements that exceed a device's 1000 milli-GPU
  mutable std::size_t allows_calls = 0;  ///< allows() calls so far: how many devices policies looked at
  mutable std::size_t predict_calls = 0; ///< predict() calls so far
  TimeSliceParams time_slice{Sourced{1.0}, Sourced{0.0}};

  DeviceIndex add_device(SharingMode mode = SharingMode::TIME_SLICE, std::uint32_t node = 0,
                         double memory_bytes = 64e9)
  {
    DeviceView d;
    d.index = static_cast<DeviceIndex>(devices_.size());
    d.node = node;
    d.card = d.index;
    d.mode = mode;
    d.memory_bytes = memory_bytes;
    d.freq_min_hz = 0.8e9; // A100-like range (models/devices/a100-40gb.yaml rounds to these)
    d.freq_max_hz = 1.4e9;
    d.freq_hz = d.freq_max_hz;
    d.version = 1;
    devices_.push_back(d);
    on_device_.emplace_back();
    return d.index;
  }
  /// Makes device d one of device type `type` running at `speed` (relative to the reference type) that draws
  /// `idle_w` with no job and `job_w` more per resident; predict() then reports `job_w` as added power.
  void set_type(DeviceIndex d, std::uint16_t type, double speed, double idle_w, double job_w)
  {
    auto& v = devices_.at(d);
    v.type = type;
    v.speed = speed;
    v.power_w = idle_w;
    ++v.version;
    job_power_w_.resize(devices_.size());
    job_power_w_[d] = job_w;
  }
  /// A job known to the view (submit it with submit(), or start it before the policy with run_before()).
  JobIndex add_job(Job job, ResourceSignature sig = busy_signature())
  {
    if (job.id.empty()) job.id = "j" + std::to_string(jobs_.size());
    jobs_.push_back(std::move(job));
    sigs_.push_back(sig);
    placed_.emplace_back();
    return static_cast<JobIndex>(jobs_.size() - 1);
  }
  /// Job j already runs on `devices` when the policy first looks (it never sees its submission).
  void run_before(JobIndex j, const std::vector<DeviceIndex>& devices)
  {
    for (auto d : devices) {
      on_device_[d].push_back(j);
      ++devices_[d].version;
    }
    placed_[j] = devices;
  }

  /// Hands `events` to the policy and applies its decisions; returns them.
  std::vector<Decision> decide(Policy& policy, const std::vector<Event>& events)
  {
    auto decisions = policy.decide(*this, events);
    for (const auto& d : decisions) {
      if (const auto* p = std::get_if<Place>(&d)) apply(*p);
      if (const auto* f = std::get_if<SetFrequency>(&d)) {
        auto& dev = devices_.at(f->device);
        if (f->freq_hz < dev.freq_min_hz || f->freq_hz > dev.freq_max_hz)
          throw std::logic_error(describe(Decision{*f}) + ": outside the device's range");
        dev.freq_hz = f->freq_hz;
        ++dev.version;
      }
    }
    return decisions;
  }
  /// Submits `jobs`; `also`: more events handed over in the same call, after the submissions.
  std::vector<Decision> submit(Policy& policy, const std::vector<JobIndex>& jobs,
                               const std::vector<Event>& also = {})
  {
    std::vector<Event> events;
    for (auto j : jobs) {
      waiting_.push_back(j);
      events.push_back(JobSubmitted{j});
    }
    events.insert(events.end(), also.begin(), also.end());
    return decide(policy, events);
  }
  /// Completes job j; `also`: more events handed over in the same call, after the completion.
  std::vector<Decision> complete(Policy& policy, JobIndex j, const std::vector<Event>& also = {})
  {
    const auto devices = placed_.at(j);
    if (devices.empty()) throw std::logic_error("job " + std::to_string(j) + " is not running");
    for (auto d : devices) {
      std::erase(on_device_[d], j);
      ++devices_[d].version;
    }
    placed_[j].clear();
    std::vector<Event> events{JobCompleted{j, devices}};
    events.insert(events.end(), also.begin(), also.end());
    return decide(policy, events);
  }

  /// Devices job j runs on (empty if it does not run).
  const std::vector<DeviceIndex>& devices_of(JobIndex j) const { return placed_.at(j); }
  int milli_used(DeviceIndex d) const
  {
    int m = 0;
    for (auto r : on_device_[d])
      m += jobs_[r].gpu_milli;
    return m;
  }

  // ClusterView
  double now() const override { return now_s; }
  std::size_t device_count() const override { return devices_.size(); }
  DeviceView device(DeviceIndex d) const override
  {
    DeviceView v = devices_.at(d);
    v.residents = static_cast<std::uint32_t>(on_device_[d].size());
    if (d < job_power_w_.size()) v.power_w += v.residents * job_power_w_[d];
    return v;
  }
  const Job& job(JobIndex j) const override { return jobs_.at(j); }
  /// Every job accepts every device; counts the questions in allows_calls.
  bool allows(JobIndex, DeviceIndex) const override
  {
    ++allows_calls;
    return true;
  }
  std::span<const JobIndex> residents(DeviceIndex d) const override { return on_device_.at(d); }
  const ResourceSignature& signature(JobIndex j) const override { return sigs_.at(j); }
  PlacementPrediction predict(JobIndex j, std::span<const DeviceIndex> devices,
                              std::span<const JobIndex> also) const override
  {
    ++predict_calls;
    PlacementPrediction p;
    double rate = std::numeric_limits<double>::infinity();
    for (const DeviceIndex d : devices) {
      std::vector<const ResourceSignature*> sigs;
      double mem = 0;
      for (auto r : on_device_.at(d)) {
        sigs.push_back(&sigs_[r]);
        mem += sigs_[r].mem_bytes;
      }
      for (auto r : also) {
        sigs.push_back(&sigs_.at(r));
        mem += sigs_[r].mem_bytes;
      }
      sigs.push_back(&sigs_.at(j));
      std::vector<double> slow(sigs.size());
      const DevicePrediction dp = predict_device(devices_[d].mode, time_slice, interference_, sigs, {}, slow);
      p.job_slowdown = std::max(p.job_slowdown, dp.job_slowdown);
      rate = std::min(rate, devices_[d].speed / dp.job_slowdown);
      p.job_interference = std::max(p.job_interference, dp.job_interference);
      p.max_corunner_slowdown = std::max(p.max_corunner_slowdown, dp.max_corunner_slowdown);
      p.max_corunner_interference = std::max(p.max_corunner_interference, dp.max_corunner_interference);
      if (mem + sigs_[j].mem_bytes > devices_[d].memory_bytes) p.fits_memory = false;
      if (d < job_power_w_.size()) p.added_power_w += job_power_w_[d];
    }
    // As the engine: the slowest device's rate times the gang scaling efficiency e(n).
    if (!devices.empty()) p.job_rate = rate * sigs_.at(j).scaling_efficiency(devices.size());
    return p;
  }

private:
  void apply(const Place& p)
  {
    auto fail = [&](const std::string& why) { throw std::logic_error(describe(Decision{p}) + ": " + why); };
    auto w = std::find(waiting_.begin(), waiting_.end(), p.job);
    if (w == waiting_.end()) fail("the job is not waiting");
    if (p.devices.size() != static_cast<std::size_t>(jobs_[p.job].devices)) fail("wrong device count");
    for (std::size_t i = 0; i < p.devices.size(); ++i) {
      const DeviceIndex d = p.devices[i];
      if (d >= devices_.size()) fail("no such device");
      if (std::count(p.devices.begin(), p.devices.end(), d) > 1) fail("a device is listed twice");
      const unsigned limit = max_residents(devices_[d].mode);
      if (limit != 0 && on_device_[d].size() >= limit) fail("the device is at its sharing mode's limit");
      if (check_milli && milli_used(d) + jobs_[p.job].gpu_milli > 1000) fail("more than 1000 milli-GPU");
    }
    waiting_.erase(w);
    for (auto d : p.devices) {
      on_device_[d].push_back(p.job);
      ++devices_[d].version;
    }
    placed_[p.job] = p.devices;
  }

  std::vector<DeviceView> devices_;
  std::vector<double> job_power_w_; ///< by device (set_type)
  std::vector<Job> jobs_;
  std::vector<ResourceSignature> sigs_;
  std::vector<std::vector<JobIndex>> on_device_;
  std::vector<std::vector<DeviceIndex>> placed_;
  std::vector<JobIndex> waiting_;
  NoInterference interference_;
};

/// The Place decisions among `decisions`, as job → devices.
inline std::map<JobIndex, std::vector<DeviceIndex>> placements(const std::vector<Decision>& decisions)
{
  std::map<JobIndex, std::vector<DeviceIndex>> out;
  for (const auto& d : decisions)
    if (const auto* p = std::get_if<Place>(&d)) out[p->job] = p->devices;
  return out;
}

/// Three nodes of two time-sliced GPUs each, GPUs checked for Σ gpu_milli: GPUs 2n and 2n + 1 are on node n
/// (the FGD study's node-aware policies).
inline void add_three_nodes_of_two_gpus(FakeClusterView& view)
{
  view.check_milli = true;
  for (std::uint32_t node = 0; node < 3; ++node) {
    view.add_device(SharingMode::TIME_SLICE, node);
    view.add_device(SharingMode::TIME_SLICE, node);
  }
}

/// The memory-fit policies' case: two time-sliced 64 GB devices and three waiting whole-GPU jobs declaring
/// A = 30 GB, B = 40 GB and C = 20 GB.
struct ThreeJobsOnTwoDevices {
  FakeClusterView view;
  JobIndex a = 0, b = 0, c = 0;
};
inline ThreeJobsOnTwoDevices three_jobs_on_two_devices()
{
  ThreeJobsOnTwoDevices s;
  s.view.add_device(SharingMode::TIME_SLICE, 0, 64 * GB);
  s.view.add_device(SharingMode::TIME_SLICE, 0, 64 * GB);
  s.a = s.view.add_job(make_job(1, 1000, 100, 30 * GB));
  s.b = s.view.add_job(make_job(1, 1000, 100, 40 * GB));
  s.c = s.view.add_job(make_job(1, 1000, 100, 20 * GB));
  return s;
}

} // namespace colocsim::test
