#include "sim/Platform.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>

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

std::string device_types(const Platform& p)
{
  if (!p.heterogeneous()) return p.types.front().spec->name;
  std::ostringstream os;
  for (std::size_t t = 0; t < p.types.size(); ++t) {
    os << (t ? ", " : "") << p.types[t].spec->name;
    if (t == 0)
      os << " (reference)";
    else
      os << " (" << std::setprecision(3) << p.types[t].speed << "x)";
  }
  return os.str();
}

CommPlacement Network::placement_of(std::span<const std::uint32_t> node_of_devices) const
{
  // Small gangs: count per node in a sorted copy (no map).
  std::vector<std::uint32_t> nodes(node_of_devices.begin(), node_of_devices.end());
  std::sort(nodes.begin(), nodes.end());
  CommPlacement at{0, 0, 0, 0};
  std::uint32_t last_leaf = 0;
  int in_leaf = 0;
  for (std::size_t i = 0; i < nodes.size();) {
    std::size_t j = i;
    while (j < nodes.size() && nodes[j] == nodes[i])
      ++j;
    ++at.nodes;
    at.per_node = std::max(at.per_node, static_cast<int>(j - i));
    const std::uint32_t leaf = nodes_per_leaf == 0 ? 0 : nodes[i] / nodes_per_leaf;
    if (at.switches == 0 || leaf != last_leaf) { // nodes sorted: leaves ascend
      ++at.switches;
      in_leaf = 0;
    }
    at.per_leaf = std::max(at.per_leaf, ++in_leaf);
    last_leaf = leaf;
    i = j;
  }
  if (at.nodes == 0) return CommPlacement{};
  return at;
}

CommPlacement Network::packed(CommPlacement at) const
{
  if (nodes_per_leaf == 0 || static_cast<std::uint32_t>(at.nodes) <= nodes_per_leaf) {
    at.switches = 1;
    at.per_leaf = at.nodes;
    return at;
  }
  const auto k = static_cast<std::uint32_t>(at.nodes);
  at.switches = static_cast<int>((k + nodes_per_leaf - 1) / nodes_per_leaf);
  at.per_leaf = static_cast<int>(nodes_per_leaf);
  return at;
}

} // namespace colocsim
