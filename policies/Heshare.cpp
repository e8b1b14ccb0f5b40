#include "policies/Heshare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace colocsim {

std::vector<ParamSpec> Heshare::params()
{
  auto specs = slot_params("4");
  specs.push_back(
      ParamSpec{.name = "max_slowdown",
                .type = ParamType::REAL,
                .default_text = "1.5",
                .help = "largest predicted slowdown due to sharing accepted for the job or a co-runner",
                .min = 1.0,
                .max = 100.0});
  specs.push_back(
      ParamSpec{.name = "time_price_w",
                .type = ParamType::REAL,
                .default_text = "200",
                .help = "energy price of one second of predicted completion time (the job's and the delay it "
                        "causes its co-runners), in W: the node power that runs while jobs run",
                .min = 0.0,
                .max = 1e6});
  specs.push_back(ParamSpec{.name = "wait_for_faster",
                            .type = ParamType::BOOL,
                            .default_text = "true",
                            .help = "a job may wait for a faster device type to free a slot when that scores "
                                    "less than starting now on a slower one",
                            .choices = {}});
  specs.push_back(
      ParamSpec{.name = "candidates",
                .type = ParamType::INT,
                .default_text = "64",
                .help = "devices examined per decision in first-fit order; past them, the first idle devices "
                        "of each device type are always considered",
                .min = 1,
                .max = 1e6});
  specs.push_back(
      ParamSpec{.name = "headroom",
                .type = ParamType::REAL,
                .default_text = "0.1",
                .help = "MPS share given beyond the job's compute share (active threads = c + headroom)",
                .min = 0.0,
                .max = 1.0});
  specs.push_back(ParamSpec{.name = "max_time_factor",
                            .type = ParamType::REAL,
                            .default_text = "1.1",
                            .help = "DVFS: largest run-time factor t(f)/t(f_max) accepted for any resident",
                            .min = 1.0,
                            .max = 10.0});
  specs.push_back(ParamSpec{.name = "gamma",
                            .type = ParamType::REAL,
                            .default_text = "2.5",
                            .help = "DVFS: exponent of (f/f_max) in the residents' power the policy assumes",
                            .min = 0.0,
                            .max = 5.0});
  specs.push_back(ParamSpec{.name = "freq_step_mhz",
                            .type = ParamType::REAL,
                            .default_text = "100",
                            .help = "DVFS: frequency steps below the maximum, in MHz",
                            .min = 1.0,
                            .max = 10000.0});
  return specs;
}

Heshare::Heshare(const ParamSet& p)
    : SlotPolicy(p), max_slowdown_(p.real("max_slowdown")), headroom_(p.real("headroom")),
      max_time_factor_(p.real("max_time_factor")), step_hz_(p.real("freq_step_mhz") * 1e6),
      time_price_w_(p.real("time_price_w")), gamma_(p.real("gamma")),
      wait_for_faster_(p.flag("wait_for_faster")),
      candidates_(static_cast<std::size_t>(p.integer("candidates")))
{
}

double Heshare::frequency_for(const std::vector<double>& betas, double f_min, double f_max, double step,
                              double max_factor)
{
  double f = f_max;
  for (double next = f_max - step; next >= f_min - 1e-6; next -= step) {
    bool ok = true;
    for (double b : betas)
      if (b * f_max / next + 1.0 - b > max_factor + 1e-12) ok = false;
    if (!ok) break;
    f = next;
  }
  return f;
}

double Heshare::score(const PlacementPrediction& p, double device_power_w, double co_runners,
                      double estimate_s, double time_price_w)
{
  const double run_s = estimate_s / p.job_rate;
  const double gpu_j = (p.added_power_w + device_power_w / (1.0 + co_runners)) * run_s;
  const double delay_s = co_runners * run_s * (1.0 - 1.0 / p.max_corunner_interference);
  return gpu_j + time_price_w * (run_s + delay_s);
}

double Heshare::energy_frequency(const std::vector<Resident>& residents, double idle_w, double f_min,
                                 double f_max, double step, double max_factor, double time_price_w,
                                 double gamma)
{
  std::vector<double> betas;
  double dynamic_w = 0;
  for (const auto& r : residents) {
    betas.push_back(r.beta);
    dynamic_w += r.power_w;
  }
  const double lowest = frequency_for(betas, f_min, f_max, step, max_factor);
  double best_f = f_max, best_cost = std::numeric_limits<double>::infinity();
  for (double f = f_max; f >= lowest - 1e-6; f -= step) {
    double slowest = 1, sum = 0;
    for (double b : betas) {
      const double factor = b * f_max / f + 1.0 - b;
      slowest = std::max(slowest, factor);
      sum += factor;
    }
    const double cost = (idle_w + dynamic_w * std::pow(f / f_max, gamma)) * slowest + time_price_w * sum;
    if (f == f_max || cost < best_cost * (1 - 1e-12)) best_cost = cost, best_f = f;
  }
  return best_f;
}

void Heshare::initialised(const ClusterView& view)
{
  idle_w_.assign(view.device_count(), 0.0);
  type_speed_.assign(type_count(), 0.0);
  type_devices_.assign(type_count(), {});
  for (std::size_t d = 0; d < view.device_count(); ++d) {
    const DeviceView dv = view.device(static_cast<DeviceIndex>(d));
    if (dv.type >= type_count()) continue;
    if (dv.residents == 0) idle_w_[d] = dv.power_w;
    type_speed_[dv.type] = dv.speed;
    type_devices_[dv.type].push_back(static_cast<DeviceIndex>(d));
  }
}

void Heshare::on_job_moved(const ClusterView& view, JobIndex j, const std::vector<DeviceIndex>&, int sign)
{
  if (sign > 0)
    started_[j] = {view.now(), pending_rate_, pending_power_w_};
  else
    started_.erase(j);
}

double Heshare::free_in(const ClusterView& view, DeviceIndex d) const
{
  double first = std::numeric_limits<double>::infinity();
  for (JobIndex r : view.residents(d)) {
    const auto it = started_.find(r);
    if (it == started_.end() || !(it->second.rate > 0)) continue;
    const double end = it->second.start_s + view.estimate(r) / it->second.rate;
    first = std::min(first, std::max(0.0, end - view.now()));
  }
  return first;
}

double Heshare::thread_share(const ClusterView& view, JobIndex j) const
{
  return std::clamp(view.signature(j).compute_share + headroom_, 0.01, 1.0);
}

std::vector<DeviceIndex> Heshare::choose(const ClusterView& view, JobIndex j, double mem)
{
  const auto need = static_cast<std::size_t>(view.job(j).devices);
  struct Option {
    double energy; ///< score()
    DeviceIndex device;
    double rate;          ///< predicted progress rate there
    double added_power_w; ///< predicted power it adds to the device
  };
  std::vector<Option> options;
  // Adds dev as an option if the bound accepts it, scored by score() (Heshare.hpp).
  auto consider = [&](DeviceIndex dev) {
    const DeviceView dv = view.device(dev);
    const auto p = view.predict(j, std::span<const DeviceIndex>(&dev, 1), placed_now(dev));
    if (p.job_interference > max_slowdown_ || p.max_corunner_interference > max_slowdown_) return;
    const double co_runners = dv.residents + static_cast<double>(placed_now(dev).size());
    options.push_back({score(p, dv.power_w, co_runners, view.estimate(j), time_price_w_), dev, p.job_rate,
                       p.added_power_w});
  };
  std::size_t from = 0;
  bool window_spent = true;
  // `candidates` counts only devices that could take the job (available, of a type it accepts).
  for (std::size_t examined = 0; examined < candidates_;) {
    const std::size_t d = first_fitting(mem, from);
    if (d == FitIndex::NONE) {
      window_spent = false;
      break;
    }
    from = d + 1;
    const DeviceIndex dev = static_cast<DeviceIndex>(d);
    if (!view.device(dev).available || !view.allows(j, dev)) continue;
    ++examined;
    consider(dev);
  }
  // Past the window: the first `need` idle devices of each device type the job accepts, from the index of
  // idle devices (O(log D) each), so that busy devices before them never hide an idle device of any type.
  if (window_spent)
    for (std::size_t t = 0; t < type_count(); ++t) {
      if (!type_allows(view, j, static_cast<std::uint16_t>(t))) continue;
      // As many as the placement rule needs to find the job's devices among them (`need` of them, or
      // under `pack` up to the first node that has `need` idle ones).
      GangPicker enough = gang_picker(view, j);
      for (std::size_t at = from;;) {
        const std::size_t d = first_idle(mem, static_cast<std::uint16_t>(t), at);
        if (d == FitIndex::NONE) break;
        at = d + 1;
        const auto dev = static_cast<DeviceIndex>(d);
        if (!view.device(dev).available) continue;
        consider(dev);
        if (enough.offer(dev, node_of(dev))) break;
      }
    }
  if (options.size() < need) return {};
  std::stable_sort(options.begin(), options.end(),
                   [](const Option& a, const Option& b) { return a.energy < b.energy; });
  // Waiting for a faster device: a single-device job whose best option now is on a slower type than one it
  // accepts compares with each device of the faster types that it cannot take now (no slot, or over the
  // slowdown bound): it would start there when the device's first resident ends (its predicted free time),
  // scored as above (with today's residents: conservative) plus time_price_w × that wait. If one of them
  // scores less, the job waits at the queue head (strict FCFS: the jobs behind it wait too).
  if (wait_for_faster_ && need == 1) {
    const double now_speed = view.device(options.front().device).speed;
    auto scored = [&](DeviceIndex dev) {
      return std::any_of(options.begin(), options.end(), [&](const Option& o) { return o.device == dev; });
    };
    for (std::size_t t = 0; t < type_count(); ++t) {
      if (type_speed_[t] <= now_speed || !type_allows(view, j, static_cast<std::uint16_t>(t))) continue;
      for (DeviceIndex dev : type_devices_[t]) {
        const DeviceView dv = view.device(dev);
        if (!dv.available || dv.memory_bytes < mem || scored(dev)) continue;
        const double wait = free_in(view, dev);
        if (!(wait < std::numeric_limits<double>::infinity())) continue;
        const auto p = view.predict(j, std::span<const DeviceIndex>(&dev, 1), placed_now(dev));
        const double co_runners = dv.residents + static_cast<double>(placed_now(dev).size());
        if (score(p, dv.power_w, co_runners, view.estimate(j), time_price_w_) + time_price_w_ * wait <
            options.front().energy)
          return {};
      }
    }
  }
  // The options by score are the order of preference the placement rule chooses in
  // (policies/GangPlacement.hpp).
  GangPicker gang = gang_picker(view, j);
  for (const Option& o : options)
    if (gang.offer(o.device, node_of(o.device))) break;
  std::vector<DeviceIndex> devices = gang.take();
  if (devices.size() < need) return {};
  const std::set<DeviceIndex> chosen(devices.begin(), devices.end());
  const Option* first = nullptr;
  double rate = std::numeric_limits<double>::infinity();
  for (const Option& o : options)
    if (chosen.contains(o.device)) {
      if (!first) first = &o;
      rate = std::min(rate, o.rate);
    }
  pending_rate_ = rate;
  pending_power_w_ = first->added_power_w;
  return devices;
}

std::vector<Decision> Heshare::decide(const ClusterView& view, std::span<const Event> events)
{
  std::set<DeviceIndex> touched;
  for (const auto& e : events) {
    if (const auto* c = std::get_if<JobCompleted>(&e)) touched.insert(c->devices.begin(), c->devices.end());
    if (const auto* f = std::get_if<JobFailed>(&e)) touched.insert(f->devices.begin(), f->devices.end());
  }
  auto out = SlotPolicy::decide(view, events);
  std::map<DeviceIndex, std::vector<JobIndex>> added;
  for (const auto& d : out)
    if (const auto* p = std::get_if<Place>(&d))
      for (auto dev : p->devices) {
        touched.insert(dev);
        added[dev].push_back(p->job);
      }
  // DVFS on every device whose residents changed: among the steps that keep each resident's time factor
  // within max_time_factor, the one of least energy_cost() (Heshare.hpp).
  for (DeviceIndex d : touched) {
    const DeviceView dv = view.device(d);
    if (!(dv.freq_max_hz > 0)) continue;
    std::vector<Resident> residents;
    auto add = [&](JobIndex r) {
      const auto it = started_.find(r);
      residents.push_back(
          {view.signature(r).freq_sensitive, it == started_.end() ? 0.0 : it->second.power_w});
    };
    for (JobIndex r : view.residents(d))
      add(r);
    for (JobIndex r : added[d])
      add(r);
    const double idle_w = d < idle_w_.size() ? idle_w_[d] : 0.0;
    const double f = residents.empty() ? dv.freq_max_hz
                                       : energy_frequency(residents, idle_w, dv.freq_min_hz, dv.freq_max_hz,
                                                          step_hz_, max_time_factor_, time_price_w_, gamma_);
    if (std::fabs(f - dv.freq_hz) > 1.0) out.emplace_back(SetFrequency{d, f});
  }
  return out;
}

} // namespace colocsim
