#include "workloads/BatsimReader.hpp"

#include "base/Units.hpp"
#include "workloads/CsvLines.hpp"
#include "workloads/InputLimits.hpp"
#include "workloads/OwningReader.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

namespace colocsim {

namespace {
bool is_delay(const std::string& type)
{
  return type == "delay" || type == "DelayProfile";
}
bool is_sequence(const std::string& type)
{
  return type == "composed" || type == "SequentialCompositionProfile";
}
} // namespace

BatsimReader::BatsimReader(std::istream& in, std::string file_name, BatsimOptions options)
    : in_(in), file_(std::move(file_name)), options_(options),
      window_(options.reorder_window, "subtime", "sort the jobs array by subtime")
{
  if (options_.devices_per_res < 1)
    throw InputError(SourceLocation{file_}, "devices_per_res", "expected an integer >= 1");
  if (options_.res_per_device < 1)
    throw InputError(SourceLocation{file_}, "res_per_device", "expected an integer >= 1");
  read_profiles();
}

BatsimReader::~BatsimReader() = default;

void BatsimReader::read_profiles()
{
  JsonStream j(in_, file_);
  const SourceLocation top = j.where();
  if (j.peek_kind() != JsonStream::Kind::OBJECT)
    throw InputError(top, "json", "expected a workload object {\"nb_res\", \"jobs\", \"profiles\"}");
  j.begin_object();
  bool saw_jobs = false, saw_profiles = false;
  std::string key, field;
  while (j.next_member(key)) {
    if (key == "nb_res") {
      const SourceLocation at = j.where();
      if (j.peek_kind() != JsonStream::Kind::NUMBER)
        throw InputError(at, "nb_res", "expected a whole number >= 0");
      const double v = j.number_value();
      if (v < 0 || std::floor(v) != v)
        throw InputError(at, "nb_res", "not a whole number >= 0 (got " + std::to_string(v) + ")");
      // Bounded before the conversion (a larger double does not fit a long long: undefined behaviour).
      if (v > JobLimits::MAX_DEVICES)
        throw InputError(at, "nb_res",
                         "too large (got " + number_text(v) + "); expected a whole number in [0, " +
                             std::to_string(JobLimits::MAX_DEVICES) + "] (docs/formats/limits.md)");
      nb_res_ = static_cast<long long>(v);
    } else if (key == "jobs") {
      saw_jobs = true;
      const SourceLocation at = j.where();
      if (j.peek_kind() != JsonStream::Kind::ARRAY) throw InputError(at, "jobs", "expected an array of jobs");
      j.skip_value();
    } else if (key == "profiles") {
      saw_profiles = true;
      const SourceLocation at = j.where();
      if (j.peek_kind() != JsonStream::Kind::OBJECT)
        throw InputError(at, "profiles", "expected an object of profiles by name");
      j.begin_object();
      std::string name;
      while (j.next_member(name)) {
        Profile p;
        p.origin = j.where();
        const std::string path = "profiles." + name;
        if (j.peek_kind() != JsonStream::Kind::OBJECT)
          throw InputError(p.origin, path, "expected a profile object with a \"type\"");
        j.begin_object();
        bool has_delay = false;
        while (j.next_member(field)) {
          const SourceLocation fat = j.where();
          const auto kind = j.peek_kind();
          if (field == "type") {
            if (kind != JsonStream::Kind::STRING) throw InputError(fat, path + ".type", "expected a string");
            p.type = j.string_value();
          } else if (field == "delay") {
            if (kind != JsonStream::Kind::NUMBER)
              throw InputError(fat, path + ".delay", "expected seconds >= 0");
            p.delay = j.number_value();
            if (p.delay < 0) throw InputError(fat, path + ".delay", "negative delay; expected seconds >= 0");
            has_delay = true;
          } else if (field == "repeat") {
            if (kind != JsonStream::Kind::NUMBER)
              throw InputError(fat, path + ".repeat", "expected a whole number >= 1");
            const double r = j.number_value();
            if (r < 1 || std::floor(r) != r)
              throw InputError(fat, path + ".repeat", "expected a whole number >= 1");
            // More repetitions than the job time bound has seconds cannot give a valid job; bounded
            // before the conversion to long long.
            if (r > JobLimits::MAX_TIME_S)
              throw InputError(fat, path + ".repeat",
                               "too large (got " + number_text(r) +
                                   "); expected a whole number in [1, 1e10]");
            p.repeat = static_cast<long long>(r);
          } else if (field == "seq") {
            if (kind != JsonStream::Kind::ARRAY)
              throw InputError(fat, path + ".seq", "expected an array of profile names");
            j.begin_array();
            while (j.next_element()) {
              const SourceLocation eat = j.where();
              if (j.peek_kind() != JsonStream::Kind::STRING)
                throw InputError(eat, path + ".seq", "expected a profile name (a string)");
              p.seq.push_back(j.string_value());
            }
          } else {
            j.skip_value();
          }
        }
        if (p.type.empty())
          throw InputError(p.origin, path, "missing \"type\"; every Batsim profile has one");
        if (is_delay(p.type) && !has_delay)
          throw InputError(p.origin, path, "a delay profile needs \"delay\" (seconds)");
        profiles_[name] = std::move(p);
      }
    } else {
      j.skip_value();
    }
  }
  j.expect_end();
  if (!saw_jobs) throw InputError(top, "jobs", "missing; expected a \"jobs\" array");
  if (!saw_profiles) throw InputError(top, "profiles", "missing; expected a \"profiles\" object");
  // Check every sequence now, so that a bad profile is reported even if no job uses it.
  for (const auto& [name, p] : profiles_)
    if (is_sequence(p.type)) resolve(name, 0);
}

std::optional<double> BatsimReader::resolve(const std::string& name, int depth) const
{
  const auto it = profiles_.find(name);
  if (it == profiles_.end())
    throw InputError(SourceLocation{file_}, "profiles", "unknown profile '" + name + "'");
  const Profile& p = it->second;
  if (depth > 64)
    throw InputError(p.origin, "profiles." + name,
                     "sequences nested more than 64 deep (a cycle?); expected a finite sequence");
  if (is_delay(p.type)) return p.delay;
  if (!is_sequence(p.type)) return std::nullopt;
  double total = 0;
  for (const auto& part : p.seq) {
    if (!profiles_.count(part))
      throw InputError(p.origin, "profiles." + name + ".seq", "unknown profile '" + part + "'");
    const auto d = resolve(part, depth + 1);
    if (!d) return std::nullopt;
    total += *d;
  }
  return total * static_cast<double>(p.repeat);
}

std::optional<double> BatsimReader::profile_duration(const std::string& name) const
{
  return resolve(name, 0);
}

void BatsimReader::open_jobs()
{
  in_.clear();
  in_.seekg(0);
  if (!in_)
    throw InputError(SourceLocation{file_}, "", "cannot read the workload twice; expected a seekable file");
  json_ = std::make_unique<JsonStream>(in_, file_);
  json_->begin_object();
  std::string key;
  while (json_->next_member(key)) {
    if (key == "jobs") break;
    json_->skip_value();
  }
  json_->begin_array();
  in_jobs_ = true;
}

void BatsimReader::read_res(double res, const SourceLocation& at, const std::string& path, Job& job,
                            DiagnosticSink& sink) const
{
  const double devices = std::ceil(res * options_.devices_per_res / options_.res_per_device);
  if (res < 1 || std::floor(res) != res)
    sink.add(at, path + ".res", "not a whole number >= 1 (got " + std::to_string(res) + ")");
  else if (devices > JobLimits::MAX_DEVICES)
    sink.add(at, path + ".res",
             "too many resources (got " + std::to_string(res) + "): more than " +
                 std::to_string(JobLimits::MAX_DEVICES) +
                 " devices; expected at most that many "
                 "(docs/formats/limits.md)");
  else
    job.devices = static_cast<int>(devices);
}

void BatsimReader::read_job_members(Job& job, const std::string& path, double& walltime, DiagnosticSink& sink)
{
  bool has_id = false, has_subtime = false, has_res = false, has_profile = false;
  std::string key;
  while (json_->next_member(key)) {
    const SourceLocation at = json_->where();
    const auto kind = json_->peek_kind();
    auto number = [&](const char* expected) -> std::optional<double> {
      if (kind != JsonStream::Kind::NUMBER) {
        json_->skip_value();
        sink.add(at, path + "." + key, std::string("not a number; expected ") + expected);
        return std::nullopt;
      }
      return json_->number_value();
    };
    if (key == "id") {
      if (kind == JsonStream::Kind::STRING || kind == JsonStream::Kind::NUMBER) {
        job.id = json_->scalar_text();
        has_id = !job.id.empty();
      } else {
        json_->skip_value();
        sink.add(at, path + ".id", "expected a string or a number");
      }
    } else if (key == "subtime") {
      if (auto v = number("seconds >= 0")) {
        if (*v < 0)
          sink.add(at, path + ".subtime", "negative (got " + std::to_string(*v) + "); expected seconds >= 0");
        job.submit_s = *v;
        has_subtime = true;
      }
    } else if (key == "walltime") {
      if (auto v = number("seconds > 0, or -1 for none")) walltime = *v;
    } else if (key == "res") {
      if (auto v = number("a whole number of resources >= 1")) {
        read_res(*v, at, path, job, sink);
        has_res = true;
      }
    } else if (key == "profile") {
      if (kind != JsonStream::Kind::STRING) {
        json_->skip_value();
        sink.add(at, path + ".profile", "expected a profile name (a string)");
      } else {
        has_profile = true;
        job.trace_class = json_->string_value();
        if (!profiles_.count(job.trace_class))
          sink.add(at, path + ".profile",
                   "unknown profile '" + job.trace_class + "'; expected a name from \"profiles\"");
      }
    } else {
      json_->skip_value();
    }
  }
  if (!has_id) sink.add(job.origin, path + ".id", "missing; expected a job id");
  if (!has_subtime)
    sink.add(job.origin, path + ".subtime", "missing; expected the submission time in seconds");
  if (!has_res) sink.add(job.origin, path + ".res", "missing; expected the number of resources");
  if (!has_profile) sink.add(job.origin, path + ".profile", "missing; expected a profile name");
}

void BatsimReader::set_duration(Job& job, const std::string& path, double walltime)
{
  const auto& profile = profiles_.at(job.trace_class);
  if (options_.duration == BatsimDurationRule::WALLTIME) {
    if (walltime <= 0)
      throw InputError(job.origin, path + ".walltime",
                       "missing or -1; duration=walltime needs every job's walltime (seconds > 0)");
    job.duration_s = walltime;
  } else if (const auto d = resolve(job.trace_class, 0)) {
    job.duration_s = *d;
    if (walltime > 0 && walltime < *d) {
      job.duration_s = walltime; // Batsim kills the job at its walltime
      ++capped_;
    }
  } else if (walltime > 0) {
    job.duration_s = walltime;
    ++walltime_fallback_[profile.type];
  } else {
    throw InputError(
        job.origin, path + ".walltime",
        "profile '" + job.trace_class + "' is of type " + profile.type +
            ", whose run time depends on Batsim's platform, and the job has no walltime; expected a "
            "delay profile or a walltime");
  }
  if (walltime > 0) job.requested_s = walltime; // the user's estimate (workload.estimates: requested)
}

bool BatsimReader::read_job()
{
  if (!json_) open_jobs();
  if (!in_jobs_) return false;
  if (!json_->next_element()) {
    in_jobs_ = false;
    return false;
  }
  ++index_;
  const std::string path = "jobs[" + std::to_string(index_) + "]";
  Job job;
  job.origin = json_->where();
  if (json_->peek_kind() != JsonStream::Kind::OBJECT)
    throw InputError(job.origin, path, "expected a job object {\"id\", \"subtime\", \"res\", \"profile\"}");
  json_->begin_object();
  DiagnosticSink sink;
  double walltime = -1;
  read_job_members(job, path, walltime, sink);
  sink.throw_if_any();
  set_duration(job, path, walltime);
  if (job.duration_s <= 0) {
    ++zero_runtime_;
    return true; // nothing pushed, but the array goes on
  }
  window_.push(std::move(job));
  return true;
}

std::optional<Job> BatsimReader::next()
{
  while (!done_ && !window_.full())
    if (!read_job()) done_ = true;
  if (window_.empty()) return std::nullopt;
  return window_.pop();
}

std::vector<std::string> BatsimReader::warnings() const
{
  std::vector<std::string> w;
  for (const auto& [type, n] : walltime_fallback_)
    w.push_back(file_ + ": " + std::to_string(n) + " job(s) with profiles of type " + type +
                " (run time set by Batsim's platform) ran for their walltime");
  if (capped_)
    w.push_back(file_ + ": " + std::to_string(capped_) +
                " job(s) were cut at their walltime, shorter than their profile");
  if (zero_runtime_)
    w.push_back(file_ + ": skipped " + std::to_string(zero_runtime_) + " job(s) with a run time of 0");
  if (window_.reordered())
    w.push_back(file_ + ": " + std::to_string(window_.reordered()) +
                " job(s) were out of subtime order and were replayed in order");
  return w;
}

std::unique_ptr<JobReader> open_batsim(const std::string& path, BatsimOptions options)
{
  return std::make_unique<OwningReader<BatsimReader>>(path, options);
}

} // namespace colocsim
