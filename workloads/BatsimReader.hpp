#pragma once
// Batsim JSON workloads (Dutot et al., JSSPP'16; https://batsim.readthedocs.io, "Workload";
// docs/formats/batsim.md): `{"nb_res": N, "jobs": [{"id", "subtime", "walltime", "res", "profile"}, ...],
// "profiles": {"name": {"type": ..., ...}}}`.
//
// Streaming: the file is read twice. The first pass reads nb_res and the profiles (memory O(profiles)) and
// skips the jobs array; the second walks the jobs array one element at a time (JsonStream), so memory does
// not depend on the number of jobs. The stream must be seekable (a file).
//
// Mapping: id ← id (string or number); submit ← subtime; devices ← res × devices_per_res ÷ res_per_device,
// rounded up; trace_class ← profile (the profile mapping can bind Batsim profile names to colocsim
// profiles). Duration (BatsimDurationRule): a delay profile gives its delay, a sequence of delay
// profiles (composed / SequentialCompositionProfile) repeat × the sum of its parts; capped by the walltime
// as Batsim does. Profiles whose run time depends on Batsim's platform (parallel tasks, SMPI, I/O) take the
// job's walltime instead, counted in warnings(); with no walltime either, the job is an error.
#include "base/Errors.hpp"
#include "workloads/JobReader.hpp"
#include "workloads/JsonStream.hpp"
#include "workloads/ReorderWindow.hpp"

#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace colocsim {

enum class BatsimDurationRule {
  PROFILE,  ///< delay profiles (and sequences of them) give the run time; others fall back to the walltime
  WALLTIME, ///< every job runs for its walltime (as if each used its whole reservation)
};

struct BatsimOptions {
  BatsimDurationRule duration = BatsimDurationRule::PROFILE;
  int devices_per_res = 1; ///< simulated devices per Batsim resource
  int res_per_device = 1;  ///< Batsim resources per simulated device
  std::size_t reorder_window = DEFAULT_REORDER_WINDOW;
};

class BatsimReader final : public JobReader {
public:
  /// Runs the first pass (profiles) at once; throws InputError on malformed JSON or profiles.
  BatsimReader(std::istream& in, std::string file_name, BatsimOptions options = {});
  ~BatsimReader() override;
  std::optional<Job> next() override;
  std::vector<std::string> warnings() const override;
  long long nb_res() const { return nb_res_; } ///< 0 if the workload does not say
  /// Run time a profile gives on its own (delay, or a sequence of delays), nullopt for platform-dependent
  /// profile types. Throws for an unknown profile.
  std::optional<double> profile_duration(const std::string& name) const;

private:
  struct Profile {
    std::string type;
    double delay = 0;
    long long repeat = 1;
    std::vector<std::string> seq;
    SourceLocation origin;
  };
  void read_profiles();
  bool read_job();  ///< next job of the array into the window; false at the end of the array
  void open_jobs(); ///< the second pass: a JsonStream at the start of the "jobs" array
  /// The members of the job object at json_ into job (walltime: -1 if none); every problem into sink, and
  /// the missing required members.
  void read_job_members(Job& job, const std::string& path, double& walltime, DiagnosticSink& sink);
  /// job.devices from the job's res (resources), checked: a whole number >= 1, at most MAX_DEVICES devices.
  void read_res(double res, const SourceLocation& at, const std::string& path, Job& job,
                DiagnosticSink& sink) const;
  /// job.duration_s (and requested_s) from its profile, walltime and the duration rule.
  void set_duration(Job& job, const std::string& path, double walltime);
  std::optional<double> resolve(const std::string& name, int depth) const;

  std::istream& in_;
  std::string file_;
  BatsimOptions options_;
  long long nb_res_ = 0;
  std::map<std::string, Profile> profiles_;
  std::unique_ptr<JsonStream> json_; ///< second pass
  bool in_jobs_ = false, done_ = false;
  ReorderWindow window_;
  std::map<std::string, std::size_t> walltime_fallback_; ///< profile type → jobs that took their walltime
  std::size_t capped_ = 0, zero_runtime_ = 0;
  long long index_ = -1; ///< index of the job being read in the jobs array
};

std::unique_ptr<JobReader> open_batsim(const std::string& path, BatsimOptions options = {});

} // namespace colocsim
