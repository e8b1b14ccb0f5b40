#pragma once
// The profile catalog: how each kind of job behaves on its reference device when it runs alone (its
// ResourceSignature), by name. Traces name a profile per job; the catalog says what that name means.
// Format (every number of a bundled catalog carries an evidence tag and a source; a user's catalog may give
// plain numbers): docs/formats/profiles.md. The bundled
// catalog is workloads/profiles/default.yaml (sources: docs/sources.md).
#include "base/Errors.hpp"
#include "models/Communication.hpp"
#include "models/ResourceSignature.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colocsim {

/// MIG speeds by compute slices g (index 1..7; 0 = not measured), as in ResourceSignature::mig_speed.
using MigSpeeds = std::array<double, 8>;

/// How a job of a profile communicates (docs/formats/profiles.md, Communication): per step one collective of
/// `bytes` per device after `compute_s` of computing, or, when only a measured share is known, the
/// `fraction` of a step spent communicating at the placement `at`.
struct ProfileCommunication {
  Collective collective = Collective::RING_ALL_REDUCE;
  Sourced bytes;                    ///< bytes_per_step
  std::optional<Sourced> compute_s; ///< compute_s_per_step (else fraction and at)
  std::optional<Sourced> fraction;  ///< fraction of a step communicating at `at`
  CommPlacement at;                 ///< nodes × per_node of the fraction (its switches: set by resolve)
  /// The step profile on a network of `tiers`, the fraction's placement being `placed`: `at` with the leaf
  /// switches the platform puts it under (models/Communication.hpp comm_profile_from_fraction).
  CommProfile resolve(const CommTiers& tiers, const CommPlacement& placed) const;
};

struct Profile {
  std::string name;
  std::string description;
  ResourceSignature sig; ///< the job's behaviour when its batch size is not stated
  /// compute_share_by_batch: (batch, c) points, batch increasing; empty = c does not depend on the batch.
  std::vector<std::pair<double, double>> compute_share_by_batch;
  /// mig_speed_by_batch: (batch, speeds) rows, batch increasing, every row naming the same slice sizes.
  std::vector<std::pair<double, MigSpeeds>> mig_speed_by_batch;
  /// Provenance of every number, one entry per key: "mem: measurement; CARMA-README (DGX Station A100)".
  std::vector<std::string> sources;
  /// The numbers given plain, without provenance (a user's catalog only): "duty_cycle = 0.6".
  std::vector<std::string> user_supplied;
  SourceLocation origin; ///< where the profile is defined (file:line:col of its key)
  /// `communication:`, if given: what a gang job of this profile pays to communicate on a platform with a
  /// network (sim/engine/DevicePhysics.hpp).
  std::optional<ProfileCommunication> communication;

  /// Does the job's batch size change its signature (a batch table is given)?
  bool depends_on_batch() const { return !compute_share_by_batch.empty() || !mig_speed_by_batch.empty(); }
  /// The signature of a job of this profile running at `batch` (>= 1; docs/formats/profiles.md, Batch size
  /// and MIG speed): compute_share from compute_share_by_batch and mig_speed from mig_speed_by_batch where
  /// given (interpolate_log_batch), the vector and matrix utilisations capped at that compute share (a job
  /// cannot use more of the SMs' throughput than the SMs it keeps busy); every other number as in `sig`.
  ResourceSignature signature_for_batch(double batch) const;
};

/// Piecewise-linear interpolation in ln(batch) through (batch, value) points sorted by batch: between
/// points b0 < b < b1, v0 + (v1 − v0) · ln(b / b0) / ln(b1 / b0); below the first or above the last point
/// the end value (no extrapolation). Points must be non-empty with batches > 0.
double interpolate_log_batch(const std::vector<std::pair<double, double>>& points, double batch);

class ProfileCatalog {
public:
  /// The format tag a catalog file must carry (`format: colocsim-profiles/1`).
  static constexpr std::string_view FORMAT = "colocsim-profiles/1";

  /// Parses a catalog (YAML text; `file` is used in messages). Throws one InputError listing every
  /// problem found (`file:line:col: profiles.name.key: ...`).
  static ProfileCatalog load(std::string_view yaml_text, const std::string& file);
  /// Reads and parses the file at `path`; throws InputError if it cannot be read.
  static ProfileCatalog load_file(const std::string& path);

  /// The profile called `name`, or nullptr.
  const Profile* find(std::string_view name) const;
  /// The profile called `name`; throws InputError at `where_used` (path "profile") naming the valid
  /// profiles if there is none.
  const Profile& at(std::string_view name, const SourceLocation& where_used) const;
  /// Position of `name` in profiles() (stable for the catalog's lifetime), or nullopt.
  std::optional<std::size_t> index_of(std::string_view name) const;

  /// Profiles sorted by name.
  const std::vector<Profile>& profiles() const { return profiles_; }
  std::vector<std::string> names() const; ///< sorted
  std::size_t size() const { return profiles_.size(); }

private:
  std::vector<Profile> profiles_; // sorted by name, names unique
};

} // namespace colocsim
