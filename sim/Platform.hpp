#pragma once
// The platform as the engine sees it: cluster → nodes → cards → devices (docs/architecture.md, Platform).
// Built from a preset file under sim/platforms/ or a platform file (sim/Scenario.cpp). A platform has one or
// more device types (a heterogeneous cluster such as Alibaba's openb has seven): each device points at its
// type, which carries the type's hardware facts and the models calibrated for it.
#include "models/Communication.hpp"
#include "models/DeviceSpec.hpp"
#include "models/Interference.hpp"
#include "models/Mig.hpp"
#include "models/PowerModel.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace colocsim {

/// One device type of a platform and the models that apply to its devices.
struct DeviceType {
  std::shared_ptr<const DeviceSpec> spec;
  PowerParams power;          ///< from the type's calibration
  TimeSliceParams time_slice; ///< from the type's calibration
  /// Interference among co-runners on devices of this type (from the type's calibration for `table`).
  std::shared_ptr<const InterferenceModel> interference;
  std::shared_ptr<const MigGeometry> mig; ///< the MIG table, for types with devices in mig mode
  MigLayout mig_layout;                   ///< the instances a mig device of this type starts with
  /// Speed relative to the platform's reference type (1 for it; trace durations are times on it):
  /// DeviceSpec::relative_throughput of this type ÷ that of the reference type.
  double speed = 1.0;
  double node_baseline_w = 0;   ///< a node of this type's devices: CPUs, DRAM, NICs (from the calibration)
  std::string calibration;      ///< calibration name, for the outputs
  std::string calibration_file; ///< where it was read from
  /// Job::gpu_types names that select this type: the catalog name and the spec's trace_names.
  bool answers_to(std::string_view name) const;
};

struct PlatformDevice {
  std::uint32_t node = 0;
  std::uint32_t card = 0; ///< global card index
  std::uint32_t index_in_card = 0;
  const DeviceSpec* spec = nullptr; ///< == types[type].spec.get()
  SharingMode mode = SharingMode::EXCLUSIVE;
  std::uint16_t type = 0; ///< index into Platform::types
};

/// A platform's network (docs/formats/platform.md, Network): the tiers of the communication model
/// (models/Communication.hpp) built from the platform file's declared fabric, NICs and optional spine.
struct Network {
  CommTiers tiers;
  /// Nodes under one leaf switch (node i hangs off leaf i / nodes_per_leaf); 0: no spine, every node under
  /// one switch.
  std::uint32_t nodes_per_leaf = 0;
  /// The placement of a job on `devices` (of `platform`): k distinct nodes, g the most devices on one node
  /// (a gang spread unevenly is costed as if every node held that many: its slowest rank sets the step), the
  /// leaf switches its nodes hang off and the most of its nodes under one. Empty devices: one rank on one
  /// node.
  CommPlacement placement_of(std::span<const std::uint32_t> node_of_devices) const;
  /// `at`'s nodes packed from node 0: `at` with the leaf switches they hang off (1 without a spine) and the
  /// most of them under one.
  CommPlacement packed(CommPlacement at) const;
};

struct Platform {
  std::string name;
  std::uint32_t nodes = 0;
  std::vector<DeviceType> types; ///< at least one; types[0] is the reference type
  std::vector<PlatformDevice> devices;
  std::vector<double> node_baseline_w; ///< per node: CPUs, DRAM, NICs (from its devices' calibration)
  /// The platform file's `network:`; none: multi-node jobs communicate for free (as before it existed).
  std::optional<Network> network;

  /// Appends `nodes` nodes of `cards_per_node` cards of type `type` (spec.devices_per_card devices each), in
  /// `mode`, each node drawing `baseline_w`.
  void add_nodes(std::uint16_t type, std::uint32_t nodes, std::uint32_t cards_per_node, SharingMode mode,
                 double baseline_w);
  bool heterogeneous() const { return types.size() > 1; }
  const DeviceType& type_of(std::uint32_t device) const { return types[devices[device].type]; }
};

/// Its device types for messages: "max1550-aurora-tile", or for several types "v100-sxm2-16gb (reference),
/// t4 (0.26x), ..." with their speeds.
std::string device_types(const Platform& p);

} // namespace colocsim
