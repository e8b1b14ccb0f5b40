#pragma once
// Import of a MIG measurement sweep (docs/formats/profiles.md, Batch size and MIG speed): a CSV of
// batch × MIG slice × throughput becomes a profile's `mig_speed_by_batch` (or `mig_speed`) key, speed =
// throughput on the slice / throughput on the whole GPU (MIG off) at the same batch.
#include "workloads/ProfileCatalog.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace colocsim {

/// A parsed sweep: per batch (increasing), the speeds by compute slices (MigSpeeds, 0 = not measured).
struct MigSweep {
  std::vector<std::pair<double, MigSpeeds>> rows;
  std::vector<std::string> capped; ///< "batch 8, 3g: 1.02" for each speed above 1, written as 1
};

/// Reads the sweep CSV (header naming `batch`, `slice`, `throughput` in any order; blank and `#` lines
/// skipped). `slice` is `whole` (the GPU with MIG off) or a MIG instance profile name starting with its
/// compute slices (`1g.10gb`, `3g.40gb`, `7g`). Throws InputError at file:line[:col] naming the column for a
/// bad header or field, a repeated (batch, slice size), a batch without a `whole` row, or batches that
/// name different slice sizes.
MigSweep read_mig_sweep(std::istream& in, const std::string& file);

/// The profile key as YAML text: `mig_speed` when the sweep has one batch, else `mig_speed_by_batch`, with
/// tag measurement and `source`; speeds printed with 4 significant digits.
std::string mig_sweep_yaml(const MigSweep& sweep, const std::string& source);

} // namespace colocsim
