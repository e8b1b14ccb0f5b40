#pragma once
// Per-device power (docs/architecture.md, Power and energy; the functional form of reference §5, §6.4):
//
//   P = P_static(f_clk) + [contexts > 0]·P_context + (f/f_max)^γ · (P_vec·u_vec + P_xmx·u_xmx) + P_bw·u_bw
//
//   P_static(f) = P_idle + (P_idle,fmax − P_idle) · (r^γ − r_i^γ) / (1 − r_i^γ)      r = f/f_max, r_i =
//   f_idle/f_max
//
// Static power depends on the clock the tile holds: P_idle at the idle clock f_idle (the device's freq_min,
// where the driver parks an idle tile), P_idle,fmax with the clock held at f_max; between them the
// clock-tree and always-on logic follow the same V²f law as the dynamic part (r^γ). f_clk is the device's
// frequency while a job is resident or the platform pins the clock (DeviceSpec::freq_pinned_hz), else f_idle.
//
// with u_k = min(1, Σ_j a_k,j · ρ_j): job j's solo activity a_k,j (from its ResourceSignature) scaled by
// ρ_j = 1 / its co-location slowdown (its activity relative to running alone at the current frequency). Three
// states are distinct: idle without a context, idle with a context resident, busy. Power is piecewise
// constant between events; the engine integrates P·Δt exactly. Energy is attributed to jobs: the dynamic part
// by each job's activity, the static part (idle + context) split evenly among co-runners.
#include "base/Yaml.hpp"
#include "models/ResourceSignature.hpp"

#include <span>

namespace colocsim {

struct PowerParams {
  Sourced idle_w;      ///< device idle, no context, at the idle clock f_idle
  Sourced idle_fmax_w; ///< device idle, no context, clock held at f_max (= idle_w: no clock dependence)
  Sourced context_w;   ///< extra while at least one context is resident (idle-with-context)
  Sourced vec_w;       ///< all vector units busy at f_max
  Sourced xmx_w;       ///< all matrix engines busy at f_max
  Sourced bw_w;        ///< memory bandwidth fully used
  Sourced gamma;       ///< exponent of (f/f_max)
  // From the device catalog, not the calibration (sim/Scenario.cpp fills them):
  double idle_freq_ratio = 0.0; ///< f_idle / f_max: the clock of an idle tile (freq_min / freq_max)
  bool clock_pinned = false;    ///< the site pins the clock: an idle tile holds the set frequency
};

/// P_static at frequency ratio r = f/f_max (clamped to [idle_freq_ratio, 1]); idle_w where idle_fmax_w
/// equals it.
double static_power(const PowerParams& p, double freq_ratio);

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
