#include "policies/ExclusiveEasy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace colocsim {

std::vector<ParamSpec> ExclusiveEasy::params()
{
  return {ParamSpec{.name = "window",
                    .type = ParamType::INT,
                    .default_text = "0",
                    .help =
                        "most waiting jobs behind the queue head examined for backfilling per decision; 0: "
                        "the whole queue (EASY as defined)",
                    .min = 0,
                    .max = 1e7}};
}

ExclusiveEasy::ExclusiveEasy(const ParamSet& p)
    : window_(p.integer("window") == 0 ? std::numeric_limits<std::size_t>::max()
                                       : static_cast<std::size_t>(p.integer("window")))
{
}

void ExclusiveEasy::finish(JobIndex j, const std::vector<DeviceIndex>& devices)
{
  free_.insert(devices.begin(), devices.end());
  if (auto it = running_.find(j); it != running_.end()) {
    ends_.erase(it->second.first);
    running_.erase(it);
  }
}

std::vector<DeviceIndex> ExclusiveEasy::pick(const ClusterView& view, JobIndex j,
                                             const std::set<DeviceIndex>& held) const
{
  const auto need = static_cast<std::size_t>(view.job(j).devices);
  if (free_.size() < need) return {};
  GangPicker gang = nodes_.picker(view, j, gang_rule_, need, true); // free_ ascends
  for (auto it = free_.begin(); it != free_.end(); ++it)
    if (view.device(*it).available && view.allows(j, *it) && // not repartitioning, node on, of its type
        !held.contains(*it) && gang.offer(*it, nodes_.node(*it)))
      break;
  return gang.take();
}

std::vector<DeviceIndex> ExclusiveEasy::reserve(const ClusterView& view, JobIndex head,
                                                Ends::const_iterator last) const
{
  std::vector<DeviceIndex> devices(free_.begin(), free_.end());
  for (auto it = ends_.begin(); it != last; ++it)
    devices.insert(devices.end(), it->second.second.begin(), it->second.second.end());
  std::sort(devices.begin(), devices.end()); // the lowest-index first, as pick() offers them
  const auto need = static_cast<std::size_t>(view.job(head).devices);
  GangPicker gang = nodes_.picker(view, head, gang_rule_, need, true);
  for (const DeviceIndex d : devices)
    if (view.allows(head, d) && gang.offer(d, nodes_.node(d))) break;
  return gang.take();
}

double ExclusiveEasy::expected_end(const ClusterView& view, JobIndex j,
                                   const std::vector<DeviceIndex>& devices) const
{
  // The run time the replay lets policies assume (exact, requested or predicted), at the rate the engine
  // will run it at (device speeds, slowdown and gang scaling efficiency included), and never after the
  // engine kills it at its time limit.
  return view.now() + std::min(view.estimate(j) / view.predict(j, devices).job_rate, view.time_limit(j));
}

void ExclusiveEasy::start(JobIndex j, std::vector<DeviceIndex> devices, double end,
                          std::vector<Decision>& out)
{
  for (auto d : devices)
    free_.erase(d);
  running_[j] = {ends_.insert({end, {j, devices}}), now_};
  queue_.erase(j);
  out.push_back(Place{j, std::move(devices)});
}

bool ExclusiveEasy::try_start(const ClusterView& view, JobIndex j, std::vector<Decision>& out)
{
  auto devices = pick(view, j);
  if (devices.size() < static_cast<std::size_t>(view.job(j).devices)) return false;
  const double end = expected_end(view, j, devices);
  start(j, std::move(devices), end, out);
  return true;
}

std::vector<Decision> ExclusiveEasy::decide(const ClusterView& view, std::span<const Event> events)
{
  if (!initialised_) {
    for (DeviceIndex d = 0; d < view.device_count(); ++d)
      if (view.device(d).residents == 0) free_.insert(free_.end(), d);
    nodes_.init(view);
    initialised_ = true;
  }
  std::vector<Decision> out;
  backfill_reservation_.reset();
  queue_.handle(view, events, out,
                [&](JobIndex j, const std::vector<DeviceIndex>& devices) { finish(j, devices); });
  now_ = view.now();
  // 0. A job still running after its expected end (a requested time or prediction too short, or co-runners
  //    slowing it): it is now expected at its time limit, or at any moment if it has none (Tsafrir et al.
  //    2007 extend an expired prediction to the user's requested time).
  while (!ends_.empty() && ends_.begin()->first < now_) {
    auto node = ends_.extract(ends_.begin());
    const JobIndex j = node.mapped().first;
    auto& [it, started] = running_.at(j);
    const double limit = started + view.time_limit(j);
    node.key() = std::isfinite(limit) && limit > now_ ? limit : now_;
    it = ends_.insert(std::move(node));
  }
  // 1. FCFS while the head fits.
  while (!queue_.empty() && try_start(view, queue_.front(), out)) {
  }
  if (queue_.empty()) return out;
  // 2. The head's reservation: the earliest expected end at which enough devices are free, and how many
  //    devices will be spare then.
  //    Only devices of the types the head accepts count (all of them on a single-type platform).
  const JobIndex head = queue_.front();
  const auto head_need = static_cast<std::size_t>(view.job(head).devices);
  const auto head_may_use = [&](const auto& devices) {
    return static_cast<std::size_t>(
        std::count_if(devices.begin(), devices.end(), [&](DeviceIndex d) { return view.allows(head, d); }));
  };
  //    Every running job expected to end at the shadow time frees its devices then, not only the first one
  //    whose release lets the head fit.
  //    A gang under `pack` needs them on few enough nodes (NodeTally, the rule's test), and the spare
  //    devices are counted per node it will take devices on then (the rule's choice at the shadow time):
  //    one count for the platform no longer says whether a backfilled job leaves the head its node. Under
  //    `spread` and `any` any devices of the head's types will do, and one node is one count as before.
  //    Only a head that fits in one node needs a particular node; a larger one is reserved by the count (a
  //    simplification where nodes hold several devices; exact on nodes of one device, where pack is any).
  const bool by_node =
      gang_rule_ == GangRule::PACK && head_need > 1 && nodes_.min_nodes(view, head, head_need) == 1;
  const std::size_t head_nodes = 1;
  NodeTally tally;
  const auto head_add = [&](const auto& devices) {
    std::size_t n = 0;
    for (const DeviceIndex d : devices)
      if (view.allows(head, d)) {
        ++n;
        if (by_node) tally.add(nodes_.node(d));
      }
    return n;
  };
  std::size_t available = head_add(free_);
  double shadow = std::numeric_limits<double>::infinity();
  std::size_t extra = 0;
  std::unordered_map<std::uint32_t, std::size_t> spare; // by_node: per node of the head's, devices spare
  for (auto it = ends_.begin(); it != ends_.end(); ++it) {
    available += head_add(it->second.second);
    if (available < head_need || (by_node && !tally.fits(GangRule::PACK, head_need, head_nodes))) continue;
    shadow = it->first;
    auto same = std::next(it);
    for (; same != ends_.end() && same->first == shadow; ++same)
      available += head_add(same->second.second);
    extra = available - head_need;
    if (by_node) {
      std::unordered_map<std::uint32_t, std::size_t> taken;
      for (const DeviceIndex d : reserve(view, head, same))
        ++taken[nodes_.node(d)];
      for (const auto& [n, k] : taken)
        spare[n] = tally.count(n) - k;
    }
    break;
  }
  // 3. Backfill: a later job may start now if it ends before the shadow time, or if it only takes devices
  //    the head will not need at the shadow time.
  //    The queue is walked in place (starting a job erases only that job, after the walk has left it) and
  //    the walk stops as soon as no device is free: no copy of a long queue per decision.
  const auto leaves_spare = [&](const std::vector<DeviceIndex>& devices) {
    std::unordered_map<std::uint32_t, std::size_t> on;
    for (const DeviceIndex d : devices)
      if (view.allows(head, d)) ++on[nodes_.node(d)];
    return std::all_of(on.begin(), on.end(), [&](const auto& nk) {
      const auto s = spare.find(nk.first);
      return s == spare.end() || nk.second <= s->second;
    });
  };
  std::set<DeviceIndex> held; // free devices of the head's nodes with no spare device (computed when needed)
  bool held_stale = true;
  std::size_t examined = 0;
  for (auto it = std::next(queue_.begin()); it != queue_.end() && examined < window_ && !free_.empty();
       ++examined) {
    const JobIndex j = *it++;
    auto devices = pick(view, j);
    if (devices.size() < static_cast<std::size_t>(view.job(j).devices)) continue;
    const double end = expected_end(view, j, devices);
    if (end <= shadow) { // ends before the head's reservation begins
      start(j, std::move(devices), end, out);
      backfill_reservation_ = Reservation{head, shadow};
      continue;
    }
    // Ends after the shadow time: it may take only devices the head will not need then.
    if (by_node) {
      if (!leaves_spare(devices)) { // again without the free devices of the head's nodes that have none spare
        if (held_stale) {
          held.clear();
          for (const DeviceIndex d : free_)
            if (const auto s = spare.find(nodes_.node(d)); s != spare.end() && s->second == 0) held.insert(d);
          held_stale = false;
        }
        devices = pick(view, j, held);
        if (devices.size() < static_cast<std::size_t>(view.job(j).devices) || !leaves_spare(devices))
          continue;
      }
      for (const DeviceIndex d : devices)
        if (const auto s = spare.find(nodes_.node(d)); s != spare.end() && view.allows(head, d))
          held_stale = --s->second == 0 || held_stale;
      const double after = expected_end(view, j, devices);
      start(j, std::move(devices), after, out);
      backfill_reservation_ = Reservation{head, shadow};
      continue;
    }
    const std::size_t taken = head_may_use(devices);
    if (taken > extra) continue;
    extra -= taken;
    start(j, std::move(devices), end, out);
    backfill_reservation_ = Reservation{head, shadow};
  }
  return out;
}

} // namespace colocsim
