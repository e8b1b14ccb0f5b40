#pragma once
// Slowdown of co-located jobs (DESIGN.md §1 Sharing modes and Interference).
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

/// Contention factor of job j given the other residents of its device (>= 1).
class InterferenceModel {
public:
  virtual ~InterferenceModel() = default;
  virtual std::string_view name() const = 0;
  virtual double factor(const ResourceSignature& job, std::span<const ResourceSignature* const> others) const = 0;
};

/// `none`: co-runners do not interfere beyond the sharing mode (factor 1).
class NoInterference final : public InterferenceModel {
public:
  std::string_view name() const override { return "none"; }
  double factor(const ResourceSignature&, std::span<const ResourceSignature* const>) const override { return 1.0; }
};

/// `table`: measured or estimated pairwise slowdowns by class. T[row][col] is the factor of a row-class
/// job next to one col-class job. Rule for 3+ co-runners (additive excess, documented in
/// models/README.md): factor_j = 1 + Σ_{i≠j} (T[c_j][c_i] − 1).
class TableInterference final : public InterferenceModel {
public:
  using Table = std::array<std::array<double, JOB_CLASS_COUNT>, JOB_CLASS_COUNT>;
  TableInterference(Table table, std::string source) : table_(table), source_(std::move(source)) {}
  std::string_view name() const override { return "table"; }
  double factor(const ResourceSignature& job, std::span<const ResourceSignature* const> others) const override;
  double pair(JobClass row, JobClass col) const { return table_[static_cast<int>(row)][static_cast<int>(col)]; }
  const std::string& source() const { return source_; }

private:
  Table table_;
  std::string source_;
};

/// Sharing factor of resident i (see the header comment). residents holds every job on the device.
double sharing_factor(SharingMode mode, const TimeSliceParams& ts, std::span<const ResourceSignature* const> residents,
                      std::size_t i);

/// Slowdowns of all residents of one device: out[i] = sharing_factor × interference factor.
/// Cost O(n²) in the residents of that device only.
void compute_slowdowns(SharingMode mode, const TimeSliceParams& ts, const InterferenceModel& model,
                       std::span<const ResourceSignature* const> residents, std::span<double> out);

} // namespace colocsim
