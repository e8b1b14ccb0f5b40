#include "workloads/ItpCsvReader.hpp"

#include "base/Units.hpp"
#include "workloads/CsvLines.hpp"
#include "workloads/InputLimits.hpp"
#include "workloads/OwningReader.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace colocsim {

namespace {
std::vector<std::string> split_commas(const std::string& line)
{
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string f; std::getline(ss, f, ',');)
    out.push_back(f);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}
} // namespace

ItpCsvReader::ItpCsvReader(std::istream& in, std::string file_name,
                           std::map<std::string, std::string> model_profiles)
    : in_(in), file_(std::move(file_name)), model_profiles_(std::move(model_profiles))
{
  std::string header;
  if (!in_.next(header, file_, 1))
    throw InputError(SourceLocation{file_, 1}, "header",
                     "empty file; expected job_id,submission_time,duration,num_gpu");
  ++line_;
  const auto cols = split_commas(header);
  columns_ = cols.size();
  for (std::size_t i = 0; i < cols.size(); ++i) {
    const int k = static_cast<int>(i);
    if (cols[i] == "job_id")
      id_ = k;
    else if (cols[i] == "submission_time")
      submit_ = k;
    else if (cols[i] == "duration")
      duration_ = k;
    else if (cols[i] == "num_gpu")
      gpus_ = k;
    else if (cols[i] == "model_name")
      model_ = k;
  }
  std::vector<std::string> missing;
  for (auto [idx, name] : {std::pair{id_, "job_id"}, std::pair{submit_, "submission_time"},
                           std::pair{duration_, "duration"}, std::pair{gpus_, "num_gpu"}})
    if (idx < 0) missing.emplace_back(name);
  if (!missing.empty())
    throw InputError(SourceLocation{file_, 1}, "header",
                     "missing column(s) " + join(missing) +
                         "; expected job_id,submission_time,duration,num_gpu");
}

std::optional<Job> ItpCsvReader::next()
{
  std::string text;
  while (in_.next(text, file_, line_ + 1)) {
    ++line_;
    if (text.empty()) continue;
    const auto f = split_commas(text);
    const SourceLocation at{file_, line_};
    if (f.size() != columns_)
      throw InputError(at, "row",
                       "expected " + std::to_string(columns_) + " fields like the header (got " +
                           std::to_string(f.size()) + ")");
    auto number = [&](int col, const char* name, const char* expected) {
      auto v = parse_double(f[static_cast<std::size_t>(col)]);
      if (!v || *v < 0)
        throw InputError(at, name, "got '" + f[static_cast<std::size_t>(col)] + "'; expected " + expected);
      return *v;
    };
    Job job;
    job.id = f[static_cast<std::size_t>(id_)];
    job.submit_s = number(submit_, "submission_time", "seconds >= 0");
    job.duration_s = number(duration_, "duration", "seconds > 0");
    if (job.duration_s <= 0)
      throw InputError(at, "duration",
                       "got '" + f[static_cast<std::size_t>(duration_)] + "'; expected seconds > 0");
    const double gpus = number(gpus_, "num_gpu", "a whole number of GPUs >= 1");
    if (gpus > JobLimits::MAX_DEVICES)
      throw InputError(at, "num_gpu",
                       "got '" + f[static_cast<std::size_t>(gpus_)] + "'; expected at most " +
                           std::to_string(JobLimits::MAX_DEVICES) + " GPUs (docs/formats/limits.md)");
    if (gpus < 1 || gpus != std::floor(gpus))
      throw InputError(at, "num_gpu",
                       "got '" + f[static_cast<std::size_t>(gpus_)] + "'; expected a whole number >= 1");
    job.devices = static_cast<int>(gpus);
    if (job.submit_s < last_submit_)
      throw InputError(at, "submission_time",
                       "unsorted: " + f[static_cast<std::size_t>(submit_)] + " < previous " +
                           last_submit_text_ + "; expected non-decreasing times");
    last_submit_ = job.submit_s;
    last_submit_text_ =
        f[static_cast<std::size_t>(submit_)]; // as written: no cast of a huge time to an integer
    if (model_ >= 0) {
      const auto& model = f[static_cast<std::size_t>(model_)];
      job.trace_class = model;
      if (auto it = model_profiles_.find(model); it != model_profiles_.end()) job.profile = it->second;
    }
    job.origin = at;
    return job;
  }
  return std::nullopt;
}

std::map<std::string, std::string> parse_profile_map(const std::string& text, const SourceLocation& where)
{
  std::map<std::string, std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw InputError(where, "profile_map", "expected model=profile items (got '" + item + "')");
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

std::unique_ptr<JobReader> open_itp_csv(const std::string& path,
                                        std::map<std::string, std::string> model_profiles)
{
  return std::make_unique<OwningReader<ItpCsvReader>>(path, std::move(model_profiles));
}

} // namespace colocsim
