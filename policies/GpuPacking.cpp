#include "policies/GpuPacking.hpp"

namespace colocsim {

double GpuPacking::score(const Request&, const BucketKey& key, DeviceIndex) const
{
  if (key.free_milli < MILLI_PER_DEVICE) return key.free_milli / double(MILLI_PER_DEVICE); // [0, 1)
  return key.node_tags != 0 ? 2.0 : 3.0;
}

} // namespace colocsim
