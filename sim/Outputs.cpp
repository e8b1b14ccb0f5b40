#include "sim/Outputs.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
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

namespace {
const char* const RESULT_FILES[] = {"summary.json", "jobs.csv", "timeseries.csv"};

std::string json_string(const std::string& s)
{
  std::string out = "\"";
  for (char c : s) {
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
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

std::string csv_field(const std::string& s)
{
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
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

/// Flushes and closes `s` (a file stream) and checks that every write reached the file.
void close_checked(std::ostream& s, const std::filesystem::path& file)
{
  errno = 0;
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
  staging_ = parent / ("." + name + ".partial-" + std::to_string(::getpid()));
  fs::remove_all(staging_, ec); // left by an earlier process of the same id that was killed
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

OutputWriter::OutputWriter(const OutputOptions& options, const std::filesystem::path& dir,
                           MetricsCollector& metrics)
    : metrics_(metrics)
{
  if (options.jobs) {
    jobs_name_ = (dir / "jobs.csv").string();
    jobs_ = open_for_writing(dir / "jobs.csv");
  }
  if (options.timeseries) {
    series_name_ = (dir / "timeseries.csv").string();
    series_ = open_for_writing(dir / "timeseries.csv");
  }
  write_headers();
}

OutputWriter::OutputWriter(std::unique_ptr<std::ostream> jobs, std::string jobs_name,
                           std::unique_ptr<std::ostream> series, std::string series_name,
                           MetricsCollector& metrics)
    : metrics_(metrics), jobs_(std::move(jobs)), series_(std::move(series)), jobs_name_(std::move(jobs_name)),
      series_name_(std::move(series_name))
{
  write_headers();
}

void OutputWriter::write_headers()
{
  if (jobs_) {
    *jobs_ << "id,submit_s,start_s,end_s,status,attempts,devices,profile,slowdown,energy_j,jct_s,wait_s,"
              "reason,gpu_milli,gpu_types\n";
    check_written(*jobs_, jobs_name_);
  }
  if (series_) {
    *series_ << "t_s,device_power_w,node_power_w,total_power_w,busy_devices,running_jobs,waiting_jobs\n";
    check_written(*series_, series_name_);
  }
}

void OutputWriter::on_job_end(const JobRecord& r)
{
  metrics_.add(r);
  if (!jobs_) return;
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
         << r.job->gpu_milli << ',' << csv_field(r.job->gpu_types) << '\n';
  check_written(*jobs_, jobs_name_);
}

void OutputWriter::on_timepoint(const TimePoint& p)
{
  if (!series_) return;
  if (pending_ && pending_->t_s != p.t_s) write_point(*pending_);
  pending_ = p; // several events at one instant: keep the state after the last one
}

void OutputWriter::write_point(const TimePoint& p)
{
  *series_ << format_double(p.t_s) << ',' << format_double(p.device_power_w) << ','
           << format_double(p.node_power_w) << ',' << format_double(p.device_power_w + p.node_power_w) << ','
           << p.busy_devices << ',' << p.running_jobs << ',' << p.waiting_jobs << '\n';
  check_written(*series_, series_name_);
}

void OutputWriter::finish()
{
  if (pending_ && series_) write_point(*pending_);
  pending_.reset();
  if (jobs_) close_checked(*jobs_, jobs_name_);
  if (series_) close_checked(*series_, series_name_);
  jobs_.reset();
  series_.reset();
}

void write_summary_json(const Summary& s, const std::filesystem::path& file)
{
  const auto out = open_for_writing(file);
  auto& f = *out;
  auto num = [&](const char* k, double v, bool last = false) {
    f << "  " << json_string(k) << ": " << json_number(v) << (last ? "\n" : ",\n");
  };
  auto str = [&](const char* k, const std::string& v) {
    f << "  " << json_string(k) << ": " << json_string(v) << ",\n";
  };
  f << "{\n";
  str("scenario", s.scenario);
  str("policy", s.policy);
  str("policy_params", s.policy_params);
  str("sharing", s.sharing);
  str("interference", s.interference);
  str("calibration", s.calibration);
  str("workload", s.workload);
  f << "  \"plugins\": [";
  for (std::size_t i = 0; i < s.plugins.size(); ++i)
    f << (i ? ", " : "") << "{\"path\": " << json_string(s.plugins[i].first)
      << ", \"sha256\": " << json_string(s.plugins[i].second) << "}";
  f << "],\n";
  f << "  \"user_supplied\": [";
  for (std::size_t i = 0; i < s.user_supplied.size(); ++i)
    f << (i ? ", " : "") << json_string(s.user_supplied[i]);
  f << "],\n";
  f << "  \"seed\": " << s.seed << ",\n";
  num("makespan_s", s.makespan_s);
  num("energy_total_j", s.energy_total_j);
  num("energy_gpu_j", s.energy_gpu_j);
  num("energy_node_j", s.energy_node_j);
  num("pue", s.pue);
  num("edp_js", s.edp_js);
  num("jobs_read", static_cast<double>(s.jobs_read));
  num("jobs_completed", static_cast<double>(s.jobs_completed));
  num("jobs_failed", static_cast<double>(s.jobs_failed));
  num("jobs_rejected", static_cast<double>(s.jobs_rejected));
  num("jobs_never_started", static_cast<double>(s.jobs_never_started));
  num("jobs_cancelled", static_cast<double>(s.jobs_cancelled));
  num("jobs_killed", static_cast<double>(s.jobs_killed));
  num("oom_events", static_cast<double>(s.oom_events));
  f << "  \"jobs_by_reason\": {";
  for (auto it = s.jobs_by_reason.begin(); it != s.jobs_by_reason.end(); ++it)
    f << (it == s.jobs_by_reason.begin() ? "\n" : ",\n") << "    " << json_string(it->first) << ": "
      << it->second;
  f << (s.jobs_by_reason.empty() ? "},\n" : "\n  },\n");
  num("jct_mean_s", s.jct_mean_s);
  num("jct_p50_s", s.jct_p50_s);
  num("jct_p95_s", s.jct_p95_s);
  num("jct_p99_s", s.jct_p99_s);
  num("wait_mean_s", s.wait_mean_s);
  num("wait_p95_s", s.wait_p95_s);
  num("bounded_slowdown_mean", s.bounded_slowdown_mean);
  num("solo_bounded_slowdown_mean", s.solo_bounded_slowdown_mean);
  num("corun_slowdown_mean", s.corun_slowdown_mean);
  num("utilization", s.utilization);
  num("colocation_mean", s.colocation_mean);
  num("allocation_mean", s.allocation_mean);
  num("fragmented_mean", s.fragmented_mean);
  num("idle_while_waiting_s", s.idle_while_waiting_s);
  num("throughput_jobs_per_h", s.throughput_jobs_per_h);
  num("engine_events", static_cast<double>(s.engine_events));
  num("rate_updates", static_cast<double>(s.rate_updates));
  num("wall_s", s.wall_s, true);
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
