#include "workloads/PaiReader.hpp"

#include "workloads/CsvLines.hpp"
#include "workloads/InputLimits.hpp"
#include "workloads/OwningReader.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

namespace colocsim {

namespace {
const char* const TASK_COLUMNS =
    "job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type";
const char* const JOB_COLUMNS = "job_name,inst_id,user,status,start_time,end_time";
// Column indices of the two tables.
constexpr std::size_t T_JOB = 0, T_TASK = 1, T_INST = 2, T_STATUS = 3, T_START = 4, T_END = 5, T_GPU = 8,
                      T_TYPE = 9;
constexpr std::size_t J_JOB = 0, J_STATUS = 3, J_START = 4, J_END = 5;
} // namespace

PaiReader::PaiReader(std::istream& in, std::string file_name, PaiOptions options)
    : file_(std::move(file_name)), options_(std::move(options)), csv_(in, file_), table_(options_.table),
      window_(options_.reorder_window, "start_time", "sort the file by start_time (column 5)")
{
  if (options_.job_devices < 1)
    throw InputError(SourceLocation{file_}, "job_devices", "expected an integer >= 1");
}

bool PaiReader::next_line()
{
  while (csv_.next())
    if (csv_.size() == 0 || csv_[0].empty() || csv_[0][0] != '#') return true;
  return false;
}

bool PaiReader::read_row()
{
  while (next_line()) {
    if (table_ == PaiTable::AUTO) {
      if (csv_.size() == 10)
        table_ = PaiTable::TASK;
      else if (csv_.size() == 6)
        table_ = PaiTable::JOB;
      else
        throw InputError(csv_.at(), "row",
                         "wrong number of fields (got " + std::to_string(csv_.size()) +
                             "); expected 10 (task table: " + TASK_COLUMNS +
                             ") or 6 (job table: " + JOB_COLUMNS + "), no header");
    }
    const bool task = table_ == PaiTable::TASK;
    const std::size_t width = task ? 10 : 6;
    if (csv_.size() != width)
      throw InputError(csv_.at(), "row",
                       "wrong number of fields (got " + std::to_string(csv_.size()) + "); expected " +
                           std::to_string(width) + ": " + (task ? TASK_COLUMNS : JOB_COLUMNS));
    if (csv_[0] == "job_name") continue; // tolerate a header row

    DiagnosticSink sink;
    const std::size_t status_col = task ? T_STATUS : J_STATUS, start_col = task ? T_START : J_START,
                      end_col = task ? T_END : J_END;
    const std::string& status = csv_[status_col];
    if (status != "Terminated" && status != "Failed" && status != "Running" && status != "Waiting")
      csv_.bad(status_col, "status", "unknown status", "Terminated, Failed, Running or Waiting", sink);
    Job job;
    job.origin = csv_.at();
    if (csv_[0].empty()) csv_.bad(0, "job_name", "empty", "a job name", sink);
    // Unfinished rows are skipped whatever their times say (a waiting task may have none).
    const bool unfinished = csv_[end_col].empty() || status == "Running" || status == "Waiting";
    std::optional<double> start, end;
    if (!unfinished) {
      start = csv_.number(start_col, "start_time", "seconds >= 0", sink, 0);
      end = csv_.number(end_col, "end_time", "seconds >= start_time, or empty", sink, 0);
    }
    if (start && end && *end < *start)
      csv_.bad(end_col, "end_time", "earlier than start_time " + csv_[start_col], "end_time >= start_time",
               sink);

    double gpu_percent = 0;
    if (task) {
      job.id = csv_[T_JOB] + "/" + csv_[T_TASK];
      job.trace_class = csv_[T_TASK];
      const auto inst =
          csv_.number(T_INST, "inst_num", "a whole number of instances >= 1", sink, 1, 1e9, true);
      if (!csv_[T_GPU].empty())
        if (auto g = csv_.number(T_GPU, "plan_gpu", "percent of one GPU per instance, >= 0 (50 = half a GPU)",
                                 sink, 0))
          gpu_percent = *g;
      const std::string& type = csv_[T_TYPE];
      if (!type.empty() && type != "CPU" &&
          std::find(options_.gpu_types.begin(), options_.gpu_types.end(), type) == options_.gpu_types.end())
        csv_.bad(T_TYPE, "gpu_type", "unknown GPU type '" + type + "'",
                 "one of " + join(options_.gpu_types, ", ") + " (or CPU, or empty)", sink);
      sink.throw_if_any();
      if (gpu_percent <= 0) {
        ++cpu_only_;
        continue;
      }
      // An instance asking for more than one GPU gets whole devices, sharing the request evenly.
      const double per_instance = std::ceil(gpu_percent / 100.0);
      if (*inst * per_instance > JobLimits::MAX_DEVICES)
        throw InputError(csv_.at(T_GPU), "plan_gpu",
                         "inst_num x GPUs per instance is more than " +
                             std::to_string(JobLimits::MAX_DEVICES) + " devices (got " + csv_[T_INST] +
                             " x " + csv_[T_GPU] +
                             " %); expected at most that many (docs/formats/limits.md)");
      job.devices = static_cast<int>(*inst * per_instance);
      job.gpu_milli = std::clamp(static_cast<int>(std::lround(gpu_percent * 10.0 / per_instance)), 1, 1000);
      job.gpu_types = type == "CPU" ? std::string() : type;
    } else {
      job.id = csv_[J_JOB];
      job.devices = options_.job_devices;
      sink.throw_if_any();
    }
    if (unfinished) {
      ++unfinished_;
      continue;
    }
    if (options_.terminated_only && status != "Terminated") {
      ++failed_skipped_;
      continue;
    }
    job.submit_s = *start;
    job.duration_s = *end - *start;
    job.qos = "status=" + status;
    job.trace_status = status;
    if (job.duration_s <= 0) {
      ++zero_runtime_;
      continue;
    }
    window_.push(std::move(job));
    return true;
  }
  return false;
}

std::optional<Job> PaiReader::next()
{
  while (!eof_ && !window_.full())
    if (!read_row()) eof_ = true;
  if (window_.empty()) return std::nullopt;
  return window_.pop();
}

std::vector<std::string> PaiReader::warnings() const
{
  std::vector<std::string> w;
  const std::string what = table_ == PaiTable::JOB ? "job(s)" : "task(s)";
  if (unfinished_)
    w.push_back(file_ + ": skipped " + std::to_string(unfinished_) + " " + what +
                " that did not finish in the trace (status Running/Waiting or no end_time)");
  if (cpu_only_)
    w.push_back(file_ + ": skipped " + std::to_string(cpu_only_) + " CPU-only task(s) (plan_gpu 0 or empty)");
  if (failed_skipped_)
    w.push_back(file_ + ": skipped " + std::to_string(failed_skipped_) + " failed " + what +
                " (status=terminated)");
  if (zero_runtime_)
    w.push_back(file_ + ": skipped " + std::to_string(zero_runtime_) + " " + what + " with a run time of 0");
  if (window_.reordered())
    w.push_back(file_ + ": " + std::to_string(window_.reordered()) +
                " row(s) were out of start_time order and were replayed in order");
  return w;
}

std::unique_ptr<JobReader> open_pai(const std::string& path, PaiOptions options)
{
  return std::make_unique<OwningReader<PaiReader>>(path, std::move(options));
}

} // namespace colocsim
