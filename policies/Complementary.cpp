#include "policies/Complementary.hpp"

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
  complementary::move_devices(view, aside_, free_, /*available=*/true);
}

namespace complementary {

void move_devices(const ClusterView& view, std::set<DeviceIndex>& from, std::set<DeviceIndex>& to,
                  bool available)
{
  for (auto it = from.begin(); it != from.end();)
    if (view.device(*it).available == available) {
      to.insert(*it);
      it = from.erase(it);
    } else
      ++it;
}

std::vector<JobIndex> window_singles(const ClusterView& view, const FcfsQueue& queue, std::size_t window)
{
  std::vector<JobIndex> jobs;
  std::size_t examined = 0;
  for (auto it = queue.begin(); it != queue.end() && examined < window; ++it, ++examined)
    if (view.job(*it).devices == 1) jobs.push_back(*it);
  return jobs;
}

std::vector<WeightedEdge> pair_edges(const ClusterView& view, const std::vector<JobIndex>& jobs,
                                     DeviceIndex probe, const std::set<DeviceIndex>& free)
{
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
          std::any_of(free.begin(), free.end(), [&](DeviceIndex d) {
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
  return edges;
}

std::optional<JobIndex> best_partner(const ClusterView& view, const FcfsQueue& queue, std::size_t window,
                                     DeviceIndex d, std::span<const JobIndex> also)
{
  std::optional<JobIndex> best;
  double best_worst = 2.0;
  std::size_t examined = 0;
  for (auto q = queue.begin(); q != queue.end() && examined < window; ++q, ++examined) {
    const JobIndex j = *q;
    if (view.job(j).devices != 1 || !view.allows(j, d)) continue;
    const auto p = view.predict(j, std::span<const DeviceIndex>(&d, 1), also);
    const double worst = std::max(p.job_interference, p.max_corunner_interference);
    if (p.fits_memory && worst < best_worst) {
      best = j;
      best_worst = worst;
    }
  }
  return best;
}

} // namespace complementary

void Complementary::start(const ClusterView& view, std::span<const Event> events, Call& call)
{
  if (!initialised_) {
    occupants_.assign(view.device_count(), 0);
    for (DeviceIndex d = 0; d < view.device_count(); ++d)
      if (view.device(d).residents == 0) free_.insert(free_.end(), d);
    nodes_.init(view);
    initialised_ = true;
  }
  queue_.handle(view, events, call.out,
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
}

void Complementary::place(Call& call, JobIndex j, std::vector<DeviceIndex> devices)
{
  for (auto d : devices)
    ++occupants_[d];
  if (devices.size() == 1) {
    const DeviceIndex d = devices[0];
    if (occupants_[d] == 1) {
      half_.insert(d);
      call.placed_alone[d] = j;
    } else {
      half_.erase(d);
      call.placed_alone.erase(d);
    }
  }
  queue_.erase(j);
  call.out.push_back(Place{j, std::move(devices)});
}

bool Complementary::place_gang(const ClusterView& view, Call& call, JobIndex head, std::size_t need)
{
  auto devices = complementary::take_gang(
      free_, head, need, GangPicker(gang_rule_, need, nodes_.min_nodes(view, head, need)),
      [&](JobIndex j) { return take(view, j); }, [&](DeviceIndex d) { return nodes_.node(d); });
  if (!devices) return false;
  place(call, head, std::move(*devices));
  return true;
}

bool Complementary::place_pairs(const ClusterView& view, Call& call)
{
  const std::vector<JobIndex> jobs = complementary::window_singles(view, queue_, window_);
  const auto first = first_available(view);
  if (!first) return false;
  const DeviceIndex probe = *first; // an empty device stands for all of them (of any type)
  const auto edges = complementary::pair_edges(view, jobs, probe, free_);
  const std::vector<int> mate = max_weight_matching(static_cast<int>(jobs.size()), edges);
  return complementary::place_matching(
      jobs, mate, free_, [&](JobIndex a, std::optional<JobIndex> b) { return take(view, a, b); },
      [&](JobIndex j, DeviceIndex d) { place(call, j, {d}); });
}

void Complementary::fill_half(const ClusterView& view, Call& call)
{
  // Not while a multi-device job heads the queue: it waits for devices to empty, and refilling them would
  // starve it.
  const bool gang_waits = !queue_.empty() && view.job(queue_.front()).devices > 1;
  for (auto it = half_.begin(); !gang_waits && it != half_.end() && !queue_.empty();) {
    const DeviceIndex d = *it++; // place() erases d from half_
    const DeviceView device = view.device(d);
    if (!device.available || max_residents(device.mode) == 1) continue;
    std::vector<JobIndex> also;
    if (const auto alone = call.placed_alone.find(d); alone != call.placed_alone.end())
      also.push_back(alone->second);
    else if (view.residents(d).size() != 1)
      continue;
    if (const auto best = complementary::best_partner(view, queue_, window_, d, also))
      place(call, *best, {d});
  }
}

std::vector<Decision> Complementary::decide(const ClusterView& view, std::span<const Event> events)
{
  Call call;
  start(view, events, call);
  while (!queue_.empty() && !free_.empty()) {
    // Multi-device jobs at the head run alone, in submission order.
    const JobIndex head = queue_.front();
    const auto need = static_cast<std::size_t>(view.job(head).devices);
    if (need > 1) {
      if (!place_gang(view, call, head, need)) break;
      continue;
    }
    // The single-device jobs among the first `window` waiting: pair them by maximum-weight matching.
    if (!place_pairs(view, call)) break;
  }
  // A device left with one single-device job of ours takes the waiting job that interferes least with it,
  // if sharing beats taking turns (max(i_j, i_r) < 2; Complementary.hpp).
  fill_half(view, call);
  return std::move(call.out);
}

} // namespace colocsim
