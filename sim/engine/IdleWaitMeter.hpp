#pragma once
// The idle-while-waiting meter of the engine (RunTotals::idle_while_waiting_device_s; docs/architecture.md,
// The engine's components): device-seconds during which a device had no job and was available while a
// waiting job could have run on it. It owns, per device type, the idle available devices and the waiting
// jobs that fit that type, and integrates exactly between the engine's events (never a scan of the
// cluster). A subscriber of the engine's events: a device's residents or availability changed (it may have
// become idle or busy) and a job joined or left the queue, each with the simulated time of the change.
#include "sim/engine/EngineEvents.hpp"

#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

namespace colocsim {

class IdleWaitMeter final : public EngineSubscriber {
public:
  /// `device_types[d]`: the type index of device d (< `type_count`, at most 64 types). Every device starts
  /// busy (not idle): the engine reports each device's state once before the first event.
  IdleWaitMeter(std::size_t type_count, std::vector<std::uint32_t> device_types);
  IdleWaitMeter() = default; ///< no devices, no types (replaced before the run)

  EngineEventSet events() const override
  {
    return {EngineEvent::RESIDENTS_CHANGED, EngineEvent::AVAILABILITY_CHANGED, EngineEvent::QUEUE_CHANGED};
  }
  void residents_changed(const ResidentsChanged& e) override { device_idle(e.device, e.idle, e.t_s); }
  void availability_changed(const AvailabilityChanged& e) override { device_idle(e.device, e.idle, e.t_s); }
  void queue_changed(const QueueChanged& e) override
  {
    job_waiting(e.fitting_types, e.size, e.joined, e.t_s);
  }

  /// Device d is now idle (no job, available) or not, at sim time `now`. No change: nothing happens.
  void device_idle(std::size_t d, bool idle, double now)
  {
    if (idle != idle_[d]) change_idle(d, idle, now); // inline: asked for every device an event touches
  }
  /// A job of `size` devices joined (add) or left the queue at sim time `now`; `fitting_types` has bit t set
  /// when one device of type t could take it (a type it accepts whose memory holds it).
  void job_waiting(std::uint64_t fitting_types, std::uint32_t size, bool add, double now);
  /// Device-seconds integrated up to sim time `now` (brings the integral up to `now`).
  double total(double now);
  /// Devices that count now (idle, and some waiting job fits them).
  double counting_now() const { return counted_now_; }

private:
  struct TypeWait {
    std::uint32_t idle = 0;             ///< devices with no job, available (node on, not repartitioning)
    std::uint32_t single = 0;           ///< waiting one-device jobs that fit this type
    std::multiset<std::uint32_t> gangs; ///< sizes of the waiting gang jobs that fit this type
    double counted = 0;                 ///< idle devices that count now: idle if some waiting job fits them
  };
  void change_idle(std::size_t d, bool idle, double now);
  void integrate(double now);
  void recount(std::size_t t);

  std::vector<TypeWait> types_;
  std::vector<std::uint32_t> device_types_;
  std::vector<bool> idle_;           ///< per device: counted in its type's `idle`
  double counted_now_ = 0;           ///< Σ counted
  double total_s_ = 0, total_t_ = 0; ///< device-seconds integrated up to sim time total_t_
};

} // namespace colocsim
