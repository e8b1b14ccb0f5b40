#include "sim/engine/IdleWaitMeter.hpp"

#include <stdexcept>
#include <utility>

namespace colocsim {

IdleWaitMeter::IdleWaitMeter(std::size_t type_count, std::vector<std::uint32_t> device_types)
    : types_(type_count), device_types_(std::move(device_types)), idle_(device_types_.size(), false)
{
  if (type_count > 64) throw std::invalid_argument("a platform has at most 64 device types");
  for (const auto t : device_types_)
    if (t >= type_count) throw std::invalid_argument("IdleWaitMeter: a device of an unknown type");
}

void IdleWaitMeter::integrate(double now)
{
  if (now > total_t_) {
    total_s_ += counted_now_ * (now - total_t_);
    total_t_ = now;
  }
}

void IdleWaitMeter::recount(std::size_t t)
{
  auto& tw = types_[t];
  // A gang job counts when one type has enough idle devices for it.
  const bool wanted = tw.single > 0 || (!tw.gangs.empty() && *tw.gangs.begin() <= tw.idle);
  const double counted = wanted ? tw.idle : 0.0;
  counted_now_ += counted - tw.counted;
  tw.counted = counted;
}

void IdleWaitMeter::change_idle(std::size_t d, bool idle, double now)
{
  integrate(now);
  idle_[d] = idle;
  const auto t = device_types_[d];
  auto& tw = types_[t];
  if (idle)
    ++tw.idle;
  else
    --tw.idle;
  recount(t);
}

void IdleWaitMeter::job_waiting(std::uint64_t fitting_types, std::uint32_t size, bool add, double now)
{
  integrate(now);
  for (std::size_t t = 0; t < types_.size(); ++t) {
    if (!((fitting_types >> t) & 1U)) continue;
    auto& tw = types_[t];
    if (size == 1) {
      if (add)
        ++tw.single;
      else
        --tw.single;
    } else if (add) {
      tw.gangs.insert(size);
    } else {
      tw.gangs.erase(tw.gangs.find(size));
    }
    recount(t);
  }
}

double IdleWaitMeter::total(double now)
{
  integrate(now);
  return total_s_;
}

} // namespace colocsim
