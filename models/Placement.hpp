#pragma once
// What the models predict for a job placed on one shared device (not a mig instance): its slowdown next to
// the device's residents, how much of it is due to sharing, and the same for the residents. The one
// prediction behind ClusterView::predict, used by the engine and by the policies' test double alike.
#include "models/Interference.hpp"

#include <span>

namespace colocsim {

/// The slowdowns on one device once the job is placed (sharing and interference models, no frequency).
struct DevicePrediction {
  double job_slowdown = 1; ///< the placed job's
  /// The placed job's slowdown ÷ its slowdown alone on the device in the same mode (and with its cap).
  double job_interference = 1;
  double max_corunner_slowdown = 0;     ///< the worst among the residents afterwards (0: none)
  double max_corunner_interference = 0; ///< likewise, ÷ each resident's slowdown alone (0: none)
};

/// `residents`: the jobs on the device with the placed job LAST; `caps` their thread shares (empty: all 1);
/// `slow` (residents.size()) receives every job's slowdown (compute_slowdowns), for the power model.
DevicePrediction predict_device(SharingMode mode, const TimeSliceParams& ts, const InterferenceModel& model,
                                std::span<const ResourceSignature* const> residents,
                                std::span<const double> caps, std::span<double> slow);

} // namespace colocsim
