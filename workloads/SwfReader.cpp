#include "workloads/SwfReader.hpp"

#include "models/Units.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

namespace colocsim {

SwfReader::SwfReader(std::istream& in, std::string file_name, int procs_per_device,
                     std::size_t reorder_window)
    : in_(in), file_(std::move(file_name)), procs_per_device_(procs_per_device), window_(reorder_window)
{
  if (procs_per_device_ < 1)
    throw InputError(SourceLocation{file_}, "procs_per_device", "expected an integer >= 1");
}

bool SwfReader::read_row()
{
  std::string text;
  while (std::getline(in_, text)) {
    ++line_;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (text[first] == ';') {
      // Header metadata, e.g. "; MaxProcs: 4360".
      const auto key = text.find("MaxProcs:");
      if (key != std::string::npos)
        if (auto v = parse_int(text.substr(key + 9))) max_procs_ = *v;
      continue;
    }
    std::istringstream fields(text);
    std::vector<std::string> f;
    for (std::string x; fields >> x;)
      f.push_back(x);
    const SourceLocation at{file_, line_};
    if (f.size() != 18)
      throw InputError(at, "row",
                       "expected 18 whitespace-separated SWF fields (got " + std::to_string(f.size()) + ")");
    auto number = [&](int field, const char* name) {
      auto v = parse_double(f[static_cast<std::size_t>(field - 1)]);
      if (!v)
        throw InputError(at, name,
                         "not a number (got '" + f[static_cast<std::size_t>(field - 1)] +
                             "'); expected a number "
                             "or -1 for unknown (SWF field " +
                             std::to_string(field) + ")");
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
      ++skipped_;
      continue;
    }
    if (job.submit_s < 0)
      throw InputError(at, "submit", "negative submit time (got " + f[1] + "); expected seconds >= 0");
    job.duration_s = runtime;
    job.devices = static_cast<int>(std::ceil(procs / procs_per_device_));
    job.qos = "status=" + f[10];
    (void)status;
    job.origin = at;
    if (job.submit_s < last_read_) ++reordered_;
    last_read_ = std::max(last_read_, job.submit_s);
    buffer_.push(std::move(job));
    return true;
  }
  return false;
}

std::optional<Job> SwfReader::next()
{
  while (!eof_ && buffer_.size() < window_)
    if (!read_row()) eof_ = true;
  if (buffer_.empty()) return std::nullopt;
  Job job = buffer_.top();
  buffer_.pop();
  if (job.submit_s < last_out_)
    throw InputError(job.origin, "submit",
                     "submit time " + std::to_string(job.submit_s) +
                         " is earlier than a job already replayed (" + std::to_string(last_out_) +
                         ") and beyond the reorder window of " + std::to_string(window_) +
                         " rows; sort the file by field 2 (e.g. sort -n -k2)");
  last_out_ = job.submit_s;
  return job;
}

std::vector<std::string> SwfReader::warnings() const
{
  std::vector<std::string> w;
  if (skipped_)
    w.push_back(file_ + ": skipped " + std::to_string(skipped_) +
                " row(s) with no run time or no processor count (SWF -1 or 0)");
  if (reordered_)
    w.push_back(file_ + ": " + std::to_string(reordered_) +
                " row(s) were out of submit order and were replayed in order (non-canonical SWF)");
  return w;
}

namespace {
class OwningSwfReader final : public JobReader {
public:
  OwningSwfReader(const std::string& path, int procs_per_device)
      : in_(path), reader_((check(path), in_), path, procs_per_device)
  {
  }
  std::optional<Job> next() override { return reader_.next(); }
  std::vector<std::string> warnings() const override { return reader_.warnings(); }

private:
  void check(const std::string& path)
  {
    if (!in_) throw InputError(SourceLocation{path}, "", "cannot open trace file");
  }
  std::ifstream in_;
  SwfReader reader_;
};
} // namespace

std::unique_ptr<JobReader> open_swf(const std::string& path, int procs_per_device)
{
  return std::make_unique<OwningSwfReader>(path, procs_per_device);
}

} // namespace colocsim
