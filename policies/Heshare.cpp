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

double Heshare::thread_share(const ClusterView& view, JobIndex j) const
{
  return std::clamp(view.signature(j).compute_share + headroom_, 0.01, 1.0);
}

std::vector<DeviceIndex> Heshare::choose(const ClusterView& view, JobIndex j, double mem)
{
  const auto need = static_cast<std::size_t>(view.job(j).devices);
  struct Option {
    double energy;
    DeviceIndex device;
  };
  std::vector<Option> options;
  // Adds dev as an option if the bound accepts it.
  auto consider = [&](DeviceIndex dev) {
    const DeviceView dv = view.device(dev);
    const auto p = view.predict(j, std::span<const DeviceIndex>(&dev, 1), placed_now(dev));
    if (p.job_interference > max_slowdown_ || p.max_corunner_interference > max_slowdown_) return;
    const double sharers = 1.0 + dv.residents + static_cast<double>(placed_now(dev).size());
    // The device power the job adds, plus its share of what the device draws already (static power is
    // shared among co-runners, docs/architecture.md), over its predicted run time.
    // On a platform of several device types the run time also scales with the device's speed.
    const double energy =
        (p.added_power_w + dv.power_w / sharers) * view.job(j).duration_s * p.job_slowdown / dv.speed;
    options.push_back({energy, dev});
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
      std::size_t taken = 0;
      for (std::size_t at = from; taken < need;) {
        const std::size_t d = first_idle(mem, static_cast<std::uint16_t>(t), at);
        if (d == FitIndex::NONE) break;
        at = d + 1;
        if (!view.device(static_cast<DeviceIndex>(d)).available) continue;
        ++taken;
        consider(static_cast<DeviceIndex>(d));
      }
    }
  if (options.size() < need) return {};
  std::stable_sort(options.begin(), options.end(),
                   [](const Option& a, const Option& b) { return a.energy < b.energy; });
  std::vector<DeviceIndex> devices;
  for (std::size_t i = 0; i < need; ++i)
    devices.push_back(options[i].device);
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
  // DVFS on every device whose residents changed: the lowest step that keeps each resident's time factor.
  for (DeviceIndex d : touched) {
    const DeviceView dv = view.device(d);
    if (!(dv.freq_max_hz > 0)) continue;
    std::vector<double> betas;
    for (JobIndex r : view.residents(d))
      betas.push_back(view.signature(r).freq_sensitive);
    for (JobIndex r : added[d])
      betas.push_back(view.signature(r).freq_sensitive);
    const double f = betas.empty()
                         ? dv.freq_max_hz
                         : frequency_for(betas, dv.freq_min_hz, dv.freq_max_hz, step_hz_, max_time_factor_);
    if (std::fabs(f - dv.freq_hz) > 1.0) out.emplace_back(SetFrequency{d, f});
  }
  return out;
}

} // namespace colocsim
