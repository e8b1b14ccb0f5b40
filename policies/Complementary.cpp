#include "policies/Complementary.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/maximum_weighted_matching.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

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
  for (auto d : devices)
    if (--occupants_[d] == 0) free_.insert(d);
}

std::optional<DeviceIndex> Complementary::take(const ClusterView& view, JobIndex a, std::optional<JobIndex> b)
{
  for (auto it = free_.begin(); it != free_.end(); ++it)
    if (view.allows(a, *it) && (!b || view.allows(*b, *it))) {
      const DeviceIndex d = *it;
      free_.erase(it);
      return d;
    }
  return std::nullopt;
}

void Complementary::drop_unavailable(const ClusterView& view)
{
  // Devices being repartitioned or on nodes that are off wait aside until they are available again.
  for (auto it = free_.begin(); it != free_.end();)
    if (!view.device(*it).available) {
      aside_.insert(*it);
      it = free_.erase(it);
    } else
      ++it;
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
  drop_unavailable(view);
  auto place = [&](JobIndex j, std::vector<DeviceIndex> devices) {
    for (auto d : devices)
      ++occupants_[d];
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
    const DeviceIndex probe = *free_.begin(); // an empty device stands for all of them (of any type)
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                                        boost::property<boost::edge_weight_t, long long>>;
    Graph g(jobs.size());
    for (std::size_t a = 0; a < jobs.size(); ++a) {
      for (std::size_t b = a + 1; b < jobs.size(); ++b) {
        const JobIndex other = jobs[b];
        const auto p = view.predict(jobs[a], std::span<const DeviceIndex>(&probe, 1),
                                    std::span<const JobIndex>(&other, 1));
        const double ta = view.job(jobs[a]).duration_s, tb = view.job(jobs[b]).duration_s;
        // predict: job_slowdown is a's, max_corunner_slowdown is b's (the only co-runner).
        const double saved = ta + tb - std::max(ta * p.job_slowdown, tb * p.max_corunner_slowdown);
        // Jobs that name GPU types pair only if some empty device accepts both (a scan only for them).
        const bool common_type = (view.job(jobs[a]).gpu_types.empty() && view.job(other).gpu_types.empty()) ||
                                 std::any_of(free_.begin(), free_.end(), [&](DeviceIndex d) {
                                   return view.allows(jobs[a], d) && view.allows(other, d);
                                 });
        if (saved > 0 && p.fits_memory && common_type)
          boost::add_edge(a, b, static_cast<long long>(std::llround(saved * 1000.0)), g); // integral weights
      }
    }
    std::vector<boost::graph_traits<Graph>::vertex_descriptor> mate(
        jobs.size(), boost::graph_traits<Graph>::null_vertex());
    // Without edges Boost 1.74 doubles numeric_limits<long long>::min() (signed overflow, caught by UBSan):
    // no edge means no pair anyway.
    if (boost::num_edges(g) > 0) boost::maximum_weighted_matching(g, &mate[0]);
    // Place pairs and singles in submission order of their first member.
    bool placed = false;
    for (std::size_t a = 0; a < jobs.size() && !free_.empty(); ++a) {
      const auto m = mate[a];
      if (m != boost::graph_traits<Graph>::null_vertex() && m < a) continue; // placed with its partner
      const bool paired = m != boost::graph_traits<Graph>::null_vertex();
      const auto d = paired ? take(view, jobs[a], jobs[m]) : take(view, jobs[a]);
      if (!d) continue; // no empty device of a type it (and its partner) accepts
      place(jobs[a], {*d});
      if (paired) place(jobs[m], {*d});
      placed = true;
    }
    if (!placed) break;
  }
  return out;
}

} // namespace colocsim
