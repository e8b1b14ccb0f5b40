#pragma once
// Synthetic workloads: Poisson arrivals, lognormal durations with a given mean, profiles and gang
// sizes drawn from weighted mixes. Jobs are generated on the fly (O(1) memory) and are the same for
// a given spec and seed on every platform and standard library: the random numbers come from
// std::mt19937_64 (whose output the C++ standard fixes) through our own transforms, never through
// std::*_distribution (whose output differs between standard libraries).
#include "base/Params.hpp"
#include "workloads/JobReader.hpp"

#include <cstdint>
#include <iosfwd>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace colocsim {

class ProfileCatalog;

struct SyntheticSpec {
  std::size_t jobs = 1000;
  double arrival_rate_per_s = 1.0; ///< Poisson arrivals: mean inter-arrival time is 1 / rate
  double duration_mean_s = 600.0;  ///< mean of the lognormal duration (not its median)
  double duration_sigma = 1.0;     ///< sigma of the underlying normal; 0 = every job lasts duration_mean_s
  /// (profile name, weight). Empty: every profile of the catalog with weight 1, or profile "" without one.
  std::vector<std::pair<std::string, double>> profile_mix;
  std::vector<std::pair<int, double>> devices_mix{{1, 1.0}}; ///< (gang size, weight)
  /// Memory each job declares per device; 0 = the profile's footprint when a catalog is given, else 0.
  double mem_request_bytes = 0;
  std::uint64_t seed = 1;
  SourceLocation origin{"synthetic"}; ///< where the spec was written (messages; file of Job::origin)
};

/// Checks a spec (and, with a catalog, that its profiles exist). Throws one InputError listing every
/// problem, at spec.origin with the parameter's name as path.
void check_synthetic_spec(const SyntheticSpec& spec, const ProfileCatalog* catalog = nullptr);

/// The spec's parameters as declared parameters (scenario keys, `--set`, help and docs), with the
/// mixes written as text: `profile_mix: "resnet50-infer-bs1:3,bert-base-infer:1"`, `devices_mix:
/// "1:0.9,2:0.1"`.
const std::vector<ParamSpec>& synthetic_param_specs();
/// Builds a spec from parameters validated against synthetic_param_specs(). Throws InputError at
/// `where` for a malformed mix.
SyntheticSpec make_synthetic_spec(const ParamSet& params, const SourceLocation& where);

/// Generates the jobs of a spec in submit order. Job i (1-based) has id `syn-%06d`, origin
/// `spec.origin.file:i`, gpu_milli 1000 and an empty qos. Arrivals, durations, profiles and gang sizes
/// each use their own random stream derived from the seed, so changing one mix leaves the others' draws
/// (e.g. the arrival times) unchanged.
class SyntheticReader final : public JobReader {
public:
  /// Checks the spec (check_synthetic_spec). The catalog is only read during construction.
  explicit SyntheticReader(SyntheticSpec spec, const ProfileCatalog* catalog = nullptr);
  std::optional<Job> next() override;
  std::size_t generated() const { return produced_; }

private:
  static double uniform(std::mt19937_64& rng); ///< in [0, 1), from the top 53 bits of one draw
  static std::size_t choose(const std::vector<double>& cumulative, double u);

  SyntheticSpec spec_;
  std::vector<double> profile_cum_;       ///< cumulative weights of spec_.profile_mix
  std::vector<double> profile_mem_bytes_; ///< mem_request_bytes per profile_mix entry
  std::vector<double> devices_cum_;
  double log_mean_ = 0; ///< mu of the lognormal
  std::mt19937_64 arrival_rng_;
  std::mt19937_64 duration_rng_;
  std::mt19937_64 profile_rng_;
  std::mt19937_64 devices_rng_;
  std::size_t produced_ = 0;
  double now_s_ = 0;
};

/// Writes every job of `spec` to `out` as native CSV (NativeCsvWriter). Returns the number written.
std::size_t write_synthetic(const SyntheticSpec& spec, std::ostream& out,
                            const ProfileCatalog* catalog = nullptr);

} // namespace colocsim
