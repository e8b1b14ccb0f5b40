#include "workloads/OpenbReader.hpp"

#include "base/Gzip.hpp"
#include "base/Units.hpp"
#include "models/GpuTypes.hpp"
#include "workloads/CsvLines.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <string_view>

namespace colocsim {

namespace {
const char* const COLUMN_NAMES[] = {"name",          "cpu_milli",     "memory_mib",    "num_gpu",
                                    "gpu_milli",     "gpu_spec",      "qos",           "pod_phase",
                                    "creation_time", "deletion_time", "scheduled_time"};
const char* const FULL_HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_"
                                "time,deletion_time,scheduled_time";
const char* const SHORT_HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli";

} // namespace

OpenbPodReader::OpenbPodReader(std::istream& in, std::string file_name, OpenbOptions options)
    : file_(std::move(file_name)), options_(std::move(options)), csv_(in, file_),
      window_(options_.reorder_window, "creation_time", "sort the file by creation_time (column 9)")
{
  if (!csv_.next())
    throw InputError(SourceLocation{file_}, "header",
                     std::string("empty file; expected the header ") + FULL_HEADER);
  for (int c = 0; c < COLS; ++c)
    col_[c] = column_index(csv_, COLUMN_NAMES[c]);
  std::vector<std::string> missing;
  for (int c : {NAME, NUM_GPU, GPU_MILLI})
    if (col_[c] < 0) missing.emplace_back(COLUMN_NAMES[c]);
  // Either every time column (the timed pod lists) or none (the request-only multigpuNN lists).
  std::vector<std::string> timed_missing;
  for (int c : {QOS, PHASE, CREATION, DELETION, SCHEDULED})
    if (col_[c] < 0) timed_missing.emplace_back(COLUMN_NAMES[c]);
  timed_ = timed_missing.empty();
  if (!timed_ && timed_missing.size() < 5)
    missing.insert(missing.end(), timed_missing.begin(), timed_missing.end());
  if (!missing.empty())
    throw InputError(csv_.at(), "header",
                     "missing column(s) " + join(missing) + "; expected " + FULL_HEADER +
                         " (or the request-only variant " + SHORT_HEADER + ")");
  width_ = csv_.size();
}

bool OpenbPodReader::read_row()
{
  auto idx = [&](Col c) { return static_cast<std::size_t>(col_[c]); };
  while (csv_.next()) {
    ++row_;
    if (csv_.size() != width_)
      throw InputError(csv_.at(), "row",
                       "wrong number of fields (got " + std::to_string(csv_.size()) + "); expected " +
                           std::to_string(width_) + " as in the header");
    DiagnosticSink sink;
    Job job;
    job.origin = csv_.at();
    job.id = csv_[idx(NAME)];
    if (job.id.empty()) csv_.bad(idx(NAME), "name", "empty", "a pod name", sink);
    const auto gpus =
        csv_.number(idx(NUM_GPU), "num_gpu", "a whole number of GPUs >= 0", sink, 0, 1 << 20, true);
    const auto milli = csv_.number(
        idx(GPU_MILLI), "gpu_milli",
        "a whole number 0..1000 (thousandths of each GPU; 1..1000 when num_gpu > 0)", sink, 0, 1000, true);
    if (gpus && milli && *gpus > 0 && *milli < 1)
      csv_.bad(idx(GPU_MILLI), "gpu_milli", "zero share for a GPU pod", "1..1000 when num_gpu > 0", sink);
    if (col_[GPU_SPEC] >= 0 && !csv_[idx(GPU_SPEC)].empty()) {
      const std::string& spec = csv_[idx(GPU_SPEC)];
      any_gpu_type(spec, [&](std::string_view type) {
        if (std::find(options_.gpu_types.begin(), options_.gpu_types.end(), type) != options_.gpu_types.end())
          return false;
        csv_.bad(idx(GPU_SPEC), "gpu_spec", "unknown GPU type '" + std::string(type) + "'",
                 "GPU types separated by '|' from: " + join(options_.gpu_types, ", ") + " (or empty = any)",
                 sink);
        return true; // the first unknown one
      });
      job.gpu_types = spec;
    }

    if (col_[CPU] >= 0 && !csv_[idx(CPU)].empty())
      if (const auto cpu = csv_.number(idx(CPU), "cpu_milli", "thousandths of a CPU core, >= 0", sink, 0))
        job.cpus = *cpu / 1000.0;
    if (col_[MEM] >= 0 && !csv_[idx(MEM)].empty())
      if (const auto mem = csv_.number(idx(MEM), "memory_mib", "MiB of host memory, >= 0", sink, 0))
        job.host_mem_bytes = *mem * 1024.0 * 1024.0;
    bool pending = false;
    if (timed_) {
      job.qos = csv_[idx(QOS)];
      job.trace_status = csv_[idx(PHASE)];
      const std::string& phase = csv_[idx(PHASE)];
      if (phase != "Running" && phase != "Succeeded" && phase != "Failed" && phase != "Pending")
        csv_.bad(idx(PHASE), "pod_phase", "unknown phase", "Running, Succeeded, Failed or Pending", sink);
      const auto created = csv_.number(idx(CREATION), "creation_time", "seconds >= 0", sink, 0);
      const auto deleted = csv_.number(idx(DELETION), "deletion_time", "seconds >= 0", sink, 0);
      pending = csv_[idx(SCHEDULED)].empty();
      if (created) job.submit_s = *created;
      if (!pending) {
        const auto scheduled = csv_.number(idx(SCHEDULED), "scheduled_time",
                                           "seconds >= 0, or empty for a pod never scheduled", sink, 0);
        if (scheduled && deleted) {
          if (*deleted < *scheduled)
            csv_.bad(idx(DELETION), "deletion_time", "earlier than scheduled_time " + csv_[idx(SCHEDULED)],
                     "deletion_time >= scheduled_time (run time = deletion - scheduled)", sink);
          job.duration_s = *deleted - *scheduled;
        }
      }
    } else {
      job.submit_s = static_cast<double>(row_ - 1) * options_.untimed_interarrival_s;
      job.duration_s = options_.untimed_duration_s;
    }
    sink.throw_if_any();

    if (options_.requests_only) {
      job.submit_s = static_cast<double>(row_ - 1);
      job.duration_s = options_.untimed_duration_s;
      job.devices = static_cast<int>(*gpus);
      job.gpu_milli = *gpus == 0 ? 0 : static_cast<int>(*milli);
      window_.push(std::move(job));
      return true;
    }
    if (*gpus == 0) {
      ++cpu_only_;
      continue;
    }
    job.devices = static_cast<int>(*gpus);
    job.gpu_milli = static_cast<int>(*milli);
    if (pending) {
      if (options_.pending == OpenbPendingRule::SKIP) {
        ++pending_skipped_;
        continue;
      }
      ++pending_kept_;
      job.duration_s = options_.pending_duration_s;
    } else if (job.duration_s <= 0) {
      ++zero_runtime_;
      continue;
    }
    window_.push(std::move(job));
    return true;
  }
  return false;
}

std::optional<Job> OpenbPodReader::next()
{
  while (!eof_ && !window_.full())
    if (!read_row()) eof_ = true;
  if (window_.empty()) return std::nullopt;
  return window_.pop();
}

std::vector<std::string> OpenbPodReader::warnings() const
{
  std::vector<std::string> w;
  if (cpu_only_)
    w.push_back(file_ + ": skipped " + std::to_string(cpu_only_) + " CPU-only pod(s) (num_gpu = 0)");
  if (pending_skipped_)
    w.push_back(file_ + ": skipped " + std::to_string(pending_skipped_) +
                " pending pod(s) with no scheduled_time (pending=skip)");
  if (pending_kept_)
    w.push_back(file_ + ": " + std::to_string(pending_kept_) +
                " pending pod(s) with no scheduled_time were given a run time of " +
                number_text(options_.pending_duration_s) + " s (pending=keep)");
  if (zero_runtime_)
    w.push_back(file_ + ": skipped " + std::to_string(zero_runtime_) +
                " pod(s) deleted the second they were scheduled (run time 0)");
  if (window_.reordered())
    w.push_back(file_ + ": " + std::to_string(window_.reordered()) +
                " pod(s) were out of creation_time order and were replayed in order");
  if (!timed_)
    w.push_back(file_ + ": request-only pod list (no times): every pod lasts " +
                number_text(options_.untimed_duration_s) + " s, submitted " +
                (options_.untimed_interarrival_s > 0
                     ? "every " + number_text(options_.untimed_interarrival_s) + " s"
                     : std::string("at time 0")) +
                " in file order");
  return w;
}

namespace {

/// The file-owning openb reader: a pod list read through GzipIfstream, so that a gzip-compressed list
/// (`openb_pod_list_*.csv.gz`, the FGD experiment's bundled data) and a plain one read alike. zlib reports a
/// gzip stream cut short or corrupt only when the reading stops (the lines before it are intact): any error
/// then, or at the end of the file, becomes an InputError naming the file, never a shorter pod list.
class GzipOpenbReader final : public JobReader {
public:
  GzipOpenbReader(const std::string& path, OpenbOptions options) : path_(path)
  {
    open_input_file(path, "trace file"); // the common wording for a missing file, a directory or a FIFO
    if (!in_.open(path))
      throw InputError(SourceLocation{path}, "", "cannot open trace file; expected a readable file");
    try {
      reader_.emplace(in_, path, std::move(options));
    } catch (const InputError&) {
      check_stream();
      throw;
    }
  }
  std::optional<Job> next() override
  {
    std::optional<Job> job;
    try {
      job = reader_->next();
    } catch (const InputError&) {
      check_stream(); // a line cut short by a damaged gzip stream: report the cause, not the line
      throw;
    }
    if (!job) check_stream();
    return job;
  }
  std::vector<std::string> warnings() const override { return reader_->warnings(); }
  std::string describe() const override { return reader_->describe(); }
  bool may_have_dependencies() const override { return reader_->may_have_dependencies(); }

private:
  void check_stream() const
  {
    if (!in_.error().empty())
      throw InputError(SourceLocation{path_}, "",
                       "gzip data cut short or corrupt (zlib: " + in_.error() +
                           "); expected a complete gzip file (gzip -t checks one) or a plain CSV file");
  }
  std::string path_;
  GzipIfstream in_; // declared before reader_, which keeps a reference to it
  std::optional<OpenbPodReader> reader_;
};

} // namespace

std::unique_ptr<JobReader> open_openb(const std::string& path, OpenbOptions options)
{
  return std::make_unique<GzipOpenbReader>(path, std::move(options));
}

} // namespace colocsim
