#pragma once
// How a job behaves on its reference device when it runs alone (docs/architecture.md, Jobs and profiles): the
// resource signature the interference and power models consume. Traces say what was asked; a profile (from
// the workloads catalog) says how the job behaves and carries this signature.
#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace colocsim {

/// Coarse contention class used by the pairwise-table interference model
/// (docs/architecture.md, Interference): C = vector compute, X = matrix engines (XMX /
/// tensor cores), M = HBM-bound but light (b <= 0.4, working set fits in L2), MS = saturates HBM
/// bandwidth, L = latency/launch-bound (low compute and bandwidth use).
enum class JobClass { C, X, M, MS, L };
inline constexpr int JOB_CLASS_COUNT = 5;
std::string_view to_string(JobClass c);
std::optional<JobClass> parse_job_class(std::string_view text);
/// The classes in order, comma-separated ("C, X, M, MS, L"): the row and column order of the tables.
std::string job_class_list();

struct ResourceSignature {
  JobClass job_class = JobClass::C;
  double duty_cycle = 1.0;     ///< fraction of wall time the device engine is busy when alone, (0, 1]
  double vec_util = 0.0;       ///< time-averaged fraction of vector (EU/SM) throughput used alone, [0, 1]
  double xmx_util = 0.0;       ///< time-averaged fraction of matrix-engine throughput used alone, [0, 1]
  double bw_util = 0.0;        ///< time-averaged fraction of device memory bandwidth used alone, [0, 1]
  double mem_bytes = 0.0;      ///< real device-memory footprint (what decides out-of-memory)
  double freq_sensitive = 1.0; ///< beta: fraction of runtime that scales with 1/f, [0, 1]
  /// c: fraction of the device's compute units (EUs / SMs) the job keeps busy while its kernels run
  /// (occupancy × issue efficiency, reference §6.3), (0, 1]. Decides the static-partition factor of
  /// ccs-2/ccs-4 and the SM sharing of mps. 1 = saturating (the conservative default).
  double compute_share = 1.0;
  /// s of the gang scaling-efficiency curve e(n) = 1 / (1 + s · (n − 1)^p) (p = 1: Amdahl, 1 / (s · n + 1 −
  /// s), s the fraction of a step that does not shrink with more devices, communication included), [0, 1]. 0
  /// = perfect scaling (e = 1).
  double scaling_serial = 0.0;
  /// p of that curve, (0, 2]: 1 = Amdahl; p < 1 = a loss that grows slower than the device count (a
  /// communication cost growing like a power of n, as fitted to MLPerf Training: models/ScalingFit.hpp).
  double scaling_exponent = 1.0;
  /// Measured speed of the job alone on a MIG GPU instance of g compute slices (index g, 1..7) relative to
  /// the whole GPU with MIG off, in (0, 1]; 0 = not measured, the roofline law (mig_slowdown) decides. From
  /// a profile's `mig_speed` (docs/formats/profiles.md): it overrides the law for that slice size.
  std::array<double, 8> mig_speed{};

  /// Scaling efficiency on n devices (n >= 1): the gang's progress rate is the slowest device's rate × e(n).
  double scaling_efficiency(std::size_t n) const
  {
    if (n <= 1) return 1.0;
    const double nd = static_cast<double>(n);
    // p = 1 keeps Amdahl's own arithmetic (s · n + 1 − s), so the p = 1 results stay bit for bit.
    return scaling_exponent == 1.0 ? 1.0 / (scaling_serial * nd + 1.0 - scaling_serial)
                                   : 1.0 / (1.0 + scaling_serial * std::pow(nd - 1.0, scaling_exponent));
  }
};

} // namespace colocsim
