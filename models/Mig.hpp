#pragma once
// NVIDIA Multi-Instance GPU (MIG) partitions and MPS client limits, as plain data and functions (no engine).
//
// What it models (MIG profiles, placements and MPS; docs/sources.md keys NV-MIG, GONVML-A100,
// H100-LGIP, NV-MPS): a MIG-capable GPU has C compute slices (7) and M memory slices (8). A GPU instance
// (GI) of a profile (1g.5gb, 3g.20gb, ...) takes a contiguous range of memory slices that must start at one
// of the profile's placements, and g compute slices. A layout (the set of GIs on a GPU) is valid when no two
// GIs share a memory slice, no profile has more than its maximum number of instances, there are at most
// max_gpu_instances GIs, and their compute slices add up to at most C. Only the count of compute slices is
// tracked, not which ones: the placement tables already keep every real layout within C.
// Reconfiguring destroys empty GIs and creates new ones; the GPU's other GIs keep running
// (MigReconfigurationScope::AFFECTED_INSTANCES), and the change takes the table's reconfiguration latency.
//
// The tables are data (models/mig/<gpu>.yaml, format docs/formats/mig.md): load_mig_table() reads one with
// located errors and MigGeometry answers the questions the engine and the policies ask:
//  - the engine: is a layout / a change legal, and why not (check, check_change); what the GIs hold
//    (sms, memory_bytes); how long a change takes (reconfiguration_latency_s);
//  - a policy: can profile P be created now and where (legal_starts, lowest_start), which empty GIs to
//    destroy to get P (make_room, fuse, split), which layouts exist (all_layouts, maximal_layouts).
// Everything is a pure function of its arguments; a layout is a plain vector the caller owns.
#include "base/Yaml.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colocsim {

// ---- the table, as loaded (every number with its provenance) ----

/// A profile's placements as `nvidia-smi mig -lgipp` prints them: "{0,2,4}:2" = starts 0, 2, 4, each
/// `size` memory slices long.
struct MigPlacements {
  std::vector<unsigned> starts; ///< first memory slice of each allowed placement, strictly increasing
  unsigned size = 0;            ///< memory slices a GI of the profile occupies
  Evidence evidence = Evidence::ESTIMATE;
  std::string source;
};

/// One GPU-instance profile (a row of `nvidia-smi mig -lgip`).
struct MigProfileSpec {
  std::string name;       ///< e.g. "3g.20gb"; the leading "<g>g" equals compute_slices
  Sourced id;             ///< nvidia-smi GPU-instance profile ID (e.g. 9 for 3g.20gb)
  Sourced compute_slices; ///< g
  Sourced memory_bytes;   ///< memory of one GI (what `-lgip` prints, e.g. 19.62 GiB)
  Sourced sms;            ///< SMs of one GI (14 per slice on A100; H100: 16 per 1g but 132 for 7g)
  Sourced max_instances;  ///< most GIs of this profile on one GPU
  MigPlacements placements;
};

/// What a reconfiguration may touch.
///  AFFECTED_INSTANCES  only the GIs it destroys must be empty; the others keep running (A100, H100)
///  WHOLE_GPU           every GI must be empty (a conservative setting for what-if studies)
enum class MigReconfigurationScope { AFFECTED_INSTANCES, WHOLE_GPU };
std::string_view to_string(MigReconfigurationScope s);

struct MigTable {
  std::string name;   ///< table name, e.g. "a100-40gb"
  std::string device; ///< device catalog entry it applies to, e.g. "a100-40gb"
  Sourced compute_slices;
  Sourced memory_slices;
  Sourced max_gpu_instances;
  MigReconfigurationScope reconfiguration_scope = MigReconfigurationScope::AFFECTED_INSTANCES;
  Evidence reconfiguration_scope_evidence = Evidence::ESTIMATE;
  std::string reconfiguration_scope_source;
  Sourced reconfiguration_latency_s; ///< time the GPU's changed slices are unusable during a change
  std::vector<MigProfileSpec> profiles;
};

/// Parses a MIG table (format colocsim-mig/1). Throws InputError with every problem found, each as
/// `file:line:col: yaml.path: what is wrong`.
MigTable load_mig_table(std::string_view yaml_text, const std::string& file);

// ---- the geometry: layouts and the questions asked about them ----

/// A profile as the geometry uses it (plain integers).
struct MigProfile {
  std::string name;
  unsigned id = 0;
  unsigned compute_slices = 0;
  unsigned memory_slices = 0; ///< placement size
  unsigned sms = 0;
  unsigned max_instances = 0;
  double memory_bytes = 0;
  std::vector<unsigned> starts; ///< allowed first memory slices, increasing
};

/// A GPU instance: a profile (index into MigGeometry::profiles()) at a start memory slice.
struct MigInstance {
  std::size_t profile = 0;
  unsigned start = 0;
  friend bool operator==(const MigInstance&, const MigInstance&) = default;
};

/// The GIs of one GPU. Order is the caller's (indices into it name instances); enumerations return layouts
/// in canonical order (by start, then profile index).
using MigLayout = std::vector<MigInstance>;

/// Why a layout or a change is not legal. check() reports the first problem in this order.
///  UNKNOWN_PROFILE          profile index out of range
///  START_NOT_ALLOWED        the start is not one of the profile's placements
///  TOO_MANY_OF_PROFILE      more GIs of one profile than its max_instances
///  TOO_MANY_INSTANCES       more GIs than max_gpu_instances (7)
///  COMPUTE_SLICES_EXCEEDED  the GIs' compute slices add up to more than the GPU has (7)
///  OVERLAP                  two GIs share a memory slice
///  NO_SUCH_INSTANCE         a change names an instance index that is not in the layout (or twice)
///  INSTANCE_BUSY            a change destroys a GI that holds jobs (AFFECTED_INSTANCES)
///  GPU_BUSY                 a change while some GI holds jobs (WHOLE_GPU)
enum class MigProblem {
  NONE,
  UNKNOWN_PROFILE,
  START_NOT_ALLOWED,
  TOO_MANY_OF_PROFILE,
  TOO_MANY_INSTANCES,
  COMPUTE_SLICES_EXCEEDED,
  OVERLAP,
  NO_SUCH_INSTANCE,
  INSTANCE_BUSY,
  GPU_BUSY
};
std::string_view to_string(MigProblem p);

/// Result of a check: ok, or the problem, the instance it is about and a sentence for messages.
struct MigVerdict {
  MigProblem problem = MigProblem::NONE;
  std::size_t instance = 0; ///< index of the offending instance (in the checked layout, or in the change)
  std::size_t other = 0;    ///< OVERLAP: index of the instance it overlaps (an earlier one)
  std::string reason;       ///< e.g. "4g.20gb@4: start 4 is not allowed for 4g.20gb; allowed: 0"; empty if ok
  bool ok() const { return problem == MigProblem::NONE; }
};

/// A reconfiguration: destroy these instances (indices into the current layout), then create these.
/// The resulting layout is the kept instances in their order followed by the created ones.
struct MigChange {
  std::vector<std::size_t> destroy;
  std::vector<MigInstance> create;
};

class MigGeometry {
public:
  /// Throws std::invalid_argument if the table exceeds 32 memory slices (layouts are bit masks).
  explicit MigGeometry(const MigTable& table);

  const std::string& name() const { return name_; }
  const std::string& device() const { return device_; }
  unsigned compute_slices() const { return compute_slices_; }
  unsigned memory_slices() const { return memory_slices_; }
  unsigned max_gpu_instances() const { return max_gpu_instances_; }
  MigReconfigurationScope reconfiguration_scope() const { return scope_; }
  double reconfiguration_latency_s() const { return latency_s_; }
  const std::vector<MigProfile>& profiles() const { return profiles_; }

  std::optional<std::size_t> find_profile(std::string_view name) const;
  /// Index of a profile by name; throws std::invalid_argument "unknown MIG profile 'x'; valid: ...".
  std::size_t profile_index(std::string_view name) const;
  /// Shorthand for tests and policies: MigInstance{profile_index(profile), start}.
  MigInstance instance(std::string_view profile, unsigned start) const;
  /// Indices of profiles by name (for the `allowed` arguments below).
  std::vector<std::size_t> profile_indices(const std::vector<std::string>& names) const;

  std::string describe(const MigInstance& gi) const;   ///< "3g.20gb@4"
  std::string describe(const MigLayout& layout) const; ///< "{4g.20gb@0, 3g.20gb@4}"

  // -- what a layout holds (instances must be valid: known profiles) --
  std::uint32_t memory_mask(const MigInstance& gi) const; ///< bit s set = memory slice s used
  std::uint32_t used_memory_mask(const MigLayout& layout) const;
  unsigned used_compute_slices(const MigLayout& layout) const;
  unsigned sms(const MigLayout& layout) const;        ///< SMs of all GIs together
  double memory_bytes(const MigLayout& layout) const; ///< memory of all GIs together

  /// Is the layout legal? The first problem in MigProblem's order, with the instance it is about.
  MigVerdict check(const MigLayout& layout) const;

  /// A legal layout made of these profiles (indices, e.g. from profile_indices({"3g.20gb", "2g.10gb"})), in
  /// the given order, with the lexicographically lowest starts (a depth-first search over legal_starts, so
  /// [1g.5gb, 3g.20gb] finds 1g@0 + 3g@4 as well as a greedy pass would not fail where another order of
  /// starts works). nullopt if no arrangement is legal. For a platform's initial layout given by names.
  std::optional<MigLayout> arrange(const std::vector<std::size_t>& profiles) const;

  // -- free space: where can one more GI of `profile` be created, keeping the layout legal --
  std::vector<unsigned> legal_starts(const MigLayout& current, std::size_t profile) const;
  std::optional<unsigned> lowest_start(const MigLayout& current, std::size_t profile) const;
  bool can_place(const MigLayout& current, std::size_t profile) const;

  // -- enumeration. `allowed`: the profiles to use (empty = all of them) --
  /// Every legal non-empty layout, each once, in canonical order.
  std::vector<MigLayout> all_layouts(const std::vector<std::size_t>& allowed = {}) const;
  /// The legal layouts to which no GI of an allowed profile can be added (the "full" partitions).
  std::vector<MigLayout> maximal_layouts(const std::vector<std::size_t>& allowed = {}) const;
  bool is_maximal(const MigLayout& layout, const std::vector<std::size_t>& allowed = {}) const;

  // -- reconfiguration. busy[i]: instance i of `current` holds jobs (size must equal current's) --
  /// Is the change allowed by the reconfiguration rule, and is the resulting layout legal? For problems of
  /// the result, `instance` indexes the resulting layout (kept instances first, then the created ones).
  MigVerdict check_change(const MigLayout& current, const std::vector<bool>& busy,
                          const MigChange& change) const;
  /// The layout after the change (no checks beyond index range; call check_change first).
  MigLayout apply(const MigLayout& current, const MigChange& change) const;
  /// Cheapest way to get one GI of `profile`: create it in free space if possible (destroy nothing), else
  /// destroy the fewest empty GIs (ties: fewest compute slices destroyed, then lowest start). nullopt if
  /// every placement would destroy a busy GI or break a limit.
  std::optional<MigChange> make_room(const MigLayout& current, const std::vector<bool>& busy,
                                     std::size_t profile) const;
  /// Fusion: destroy `instances` and create one GI of `profile` at the lowest legal start that reuses at
  /// least one freed memory slice (e.g. 1g@0 + 1g@1 → 2g@0). nullopt if there is none.
  std::optional<MigChange> fuse(const MigLayout& current, const std::vector<std::size_t>& instances,
                                std::size_t profile) const;
  /// Fission: destroy `instance` and create as many GIs of `profile` as legally fit in its memory slices,
  /// lowest starts first (e.g. 3g.20gb@0 → 1g.5gb@0..@3 if compute slices allow). nullopt if none fits.
  std::optional<MigChange> split(const MigLayout& current, std::size_t instance, std::size_t profile) const;

private:
  std::vector<std::size_t> allowed_or_all(const std::vector<std::size_t>& allowed) const;
  bool fits(const MigLayout& current, std::uint32_t used_mask, unsigned used_compute,
            const MigInstance& gi) const;

  std::string name_;
  std::string device_;
  unsigned compute_slices_ = 0;
  unsigned memory_slices_ = 0;
  unsigned max_gpu_instances_ = 0;
  MigReconfigurationScope scope_ = MigReconfigurationScope::AFFECTED_INSTANCES;
  double latency_s_ = 0;
  std::vector<MigProfile> profiles_;
};

// ---- what an instance holds of the whole GPU (the slowdown rule in Interference.hpp uses these) ----

/// The fraction of the WHOLE GPU's SMs a GI of `profile` holds: its SMs / the device's SMs (the device
/// catalog's compute_units). Not the largest profile's: an A100 has 108 SMs [V] GK-A100 but its 7g instance
/// exposes 98 [V] GONVML-A100 ("98 of the 108 SMs are usable under MIG"), so 7g.40gb = 98/108 = 0.907 of
/// an A100 with MIG off, 3g = 42/108 = 0.389; on an H100 SXM 7g.80gb has all 132 [M/V] H100-LGIP, GK-H100.
/// Throws std::invalid_argument unless 0 < profile.sms <= device_sms.
double mig_sm_fraction(const MigProfile& profile, double device_sms);
/// The fraction of the whole GPU's memory bandwidth and L2 a GI of `profile` holds: its memory slices / the
/// GPU's (8). A memory slice is 1/8 of the GPU's memory with its L2 slices and memory controllers [V] NV-MIG,
/// and the 8 slices are the whole GPU (7g.40gb: 39.38 GiB of the 40 GiB, GONVML-A100), so 7g = 1.
double mig_memory_fraction(const MigGeometry& geometry, const MigProfile& profile);

// ---- MPS (reference §4.3, NV-MPS) ----

/// MPS clients one GPU accepts on Volta and later: 48 [V] NV-MPS. The same number the engine enforces for
/// the mps sharing mode (max_residents(SharingMode::MPS)); declared there once.
unsigned mps_max_clients();

/// MPS on MIG: one MPS server per compute instance, and "the maximum number of clients (48) is lowered
/// proportionally to the Compute Instance size" [V] NV-MIG r570 (HIKUNPENG). The rounding is NOT FOUND;
/// floor(48 · ci / gpu) is used, so the instances of one GPU never exceed 48 together (1c of 7: 6 clients,
/// 3c: 20, 4c: 27, 7c: 48). Throws std::invalid_argument unless 1 <= ci_compute_slices <= gpu_compute_slices.
unsigned mps_max_clients_on_mig(unsigned ci_compute_slices, unsigned gpu_compute_slices);

/// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (NV-MPS topic 5.2.5): the share of the SMs a client may use, in
/// percent. Valid: 1 <= percentage <= 100 (finite).
bool valid_active_thread_percentage(double percentage);
/// The fraction percentage / 100 (what Place::thread_share holds); throws std::invalid_argument
/// "MPS active-thread percentage must be in [1, 100] (got 0)" for an invalid one.
double active_thread_share(double percentage);

} // namespace colocsim
