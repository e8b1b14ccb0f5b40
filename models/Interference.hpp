#pragma once
// Slowdown of co-located jobs (docs/architecture.md, Sharing modes; Interference).
//
//   slowdown_j = sharing_factor_j(mode, residents) × interference_j(model, residents)   (>= 1)
//
// sharing_factor encodes the sharing mode's semantics; the interference model adds contention on the
// resources that stay shared. Both are deterministic and depend only on the residents' signatures, never
// on their current rates, so a change on one device never cascades to other devices' slowdowns.
//
// time-slice (Intel 1-CCS, NVIDIA default; reference §1.7 and §6.3): kernels of different processes never
// overlap. With duty cycles d_i (fraction of wall time each job keeps the engine busy alone):
//
//   sharing_factor_j = max(Σ_i d_i, 1 + θ · d_j · Σ_{i≠j} d_i) · (1 + ε)       (n > 1; 1 when alone)
//
//   The first term is the engine's throughput bound (Σd > 1: the engine is oversubscribed); the second is
//   the expected wait of j's GPU bursts behind other contexts' bursts (θ = 1: a burst that collides waits a
//   whole burst); ε is the context-switch overhead (reference §6.2: "placeholder 0–2 %").
//
// ccs-2 / ccs-4 (Intel Max; reference §1.7 CR-CCS/OPT-ADV, §6.2, §6.3): each job owns 1/k of the tile's
// EUs, statically, and idle EUs are not borrowed:
//
//   sharing_factor_j = max(1, c_j · k)          (c_j: the job's compute_share; independent of co-runners)
//
// mps (NVIDIA; reference §4.3): kernels of different clients run concurrently on the SMs. With an
// active-thread cap p_j (1 when not set) and time-averaged SM demand d_i · min(c_i, p_i):
//
//   sharing_factor_j = max(1, c_j / p_j, Σ_i d_i · min(c_i, p_i))
//
//   A job alone is slowed only by its cap; co-runners slow everyone once their summed demand exceeds the
//   device (light kernels share well, saturating ones degrade to time-slicing: "MPS effective when kernels
//   are light", ITU collocation talk, reference §3.4).
//
// mig (NVIDIA; reference §4.2, docs/architecture.md, Sharing modes): each job owns a GPU instance with a
// fraction s of the GPU's SMs and a fraction m of its memory slices (and so of its bandwidth and L2);
// instances do not interfere:
//
//   sharing_factor_j = max(1, c_j / s_j, b_j / m_j)        (c: compute_share, b: bw_util; s, m per instance)
//
//   the CCS rule with the instance's own compute and memory fractions. Consistency check against NJIT-MIG
//   (reference, A100-80GB GROMACS: 118.6 ns/day full, 115.5 on 3g, 81.2 on 2g, 43.3 on 1g): with c = 0.4
//   [estimate, chosen to match], the rule gives full speed on 3g (s = 3/7: 0.93 < 1; measured 97 %), 1.4×
//   slower on 2g (measured 1.46×) and 2.8× on 1g (measured 2.74×).
//
// exclusive: one job per device, factor 1.
#include "models/DeviceSpec.hpp"
#include "models/ResourceSignature.hpp"
#include "models/Yaml.hpp"

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace colocsim {

struct TimeSliceParams {
  Sourced collision;       ///< θ
  Sourced switch_overhead; ///< ε
};

/// Contention factor of job j given the other residents of its device and the device's mode (>= 1).
class InterferenceModel {
public:
  virtual ~InterferenceModel() = default;
  virtual std::string_view name() const = 0;
  virtual double factor(const ResourceSignature& job, std::span<const ResourceSignature* const> others,
                        SharingMode mode) const = 0;
  /// True where factor() is the job's WHOLE slowdown in `mode` (a measured total, sharing included), so
  /// compute_slowdowns must not multiply it by the sharing factor. Default: an extra on top of it.
  virtual bool gives_total_slowdown(SharingMode /*mode*/) const { return false; }
};

/// `none`: co-runners do not interfere beyond the sharing mode (factor 1).
class NoInterference final : public InterferenceModel {
public:
  std::string_view name() const override { return "none"; }
  double factor(const ResourceSignature&, std::span<const ResourceSignature* const>,
                SharingMode) const override
  {
    return 1.0;
  }
};

/// `table`: measured or estimated pairwise slowdowns by class. T[row][col] is the factor of a row-class
/// job next to one col-class job. Rule for 3+ co-runners (additive excess, documented in
/// models/README.md): factor_j = 1 + Σ_{i≠j} (T[c_j][c_i] − 1).
///
/// A table applies only in the sharing modes it was made for (`modes`). Reference §6.3's default table is
/// the contention of kernels that run AT THE SAME TIME (ccs-2, ccs-4, mps: "excluding the partition
/// factor"); under time-slicing kernels never overlap and the sharing factor already is the whole slowdown,
/// so applying that table there would count the co-runners twice. A table fitted from time-sliced co-runs
/// (the calibration fitter: the excess over the time-slice factor) applies to time-slice.
class TableInterference final : public InterferenceModel {
public:
  using Table = std::array<std::array<double, JOB_CLASS_COUNT>, JOB_CLASS_COUNT>;
  /// The modes reference §6.3's table is for: kernels of the co-runners overlap.
  static std::vector<SharingMode> overlapping_modes()
  {
    return {SharingMode::CCS_2, SharingMode::CCS_4, SharingMode::MPS};
  }
  TableInterference(Table table, std::string source, std::vector<SharingMode> modes = overlapping_modes())
      : table_(table), source_(std::move(source)), modes_(std::move(modes))
  {
  }
  std::string_view name() const override { return "table"; }
  double factor(const ResourceSignature& job, std::span<const ResourceSignature* const> others,
                SharingMode mode) const override;
  double pair(JobClass row, JobClass col) const
  {
    return table_[static_cast<int>(row)][static_cast<int>(col)];
  }
  const std::string& source() const { return source_; }
  const std::vector<SharingMode>& modes() const { return modes_; }

private:
  Table table_;
  std::string source_;
  std::vector<SharingMode> modes_;
};

/// `pair-total`: measured TOTAL slowdowns of a job next to one co-runner, by class (Gavel's pairwise
/// co-location throughputs, calibration/interference/gavel-v100.yaml): T[row][col] = solo / paired
/// throughput of a row-class job sharing the device with one col-class job. Unlike `table`, T already
/// contains the sharing itself, so in its modes the slowdown is (compute_slowdowns)
///
///   slowdown_j = max(sharing_factor_j(mode, {j} alone), 1 + Σ_{i≠j} (T[c_j][c_i] − 1))
///
/// one co-runner: exactly the measured total; 3+ residents (only pairs were measured): the excesses add,
/// which gives n for n jobs that each halve the other (T = 2, time-sharing); the floor is what the mode
/// does to the job alone (an MPS active-thread cap c/p). In other modes factor() is 1 and the sharing
/// factor alone applies.
class PairTotalInterference final : public InterferenceModel {
public:
  using Table = TableInterference::Table;
  PairTotalInterference(Table table, std::string source, std::vector<SharingMode> modes)
      : table_(table), source_(std::move(source)), modes_(std::move(modes))
  {
  }
  std::string_view name() const override { return "pair-total"; }
  /// In the table's modes: max(1, 1 + Σ_{i≠j} (T[c_j][c_i] − 1)) (1 alone); elsewhere 1.
  double factor(const ResourceSignature& job, std::span<const ResourceSignature* const> others,
                SharingMode mode) const override;
  bool gives_total_slowdown(SharingMode mode) const override;
  double pair(JobClass row, JobClass col) const
  {
    return table_[static_cast<int>(row)][static_cast<int>(col)];
  }
  const std::string& source() const { return source_; }
  const std::vector<SharingMode>& modes() const { return modes_; }

private:
  Table table_;
  std::string source_;
  std::vector<SharingMode> modes_;
};

/// `contention`: a roofline-style model of the resources that stay shared when kernels of several jobs run
/// at the same time (reference §6.3): memory bandwidth is shared in proportion to demand once the summed
/// demand exceeds the device, times a residual for the rest (L2, TLB, power management):
///
///   factor_j = max(1, Σ_i b_i) · (1 + ρ)   for a job with b_j > 0 sharing with running kernels
///   factor_j = 1 + ρ                        for a job that uses no bandwidth
///
/// with b_i the jobs' bandwidth utilisation alone. Kernels never overlap under time-slice (the sharing
/// factor already accounts for the wait), so there the factor is 1; alone it is 1.
class ContentionInterference final : public InterferenceModel {
public:
  /// ρ = 0.03: reference §6.3 "ε ≈ 0.01–0.05 residual (fit)", the midpoint [estimate].
  static constexpr double DEFAULT_RESIDUAL = 0.03;
  explicit ContentionInterference(double residual = DEFAULT_RESIDUAL) : residual_(residual) {}
  std::string_view name() const override { return "contention"; }
  double factor(const ResourceSignature& job, std::span<const ResourceSignature* const> others,
                SharingMode mode) const override;

private:
  double residual_;
};

/// Sharing factor of resident i (see the header comment). residents holds every job on the device;
/// caps[i] is resident i's MPS active-thread fraction p_i in (0, 1] (empty: all 1; ignored by other modes).
/// mig: caps[i] is resident i's SM fraction s and mem_shares[i] its memory-slice fraction m.
double sharing_factor(SharingMode mode, const TimeSliceParams& ts,
                      std::span<const ResourceSignature* const> residents, std::size_t i,
                      std::span<const double> caps = {}, std::span<const double> mem_shares = {});

/// Slowdowns of all residents of one device: out[i] = sharing_factor × interference factor, or where the
/// model gives total slowdowns (gives_total_slowdown): max(sharing factor of i alone, its factor).
/// Cost O(n²) in the residents of that device only.
void compute_slowdowns(SharingMode mode, const TimeSliceParams& ts, const InterferenceModel& model,
                       std::span<const ResourceSignature* const> residents, std::span<double> out,
                       std::span<const double> caps = {}, std::span<const double> mem_shares = {});

} // namespace colocsim
