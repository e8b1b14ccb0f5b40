// good-partners — lab 4's policy, the instructor's solution (the students' starter is ../GoodPartners.cpp).
// Jobs in submission order, each on a device of its own, unless a device with exactly one job offers a good
// partner: the pair makes at least `min_rate` jobs' worth of progress per second while together,
// 1/S(new) + 1/S(partner) with S their predicted slowdowns (lab 2, part A: taking turns makes 1). Among such
// devices the best rate wins; else the lowest idle device; else the job waits (later jobs may still
// start). Events: submissions and requeued failures join the queue; the rest is read from the view.
#include "policies/PluginApi.hpp"

#include <memory>
#include <optional>

namespace {

using namespace colocsim;

class GoodPartners final : public Policy {
public:
  explicit GoodPartners(const ParamSet& params) : min_rate_(params.real("min_rate")) {}

  static std::vector<ParamSpec> params()
  {
    return {ParamSpec{.name = "min_rate",
                      .type = ParamType::REAL,
                      .default_text = "1.2",
                      .help =
                          "least predicted progress rate of a pair (jobs' worth per second while together) "
                          "for a job to join a device with one job (1: no worse than taking turns)",
                      .min = 0,
                      .max = 2}};
  }

  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    for (const auto& e : events) {
      if (const auto* s = std::get_if<JobSubmitted>(&e)) waiting_.push_back(s->job);
      if (const auto* f = std::get_if<JobFailed>(&e); f && f->requeued) waiting_.push_back(f->job);
    }
    placed_.assign(view.device_count(), {});
    std::vector<Decision> out;
    std::vector<JobIndex> still;
    for (JobIndex j : waiting_) {
      if (view.job(j).devices != 1) {
        out.emplace_back(std::in_place_type<Reject>,
                         Reject{j, "good-partners places single-device jobs only"});
        continue;
      }
      std::optional<DeviceIndex> d = best_partner(view, j);
      if (!d) d = idle_device(view, j);
      if (!d) {
        still.push_back(j);
        continue;
      }
      placed_[*d].push_back(j);
      out.emplace_back(std::in_place_type<Place>, Place{j, {*d}}); // this form keeps GCC 12 quiet
    }
    waiting_ = std::move(still);
    return out;
  }

private:
  /// Jobs on device d once this call's decisions apply: its residents and the jobs this call put there.
  std::size_t jobs_on(const ClusterView& view, DeviceIndex d) const
  {
    return view.residents(d).size() + placed_[d].size();
  }

  /// Whether device d could take job j as the partner of the one job it has.
  bool candidate(const ClusterView& view, JobIndex j, DeviceIndex d) const
  {
    return view.device(d).available && jobs_on(view, d) == 1 && view.allows(j, d);
  }

  /// The pair's progress rate: while together the new job does 1/S of a second's work per second, and so
  /// does its partner with its own S.
  static double pair_rate(const PlacementPrediction& p)
  {
    return 1.0 / p.job_slowdown + 1.0 / p.max_corunner_slowdown;
  }

  /// The device whose one job makes the best pair with j, if that pair reaches min_rate.
  std::optional<DeviceIndex> best_partner(const ClusterView& view, JobIndex j) const
  {
    std::optional<DeviceIndex> best;
    double best_rate = min_rate_;
    for (DeviceIndex d = 0; d < view.device_count(); ++d) {
      if (!candidate(view, j, d)) continue;
      const DeviceIndex one[] = {d};
      // placed_[d]: a job this call put on d is not a resident yet; predict() counts it as one.
      const PlacementPrediction p = view.predict(j, one, placed_[d]);
      if (!p.fits_memory) continue;
      if (const double rate = pair_rate(p); rate >= best_rate) {
        best_rate = rate;
        best = d;
      }
    }
    return best;
  }

  /// The lowest-index idle device that allows j.
  std::optional<DeviceIndex> idle_device(const ClusterView& view, JobIndex j) const
  {
    for (DeviceIndex d = 0; d < view.device_count(); ++d)
      if (view.device(d).available && jobs_on(view, d) == 0 && view.allows(j, d)) return d;
    return std::nullopt;
  }

  double min_rate_;
  std::vector<JobIndex> waiting_;
  std::vector<std::vector<JobIndex>> placed_; ///< per device, the jobs this decide() call put there
};

} // namespace

COLOCSIM_POLICY_PLUGIN({"good-partners", "one device per job, or the best partner of a device's one job",
                        "lab 4 of experiments/labs (instructor's solution): pairs by predicted progress rate",
                        GoodPartners::params(),
                        [](const colocsim::ParamSet& p) -> std::unique_ptr<colocsim::Policy> {
                          return std::make_unique<GoodPartners>(p);
                        }})
