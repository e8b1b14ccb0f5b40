#include "models/Interference.hpp"

#include <algorithm>
#include <vector>

namespace colocsim {

double TableInterference::factor(const ResourceSignature& job,
                                 std::span<const ResourceSignature* const> others, SharingMode mode) const
{
  if (std::find(modes_.begin(), modes_.end(), mode) == modes_.end()) return 1.0;
  if (mode == SharingMode::TIME_SLICE && others.size() > 1) {
    // Turns, not overlap: the excess is paid once per turn of the job, after whichever co-runner held the
    // device before it; that one is co-runner i for a share d_i / Σd of the turns (all equal when every
    // co-runner is idle). The duty-weighted mean of the pair excesses (TableInterference, header).
    double sum_d = 0;
    for (const auto* o : others)
      sum_d += o->duty_cycle;
    double excess = 0;
    for (const auto* o : others) {
      const double w = sum_d > 0 ? o->duty_cycle / sum_d : 1.0 / static_cast<double>(others.size());
      excess += w * (pair(job.job_class, o->job_class) - 1.0);
    }
    return std::max(1.0, 1.0 + excess);
  }
  double f = 1.0;
  for (const auto* o : others)
    f += pair(job.job_class, o->job_class) - 1.0;
  return std::max(1.0, f);
}

bool kernels_overlap(SharingMode mode)
{
  return mode == SharingMode::CCS_2 || mode == SharingMode::CCS_4 || mode == SharingMode::MPS;
}

double bandwidth_bound(const ResourceSignature& job, std::span<const ResourceSignature* const> others)
{
  if (job.bw_util <= 0) return 1.0;
  double sum_b = job.bw_util;
  for (const auto* o : others)
    sum_b += o->bw_util;
  return std::max(1.0, sum_b);
}

InterferenceModel::Parts TableInterference::parts(const ResourceSignature& job,
                                                  std::span<const ResourceSignature* const> others,
                                                  SharingMode mode) const
{
  const double f = factor(job, others, mode);
  if (!kernels_overlap(mode) || others.empty() ||
      std::find(modes_.begin(), modes_.end(), mode) == modes_.end())
    return {1.0, f};
  return {std::max(f, bandwidth_bound(job, others)), 1.0};
}

double PairTotalInterference::factor(const ResourceSignature& job,
                                     std::span<const ResourceSignature* const> others, SharingMode mode) const
{
  if (!gives_total_slowdown(mode)) return 1.0;
  double f = 1.0;
  for (const auto* o : others)
    f += pair(job.job_class, o->job_class) - 1.0;
  return std::max(1.0, f);
}

bool PairTotalInterference::gives_total_slowdown(SharingMode mode) const
{
  return std::find(modes_.begin(), modes_.end(), mode) != modes_.end();
}

double ContentionInterference::factor(const ResourceSignature& job,
                                      std::span<const ResourceSignature* const> others,
                                      SharingMode mode) const
{
  const auto p = parts(job, others, mode);
  return p.bound * p.extra;
}

InterferenceModel::Parts ContentionInterference::parts(const ResourceSignature& job,
                                                       std::span<const ResourceSignature* const> others,
                                                       SharingMode mode) const
{
  if (others.empty()) return {1.0, 1.0};
  if (mode == SharingMode::MIG) { // isolated SMs, L2 and memory; shared host, PCIe link and power
    double busy = 0;
    for (const auto* o : others)
      busy += o->duty_cycle;
    return {1.0, 1.0 + cross_instance_ * busy};
  }
  // Kernels never overlap under time-slice (the sharing factor has it all).
  if (!kernels_overlap(mode)) return {1.0, 1.0};
  return {bandwidth_bound(job, others), 1.0 + residual_};
}

double mig_slowdown(const ResourceSignature& job, double s, double m, unsigned g)
{
  if (g >= 1 && g < job.mig_speed.size() && job.mig_speed[g] > 0) return 1.0 / job.mig_speed[g]; // measured
  const double beta = job.freq_sensitive;
  const double compute = std::max(1.0, job.compute_share / s); // the SM-bound part of the runtime
  const double memory = std::max(1.0, job.bw_util / m);        // the memory-bound part
  const double used = std::max(job.vec_util, job.xmx_util);    // SM throughput used alone
  return std::max({beta * compute + (1.0 - beta) * memory, job.bw_util / m, used / s, 1.0});
}

double ccs_slowdown(const ResourceSignature& job, unsigned k, double bw_bound)
{
  const double beta = job.freq_sensitive;
  const double kk = static_cast<double>(k);
  const double compute = std::max(1.0, job.compute_share * kk);  // the EU-bound part of the runtime
  const double used = std::max(job.vec_util, job.xmx_util) * kk; // EU throughput used alone / partition
  return std::max({beta * compute + (1.0 - beta) * bw_bound, bw_bound, used, 1.0});
}

namespace {
unsigned ccs_streams(SharingMode mode)
{
  return mode == SharingMode::CCS_2 ? 2u : mode == SharingMode::CCS_4 ? 4u : 0u;
}
} // namespace

double sharing_factor(SharingMode mode, const TimeSliceParams& ts,
                      std::span<const ResourceSignature* const> residents, std::size_t i,
                      std::span<const double> caps, std::span<const double> mem_shares,
                      std::span<const unsigned> mig_slices)
{
  const auto cap_of = [&](std::size_t k) { return caps.empty() ? 1.0 : caps[k]; };
  const auto& job = *residents[i];
  switch (mode) {
  case SharingMode::EXCLUSIVE:
    return 1.0;
  case SharingMode::CCS_2:
  case SharingMode::CCS_4:
    return ccs_slowdown(job, ccs_streams(mode), 1.0);
  case SharingMode::MPS: {
    double demand = 0;
    for (std::size_t k = 0; k < residents.size(); ++k)
      demand += residents[k]->duty_cycle * std::min(residents[k]->compute_share, cap_of(k));
    return std::max({1.0, job.compute_share / cap_of(i), demand});
  }
  case SharingMode::MIG: {
    const double s = cap_of(i), m = mem_shares.empty() ? cap_of(i) : mem_shares[i];
    return mig_slowdown(job, s, m, mig_slices.empty() ? 0U : mig_slices[i]);
  }
  case SharingMode::TIME_SLICE:
    break;
  }
  if (residents.size() <= 1) return 1.0;
  double sum_d = 0;
  for (const auto* r : residents)
    sum_d += r->duty_cycle;
  const double d_j = residents[i]->duty_cycle;
  const double others = sum_d - d_j;
  const double f = std::max({1.0, sum_d, 1.0 + ts.collision.value * d_j * others});
  return f * (1.0 + ts.switch_overhead.value);
}

void compute_slowdowns(SharingMode mode, const TimeSliceParams& ts, const InterferenceModel& model,
                       std::span<const ResourceSignature* const> residents, std::span<double> out,
                       std::span<const double> caps, std::span<const double> mem_shares,
                       std::span<const unsigned> mig_slices)
{
  // Reused across calls: this runs at every engine event (one thread per engine).
  thread_local std::vector<const ResourceSignature*> others;
  for (std::size_t i = 0; i < residents.size(); ++i) {
    others.clear();
    for (std::size_t k = 0; k < residents.size(); ++k)
      if (k != i) others.push_back(residents[k]);
    if (model.gives_total_slowdown(mode)) {
      // The model's factor already is the whole slowdown; only what the mode does to the job alone (its
      // own MPS cap, its CCS or MIG share) still bounds it.
      // Whatever the measured pair totals say, co-located jobs cannot move more than the device's
      // achievable bandwidth together: each is held to at least Σb (MIG instances own their memory).
      const double bw =
          (mode == SharingMode::MIG || others.empty()) ? 1.0 : bandwidth_bound(*residents[i], others);
      double base = 0;
      if (const unsigned k = ccs_streams(mode); k > 0) {
        base = ccs_slowdown(*residents[i], k, bw);
      } else {
        const auto alone = residents.subspan(i, 1);
        base = std::max(bw, sharing_factor(mode, ts, alone, 0, caps.empty() ? caps : caps.subspan(i, 1),
                                           mem_shares.empty() ? mem_shares : mem_shares.subspan(i, 1),
                                           mig_slices.empty() ? mig_slices : mig_slices.subspan(i, 1)));
      }
      out[i] = std::max(base, model.factor(*residents[i], others, mode));
    } else {
      // Limits of one kind (the mode's compute partition or SM demand, the bandwidth share) bound the job
      // together: the tighter one holds (reference §6.3: max(s_part, s_bw)); the residual multiplies. In
      // ccs-k the job's balance β weighs the two (ccs_slowdown, the roofline mig_slowdown uses).
      const auto parts = model.parts(*residents[i], others, mode);
      if (const unsigned k = ccs_streams(mode); k > 0)
        out[i] = ccs_slowdown(*residents[i], k, parts.bound) * parts.extra;
      else
        out[i] = std::max(sharing_factor(mode, ts, residents, i, caps, mem_shares, mig_slices), parts.bound) *
                 parts.extra;
    }
  }
}

} // namespace colocsim
