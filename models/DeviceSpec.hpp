#pragma once
// Hardware facts of a device type (what a job is placed on: an Intel Max 1550 tile, an NVIDIA GPU),
// loaded from a catalog file under models/devices/ where every number carries its evidence tag and
// source. Fitted or estimated coefficients (power curve, interference) live in calibration files, not here.
#include "base/Yaml.hpp"

#include <string>
#include <vector>

namespace colocsim {

/// How a device is shared (docs/architecture.md, Sharing modes; semantics in models/Interference.hpp).
///  EXCLUSIVE   one job per device
///  TIME_SLICE  several processes, kernels never overlap (Intel 1-CCS, NVIDIA default)
///  CCS_2/CCS_4 Intel Max: static split of a tile's EUs into 2 / 4 compute command streamers, one process
///              each, no borrowing of idle EUs; bandwidth, L2, HBM and power stay shared
///  MPS         NVIDIA Multi-Process Service: kernels of up to 48 clients run concurrently on the SMs
///  MIG         NVIDIA Multi-Instance GPU: isolated GPU instances of a legal layout (models/Mig.hpp), one job
///              each; they share the GPU's power budget, nothing else
enum class SharingMode { EXCLUSIVE, TIME_SLICE, CCS_2, CCS_4, MPS, MIG };
std::string_view to_string(SharingMode m);
/// A mode by its name (to_string); "time-slicing", NVIDIA's and Kubernetes' name, is TIME_SLICE.
std::optional<SharingMode> parse_sharing_mode(std::string_view text);
std::vector<std::string> sharing_mode_names();
/// Most jobs a device in this mode can hold (reference §1.7 CR-CCS: one process per CCS; §4.3 NV-MPS:
/// 48 clients per GPU on Volta+); 0 = no fixed limit (time-slice: memory decides).
unsigned max_residents(SharingMode m);

struct DeviceSpec {
  std::string name; ///< catalog key, e.g. "max1550-aurora-tile"
  std::string description;
  std::string vendor;
  int devices_per_card = 1; ///< tiles per card (2 on Max 1550), 1 on NVIDIA
  Sourced compute_units;    ///< EUs (Intel) or SMs (NVIDIA)
  Sourced memory_bytes;     ///< device memory capacity
  Sourced mem_bandwidth;    ///< achievable bytes/s
  Sourced freq_max_hz;
  Sourced freq_default_hz; ///< operating frequency when no policy sets one
  Sourced freq_min_hz;
  /// The site pins the clock (min = max, reference: zesFrequencySetRange): idle tiles hold it instead of
  /// dropping to freq_min, which raises their static power (models/PowerModel.hpp). Optional key
  /// `freq_pinned`; must equal freq_default. value 0: not pinned.
  Sourced freq_pinned_hz;
  Sourced card_tdp_w;                     ///< card power limit (shared by the card's devices)
  std::vector<SharingMode> sharing_modes; ///< modes this device supports
  /// Names job traces use for this device type (Alibaba openb `gpu_spec` such as "V100M16", PAI `gpu_type`):
  /// a job whose Job::gpu_types lists one of them, or the catalog name, may run on it. Key `trace_names`.
  std::vector<std::string> trace_names;
  /// Speed on deep-learning work relative to an NVIDIA V100 (= 1), the unit of Gavel's measured solo
  /// throughputs (stanford-futuredata/gavel @ c4fa4009). Only ratios matter: on a platform with several
  /// device types, a trace job's duration is its time on the platform's reference type and it runs
  /// relative_throughput(device) / relative_throughput(reference) times as fast elsewhere. Key
  /// `relative_throughput`; value 0 = not given (such a device can only be in a single-type platform).
  Sourced relative_throughput;
  /// "key = value" for each number a user's device file gave plain (no provenance), tagged user-supplied.
  std::vector<std::string> user_supplied;
};

/// Parses a device catalog file (YAML text). Throws InputError with every problem found. Every number of a
/// bundled file (`file` "builtin:...") carries {value, tag, source}; a user's file may give plain numbers.
DeviceSpec load_device_spec(std::string_view yaml_text, const std::string& file);

} // namespace colocsim
