#pragma once
// exclusive-easy: EASY backfilling (Lifka, "The ANL/IBM SP scheduling system", JSSPP 1995; Mu'alem &
// Feitelson, IEEE TPDS 2001). Jobs get whole devices of their own, in submission order; when the queue
// head does not fit, it gets a reservation at the earliest time enough devices will be free (the "shadow
// time", from the running jobs' expected ends), and later jobs may start now if they fit in the free
// devices and either end before the shadow time or use only devices the head will not need then. On a
// platform of several device types the reservation counts only devices of the types the head accepts, and
// a backfilled job that outlasts the shadow time may take any number of devices of other types.
// Runtime estimates: ClusterView::estimate (workload.estimates: the trace's duration by default, perfect
// estimates, the classic EASY upper bound; or the users' requested times; or Tsafrir et al.'s predictions)
// divided by the rate the engine will run the job at on the chosen devices (PlacementPrediction::job_rate:
// device speed relative to the type its duration was taken on, the models' slowdown, and the gang scaling
// efficiency e(n) where durations leave it out), and at most its time limit (the engine kills it there).
// A job still running after its expected end is then expected at its time limit, or at any moment.
// Every waiting job behind the head is examined per decision (O(queue · log D)); the option `window` caps
// that at its first `window` jobs, so a decision costs O(window · log D) whatever the queue length.
#include "base/Params.hpp"
#include "policies/FcfsQueue.hpp"
#include "policies/GangPlacement.hpp"
#include "policies/Policy.hpp"

#include <map>
#include <optional>
#include <set>

namespace colocsim {

class ExclusiveEasy final : public Policy {
public:
  static std::vector<ParamSpec> params();
  explicit ExclusiveEasy(const ParamSet& params);
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override;

  /// The queue head's reservation when the last decide() backfilled a job past it (none otherwise): with
  /// exact estimates the head starts by `shadow_s` (tests check this property on random traces).
  struct Reservation {
    JobIndex head = 0;
    double shadow_s = 0;
  };
  const std::optional<Reservation>& backfill_reservation() const { return backfill_reservation_; }

private:
  using Ends = std::multimap<double, std::pair<JobIndex, std::vector<DeviceIndex>>>;
  /// The free devices job j would start on now (its lowest-index available ones of its types, a gang's by
  /// the placement rule), leaving out `held`; or fewer.
  std::vector<DeviceIndex> pick(const ClusterView& view, JobIndex j,
                                const std::set<DeviceIndex>& held = {}) const;
  /// The devices the head would start on at the shadow time under the placement rule: among the free
  /// devices and those the jobs ending by then free, by the same rule as pick().
  std::vector<DeviceIndex> reserve(const ClusterView& view, JobIndex head, Ends::const_iterator last) const;
  /// The time job j would end if it started now on `devices`.
  double expected_end(const ClusterView& view, JobIndex j, const std::vector<DeviceIndex>& devices) const;
  void start(JobIndex j, std::vector<DeviceIndex> devices, double end, std::vector<Decision>& out);
  /// Starts job j now if its devices are free (FCFS).
  bool try_start(const ClusterView& view, JobIndex j, std::vector<Decision>& out);
  void finish(JobIndex j, const std::vector<DeviceIndex>& devices);

  std::size_t window_;
  bool initialised_ = false;
  FcfsQueue queue_;
  std::set<DeviceIndex> free_;
  NodeShape nodes_;
  Ends ends_;                                                     ///< expected end → (job, devices held)
  std::map<JobIndex, std::pair<Ends::iterator, double>> running_; ///< → (its entry in ends_, start time)
  double now_ = 0;
  std::optional<Reservation> backfill_reservation_;
};

} // namespace colocsim
