#include "sim/Platform.hpp"

#include <algorithm>

namespace colocsim {

bool DeviceType::answers_to(std::string_view name) const
{
  return name == spec->name ||
         std::find(spec->trace_names.begin(), spec->trace_names.end(), name) != spec->trace_names.end();
}

void Platform::add_nodes(std::uint16_t type, std::uint32_t count, std::uint32_t cards_per_node,
                         SharingMode mode, double baseline_w)
{
  const DeviceSpec* spec = types.at(type).spec.get();
  const auto per_card = static_cast<std::uint32_t>(spec->devices_per_card);
  std::uint32_t card = devices.empty() ? 0 : devices.back().card + 1;
  devices.reserve(devices.size() + static_cast<std::size_t>(count) * cards_per_node * per_card);
  for (std::uint32_t n = 0; n < count; ++n, ++nodes) {
    for (std::uint32_t c = 0; c < cards_per_node; ++c, ++card)
      for (std::uint32_t t = 0; t < per_card; ++t)
        devices.push_back(PlatformDevice{nodes, card, t, spec, mode, type});
    node_baseline_w.push_back(baseline_w);
  }
}

} // namespace colocsim
