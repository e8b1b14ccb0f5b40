#include "models/Interference.hpp"

#include <algorithm>
#include <vector>

namespace colocsim {

double TableInterference::factor(const ResourceSignature& job, std::span<const ResourceSignature* const> others) const
{
  double f = 1.0;
  for (const auto* o : others)
    f += pair(job.job_class, o->job_class) - 1.0;
  return std::max(1.0, f);
}

double sharing_factor(SharingMode mode, const TimeSliceParams& ts, std::span<const ResourceSignature* const> residents,
                      std::size_t i)
{
  if (mode == SharingMode::EXCLUSIVE || residents.size() <= 1)
    return 1.0;
  double sum_d = 0;
  for (const auto* r : residents)
    sum_d += r->duty_cycle;
  const double d_j = residents[i]->duty_cycle;
  const double others = sum_d - d_j;
  const double f = std::max({1.0, sum_d, 1.0 + ts.collision.value * d_j * others});
  return f * (1.0 + ts.switch_overhead.value);
}

void compute_slowdowns(SharingMode mode, const TimeSliceParams& ts, const InterferenceModel& model,
                       std::span<const ResourceSignature* const> residents, std::span<double> out)
{
  std::vector<const ResourceSignature*> others;
  others.reserve(residents.size());
  for (std::size_t i = 0; i < residents.size(); ++i) {
    others.clear();
    for (std::size_t k = 0; k < residents.size(); ++k)
      if (k != i)
        others.push_back(residents[k]);
    out[i] = sharing_factor(mode, ts, residents, i) * model.factor(*residents[i], others);
  }
}

} // namespace colocsim
