#include "policies/Fgd.hpp"

#include <algorithm>

namespace colocsim {

void Fgd::on_submitted(const ClusterView& view, JobIndex j)
{
  ++count_[static_cast<std::size_t>(std::clamp(view.job(j).gpu_milli, 1, MILLI_PER_DEVICE))];
  ++total_;
  dirty_ = true;
}

void Fgd::prepare(const Request&)
{
  if (!dirty_) return;
  std::uint64_t larger = 0; // jobs with a share > f
  for (int f = MILLI_PER_DEVICE; f >= 0; --f) {
    table_[static_cast<std::size_t>(f)] = f * static_cast<double>(larger) / static_cast<double>(total_);
    larger += count_[static_cast<std::size_t>(f)];
  }
  dirty_ = false;
}

double Fgd::score(const Request& r, const BucketKey& key, DeviceIndex) const
{
  const int after = key.free_milli - r.milli;
  const double f_after = key.last_slot ? after : fragmentation(after);
  return f_after - fragmentation(key.free_milli);
}

} // namespace colocsim
