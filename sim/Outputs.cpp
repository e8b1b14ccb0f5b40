#include "sim/Outputs.hpp"

#include "base/Csv.hpp"
#include "base/Gzip.hpp"
#include "base/Utf8.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <system_error>
#include <unistd.h>

namespace colocsim {

std::string format_double(double v)
{
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : std::string("nan");
}

std::string json_number(double v)
{
  // JSON (RFC 8259 §6) has no infinity or NaN: a value that overflowed or is undefined is written as null.
  return std::isfinite(v) ? format_double(v) : std::string("null");
}

void append_json_string(std::string& out, std::string_view text)
{
  // RFC 8259 text is UTF-8: bytes that are not (a name read from a Latin-1 file) become \xNN first, whose
  // backslash is then escaped like any other ("\\xe9").
  const std::string valid = is_utf8(text) ? std::string() : utf8_or_escaped(text);
  const std::string_view s = valid.empty() ? text : std::string_view(valid);
  out += '"';
  for (const char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
        out += buf;
      } else {
        out += c;
      }
    }
  }
  out += '"';
}

std::string json_string(std::string_view s)
{
  std::string out;
  append_json_string(out, s);
  return out;
}

namespace {
const char* const RESULT_FILES[] = {"summary.json", "jobs.csv",          "timeseries.csv",
                                    "jobs.csv.gz",  "timeseries.csv.gz", "events.jsonl"};

} // namespace

void check_written(const std::ostream& s, const std::filesystem::path& file)
{
  if (!s.fail()) return;
  const int err = errno;
  throw OutputError("cannot write " + file.string() + ": " +
                    (err != 0 ? std::generic_category().message(err) : std::string("write failed")));
}

namespace {
/// Opens `file` for writing (truncating it); OutputError naming it and the OS error if it cannot be.
std::unique_ptr<std::ofstream> open_for_writing(const std::filesystem::path& file)
{
  errno = 0;
  auto f = std::make_unique<std::ofstream>(file);
  if (!*f)
    throw OutputError("cannot open " + file.string() + " for writing: " +
                      (errno != 0 ? std::generic_category().message(errno) : std::string("open failed")));
  return f;
}

/// Opens `file` for gzip writing (truncating it); OutputError naming it if it cannot be.
std::unique_ptr<GzipOfstream> open_gzip_for_writing(const std::filesystem::path& file)
{
  errno = 0;
  auto f = std::make_unique<GzipOfstream>(file.string());
  if (!f->is_open())
    throw OutputError("cannot open " + file.string() + " for writing: " +
                      (errno != 0 ? std::generic_category().message(errno) : std::string("open failed")));
  return f;
}

/// Flushes and closes `s` (a file stream) and checks that every write reached the file.
void close_checked(std::ostream& s, const std::filesystem::path& file)
{
  errno = 0;
  if (auto* g = dynamic_cast<GzipOfstream*>(&s)) {
    // The compressed data reach the file in blocks, the last ones only when it is closed: a full disk
    // shows here, with zlib's reason.
    if (!g->close()) throw OutputError("cannot write " + file.string() + ": " + g->error());
    return;
  }
  s.flush();
  check_written(s, file);
  if (auto* f = dynamic_cast<std::ofstream*>(&s)) {
    f->close();
    check_written(*f, file);
  }
}
} // namespace

OutputStage::OutputStage(const OutputOptions& options) : force_(options.force)
{
  namespace fs = std::filesystem;
  std::error_code ec;
  target_ = options.dir;
  if (target_.filename().empty()) target_ = target_.parent_path(); // "out/" → "out"
  if (target_.empty()) target_ = ".";
  if (fs::exists(target_, ec)) {
    if (!fs::is_directory(target_, ec))
      throw InputError(SourceLocation{target_.string()}, "", "output path exists and is not a directory");
    if (!force_) {
      for (const char* f : RESULT_FILES)
        if (fs::exists(target_ / f, ec))
          throw InputError(SourceLocation{target_.string()}, "",
                           std::string("already holds results of another run (") + f +
                               "); pass --force to overwrite them or -o DIR to write elsewhere");
    }
  }
  const fs::path abs = fs::absolute(target_, ec).lexically_normal();
  fs::path parent = abs.parent_path();
  std::string name = abs.filename().string();
  if (name.empty() || name == "." || name == "..") { // "." or "..": stage next to the directory it names
    parent = fs::weakly_canonical(abs, ec).parent_path();
    name = fs::weakly_canonical(abs, ec).filename().string();
  }
  fs::create_directories(parent, ec);
  if (ec)
    throw InputError(SourceLocation{target_.string()}, "",
                     "cannot create the directory " + parent.string() + ": " + ec.message());
  // Staging directories of this target that other processes made: ".NAME.partial-PID" (or "-PID-K").
  const std::string prefix = "." + name + ".partial-";
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    const std::string f = e.path().filename().string();
    if (f.rfind(prefix, 0) != 0) continue; // (only then may the digits after the prefix be read)
    long pid = 0;
    const char* digits = f.c_str() + prefix.size();
    const auto [end, err] = std::from_chars(digits, f.c_str() + f.size(), pid);
    if (err != std::errc() || end == digits || (*end != '\0' && *end != '-')) continue;
    const bool alive = pid != ::getpid() && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
    leftovers_.push_back(
        alive ? e.path().string() + " is the staging directory of a run into " + target_.string() +
                    " by process " + std::to_string(pid) +
                    ", which is still running: two runs are writing to the same output directory"
              : e.path().string() + " is the staging directory of an earlier run into " + target_.string() +
                    " by process " + std::to_string(pid) +
                    ", which ended before finishing (killed, crashed, or a Python policy called os._exit): "
                    "its files are incomplete and no results of it were written; colocsim leaves it as it "
                    "is; delete it (rm -r) once you no longer need it");
  }
  std::sort(leftovers_.begin(), leftovers_.end());
  // This process's own: a fresh name, never one a dead process of the same id left.
  staging_ = parent / (prefix + std::to_string(::getpid()));
  for (int k = 2; fs::exists(staging_, ec) || fs::is_symlink(staging_, ec); ++k)
    staging_ = parent / (prefix + std::to_string(::getpid()) + "-" + std::to_string(k));
  if (!fs::create_directory(staging_, ec) || ec)
    throw InputError(SourceLocation{target_.string()}, "",
                     "cannot create the staging directory " + staging_.string() + ": " + ec.message());
}

OutputStage::~OutputStage()
{
  if (committed_) return;
  std::error_code ec;
  std::filesystem::remove_all(staging_, ec);
}

void OutputStage::commit()
{
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(target_, ec)) {
    fs::rename(staging_, target_, ec); // one step: the directory appears complete
    if (!ec) {
      committed_ = true;
      return;
    }
    fs::create_directories(target_, ec);
    if (ec) throw OutputError("cannot create " + target_.string() + ": " + ec.message());
  }
  // The directory exists (empty, the user's, or an earlier run's with --force): move the files one by one,
  // summary.json last, after removing earlier results this run does not replace.
  std::vector<std::string> staged;
  for (const auto& e : fs::directory_iterator(staging_, ec))
    staged.push_back(e.path().filename().string());
  if (ec) throw OutputError("cannot read " + staging_.string() + ": " + ec.message());
  if (force_)
    for (const char* f : RESULT_FILES)
      if (std::find(staged.begin(), staged.end(), f) == staged.end()) fs::remove(target_ / f, ec);
  std::sort(staged.begin(), staged.end());
  std::stable_partition(staged.begin(), staged.end(),
                        [](const std::string& f) { return f != "summary.json"; });
  for (const auto& f : staged) {
    fs::rename(staging_ / f, target_ / f, ec);
    if (ec)
      throw OutputError("cannot move " + (staging_ / f).string() + " to " + target_.string() + ": " +
                        ec.message());
  }
  fs::remove(staging_, ec);
  committed_ = true;
}

std::string IntervalSeries::header(bool link_column)
{
  return std::string("t_s,device_power_w,node_power_w,total_power_w,energy_j,busy_devices,running_jobs,"
                     "waiting_jobs") +
         (link_column ? ",busiest_link_util\n" : "\n");
}

void IntervalSeries::advance(double t)
{
  if (t <= last_t_) return;
  const double dev = cur_.device_power_w * (t - last_t_), node = cur_.node_power_w * (t - last_t_);
  e_dev_ += dev;
  e_node_ += node;
  row_e_dev_ += dev;
  row_e_node_ += node;
  row_link_s_ += link_util_ * (t - last_t_);
  last_t_ = t;
}

void IntervalSeries::append_interval_row(double end_t, std::string& rows)
{
  // Mean powers: the interval's energy (summed over its pieces of constant power) over its length.
  const double dt = end_t - row_t_;
  rows += format_double(row_t_) + ',' + format_double(row_e_dev_ / dt) + ',' +
          format_double(row_e_node_ / dt) + ',' + format_double((row_e_dev_ + row_e_node_) / dt) + ',' +
          format_double(row_start_e_) + ',' + std::to_string(max_busy_) + ',' + std::to_string(max_running_) +
          ',' + std::to_string(max_waiting_);
  if (cur_.link_outputs) rows += ',' + format_double(row_link_s_ / dt);
  rows += '\n';
}

void IntervalSeries::add(const TimePoint& p, std::string& rows)
{
  if (!started_) {
    started_ = true;
    t0_ = row_t_ = last_t_ = p.t_s;
    k_ = 0;
    next_t_ = t0_ + interval_s_;
  } else {
    // The busiest link's utilisation from the last time point to this one: constant in between.
    link_util_ = p.t_s > cur_.t_s ? (p.link_util_s - cur_.link_util_s) / (p.t_s - cur_.t_s) : 0.0;
    // Every sample time up to this instant closes a row; a state that begins exactly at a sample time
    // belongs to the next row.
    while (next_t_ <= p.t_s) {
      if (next_t_ <= row_t_) { // an interval below the clock's resolution at this time: no row
        ++k_;
        next_t_ = t0_ + static_cast<double>(k_ + 1) * interval_s_;
        continue;
      }
      advance(next_t_);
      append_interval_row(next_t_, rows);
      row_t_ = next_t_;
      row_start_e_ = e_dev_ + e_node_;
      row_e_dev_ = row_e_node_ = 0;
      row_link_s_ = 0;
      max_busy_ = cur_.busy_devices;
      max_running_ = cur_.running_jobs;
      max_waiting_ = cur_.waiting_jobs;
      ++k_;
      next_t_ = t0_ + static_cast<double>(k_ + 1) * interval_s_; // no drift from repeated additions
    }
    advance(p.t_s);
  }
  cur_ = p;
  max_busy_ = std::max(max_busy_, p.busy_devices);
  max_running_ = std::max(max_running_, p.running_jobs);
  max_waiting_ = std::max(max_waiting_, p.waiting_jobs);
}

void IntervalSeries::finish(std::string& rows)
{
  if (!started_) return;
  if (last_t_ > row_t_) append_interval_row(last_t_, rows);
  rows += format_double(last_t_) + ',' + format_double(cur_.device_power_w) + ',' +
          format_double(cur_.node_power_w) + ',' + format_double(cur_.device_power_w + cur_.node_power_w) +
          ',' + format_double(e_dev_ + e_node_) + ',' + std::to_string(cur_.busy_devices) + ',' +
          std::to_string(cur_.running_jobs) + ',' + std::to_string(cur_.waiting_jobs) +
          (cur_.link_outputs ? ",0\n" : "\n"); // nothing runs after the last event
  started_ = false;
}

namespace {
const char* const EVENT_HEADER =
    "t_s,device_power_w,node_power_w,total_power_w,busy_devices,running_jobs,waiting_jobs";
const char* const JOBS_HEADER = "id,submit_s,start_s,end_s,status,attempts,devices,profile,slowdown,energy_j,"
                                "jct_s,wait_s,reason,gpu_milli,gpu_types";
/// The columns a run that can communicate adds (JobRecord::comm_outputs).
const char* const JOBS_COMM_COLUMNS = ",nodes,comm_slowdown";
} // namespace

OutputWriter::OutputWriter(const OutputOptions& options, const std::filesystem::path& dir,
                           MetricsCollector& metrics)
    : metrics_(metrics), options_(options), from_files_(true)
{
  const std::string ext = options.compress == Compression::GZIP ? ".gz" : "";
  auto open = [&](const std::filesystem::path& file) -> std::unique_ptr<std::ostream> {
    if (options.compress == Compression::GZIP) return open_gzip_for_writing(file);
    return open_for_writing(file);
  };
  if (options.jobs) {
    jobs_name_ = (dir / ("jobs.csv" + ext)).string();
    jobs_ = open(jobs_name_); // the header comes with the first row (write_jobs_header)
  }
  if (options.timeseries) {
    series_name_ = (dir / ("timeseries.csv" + ext)).string();
    series_ = open(series_name_);
  }
  if (series_) { // the header comes with the first row (write_series_header)
    holding_ = options.timeseries_auto_rows > 0;
    if (holding_)
      held_.reserve(1024);
    else if (options.timeseries_interval_s > 0)
      interval_.emplace(options.timeseries_interval_s);
  }
}

OutputWriter::OutputWriter(std::unique_ptr<std::ostream> jobs, std::string jobs_name,
                           std::unique_ptr<std::ostream> series, std::string series_name,
                           MetricsCollector& metrics, const OutputOptions& options)
    : metrics_(metrics), options_(options), jobs_(std::move(jobs)), series_(std::move(series)),
      jobs_name_(std::move(jobs_name)), series_name_(std::move(series_name))
{
  if (series_) { // the header comes with the first row (write_series_header)
    holding_ = options.timeseries_auto_rows > 0;
    if (!holding_ && options.timeseries_interval_s > 0) interval_.emplace(options.timeseries_interval_s);
  }
}

OutputWriter::~OutputWriter() = default;

void OutputWriter::maybe_gzip(std::unique_ptr<std::ostream>& stream, std::string& name, std::uint64_t rows)
{
  // compress: auto: a file that passes the threshold is gzipped from here on, the rows so far included
  // (copied once from the plain file, which is then removed).
  if (!from_files_ || options_.compress != Compression::AUTO || rows <= options_.auto_gzip_rows) return;
  if (dynamic_cast<GzipOfstream*>(stream.get())) return;
  const std::string plain = name, gz = name + ".gz";
  close_checked(*stream, plain);
  stream.reset();
  auto out = open_gzip_for_writing(gz);
  {
    std::ifstream in(plain, std::ios::binary);
    if (!in) throw OutputError("cannot read back " + plain + " to compress it");
    *out << in.rdbuf();
    check_written(*out, gz);
  }
  std::error_code ec;
  std::filesystem::remove(plain, ec);
  notes_.push_back(std::filesystem::path(gz).filename().string() + ": more than " +
                   std::to_string(options_.auto_gzip_rows) +
                   " rows, so written gzip-compressed (outputs.compress: auto; none keeps it plain)");
  stream = std::move(out);
  name = gz;
}

void OutputWriter::write_jobs_header(bool comm_columns)
{
  jobs_header_written_ = true;
  comm_columns_ = comm_columns;
  *jobs_ << JOBS_HEADER << (comm_columns ? JOBS_COMM_COLUMNS : "") << '\n';
  check_written(*jobs_, jobs_name_);
}

void OutputWriter::on_job_end(const JobRecord& r)
{
  metrics_.add(r);
  if (!jobs_) return;
  if (!jobs_header_written_) write_jobs_header(r.comm_outputs);
  std::string devs;
  for (auto d : r.devices)
    devs += (devs.empty() ? "" : ";") + std::to_string(d);
  const bool started = r.start_s >= 0, ended = r.end_s >= 0;
  const bool completed = r.status == JobStatus::COMPLETED;
  *jobs_ << csv_field(r.job->id) << ',' << format_double(r.submit_s) << ','
         << (started ? format_double(r.start_s) : "") << ',' << (ended ? format_double(r.end_s) : "") << ','
         << to_string(r.status) << ',' << r.attempts << ',' << devs << ',' << csv_field(r.job->profile) << ','
         << (completed ? format_double(r.slowdown) : "") << ',' << format_double(r.energy_j) << ','
         << (completed ? format_double(r.end_s - r.submit_s) : "") << ','
         << (started ? format_double(r.start_s - r.submit_s) : "") << ',' << csv_field(r.reason) << ','
         << r.job->gpu_milli << ',' << csv_field(r.job->gpu_types);
  if (comm_columns_) *jobs_ << ',' << r.nodes << ',' << format_double(r.comm_slowdown);
  *jobs_ << '\n';
  check_written(*jobs_, jobs_name_);
  maybe_gzip(jobs_, jobs_name_, ++job_rows_);
}

void OutputWriter::on_timepoint(const TimePoint& p)
{
  if (!series_) return;
  if (pending_ && pending_->t_s != p.t_s) write_point(*pending_, &p);
  pending_ = p; // several events at one instant: keep the state after the last one
}

void OutputWriter::write_series_rows(const std::string& rows)
{
  if (rows.empty()) return;
  *series_ << rows;
  check_written(*series_, series_name_);
}

void OutputWriter::write_series_header(bool interval, bool link_column)
{
  series_header_written_ = true;
  link_column_ = link_column;
  write_series_rows(interval ? IntervalSeries::header(link_column)
                             : std::string(EVENT_HEADER) + (link_column ? ",busiest_link_util\n" : "\n"));
}

void OutputWriter::switch_to_interval()
{
  // auto, past its row limit: the whole file becomes interval rows, those of the held states first.
  holding_ = false;
  interval_.emplace(options_.timeseries_interval_s);
  write_series_header(true, held_.front().link_outputs);
  buffer_.clear();
  for (const auto& q : held_) {
    interval_->add(q, buffer_);
    if (buffer_.size() > (1u << 16)) {
      write_series_rows(buffer_);
      buffer_.clear();
    }
  }
  write_series_rows(buffer_);
  buffer_.clear();
  held_.clear();
  held_.shrink_to_fit();
  notes_.push_back(std::filesystem::path(series_name_).filename().string() + ": more than " +
                   std::to_string(options_.timeseries_auto_rows) + " events, so one row per " +
                   format_double(options_.timeseries_interval_s) +
                   " s of simulated time (outputs.timeseries: auto; every-event keeps a row per event)");
}

void OutputWriter::write_point(const TimePoint& p, const TimePoint* next)
{
  if (holding_) {
    held_.push_back(p);
    if (held_.size() > options_.timeseries_auto_rows) switch_to_interval();
    return;
  }
  if (!series_header_written_) write_series_header(interval_.has_value(), p.link_outputs);
  if (interval_) {
    buffer_.clear();
    interval_->add(p, buffer_);
    if (buffer_.empty()) return;
    write_series_rows(buffer_);
    series_rows_ += static_cast<std::uint64_t>(std::count(buffer_.begin(), buffer_.end(), '\n'));
  } else {
    *series_ << format_double(p.t_s) << ',' << format_double(p.device_power_w) << ','
             << format_double(p.node_power_w) << ',' << format_double(p.device_power_w + p.node_power_w)
             << ',' << p.busy_devices << ',' << p.running_jobs << ',' << p.waiting_jobs;
    // The busiest link's mean utilisation until the next row (constant there); none after the last.
    if (link_column_)
      *series_ << ','
               << format_double(next && next->t_s > p.t_s
                                    ? (next->link_util_s - p.link_util_s) / (next->t_s - p.t_s)
                                    : 0.0);
    *series_ << '\n';
    check_written(*series_, series_name_);
    ++series_rows_;
  }
  maybe_gzip(series_, series_name_, series_rows_);
}

void OutputWriter::finish()
{
  if (pending_ && series_) write_point(*pending_, nullptr);
  pending_.reset();
  if (series_ && holding_) { // auto within its limit: a row per event, as every-event writes them
    holding_ = false;
    for (std::size_t i = 0; i < held_.size(); ++i)
      write_point(held_[i], i + 1 < held_.size() ? &held_[i + 1] : nullptr);
    held_.clear();
  }
  if (series_ && !series_header_written_) write_series_header(interval_.has_value(), false); // no rows
  if (series_ && interval_) {
    buffer_.clear();
    interval_->finish(buffer_);
    write_series_rows(buffer_);
  }
  if (jobs_ && !jobs_header_written_) write_jobs_header(false);
  if (jobs_) close_checked(*jobs_, jobs_name_);
  if (series_) close_checked(*series_, series_name_);
  jobs_.reset();
  series_.reset();
}

std::vector<std::string> OutputWriter::files() const
{
  std::vector<std::string> names;
  if (!jobs_name_.empty()) names.push_back(std::filesystem::path(jobs_name_).filename().string());
  if (!series_name_.empty()) names.push_back(std::filesystem::path(series_name_).filename().string());
  return names;
}

namespace {
std::string json_text_list(const std::vector<std::string>& items)
{
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + json_string(items[i]);
  return out + "]";
}

std::string json_plugins(const Summary& s)
{
  std::string out = "[";
  for (std::size_t i = 0; i < s.plugins.size(); ++i)
    out += (i ? ", " : "") + std::string("{\"path\": ") + json_string(s.plugins[i].first) +
           ", \"sha256\": " + json_string(s.plugins[i].second) + "}";
  return out + "]";
}

std::string json_counts(const std::map<std::string, std::uint64_t>& counts)
{
  if (counts.empty()) return "{}";
  std::string out = "{";
  for (auto it = counts.begin(); it != counts.end(); ++it)
    out += (it == counts.begin() ? "\n" : ",\n") + std::string("    ") + json_string(it->first) + ": " +
           std::to_string(it->second);
  return out + "\n  }";
}

std::string json_count(std::uint64_t n)
{
  return json_number(static_cast<double>(n));
}
} // namespace

const std::vector<SummaryField>& summary_fields()
{
  using K = SummaryFieldKind;
  using S = const Summary&;
  static const std::vector<SummaryField> fields = {
      {"scenario", K::TEXT, "scenario", "—", [](S s) { return json_string(s.scenario); }},
      {"policy", K::TEXT, "policy", "—", [](S s) { return json_string(s.policy); }},
      {"policy_params", K::TEXT, "policy parameters", "—", [](S s) { return json_string(s.policy_params); }},
      {"placement", K::TEXT, "placement of multi-device jobs", "—",
       [](S s) { return json_string(s.placement); }},
      {"sharing", K::TEXT, "sharing mode", "—", [](S s) { return json_string(s.sharing); }},
      {"interference", K::TEXT, "interference model", "—", [](S s) { return json_string(s.interference); }},
      {"calibration", K::TEXT, "calibration", "—", [](S s) { return json_string(s.calibration); }},
      {"workload", K::TEXT, "workload", "—", [](S s) { return json_string(s.workload); }},
      {"plugins", K::LIST, "policy plugins", "—", json_plugins},
      {"user_supplied", K::LIST, "numbers without provenance", "—",
       [](S s) { return json_text_list(s.user_supplied); }},
      {"seed", K::NUMBER, "seed", "—", [](S s) { return std::to_string(s.seed); }},
      {"makespan_s", K::NUMBER, "makespan", "s", [](S s) { return json_number(s.makespan_s); }},
      {"energy_total_j", K::NUMBER, "total energy", "J", [](S s) { return json_number(s.energy_total_j); }},
      {"energy_gpu_j", K::NUMBER, "device energy", "J", [](S s) { return json_number(s.energy_gpu_j); }},
      {"energy_node_j", K::NUMBER, "node baseline energy", "J",
       [](S s) { return json_number(s.energy_node_j); }},
      {"pue", K::NUMBER, "PUE", "ratio", [](S s) { return json_number(s.pue); }},
      {"edp_js", K::NUMBER, "energy-delay product", "J·s", [](S s) { return json_number(s.edp_js); }},
      {"energy_per_completed_job_j", K::NUMBER, "energy per completed job", "J",
       [](S s) { return json_number(s.energy_per_completed_job_j); }},
      {"jobs_read", K::NUMBER, "jobs read", "count", [](S s) { return json_count(s.jobs_read); }},
      {"jobs_completed", K::NUMBER, "jobs completed", "count",
       [](S s) { return json_count(s.jobs_completed); }},
      {"jobs_failed", K::NUMBER, "jobs failed", "count", [](S s) { return json_count(s.jobs_failed); }},
      {"jobs_rejected", K::NUMBER, "jobs rejected", "count", [](S s) { return json_count(s.jobs_rejected); }},
      {"jobs_never_started", K::NUMBER, "jobs never started", "count",
       [](S s) { return json_count(s.jobs_never_started); }},
      {"jobs_cancelled", K::NUMBER, "jobs cancelled", "count",
       [](S s) { return json_count(s.jobs_cancelled); }},
      {"jobs_killed", K::NUMBER, "jobs killed", "count", [](S s) { return json_count(s.jobs_killed); }},
      {"oom_events", K::NUMBER, "out-of-memory events", "count",
       [](S s) { return json_count(s.oom_events); }},
      {"jobs_by_reason", K::MAP, "jobs not completed, by reason", "—",
       [](S s) { return json_counts(s.jobs_by_reason); }},
      {"jct_mean_s", K::NUMBER, "mean job completion time", "s",
       [](S s) { return json_number(s.jct_mean_s); }},
      {"jct_p50_s", K::NUMBER, "median job completion time", "s",
       [](S s) { return json_number(s.jct_p50_s); }},
      {"jct_p95_s", K::NUMBER, "job completion time, p95", "s", [](S s) { return json_number(s.jct_p95_s); }},
      {"jct_p99_s", K::NUMBER, "job completion time, p99", "s", [](S s) { return json_number(s.jct_p99_s); }},
      {"wait_mean_s", K::NUMBER, "mean wait", "s", [](S s) { return json_number(s.wait_mean_s); }},
      {"wait_p95_s", K::NUMBER, "wait, p95", "s", [](S s) { return json_number(s.wait_p95_s); }},
      {"bounded_slowdown_mean", K::NUMBER, "mean bounded slowdown", "ratio",
       [](S s) { return json_number(s.bounded_slowdown_mean); }},
      {"solo_bounded_slowdown_mean", K::NUMBER, "mean solo bounded slowdown", "ratio",
       [](S s) { return json_number(s.solo_bounded_slowdown_mean); }},
      {"corun_slowdown_mean", K::NUMBER, "mean co-run slowdown", "ratio",
       [](S s) { return json_number(s.corun_slowdown_mean); }},
      {"devices", K::NUMBER, "devices", "count", [](S s) { return json_count(s.devices); }},
      {"utilization", K::NUMBER, "utilisation", "fraction", [](S s) { return json_number(s.utilization); }},
      {"colocation_mean", K::NUMBER, "jobs per busy device", "jobs",
       [](S s) { return json_number(s.colocation_mean); }},
      {"allocation_mean", K::NUMBER, "capacity requested", "fraction",
       [](S s) { return json_number(s.allocation_mean); }},
      {"fragmented_mean", K::NUMBER, "capacity fragmented", "fraction",
       [](S s) { return json_number(s.fragmented_mean); }},
      {"idle_while_waiting_s", K::NUMBER, "idle while a job waits", "device-s",
       [](S s) { return json_number(s.idle_while_waiting_s); }},
      {"throughput_jobs_per_h", K::NUMBER, "throughput", "jobs/h",
       [](S s) { return json_number(s.throughput_jobs_per_h); }},
      {"engine_events", K::NUMBER, "engine events", "count", [](S s) { return json_count(s.engine_events); }},
      {"rate_updates", K::NUMBER, "rate updates", "count", [](S s) { return json_count(s.rate_updates); }},
      {"wall_s", K::NUMBER, "wall-clock time", "s", [](S s) { return json_number(s.wall_s); }},
  };
  return fields;
}

std::vector<std::string> summary_number_names()
{
  std::vector<std::string> names;
  for (const auto& f : summary_fields())
    if (f.kind == SummaryFieldKind::NUMBER) names.emplace_back(f.name);
  return names;
}

const SummaryField* find_summary_field(const std::string& name)
{
  for (const auto& f : summary_fields())
    if (name == f.name) return &f;
  return nullptr;
}

void write_summary_json(const Summary& s, const std::filesystem::path& file)
{
  const auto out = open_for_writing(file);
  auto& f = *out;
  const auto& fields = summary_fields();
  f << "{\n";
  for (std::size_t i = 0; i < fields.size(); ++i)
    f << "  " << json_string(fields[i].name) << ": " << fields[i].json(s)
      << (i + 1 < fields.size() || s.comm_outputs ? ",\n" : "\n");
  // A run that can communicate (Summary::comm_outputs): three more keys, last, so that every other run's
  // file stays as it was.
  if (s.comm_outputs)
    f << "  \"jobs_communicating\": " << json_count(s.jobs_communicating) << ",\n"
      << "  \"comm_slowdown_mean\": " << json_number(s.comm_slowdown_mean) << ",\n"
      << "  \"jobs_link_contended\": " << json_count(s.jobs_link_contended) << "\n";
  f << "}\n";
  close_checked(f, file);
}

void print_summary(const Summary& s, std::ostream& os)
{
  const auto flags = os.flags();
  os << "colocsim: " << s.scenario << " — policy " << s.policy
     << (s.policy_params.empty() ? "" : " (" + s.policy_params + ")") << ", sharing " << s.sharing
     << ", interference " << s.interference << ", seed " << s.seed << "\n";
  auto row = [&](const char* k, const std::string& v) {
    os << "  " << std::left << std::setw(24) << k << v << "\n";
  };
  auto fixed = [](double v, int prec) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(prec) << v;
    return o.str();
  };
  row("makespan", fixed(s.makespan_s, 1) + " s (" + fixed(s.makespan_s / 3600.0, 2) + " h)");
  row("energy total", fixed(s.energy_total_j / 3.6e6, 3) + " kWh (GPU " + fixed(s.energy_gpu_j / 3.6e6, 3) +
                          ", node " + fixed(s.energy_node_j / 3.6e6, 3) + ", PUE " + fixed(s.pue, 2) + ")");
  row("energy per job",
      s.jobs_completed == 0
          ? std::string("- (no job completed)")
          : (s.energy_per_completed_job_j >= 3.6e6 ? fixed(s.energy_per_completed_job_j / 3.6e6, 3) + " kWh"
                                                   : fixed(s.energy_per_completed_job_j / 3.6e3, 1) + " Wh") +
                " per completed job (total / " + std::to_string(s.jobs_completed) + ")");
  row("jobs",
      std::to_string(s.jobs_completed) + " completed of " + std::to_string(s.jobs_read) + " (" +
          std::to_string(s.jobs_failed) + " failed, " + std::to_string(s.jobs_rejected) + " rejected, " +
          std::to_string(s.jobs_never_started) + " never started" +
          (s.jobs_cancelled ? ", " + std::to_string(s.jobs_cancelled) + " cancelled" : std::string()) +
          (s.jobs_killed ? ", " + std::to_string(s.jobs_killed) + " killed" : std::string()) + ")");
  for (const auto& [reason, n] : s.jobs_by_reason)
    os << "    " << n << " " << reason << "\n";
  row("JCT mean / p95", fixed(s.jct_mean_s, 1) + " / " + fixed(s.jct_p95_s, 1) + " s");
  row("wait mean / p95", fixed(s.wait_mean_s, 1) + " / " + fixed(s.wait_p95_s, 1) + " s");
  row("co-run slowdown mean", fixed(s.corun_slowdown_mean, 3));
  row("bounded slowdown mean", fixed(s.bounded_slowdown_mean, 3));
  row("solo bounded slowdown", fixed(s.solo_bounded_slowdown_mean, 3));
  row("utilization", fixed(100.0 * s.utilization, 1) + " % of device-time busy");
  row("co-location mean", fixed(s.colocation_mean, 2) + " jobs per busy device");
  row("allocation", fixed(100.0 * s.allocation_mean, 1) + " % of device capacity requested (" +
                        fixed(100.0 * s.fragmented_mean, 1) + " % fragmented)");
  row("idle while waiting", fixed(s.idle_while_waiting_s, 1) + " device-s (devices free for a waiting job)");
  row("OOM events", std::to_string(s.oom_events));
  row("throughput", fixed(s.throughput_jobs_per_h, 2) + " jobs/h");
  os.flags(flags);
}

} // namespace colocsim
