// shortest-first: whole devices per job, the shortest waiting job first (Shortest Job First with the trace's
// durations as perfect estimates; the textbook baseline that minimises mean wait on one machine, e.g.
// Feitelson, "Workload Modeling for Computer Systems Performance Evaluation", 2015, §8). An example of an
// out-of-tree policy plugin: one file, the installed colocsim headers, one COLOCSIM_POLICY_PLUGIN(...).
#include "policies/PluginApi.hpp"

#include <algorithm>
#include <memory>

namespace {

using namespace colocsim;

class ShortestFirst final : public Policy {
public:
  explicit ShortestFirst(const ParamSet& params) : max_starts_(params.integer("max_starts_per_call")) {}

  static std::vector<ParamSpec> params()
  {
    return {ParamSpec{.name = "max_starts_per_call",
                      .type = ParamType::INT,
                      .default_text = "1000000",
                      .help = "most jobs started per decision (a knob to show plugin parameters)",
                      .min = 1,
                      .max = 1e9}};
  }

  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    for (const auto& e : events) {
      if (const auto* s = std::get_if<JobSubmitted>(&e)) waiting_.push_back(s->job);
      if (const auto* f = std::get_if<JobFailed>(&e); f && f->requeued) waiting_.push_back(f->job);
    }
    // Free devices now: available and empty, minus those this call hands out.
    std::vector<DeviceIndex> free;
    for (DeviceIndex d = 0; d < view.device_count(); ++d)
      if (view.device(d).available && view.residents(d).empty()) free.push_back(d);
    std::stable_sort(waiting_.begin(), waiting_.end(),
                     [&](JobIndex a, JobIndex b) { return view.job(a).duration_s < view.job(b).duration_s; });
    std::vector<Decision> out;
    std::vector<JobIndex> still;
    long long started = 0;
    for (JobIndex j : waiting_) {
      const auto need = static_cast<std::size_t>(view.job(j).devices);
      if (need > view.device_count()) {
        out.push_back(Reject{j, "requests more devices than the platform has"});
        continue;
      }
      if (need <= free.size() && started < max_starts_) {
        Place p{j, std::vector<DeviceIndex>(free.begin(), free.begin() + static_cast<long>(need))};
        free.erase(free.begin(), free.begin() + static_cast<long>(need));
        out.push_back(std::move(p));
        ++started;
      } else {
        still.push_back(j);
      }
    }
    waiting_ = std::move(still);
    return out;
  }

private:
  long long max_starts_;
  std::vector<JobIndex> waiting_;
};

} // namespace

COLOCSIM_POLICY_PLUGIN({"shortest-first", "whole devices per job, the shortest waiting job first (SJF)",
                        "Shortest Job First with exact durations (Feitelson 2015, §8); example plugin",
                        ShortestFirst::params(),
                        [](const colocsim::ParamSet& p) -> std::unique_ptr<colocsim::Policy> {
                          return std::make_unique<ShortestFirst>(p);
                        }})
