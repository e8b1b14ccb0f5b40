#pragma once
// heshare: energy-aware GPU sharing with per-job MPS shares and per-GPU DVFS, after HeShare (Jiang, Cai, ...,
// Buyya, IEEE Transactions on Computers 2026; reference §3.2 [HESHARE]: "energy-aware task scheduling
// across heterogeneous GPUs" + "adaptively configures MPS and DVFS settings for each GPU"; −26 % energy,
// −31 % JCT against the state of the art). The paper's full text was not reachable (§3.2: setup NOT FOUND),
// so this is our reading of its abstract, with each rule's knob a parameter:
//
//  * placement — among up to `candidates` devices with a free slot and memory (first-fit order) and, if that
//    window is spent before the last device, the first `devices` idle devices of each device type further on
//    (an index of idle devices, O(log D) each: busy devices never hide an idle one), those where
//    the models predict that sharing slows neither the job nor a co-runner by more than `max_slowdown`
//    (ClusterView::predict, as interference-aware), the one with the least predicted energy for the job:
//    (the device power it adds + its share of the device's present draw, DeviceView::power_w ÷ sharers)
//    × its predicted run time. The present draw stands in for the static power (DeviceView has no static
//    term), so it also charges a share of the co-runners' dynamic power. Busy devices, whose static power is
//    already paid, win over idle ones: jobs pack, idle devices stay idle;
//  * MPS share — each job gets the active-thread percentage it needs, its compute share c plus `headroom`
//    (clamped to [0.01, 1]), so that co-runners' kernels do not crowd it out (ignored outside mps);
//  * DVFS — after every change on a device, its frequency is set to the lowest step of `freq_step_mhz` from
//    the maximum such that every resident's DVFS time factor t(f)/t(f_max) = β·f_max/f + 1 − β stays within
//    `max_time_factor` (β: the job's frequency-sensitive fraction). A memory-bound device (low β) runs at
//    a low clock and saves dynamic power ((f/f_max)^γ) for little time; a compute-bound one stays high.
//    An emptied device returns to its maximum.
// On heterogeneous platforms the energy score compares device types through predict() (their power and
// speed; experiments/repro-heshare). The score is GPU energy only: node baselines do not enter it.
// Intent (also in `colocsim policies`): packs for energy: busy devices (static power already paid) before
// idle ones, within max_slowdown.
#include "policies/SlotPolicy.hpp"

#include <map>

namespace colocsim {

class Heshare final : public SlotPolicy {
public:
  static std::vector<ParamSpec> params();
  explicit Heshare(const ParamSet& params);
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override;

  /// The lowest frequency step (from f_max down by `step`, not below f_min) at which every resident's
  /// t(f)/t(f_max) = β·f_max/f + 1 − β is at most `max_factor`. Exposed for the tests.
  static double frequency_for(const std::vector<double>& betas, double f_min, double f_max, double step,
                              double max_factor);

private:
  std::vector<DeviceIndex> choose(const ClusterView& view, JobIndex j, double mem) override;
  double thread_share(const ClusterView& view, JobIndex j) const override;
  double max_slowdown_, headroom_, max_time_factor_, step_hz_;
  std::size_t candidates_;
};

} // namespace colocsim
