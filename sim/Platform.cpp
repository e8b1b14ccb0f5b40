#include "sim/Platform.hpp"

namespace colocsim {

Platform Platform::homogeneous(std::string name, std::uint32_t nodes, std::uint32_t cards_per_node,
                               std::shared_ptr<const DeviceSpec> spec, SharingMode mode)
{
  Platform p;
  p.name = std::move(name);
  p.nodes = nodes;
  p.cards_per_node = cards_per_node;
  p.device_spec = std::move(spec);
  const auto per_card = static_cast<std::uint32_t>(p.device_spec->devices_per_card);
  p.devices.reserve(static_cast<std::size_t>(nodes) * cards_per_node * per_card);
  for (std::uint32_t n = 0; n < nodes; ++n)
    for (std::uint32_t c = 0; c < cards_per_node; ++c)
      for (std::uint32_t t = 0; t < per_card; ++t)
        p.devices.push_back(PlatformDevice{n, n * cards_per_node + c, t, p.device_spec.get(), mode});
  return p;
}

} // namespace colocsim
