#include "sim/engine/DeviceMeter.hpp"

#include <algorithm>

namespace colocsim {

double DeviceMeter::advance(double now, double power_w, std::size_t residents)
{
  const double dt = now - last_t_;
  if (dt <= 0) return 0;
  energy_j_ += power_w * dt;
  if (residents > 0) {
    busy_s_ += dt;
    resident_s_ += static_cast<double>(residents) * dt;
    allocated_s_ += std::min(1.0, share_) * dt;
    if (share_ < 1.0 - 1e-9) fragmented_s_ += (1.0 - share_) * dt;
  }
  last_t_ = now;
  return dt;
}

} // namespace colocsim
