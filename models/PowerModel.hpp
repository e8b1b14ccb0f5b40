#pragma once
// Per-device power (docs/architecture.md, Power and energy; the functional form of reference §5, §6.4):
//
//   P = P_idle + [contexts > 0]·P_context + (f/f_max)^γ · (P_vec·u_vec + P_xmx·u_xmx) + P_bw·u_bw
//
// with u_k = min(1, Σ_j a_k,j · ρ_j): job j's solo activity a_k,j (from its ResourceSignature) scaled by
// ρ_j = 1 / its co-location slowdown (its activity relative to running alone at the current frequency). Three
// states are distinct: idle without a context, idle with a context resident, busy. Power is piecewise
// constant between events; the engine integrates P·Δt exactly. Energy is attributed to jobs: the dynamic part
// by each job's activity, the static part (idle + context) split evenly among co-runners.
#include "models/ResourceSignature.hpp"
#include "models/Yaml.hpp"

#include <span>

namespace colocsim {

struct PowerParams {
  Sourced idle_w;    ///< device idle, no context
  Sourced context_w; ///< extra while at least one context is resident (idle-with-context)
  Sourced vec_w;     ///< all vector units busy at f_max
  Sourced xmx_w;     ///< all matrix engines busy at f_max
  Sourced bw_w;      ///< memory bandwidth fully used
  Sourced gamma;     ///< exponent of (f/f_max)
};

/// One resident job as the power model sees it.
struct PowerLoad {
  const ResourceSignature* sig = nullptr;
  /// ρ_j = 1 / co-location slowdown: the job's activity relative to running alone at the device's current
  /// frequency. Frequency enters only through (f/f_max)^γ, so it must not be folded into ρ_j as well.
  double rate = 1.0;
};

struct PowerBreakdown {
  double total_w = 0;
  double static_w = 0; ///< idle + context
};

/// Device power for the given resident jobs at frequency ratio f/f_max.
PowerBreakdown device_power(const PowerParams& p, std::span<const PowerLoad> jobs, double freq_ratio);

/// Power attributed to each job (out[i] for jobs[i]); Σ out = device_power().total_w when jobs is non-empty.
void attribute_power(const PowerParams& p, std::span<const PowerLoad> jobs, double freq_ratio,
                     std::span<double> out);

} // namespace colocsim
