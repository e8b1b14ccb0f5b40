#include "calibration/microbenchmark/MeasurementSet.hpp"

#include "calibration/microbenchmark/DeviceCounters.hpp"
#include "calibration/microbenchmark/Microbenchmark.hpp"
#include "calibration/microbenchmark/Plan.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace colocsim {

namespace {

double freq_key(const MeasurementRow& r)
{
  return std::isnan(r.freq_set_mhz) ? 0.0 : r.freq_set_mhz;
}

bool usable(const MeasurementRow& r)
{
  return r.reps > 0 && r.t_iter_s > 0 && r.t_global_s > 0;
}

} // namespace

std::string CoRunObservation::label() const
{
  std::string s;
  for (const auto& j : jobs)
    s += (s.empty() ? "" : " + ") + j.label;
  return s;
}

MeasurementSet::MeasurementSet(std::vector<MeasurementRow> rows) : rows_(std::move(rows))
{
  if (!rows_.empty()) {
    host = rows_.front().host;
    date = rows_.front().date;
    backend = rows_.front().backend;
  }
  for (const auto& r : rows_) {
    if (!std::isnan(r.freq_set_mhz)) fmax_mhz_ = std::max(fmax_mhz_, r.freq_set_mhz);
    if (device.empty() && !r.device.empty()) device = r.device;
    if (reference_mode_.empty() && r.kind == "solo") reference_mode_ = r.mode;
  }

  // Solo references: medians over repetitions.
  std::map<std::tuple<KernelConfig, double, double, std::string>, std::vector<const MeasurementRow*>> groups;
  for (const auto& r : rows_) {
    if (r.kind != "solo") continue;
    if (!usable(r)) {
      warnings.push_back("run " + std::to_string(r.run_id) + " (solo " + r.kernel +
                         "): no usable timing, skipped");
      continue;
    }
    groups[{KernelConfig{r.kernel, r.n, r.k, r.m}, r.duty, freq_key(r), r.mode}].push_back(&r);
  }
  for (const auto& [key, members] : groups) {
    SoloStats s;
    std::tie(s.kernel, s.duty, s.freq_mhz, s.mode) = key;
    std::vector<double> iter, global, duty;
    for (const auto* r : members) {
      iter.push_back(r->t_iter_s);
      global.push_back(r->t_global_s);
      duty.push_back(r->duty_measured);
    }
    s.t_iter_s = median(iter);
    s.t_global_s = median(global);
    s.duty_measured = std::clamp(median(duty), 1e-6, 1.0);
    s.flops = members.front()->flops;
    s.bytes = members.front()->bytes;
    s.samples = static_cast<int>(members.size());
    solos_[key] = s;
    // Peaks from duty-1 solos (device time, so launch gaps do not lower them).
    if (s.duty >= 1.0) {
      if (s.kernel.kernel == "fma_fp32")
        peak_fp32_[s.freq_mhz] = std::max(peak_fp32_[s.freq_mhz], s.flops / s.t_global_s);
      if (s.kernel.kernel == "fma_fp64")
        peak_fp64_[s.freq_mhz] = std::max(peak_fp64_[s.freq_mhz], s.flops / s.t_global_s);
      if (s.kernel.kernel == "triad" || s.kernel.kernel == "copy")
        peak_bw_ = std::max(peak_bw_, s.bytes / s.t_global_s);
    }
  }
}

const SoloStats* MeasurementSet::solo(const KernelConfig& kernel, double duty, double freq_mhz,
                                      const std::string& mode) const
{
  const auto it = solos_.find({kernel, duty, freq_mhz, mode.empty() ? reference_mode_ : mode});
  return it == solos_.end() ? nullptr : &it->second;
}

double MeasurementSet::peak_flops(bool fp64, double freq_mhz) const
{
  const auto& table = fp64 ? peak_fp64_ : peak_fp32_;
  if (const auto it = table.find(freq_mhz); it != table.end()) return it->second;
  // Not measured at this frequency: scale the default-frequency peak (compute scales with the clock).
  if (const auto it = table.find(0.0); it != table.end() && freq_mhz > 0 && fmax_mhz_ > 0)
    return it->second * freq_mhz / fmax_mhz_;
  return NAN;
}

JobClass MeasurementSet::job_class(const KernelConfig& kernel) const
{
  const auto& info = find_kernel(kernel.kernel);
  if (kernel.kernel != "intensity") return info.job_class;
  const double peak = peak_flops(false, 0.0);
  if (std::isnan(peak) || peak_bw_ <= 0) return info.job_class;
  const double intensity = static_cast<double>(kernel.k) / 4.0; // flop/byte of the kernel
  return intensity >= peak / peak_bw_ ? JobClass::C : JobClass::MS;
}

std::optional<double> MeasurementSet::compute_share(const KernelConfig& kernel) const
{
  const auto* ref = solo(kernel, 1.0, 0.0);
  if (!ref) return std::nullopt;
  std::optional<double> share;
  for (const auto& [key, s] : solos_) {
    const auto k = ccs_count(s.mode);
    if (!k || *k < 2 || !(s.kernel == kernel) || s.duty < 1.0 || s.freq_mhz != 0.0) continue;
    const double ratio = s.t_iter_s / ref->t_iter_s;
    const double c = ratio > 1.02 ? std::min(1.0, ratio / *k) : 1.0 / *k;
    share = std::max(share.value_or(0.0), c);
  }
  return share;
}

double MeasurementSet::activity_flops(const KernelConfig& k, double flops_per_s, double freq_mhz) const
{
  const double peak = peak_flops(make_launch(k).fp64, freq_mhz);
  if (std::isnan(peak) || peak <= 0) return 0.0;
  return std::min(1.0, flops_per_s / peak);
}

double MeasurementSet::activity_bytes(const KernelConfig& k, double bytes_per_s) const
{
  if (find_kernel(k.kernel).cache_resident || peak_bw_ <= 0) return 0.0;
  return std::min(1.0, bytes_per_s / peak_bw_);
}

std::pair<double, double> MeasurementSet::solo_activity(const SoloStats& s) const
{
  return {activity_flops(s.kernel, s.flops / s.t_iter_s, s.freq_mhz),
          activity_bytes(s.kernel, s.bytes / s.t_iter_s)};
}

std::vector<CoRunObservation> MeasurementSet::coruns(const std::string& set,
                                                     bool (*mode_filter)(const std::string&),
                                                     std::vector<std::string>* skipped) const
{
  std::map<int, std::vector<const MeasurementRow*>> runs;
  for (const auto& r : rows_)
    if (r.kind == "corun" && (set.empty() || r.set == set) && (!mode_filter || mode_filter(r.mode)))
      runs[r.run_id].push_back(&r);
  std::vector<CoRunObservation> out;
  for (const auto& [id, members] : runs) {
    CoRunObservation obs;
    obs.run_id = id;
    obs.set = members.front()->set;
    obs.mode = members.front()->mode;
    obs.freq_mhz = freq_key(*members.front());
    obs.power_w = members.front()->power_w;
    bool ok = static_cast<int>(members.size()) == members.front()->n_procs;
    std::string why = ok ? "" : "rows missing";
    for (const auto* r : members) {
      const KernelConfig k{r->kernel, r->n, r->k, r->m};
      const auto* s = solo(k, r->duty, obs.freq_mhz);
      if (!usable(*r)) {
        ok = false;
        why = r->kernel + " finished no launch in the window";
      } else if (!s) {
        ok = false;
        why = "no solo reference for " + r->kernel + "@" + std::to_string(r->duty);
      }
      if (ok && r->t_iter_s / s->t_iter_s < MIN_PLAUSIBLE_SLOWDOWN) {
        ok = false;
        std::ostringstream w;
        w << "impossible reading: " << r->kernel << "@" << r->duty << " ran " << r->t_iter_s / s->t_iter_s
          << " x its solo time (below " << MIN_PLAUSIBLE_SLOWDOWN
          << ": the solo or the co-run was disturbed)";
        why = w.str();
      }
      if (!ok) break;
      std::ostringstream label;
      label << r->kernel << "@" << r->duty;
      obs.jobs.push_back(CoRunJob{k, r->duty, job_class(k), s->duty_measured, r->t_iter_s / s->t_iter_s,
                                  r->t_iter_s, label.str()});
    }
    if (!ok) {
      if (skipped) skipped->push_back("run " + std::to_string(id) + " (co-run): " + why + ", skipped");
      continue;
    }
    out.push_back(std::move(obs));
  }
  // Repetitions of one co-run (same set, mode, frequency and jobs in rank order): one observation with each
  // job's median slowdown and iteration time, so that one disturbed repetition does not move the result.
  std::vector<CoRunObservation> merged;
  std::map<std::tuple<std::string, std::string, double, std::string>, std::vector<const CoRunObservation*>>
      groups;
  std::vector<std::tuple<std::string, std::string, double, std::string>> order;
  for (const auto& o : out) {
    const auto key = std::make_tuple(o.set, o.mode, o.freq_mhz, o.label());
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&o);
  }
  for (const auto& key : order) {
    const auto& reps = groups[key];
    CoRunObservation m = *reps.front();
    m.repetitions = static_cast<int>(reps.size());
    if (reps.size() > 1) {
      std::vector<double> power;
      for (const auto* r : reps)
        power.push_back(r->power_w);
      m.power_w = median(power);
      for (std::size_t j = 0; j < m.jobs.size(); ++j) {
        std::vector<double> slow, iter;
        for (const auto* r : reps) {
          slow.push_back(r->jobs[j].slowdown);
          iter.push_back(r->jobs[j].t_iter_s);
        }
        m.jobs[j].slowdown = median(slow);
        m.jobs[j].t_iter_s = median(iter);
      }
    }
    merged.push_back(std::move(m));
  }
  return merged;
}

bool MeasurementSet::has_energy() const
{
  return std::any_of(rows_.begin(), rows_.end(),
                     [](const MeasurementRow& r) { return !std::isnan(r.energy_j); });
}

std::vector<PowerObservation> MeasurementSet::power_observations() const
{
  std::map<int, std::vector<const MeasurementRow*>> runs;
  for (const auto& r : rows_)
    if (!std::isnan(r.power_w)) runs[r.run_id].push_back(&r);
  std::vector<PowerObservation> out;
  for (const auto& [id, members] : runs) {
    const auto& first = *members.front();
    PowerObservation p;
    p.run_id = id;
    p.kind = first.kind;
    p.power_w = first.power_w;
    p.context = first.kind != "idle";
    p.freq_mhz = !std::isnan(first.freq_set_mhz)                       ? first.freq_set_mhz
                 : !std::isnan(first.freq_actual_mhz) && fmax_mhz_ > 0 ? first.freq_actual_mhz
                                                                       : fmax_mhz_;
    const double fkey = freq_key(first);
    bool ok = true;
    for (const auto* r : members) {
      if (r->kind != "solo" && r->kind != "corun") continue;
      if (!usable(*r)) {
        ok = false;
        break;
      }
      const KernelConfig k{r->kernel, r->n, r->k, r->m};
      p.u_vec += activity_flops(k, r->flops / r->t_iter_s, fkey);
      p.u_bw += activity_bytes(k, r->bytes / r->t_iter_s);
      p.label += (p.label.empty() ? "" : " + ") + r->kernel;
    }
    if (!ok) continue;
    if (p.label.empty()) p.label = first.kind;
    p.u_vec = std::min(1.0, p.u_vec);
    p.u_bw = std::min(1.0, p.u_bw);
    out.push_back(p);
  }
  return out;
}

} // namespace colocsim
