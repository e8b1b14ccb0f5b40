#include "sim/engine/MigInstances.hpp"

#include <algorithm>
#include <utility>

namespace colocsim {

void MigInstances::reset(const MigLayout& layout)
{
  layout_ = layout;
  job_.assign(layout.size(), -1);
  ready_.assign(layout.size(), 0.0);
}

void MigInstances::clear()
{
  layout_.clear();
  job_.clear();
  ready_.clear();
}

std::vector<bool> MigInstances::busy() const
{
  std::vector<bool> busy;
  for (auto g : job_)
    busy.push_back(g >= 0);
  return busy;
}

std::optional<std::size_t> MigInstances::largest_free(const MigGeometry& geo, double limit,
                                                      std::size_t skip) const
{
  const auto sms = [&](std::size_t i) { return geo.profiles()[layout_[i].profile].sms; };
  if (skip == 0) { // the common case, without a list
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < layout_.size(); ++i)
      if (job_[i] < 0 && ready_[i] <= limit && (!best || sms(i) > sms(*best))) best = i;
    return best;
  }
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < layout_.size(); ++i)
    if (job_[i] < 0 && ready_[i] <= limit) order.push_back(i);
  if (skip >= order.size()) return std::nullopt;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return sms(a) > sms(b); });
  return order[skip];
}

std::vector<std::int64_t> MigInstances::reconfigure(const MigGeometry& geo, const MigChange& change,
                                                    double now)
{
  // Kept instances keep their jobs and their (shifted) indices; created ones are usable after the table's
  // reconfiguration latency; the other instances keep running meanwhile.
  std::vector<std::int64_t> remap(layout_.size(), -1);
  std::vector<std::int64_t> job;
  std::vector<double> ready;
  for (std::size_t i = 0; i < layout_.size(); ++i)
    if (std::find(change.destroy.begin(), change.destroy.end(), i) == change.destroy.end()) {
      remap[i] = static_cast<std::int64_t>(job.size());
      job.push_back(job_[i]);
      ready.push_back(ready_[i]);
    }
  const double at = now + geo.reconfiguration_latency_s();
  for (std::size_t c = 0; c < change.create.size(); ++c) {
    job.push_back(-1);
    ready.push_back(at);
  }
  layout_ = geo.apply(layout_, change);
  job_ = std::move(job);
  ready_ = std::move(ready);
  return remap;
}

} // namespace colocsim
