#include "workloads/SwfReader.hpp"

#include "base/Units.hpp"
#include "workloads/CsvLines.hpp"
#include "workloads/InputLimits.hpp"
#include "workloads/OwningReader.hpp"

#include <cmath>
#include <fstream>

namespace colocsim {

namespace {
/// Value of a `; Key: value` header line, if the line carries `key`.
void header_value(const std::string& text, const char* key, long long& out)
{
  const auto at = text.find(key);
  if (at == std::string::npos) return;
  std::string rest = text.substr(at + std::char_traits<char>::length(key));
  const auto b = rest.find_first_not_of(" \t");
  const auto e = rest.find_last_not_of(" \t");
  if (b == std::string::npos) return;
  if (auto v = parse_int(rest.substr(b, e - b + 1))) out = *v;
}
} // namespace

SwfReader::SwfReader(std::istream& in, std::string file_name, SwfOptions options)
    : in_(in), file_(std::move(file_name)), options_(options),
      window_(options.reorder_window, "submit", "sort the file by field 2 (e.g. sort -n -k2)")
{
  if (options_.procs_per_device < 1)
    throw InputError(SourceLocation{file_}, "procs_per_device", "expected an integer >= 1");
  if (options_.devices_per_proc < 1)
    throw InputError(SourceLocation{file_}, "devices_per_proc", "expected an integer >= 1");
}

SwfReader::SwfReader(std::istream& in, std::string file_name, int procs_per_device,
                     std::size_t reorder_window)
    : SwfReader(in, std::move(file_name),
                SwfOptions{.procs_per_device = procs_per_device, .reorder_window = reorder_window})
{
}

bool SwfReader::read_row()
{
  std::array<std::string, 18> f;
  while (in_.next(text_, file_, line_ + 1)) {
    ++line_;
    const auto first = text_.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (text_[first] == ';') {
      header_value(text_, "MaxProcs:", max_procs_);
      header_value(text_, "MaxNodes:", max_nodes_);
      continue;
    }
    // Split on blanks without allocating per row beyond the 18 reused strings.
    std::size_t n = 0, i = first;
    while (i < text_.size()) {
      const auto end = text_.find_first_of(" \t", i);
      const auto stop = end == std::string::npos ? text_.size() : end;
      if (n < f.size()) f[n].assign(text_, i, stop - i);
      ++n;
      i = text_.find_first_not_of(" \t", stop);
      if (i == std::string::npos) break;
    }
    const SourceLocation at{file_, line_};
    if (n != 18)
      throw InputError(at, "row",
                       "expected 18 whitespace-separated SWF fields (got " + std::to_string(n) + ")");
    auto number = [&](int field, const char* name) {
      auto v = parse_double(f[static_cast<std::size_t>(field - 1)]);
      if (!v)
        throw InputError(at, name,
                         "not a number (got '" + f[static_cast<std::size_t>(field - 1)] +
                             "'); expected a number or -1 for unknown (SWF field " + std::to_string(field) +
                             ")");
      return *v;
    };
    Job job;
    job.id = f[0];
    job.submit_s = number(2, "submit");
    const double runtime = number(4, "run_time");
    double procs = number(5, "allocated_processors");
    if (procs < 0) procs = number(8, "requested_processors");
    const double status = number(11, "status");
    if (runtime <= 0 || procs <= 0) {
      ++skipped_no_run_;
      continue;
    }
    if ((options_.status == SwfStatusRule::NOT_CANCELLED && status == 5) ||
        (options_.status == SwfStatusRule::COMPLETED && status != 1 && status != -1)) {
      ++skipped_status_;
      continue;
    }
    if (job.submit_s < 0)
      throw InputError(at, "submit", "negative submit time (got " + f[1] + "); expected seconds >= 0");
    job.duration_s = runtime;
    if (const double requested = number(9, "requested_time"); requested > 0) job.requested_s = requested;
    const double devices = std::ceil(procs * options_.devices_per_proc / options_.procs_per_device);
    if (devices > JobLimits::MAX_DEVICES)
      throw InputError(at, "allocated_processors",
                       "too many (got " + f[4] + ", " + f[7] + " requested): more than " +
                           std::to_string(JobLimits::MAX_DEVICES) +
                           " devices; expected at most that many (docs/formats/limits.md)");
    job.devices = static_cast<int>(devices);
    job.qos = "status=" + f[10];
    // SWF field 11 codes (Feitelson's definition): 0 failed, 1 completed, 5 cancelled; -1 unknown.
    job.trace_status = status == 1    ? "completed"
                       : status == 0  ? "failed"
                       : status == 5  ? "cancelled"
                       : status == -1 ? ""
                                      : "status " + f[10];
    if (f[11] != "-1") job.user = f[11];
    // Fields 17-18: the job may only be submitted `think time` seconds after its preceding job ended.
    const double preceding = number(17, "preceding_job");
    if (preceding > 0) {
      job.depends_on.push_back(f[16]);
      const double think = number(18, "think_time");
      job.think_time_s = think > 0 ? think : 0;
    }
    job.origin = at;
    window_.push(std::move(job));
    return true;
  }
  return false;
}

std::optional<Job> SwfReader::next()
{
  while (!eof_ && !window_.full())
    if (!read_row()) eof_ = true;
  if (window_.empty()) return std::nullopt;
  return window_.pop();
}

std::vector<std::string> SwfReader::warnings() const
{
  std::vector<std::string> w;
  if (skipped_no_run_)
    w.push_back(file_ + ": skipped " + std::to_string(skipped_no_run_) +
                " row(s) with no run time or no processor count (SWF -1 or 0)");
  if (skipped_status_)
    w.push_back(file_ + ": skipped " + std::to_string(skipped_status_) + " row(s) by their status (status=" +
                (options_.status == SwfStatusRule::COMPLETED ? "completed" : "not-cancelled") + ")");
  if (window_.reordered())
    w.push_back(file_ + ": " + std::to_string(window_.reordered()) +
                " row(s) were out of submit order and were replayed in order (non-canonical SWF)");
  return w;
}

std::unique_ptr<JobReader> open_swf(const std::string& path, SwfOptions options)
{
  return std::make_unique<OwningReader<SwfReader>>(path, options);
}

std::unique_ptr<JobReader> open_swf(const std::string& path, int procs_per_device)
{
  return open_swf(path, SwfOptions{.procs_per_device = procs_per_device});
}

} // namespace colocsim
