#pragma once
// Binding trace jobs to profiles (docs/formats/profile-map.md). Traces say what was asked; a profile says
// how the job behaves. Few traces name anything a profile catalog knows, so the binding is a modelling
// choice, written down as rules and recorded with the results (ProfileMapper::describe()).
//
// A profile map is a list of rules separated by ';', tried in order; the first that gives a profile wins:
//   class:A=P,B=Q     the trace's class column (Job::trace_class: ElasticFlow model_name, Batsim profile,
//                     PAI task_name) equal to A binds profile P
//   qos:LS=P,BE=Q     the trace's QoS (Job::qos, e.g. Alibaba openb LS/BE/Burstable/Guaranteed)
//   draw:P=3,Q=1      a seeded weighted draw (always gives a profile): job j gets P with probability 3/4.
//                     The draw depends only on (seed, job id), so windows, samples and clones leave the
//                     other jobs' draws unchanged (workloads/StableHash.hpp)
//   A=P,B=Q           (no prefix) the same as class:, the older `profile_map` form
//   none              no mapping (turns off a format's default map)
// Rules only apply to jobs whose trace row names no profile (Job::profile empty). Jobs no rule binds keep
// an empty profile: the scenario's workload.default_profile applies, or the run stops naming the job.
#include "workloads/JobReader.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace colocsim {

class ProfileCatalog;

class ProfileMap {
public:
  enum class Kind { CLASS, QOS, DRAW };
  struct Rule {
    Kind kind = Kind::CLASS;
    std::vector<std::pair<std::string, std::string>> match; ///< CLASS, QOS: (trace value, profile)
    std::vector<std::pair<std::string, double>> draw;       ///< DRAW: (profile, weight)
    std::vector<double> cumulative;                         ///< DRAW: cumulative weights
  };

  /// Parses a map. Throws InputError at `where`, path `path`, naming the bad rule and the valid forms.
  static ProfileMap parse(std::string_view text, const SourceLocation& where,
                          const std::string& path = "profile_map");
  /// Throws InputError at `where` if a rule names a profile the catalog does not have (lists the valid ones).
  void check(const ProfileCatalog& catalog, const SourceLocation& where,
             const std::string& path = "profile_map") const;

  struct Hit {
    std::size_t rule = 0;  ///< index in rules()
    std::size_t entry = 0; ///< index in that rule's match or draw list
    const std::string* profile = nullptr;
  };
  /// The binding for `job`, or nullopt if no rule applies.
  std::optional<Hit> map(const Job& job, std::uint64_t seed) const;

  bool empty() const { return rules_.empty(); }
  const std::vector<Rule>& rules() const { return rules_; }
  /// The map in its canonical text form ("qos:LS=a,BE=b;draw:a=1,b=1"), "none" if empty.
  std::string text() const;

private:
  std::vector<Rule> rules_;
};

/// Decorator: binds each job that names no profile by a ProfileMap; counts what every rule did.
class ProfileMapper final : public JobReader {
public:
  ProfileMapper(std::unique_ptr<JobReader> inner, ProfileMap map, std::uint64_t seed);
  std::optional<Job> next() override;
  std::vector<std::string> warnings() const override { return inner_->warnings(); }
  bool may_have_dependencies() const override { return inner_->may_have_dependencies(); }
  /// The inner reader's description, then "; profiles: <rules with how many jobs each binding took>".
  std::string describe() const override;

private:
  std::unique_ptr<JobReader> inner_;
  ProfileMap map_;
  std::uint64_t seed_;
  /// Per rule, per entry (match or draw entry): jobs bound.
  std::vector<std::vector<std::size_t>> counts_;
  std::size_t from_trace_ = 0, unmapped_ = 0;
};

} // namespace colocsim
