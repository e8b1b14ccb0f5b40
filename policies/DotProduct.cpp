#include "policies/DotProduct.hpp"

namespace colocsim {

double DotProduct::score(const Request& r, const BucketKey& key, DeviceIndex device) const
{
  const double capacity = mem_capacity(device);
  const double mem_term = capacity > 0 ? (mem_free(device) / capacity) * (r.mem / capacity) : 0.0;
  return (key.free_milli / double(MILLI_PER_DEVICE)) * (r.milli / double(MILLI_PER_DEVICE)) + mem_term;
}

} // namespace colocsim
