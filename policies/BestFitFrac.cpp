#include "policies/BestFitFrac.hpp"

namespace colocsim {

double BestFitFrac::score(const Request& r, const BucketKey& key, DeviceIndex device) const
{
  const double capacity = mem_capacity(device);
  const double mem_left = capacity > 0 ? (mem_free(device) - r.mem) / capacity : 0.0;
  return 0.5 * (key.free_milli - r.milli) / MILLI_PER_DEVICE + 0.5 * mem_left;
}

} // namespace colocsim
