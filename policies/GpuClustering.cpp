#include "policies/GpuClustering.hpp"

namespace colocsim {

double GpuClustering::score(const Request& r, const BucketKey& key, DeviceIndex) const
{
  const std::uint8_t mine = tag_bit(r.tag);
  int rank = 3; // only other types
  if (key.node_tags == mine)
    rank = 0;
  else if (key.node_tags & mine)
    rank = 1;
  else if (key.node_tags == 0)
    rank = 2;
  return rank * 2.0 + key.free_milli / double(MILLI_PER_DEVICE); // free share in (0, 1]
}

} // namespace colocsim
