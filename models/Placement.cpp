#include "models/Placement.hpp"

#include <algorithm>

namespace colocsim {

DevicePrediction predict_device(SharingMode mode, const TimeSliceParams& ts, const InterferenceModel& model,
                                std::span<const ResourceSignature* const> residents,
                                std::span<const double> caps, std::span<double> slow)
{
  compute_slowdowns(mode, ts, model, residents, slow, caps);
  // Each job alone on this device in its mode (with its cap): what sharing adds is the ratio.
  auto alone = [&](std::size_t i) {
    const ResourceSignature* one[] = {residents[i]};
    double s = 1;
    compute_slowdowns(mode, ts, model, one, std::span<double>(&s, 1),
                      caps.empty() ? caps : caps.subspan(i, 1));
    return s;
  };
  DevicePrediction p;
  const std::size_t n = residents.size();
  p.job_slowdown = slow[n - 1];
  p.job_interference = slow[n - 1] / alone(n - 1);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    p.max_corunner_slowdown = std::max(p.max_corunner_slowdown, slow[i]);
    p.max_corunner_interference = std::max(p.max_corunner_interference, slow[i] / alone(i));
  }
  return p;
}

} // namespace colocsim
