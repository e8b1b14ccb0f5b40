#include "policies/Complementary.hpp"

#include "policies/MaxWeightMatching.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace colocsim {

std::vector<ParamSpec> Complementary::params()
{
  return {ParamSpec{.name = "window",
                    .type = ParamType::INT,
                    .default_text = "16",
                    .help = "waiting jobs considered for pairing per decision (the matching is cubic in it)",
                    .min = 2,
                    .max = 256}};
}

Complementary::Complementary(const ParamSet& p) : window_(static_cast<std::size_t>(p.integer("window"))) {}

void Complementary::release(const std::vector<DeviceIndex>& devices)
{
  for (auto d : devices) {
    const auto left = --occupants_[d];
    if (left == 0) {
      free_.insert(d);
      half_.erase(d);
    } else if (left == 1) { // a pair's partner ended: the one left is a single-device job
      half_.insert(d);
    }
  }
}

std::optional<DeviceIndex> Complementary::take(const ClusterView& view, JobIndex a, std::optional<JobIndex> b)
{
  for (auto it = free_.begin(); it != free_.end();) {
    if (!view.device(*it).available) { // repartitioning or its node is off: aside until it is back
      aside_.insert(*it);
      it = free_.erase(it);
      continue;
    }
    if (view.allows(a, *it) && (!b || view.allows(*b, *it))) {
      const DeviceIndex d = *it;
      free_.erase(it);
      return d;
    }
    ++it;
  }
  return std::nullopt;
}

std::optional<DeviceIndex> Complementary::first_available(const ClusterView& view)
{
  while (!free_.empty() && !view.device(*free_.begin()).available) {
    aside_.insert(*free_.begin());
    free_.erase(free_.begin());
  }
  if (free_.empty()) return std::nullopt;
  return *free_.begin();
}

void Complementary::restore_available(const ClusterView& view)
{
  for (auto it = aside_.begin(); it != aside_.end();)
    if (view.device(*it).available) {
      free_.insert(*it);
      it = aside_.erase(it);
    } else
      ++it;
}

std::vector<Decision> Complementary::decide(const ClusterView& view, std::span<const Event> events)
{
  if (!initialised_) {
    occupants_.assign(view.device_count(), 0);
    for (DeviceIndex d = 0; d < view.device_count(); ++d)
      if (view.device(d).residents == 0) free_.insert(free_.end(), d);
    initialised_ = true;
  }
  std::vector<Decision> out;
  queue_.handle(view, events, out,
                [&](JobIndex, const std::vector<DeviceIndex>& devices) { release(devices); });
  // A device becomes available again only with one of these events (a node booted, a repartitioning done);
  // one becomes unavailable only when its node is powered off or it is repartitioned, and is then moved
  // aside when it is met in free_. No decision scans the free devices (it did, O(free devices) per call).
  for (const auto& e : events)
    if (const auto* np = std::get_if<NodePowered>(&e);
        (np && np->on) || std::holds_alternative<DeviceRepartitioned>(e)) {
      restore_available(view);
      break;
    }
  // Single-device jobs placed alone in this call, by device: not residents yet (the engine applies the
  // decisions after decide() returns), so the fill below names them to predict() itself.
  std::map<DeviceIndex, JobIndex> placed_alone;
  auto place = [&](JobIndex j, std::vector<DeviceIndex> devices) {
    for (auto d : devices)
      ++occupants_[d];
    if (devices.size() == 1) {
      const DeviceIndex d = devices[0];
      if (occupants_[d] == 1) {
        half_.insert(d);
        placed_alone[d] = j;
      } else {
        half_.erase(d);
        placed_alone.erase(d);
      }
    }
    queue_.erase(j);
    out.push_back(Place{j, std::move(devices)});
  };

  while (!queue_.empty() && !free_.empty()) {
    // Multi-device jobs at the head run alone, in submission order.
    const JobIndex head = queue_.front();
    const auto need = static_cast<std::size_t>(view.job(head).devices);
    if (need > 1) {
      if (free_.size() < need) break;
      std::vector<DeviceIndex> devices;
      while (devices.size() < need)
        if (const auto d = take(view, head))
          devices.push_back(*d);
        else
          break;
      if (devices.size() < need) { // not enough empty devices of the types it accepts: wait, in order
        free_.insert(devices.begin(), devices.end());
        break;
      }
      place(head, std::move(devices));
      continue;
    }
    // The single-device jobs among the first `window` waiting: pair them by maximum-weight matching.
    std::vector<JobIndex> jobs;
    std::size_t examined = 0;
    for (auto it = queue_.begin(); it != queue_.end() && examined < window_; ++it, ++examined)
      if (view.job(*it).devices == 1) jobs.push_back(*it);
    const auto first = first_available(view);
    if (!first) break;
    const DeviceIndex probe = *first; // an empty device stands for all of them (of any type)
    // Equal savings tie (equal jobs, ms rounding): on the 100,000-job bench (--tiles 200 --load 1.5),
    // 1.7% of Boost 1.74's matchings differed from this code's at equal weight, enough to move the
    // makespan from 787,470 s to 787,552 s. Among the matchings that save the most, take the one whose
    // partners sit closest in submission order (least Σ (b − a) over pairs), so that the choice is the
    // policy's, not the matching code's: weight = saved_ms · scale − (b − a), with scale above any
    // matching's Σ (b − a) ≤ n²/4.
    const auto n = static_cast<long long>(jobs.size());
    const long long scale = n * n / 4 + 1;
    std::vector<WeightedEdge> edges;
    for (std::size_t a = 0; a < jobs.size(); ++a) {
      for (std::size_t b = a + 1; b < jobs.size(); ++b) {
        const JobIndex other = jobs[b];
        const auto p = view.predict(jobs[a], std::span<const DeviceIndex>(&probe, 1),
                                    std::span<const JobIndex>(&other, 1));
        const double ta = view.job(jobs[a]).duration_s, tb = view.job(jobs[b]).duration_s;
        // predict: job_slowdown is a's, max_corunner_slowdown is b's (the only co-runner).
        const double saved = ta + tb - std::max(ta * p.job_slowdown, tb * p.max_corunner_slowdown);
        // Jobs that name GPU types pair only if some empty device accepts both (a scan only for them).
        const bool common_type =
            (view.job(jobs[a]).gpu_types.empty() && view.job(other).gpu_types.empty()) ||
            std::any_of(free_.begin(), free_.end(), [&](DeviceIndex d) {
              return view.allows(jobs[a], d) && view.allows(other, d) && view.device(d).available;
            });
        if (!(saved > 0 && p.fits_memory && common_type)) continue;
        const long long saved_ms = std::llround(saved * 1000.0); // integral weights
        if (saved_ms > std::numeric_limits<long long>::max() / 4 / scale)
          throw std::overflow_error("complementary: jobs " + std::to_string(jobs[a]) + " and " +
                                    std::to_string(other) + " would save " + std::to_string(saved) +
                                    " s, beyond what the matching weights can hold");
        edges.push_back(
            {static_cast<int>(a), static_cast<int>(b), saved_ms * scale - static_cast<long long>(b - a)});
      }
    }
    const std::vector<int> mate = max_weight_matching(static_cast<int>(jobs.size()), edges);
    // Place pairs and singles in submission order of their first member.
    bool placed = false;
    for (std::size_t a = 0; a < jobs.size() && !free_.empty(); ++a) {
      const int m = mate[a];
      if (m != -1 && static_cast<std::size_t>(m) < a) continue; // placed with its partner
      const bool paired = m != -1;
      const auto partner = paired ? jobs[static_cast<std::size_t>(m)] : JobIndex{};
      const auto d = paired ? take(view, jobs[a], partner) : take(view, jobs[a]);
      if (!d) continue; // no empty device of a type it (and its partner) accepts
      place(jobs[a], {*d});
      if (paired) place(partner, {*d});
      placed = true;
    }
    if (!placed) break;
  }

  // A device left with one single-device job of ours takes the waiting job that interferes least with it,
  // if sharing beats taking turns (max(i_j, i_r) < 2; Complementary.hpp). Not while a multi-device job heads
  // the queue: it waits for devices to empty, and refilling them would starve it.
  const bool gang_waits = !queue_.empty() && view.job(queue_.front()).devices > 1;
  for (auto it = half_.begin(); !gang_waits && it != half_.end() && !queue_.empty();) {
    const DeviceIndex d = *it++; // place() erases d from half_
    const DeviceView device = view.device(d);
    if (!device.available || max_residents(device.mode) == 1) continue;
    std::vector<JobIndex> also;
    if (const auto alone = placed_alone.find(d); alone != placed_alone.end())
      also.push_back(alone->second);
    else if (view.residents(d).size() != 1)
      continue;
    std::optional<JobIndex> best;
    double best_worst = 2.0;
    std::size_t examined = 0;
    for (auto q = queue_.begin(); q != queue_.end() && examined < window_; ++q, ++examined) {
      const JobIndex j = *q;
      if (view.job(j).devices != 1 || !view.allows(j, d)) continue;
      const auto p = view.predict(j, std::span<const DeviceIndex>(&d, 1), also);
      const double worst = std::max(p.job_interference, p.max_corunner_interference);
      if (p.fits_memory && worst < best_worst) {
        best = j;
        best_worst = worst;
      }
    }
    if (best) place(*best, {d});
  }
  return out;
}

} // namespace colocsim
