#pragma once
// heshare: energy-aware GPU sharing with per-job MPS shares and per-GPU DVFS, after HeShare (Jiang, Cai, ...,
// Buyya, IEEE Transactions on Computers 2026; reference §3.2 [HESHARE]: "energy-aware task scheduling
// across heterogeneous GPUs" + "adaptively configures MPS and DVFS settings for each GPU"; −26 % energy,
// −31 % JCT against the state of the art). The paper's full text was not reachable (§3.2: setup NOT FOUND),
// so this is our reading of its abstract, with each rule's knob a parameter:
//
//  * placement — a multi-objective score, energy and performance as the paper balances them: among up to
//    `candidates` devices with a free slot and memory (first-fit order) and, if that window is spent before
//    the last device, the first `devices` idle devices of each device type further on (an index of idle
//    devices, O(log D) each: busy devices never hide an idle one), those where the models predict that
//    sharing slows neither the job nor a co-runner by more than `max_slowdown` (ClusterView::predict, as
//    interference-aware), the one of least score() (below):
//      t = estimate ÷ predicted rate (the device type's speed, the sharing slowdown, the clock),
//      E = (the device power it adds + its share of the device's present draw, power_w ÷ sharers) · t,
//      D = co-runners · t · (1 − 1/their predicted interference) (the delay it causes them),
//      score = E + time_price_w · (t + D).
//    The present draw stands in for the static power (DeviceView has no static term). time_price_w (default
//    200 W) prices a second of job time at the node power that runs meanwhile: nodes are not visible to
//    policies, and a GPU's share of its node's baseline is ~200 W on the bundled calibrations (1650 W / 8
//    A100s, 670 W / 2 T4s, 206 W / 4 V100s: estimates, calibration/data). Without it (time_price_w=0) a slow
//    frugal GPU looks cheapest: on a T4 a job draws less but runs 4.8× longer than on an A100, and the
//    node's power for that time is not counted (experiments/repro-heshare);
//  * waiting for a faster device (`wait_for_faster`) — when a single-device job's best option is on a
//    slower device type than one it accepts, each device of the faster types that cannot take it now is
//    scored as if the job started there when its first resident ends (predicted from the residents'
//    starts and predicted rates, scored with today's residents: conservative), plus time_price_w × the
//    wait; if one scores less, the job waits at the queue head (strict FCFS);
//  * MPS share — each job gets the active-thread percentage it needs, its compute share c plus `headroom`
//    (clamped to [0.01, 1]), so that co-runners' kernels do not crowd it out (ignored outside mps);
//  * DVFS — after every change on a device, among the steps of `freq_step_mhz` down from the maximum that
//    keep every resident's time factor F = t(f)/t(f_max) = β·f_max/f + 1 − β within `max_time_factor`
//    (β: the job's frequency-sensitive fraction; "ensuring task performance"), the one of least
//    energy_frequency() cost: the device's power (its idle draw + the residents' added power × (f/f_max)^γ)
//    × the slowest F + time_price_w × Σ F. A memory-bound device (low β) runs at a low clock and saves
//    dynamic power for little time; a compute-bound one stays high when the time costs more than the power
//    saved. An emptied device returns to its maximum. γ (default 2.5) is the bundled calibrations' exponent.
// Intent (also in `colocsim policies`): packs for energy and time: least predicted energy plus priced
// completion time, within max_slowdown.
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
  /// One resident of a device as the DVFS step sees it: its frequency-sensitive fraction β and the power it
  /// added to the device when placed (at the device's clock then).
  struct Resident {
    double beta, power_w;
  };
  /// The DVFS step: among the steps from f_max down by `step` that frequency_for() allows, the f of least
  ///   cost(f) = (idle_w + Σ power_w · (f/f_max)^γ) · max_r F_r(f) + time_price_w · Σ_r F_r(f),
  /// F_r(f) = β_r·f_max/f + 1 − β_r (the highest f on a tie). Exposed for the tests.
  static double energy_frequency(const std::vector<Resident>& residents, double idle_w, double f_min,
                                 double f_max, double step, double max_factor, double time_price_w,
                                 double gamma);
  /// The placement score (J; the least wins) of a job predicted as `p` on a device drawing `device_power_w`
  /// now with `co_runners` jobs on it, for a job of run time `estimate_s` on the reference type:
  ///   t = estimate_s / p.job_rate                     (its run time there: speed, sharing and DVFS)
  ///   E = (p.added_power_w + device_power_w / (1 + co_runners)) · t
  ///   D = co_runners · t · (1 − 1 / p.max_corunner_interference)
  ///   score = E + time_price_w · (t + D).
  /// Exposed for the tests.
  static double score(const PlacementPrediction& p, double device_power_w, double co_runners,
                      double estimate_s, double time_price_w);
  static double frequency_for(const std::vector<double>& betas, double f_min, double f_max, double step,
                              double max_factor);

private:
  std::vector<DeviceIndex> choose(const ClusterView& view, JobIndex j, double mem) override;
  double thread_share(const ClusterView& view, JobIndex j) const override;
  void initialised(const ClusterView& view) override;
  void on_job_moved(const ClusterView& view, JobIndex j, const std::vector<DeviceIndex>& devices,
                    int sign) override;
  /// Seconds until the first of device d's residents ends, from each one's start and the rate predicted at
  /// its placement (infinity if none of them was placed by this policy).
  double free_in(const ClusterView& view, DeviceIndex d) const;
  double max_slowdown_, headroom_, max_time_factor_, step_hz_, time_price_w_, gamma_;
  bool wait_for_faster_;
  struct Started {
    double start_s, rate, power_w; ///< its start, predicted rate and added power at placement
  };
  std::map<JobIndex, Started> started_; ///< this policy's running jobs
  double pending_rate_ = 1;             ///< the predicted rate of the job choose() returned last
  double pending_power_w_ = 0;          ///< and the power it adds to its (first) device
  std::vector<double> idle_w_;          ///< each device's draw with no job, when the policy started
  std::vector<double> type_speed_;      ///< by device type
  std::vector<std::vector<DeviceIndex>> type_devices_;
  std::size_t candidates_;
};

} // namespace colocsim
