#pragma once
// The platform as the engine sees it: cluster → nodes → cards → devices (DESIGN.md §1 Platform).
// Built from a preset file under sim/platforms/ or an inline scenario section (sim/Scenario.cpp).
#include "models/DeviceSpec.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace colocsim {

struct PlatformDevice {
  std::uint32_t node = 0;
  std::uint32_t card = 0; ///< global card index
  std::uint32_t index_in_card = 0;
  const DeviceSpec* spec = nullptr;
  SharingMode mode = SharingMode::EXCLUSIVE;
};

struct Platform {
  std::string name;
  std::uint32_t nodes = 0;
  std::uint32_t cards_per_node = 0;
  double node_baseline_w = 0; ///< per node: CPUs, DRAM, NICs (from the calibration)
  std::shared_ptr<const DeviceSpec> device_spec;
  std::vector<PlatformDevice> devices;

  /// nodes × cards_per_node × spec.devices_per_card devices, all in `mode`.
  static Platform homogeneous(std::string name, std::uint32_t nodes, std::uint32_t cards_per_node,
                              std::shared_ptr<const DeviceSpec> spec, SharingMode mode);
};

} // namespace colocsim
