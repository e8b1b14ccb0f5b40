#pragma once
// Slowdown of co-located jobs (docs/architecture.md, Sharing modes; Interference).
//
//   slowdown_j = max(sharing_factor_j(mode, residents), bound_j) × extra_j               (>= 1)
//
// sharing_factor encodes the sharing mode's semantics; the interference model adds contention on the
// resources that stay shared, split into a bound of the same kind as the mode's (the job's share of the
// memory bandwidth: the tighter limit holds) and an extra that multiplies (InterferenceModel::parts). Both
// are deterministic and depend only on the residents' signatures, never on their current rates, so a change
// on one device never cascades to other devices' slowdowns.
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
//   sharing_factor_j = ccs_slowdown(job, k, 1) = max(β_j · max(1, c_j · k) + 1 − β_j,  u_j · k,  1)
//
//   (c_j: compute_share, β_j: freq_sensitive, u_j = max(vec, xmx util); independent of co-runners). The
//   tile's bandwidth stays shared: the interference model's bound B (InterferenceModel::parts, e.g. the
//   bandwidth share max(1, Σ b_i)) takes the memory-bound part of the runtime, as MIG's memory share does
//   (mig_slowdown): ccs_slowdown(job, k, B) = max(β·max(1, c·k) + (1 − β)·B, B, u·k, 1). With β = 1 it is
//   reference §6.3's max(s_part, s_bw): the tighter limit holds, the two are never multiplied.
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
// fraction s of the WHOLE GPU's SMs (7g.40gb: 98 of an A100's 108) and a fraction m of its memory slices
// (and so of its bandwidth and L2);
// instances share only the host, PCIe link and power (ContentionInterference's cross-instance term, the
// card power cap):
//
//   sharing_factor_j = mig_slowdown(job, s_j, m_j)
//                    = max(β·max(1, c/s) + (1 − β)·max(1, b/m), b/m, u/s, 1)    (β: freq_sensitive)
//
//   a roofline with the job's balance: its SM-bound runtime stretches with the SM share, its memory-bound
//   runtime with the memory share. Consistency check against NJIT-MIG (reference, A100-80GB GROMACS:
//   118.6 ns/day full, 115.5 on 3g, 81.2 on 2g, 43.3 on 1g; tests/models/Mig_test.cpp): with c = 0.37,
//   β = 1 [estimate, chosen to match], 3g gets 42/108 = 0.389 of the SMs: 0.951 < 1, full speed (measured
//   97 %), 2g 1.43× slower (measured 1.46×), 1g 2.85× (measured 2.74×).
//
// exclusive: one job per device, factor 1.
#include "base/Yaml.hpp"
#include "models/DeviceSpec.hpp"
#include "models/ResourceSignature.hpp"

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

  /// factor() split in two for compute_slowdowns, which gives max(sharing factor, bound) · extra:
  ///  bound  a limit of the same kind as the sharing mode's (the job's share of the memory bandwidth once
  ///         the co-runners' demand exceeds the device): a job is held back by the tighter of the two
  ///         limits, not by their product (reference §6.3: max(s_part, s_bw));
  ///  extra  contention that adds to whichever limit holds (L2, TLB, power management: the residual).
  /// Default: no bound, the whole factor an extra.
  struct Parts {
    double bound = 1.0;
    double extra = 1.0;
  };
  virtual Parts parts(const ResourceSignature& job, std::span<const ResourceSignature* const> others,
                      SharingMode mode) const
  {
    return {1.0, factor(job, others, mode)};
  }
};

/// Whether kernels of different jobs run at the same time on the device's compute units in `mode` (ccs-2,
/// ccs-4, mps), so that they compete for its memory bandwidth.
bool kernels_overlap(SharingMode mode);

/// The memory-bandwidth bound of a job whose kernels overlap with its co-runners': max(1, Σ_i b_i) over the
/// job and its co-runners when the job uses bandwidth (b_j > 0; proportional sharing of the achievable
/// bandwidth, which b is a fraction of), else 1. Together the jobs never move more than the device can.
double bandwidth_bound(const ResourceSignature& job, std::span<const ResourceSignature* const> others);

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

/// A class-by-class table of slowdowns (T[row][col]: a row-class job next to one col-class job), where it
/// came from, and the sharing modes it applies in: what the `table` and `pair-total` models hold.
class ClassTableModel : public InterferenceModel {
public:
  using Table = std::array<std::array<double, JOB_CLASS_COUNT>, JOB_CLASS_COUNT>;
  ClassTableModel(Table table, std::string source, std::vector<SharingMode> modes)
      : table_(table), source_(std::move(source)), modes_(std::move(modes))
  {
  }
  double pair(JobClass row, JobClass col) const
  {
    return table_[static_cast<int>(row)][static_cast<int>(col)];
  }
  const std::string& source() const { return source_; }
  const std::vector<SharingMode>& modes() const { return modes_; }

protected:
  Table table_;
  std::string source_;
  std::vector<SharingMode> modes_;
};

/// `table`: measured or estimated pairwise slowdowns by class. T[row][col] is the factor of a row-class
/// job next to one col-class job. Rule for 3+ co-runners (documented in models/README.md): where kernels
/// overlap (ccs-2, ccs-4, mps) the excesses add, factor_j = 1 + Σ_{i≠j} (T[c_j][c_i] − 1); under
/// time-slice, where jobs take turns and the excess is what a job loses at the start of each turn (its
/// caches and TLB refilled after the co-runner that ran before it), it is paid once per turn whoever ran
/// before, so the excesses are averaged, weighted by the co-runners' duty cycles d_i (the share of the
/// job's turns that follow co-runner i): factor_j = 1 + Σ_{i≠j} d_i (T[c_j][c_i] − 1) / Σ_{i≠j} d_i
/// (plain mean when every d_i is 0). One co-runner: T[c_j][c_i] in both rules.
///
/// A table applies only in the sharing modes it was made for (`modes`). Reference §6.3's default table is
/// the contention of kernels that run AT THE SAME TIME (ccs-2, ccs-4, mps: "excluding the partition
/// factor"); under time-slicing kernels never overlap and the sharing factor already is the whole slowdown,
/// so applying that table there would count the co-runners twice. A table fitted from time-sliced co-runs
/// (the calibration fitter: the excess over the time-slice factor) applies to time-slice.
class TableInterference final : public ClassTableModel {
public:
  /// The modes reference §6.3's table is for: kernels of the co-runners overlap.
  static std::vector<SharingMode> overlapping_modes()
  {
    return {SharingMode::CCS_2, SharingMode::CCS_4, SharingMode::MPS};
  }
  TableInterference(Table table, std::string source, std::vector<SharingMode> modes = overlapping_modes())
      : ClassTableModel(table, std::move(source), std::move(modes))
  {
  }
  std::string_view name() const override { return "table"; }
  double factor(const ResourceSignature& job, std::span<const ResourceSignature* const> others,
                SharingMode mode) const override;
  /// Where kernels overlap (ccs-2, ccs-4, mps) the table's value is a co-run slowdown of jobs that share
  /// the device's bandwidth, L2 and power (reference §6.3: the M/MS entries are mostly bandwidth sharing),
  /// so it is a bound like the partition's, not an extra on top: bound = max(factor, bandwidth_bound),
  /// extra 1 (the bandwidth bound keeps a table value below the summed demand, such as MS+MS 1.8 against
  /// 2 × 0.95, from moving more bytes than the device can). Under time-slice (a fitted table: the excess
  /// over the time-slice factor) the factor stays an extra.
  Parts parts(const ResourceSignature& job, std::span<const ResourceSignature* const> others,
              SharingMode mode) const override;
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
class PairTotalInterference final : public ClassTableModel {
public:
  using ClassTableModel::ClassTableModel;
  std::string_view name() const override { return "pair-total"; }
  /// In the table's modes: max(1, 1 + Σ_{i≠j} (T[c_j][c_i] − 1)) (1 alone); elsewhere 1.
  double factor(const ResourceSignature& job, std::span<const ResourceSignature* const> others,
                SharingMode mode) const override;
  bool gives_total_slowdown(SharingMode mode) const override;
};

/// `contention`: a roofline-style model of the resources that stay shared when kernels of several jobs run
/// at the same time (reference §6.3): memory bandwidth is shared in proportion to demand once the summed
/// demand exceeds the device, times a residual for the rest (L2, TLB, power management):
///
///   factor_j = max(1, Σ_i b_i) · (1 + ρ)   for a job with b_j > 0 sharing with running kernels
///   factor_j = 1 + ρ                        for a job that uses no bandwidth
///
/// with b_i the jobs' bandwidth utilisation alone. Kernels never overlap under time-slice (the sharing
/// factor already accounts for the wait), so there the factor is 1; alone it is 1. Under mig the instances
/// share only the host, the PCIe link and the power budget: factor_j = 1 + κ · Σ_{i≠j} d_i over the jobs
/// on the GPU's other instances (κ = DEFAULT_CROSS_INSTANCE).
class ContentionInterference final : public InterferenceModel {
public:
  /// ρ = 0.03: reference §6.3 "ε ≈ 0.01–0.05 residual (fit)", the midpoint [estimate].
  static constexpr double DEFAULT_RESIDUAL = 0.03;
  /// κ = 0.01 per fully busy job on another MIG instance of the same GPU [estimate]. MIG isolates SMs, L2
  /// and memory bandwidth [V] NV-MIG, but the instances still share the host, the GPU's PCIe link and its
  /// power budget; MIG-PWR [M] (reference §3.6: H100, NekRS, LAMMPS, Llama 3, Qiskit) finds that MIG "does
  /// not fully isolate" through power and thermal throttling, which the card power cap models (the engine
  /// throttles the whole GPU when its instances together exceed it). For host and PCIe no MIG measurement
  /// was found: 1 % per busy co-runner, the low end of reference §6.3's residual range ε ≈ 0.01–0.05, far
  /// below the 19 % that Gandiva saw between two host-heavy language-model jobs on different GPUs of one
  /// server (GANDIVA-NOTES, reference §6.3).
  static constexpr double DEFAULT_CROSS_INSTANCE = 0.01;
  explicit ContentionInterference(double residual = DEFAULT_RESIDUAL,
                                  double cross_instance = DEFAULT_CROSS_INSTANCE)
      : residual_(residual), cross_instance_(cross_instance)
  {
  }
  std::string_view name() const override { return "contention"; }
  double factor(const ResourceSignature& job, std::span<const ResourceSignature* const> others,
                SharingMode mode) const override;
  /// bound = the bandwidth share max(1, Σ_i b_i) (for a job with b_j > 0), extra = 1 + ρ: reference
  /// §6.3's slowdown max(s_part, s_bw) · (1 + ε) with the partition (or MPS SM demand) as s_part.
  /// mig (others = the jobs on the GPU's other instances): bound 1, extra = 1 + κ · Σ_{i≠j} d_i (d: duty
  /// cycle, the share of its time a co-runner keeps its instance busy).
  Parts parts(const ResourceSignature& job, std::span<const ResourceSignature* const> others,
              SharingMode mode) const override;

private:
  double residual_;
  double cross_instance_;
};

/// mig: the slowdown of `job` alone on a GPU instance holding a fraction s of the whole GPU's SMs and m of
/// its memory bandwidth and L2 (models/Mig.hpp mig_sm_fraction, mig_memory_fraction), against the whole GPU
/// with MIG off. A roofline with the job's balance β (ResourceSignature::freq_sensitive: the fraction of
/// its runtime the core clock, hence the SMs, decides; the rest waits on memory):
///
///   slowdown = max(β · max(1, c/s) + (1 − β) · max(1, b/m),   b/m,   u/s,   1)      u = max(vec, xmx util)
///
/// The SM-bound part of the runtime stretches with the SM share, the memory-bound part with the memory
/// share; b/m and u/s are the ceilings no job passes (the bytes it moves and the flops it issues need at
/// least that long on the slice's bandwidth and SMs). β = 1 gives max(1, c/s, b/m).
/// g: the instance's compute slices (1g.5gb: 1). Where the job's profile gives a measured speed for that
/// slice size (ResourceSignature::mig_speed[g] > 0, a profile's `mig_speed`) the slowdown is 1 / that speed
/// and the law is not used; g = 0 (unknown) always uses the law.
double mig_slowdown(const ResourceSignature& job, double s, double m, unsigned g = 0);

/// ccs-k: the same roofline as mig_slowdown with the partition's share s = 1/k of the EUs and, for memory,
/// the job's share of the tile's bandwidth: bw_bound = max(1, Σ_i b_i) once the co-runners together ask
/// for more than the tile has (the interference model's bound, InterferenceModel::Parts::bound; 1 alone):
///
///   slowdown = max(β · max(1, c·k) + (1 − β) · bw_bound,   bw_bound,   u·k,   1)    u = max(vec, xmx util)
///
/// The EU-bound part of the runtime stretches with the partition, the memory-bound part with the bandwidth
/// share; bw_bound and u·k are the ceilings (β = 1 gives the plain max(1, c·k, bw_bound)).
double ccs_slowdown(const ResourceSignature& job, unsigned k, double bw_bound);

/// Sharing factor of resident i (see the header comment). residents holds every job on the device;
/// caps[i] is resident i's MPS active-thread fraction p_i in (0, 1] (empty: all 1; ignored by other modes).
/// mig: caps[i] is resident i's SM fraction s, mem_shares[i] its memory-slice fraction m and mig_slices[i]
/// its instance's compute slices g (empty: unknown, the law decides; see mig_slowdown).
double sharing_factor(SharingMode mode, const TimeSliceParams& ts,
                      std::span<const ResourceSignature* const> residents, std::size_t i,
                      std::span<const double> caps = {}, std::span<const double> mem_shares = {},
                      std::span<const unsigned> mig_slices = {});

/// Slowdowns of all residents of one device: out[i] = max(sharing_factor, parts.bound) × parts.extra (the
/// model's InterferenceModel::Parts; ccs-k: ccs_slowdown(job, k, parts.bound) × parts.extra), or where the
/// model gives total slowdowns (gives_total_slowdown): max(sharing factor of i alone, bandwidth bound, its
/// factor) (ccs-k: max(ccs_slowdown(job, k, bandwidth bound), its factor)). The bandwidth bound
/// max(1, Σ_i b_i) keeps co-located jobs from moving more than the device's achievable bandwidth together
/// (not under mig, whose instances own their memory slices).
/// Cost O(n²) in the residents of that device only.
void compute_slowdowns(SharingMode mode, const TimeSliceParams& ts, const InterferenceModel& model,
                       std::span<const ResourceSignature* const> residents, std::span<double> out,
                       std::span<const double> caps = {}, std::span<const double> mem_shares = {},
                       std::span<const unsigned> mig_slices = {});

} // namespace colocsim
