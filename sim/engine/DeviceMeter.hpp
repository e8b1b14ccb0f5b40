#pragma once
// The time integrals of one device (docs/architecture.md, The engine's components): energy, busy time,
// residents × time, allocated and fragmented capacity (RunTotals), each integrated exactly between the
// engine's events. The engine brings a device's meter up to date (advance) before anything that changes its
// power, residents or allocated share, and attributes the same interval's energy to the residents itself.
#include <algorithm>
#include <cstddef>

namespace colocsim {

class DeviceMeter {
public:
  /// Integrates from the last call up to sim time `now` at the state of that interval: `power_w` drawn,
  /// `residents` jobs on the device, the allocated share held. Returns the seconds integrated (0 when `now`
  /// is not later than the last call: nothing changes).
  double advance(double now, double power_w, std::size_t residents)
  {
    // Inline: called for every device an event touches.
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
  /// The residents' requested shares (gpu_milli / 1000, or a mig instance's SM fraction), summed.
  void add_share(double share) { share_ += share; }
  void remove_share(double share) { share_ -= share; }
  void clear_share() { share_ = 0; } ///< no residents left: no drift from repeated add/subtract
  double share() const { return share_; }

  double energy_j() const { return energy_j_; }
  double busy_s() const { return busy_s_; }             ///< time with at least one resident
  double resident_s() const { return resident_s_; }     ///< Σ residents × time
  double allocated_s() const { return allocated_s_; }   ///< ∫ min(1, share) dt while busy
  double fragmented_s() const { return fragmented_s_; } ///< ∫ (1 − share) dt while 0 < share < 1

private:
  double last_t_ = 0; ///< integrated up to here (sim time)
  double share_ = 0;
  double energy_j_ = 0, busy_s_ = 0, resident_s_ = 0, allocated_s_ = 0, fragmented_s_ = 0;
};

} // namespace colocsim
