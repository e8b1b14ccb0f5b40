#include "sim/Outputs.hpp"

#include <charconv>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace colocsim {

std::string format_double(double v)
{
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : std::string("nan");
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

void prepare_output_dir(const OutputOptions& options)
{
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(options.dir, ec)) {
    if (!fs::is_directory(options.dir, ec))
      throw InputError(SourceLocation{options.dir.string()}, "", "output path exists and is not a directory");
    if (!options.force) {
      for (const char* f : RESULT_FILES)
        if (fs::exists(options.dir / f, ec))
          throw InputError(SourceLocation{options.dir.string()}, "",
                           std::string("already holds results of another run (") + f +
                               "); pass --force to overwrite them or -o DIR to write elsewhere");
    }
  } else {
    fs::create_directories(options.dir, ec);
    if (ec)
      throw InputError(SourceLocation{options.dir.string()}, "",
                       "cannot create output directory: " + ec.message());
  }
  for (const char* f : RESULT_FILES)
    fs::remove(options.dir / f, ec); // only with --force, or none existed
}

OutputWriter::OutputWriter(const OutputOptions& options, MetricsCollector& metrics) : metrics_(metrics)
{
  auto open = [&](std::ofstream& f, const char* name, const char* header) {
    f.open(options.dir / name);
    if (!f) throw InputError(SourceLocation{(options.dir / name).string()}, "", "cannot open for writing");
    f << header << '\n';
  };
  if (options.jobs)
    open(jobs_, "jobs.csv",
         "id,submit_s,start_s,end_s,status,attempts,devices,profile,slowdown,energy_j,jct_s,wait_s");
  if (options.timeseries)
    open(series_, "timeseries.csv",
         "t_s,device_power_w,node_power_w,total_power_w,busy_devices,running_jobs,waiting_jobs");
}

void OutputWriter::on_job_end(const JobRecord& r)
{
  metrics_.add(r);
  if (!jobs_.is_open()) return;
  std::string devs;
  for (auto d : r.devices)
    devs += (devs.empty() ? "" : ";") + std::to_string(d);
  const bool started = r.start_s >= 0, ended = r.end_s >= 0;
  const bool completed = r.status == JobStatus::COMPLETED;
  jobs_ << csv_field(r.job->id) << ',' << format_double(r.submit_s) << ','
        << (started ? format_double(r.start_s) : "") << ',' << (ended ? format_double(r.end_s) : "") << ','
        << to_string(r.status) << ',' << r.attempts << ',' << devs << ',' << csv_field(r.job->profile) << ','
        << (completed ? format_double(r.slowdown) : "") << ',' << format_double(r.energy_j) << ','
        << (completed ? format_double(r.end_s - r.submit_s) : "") << ','
        << (started ? format_double(r.start_s - r.submit_s) : "") << '\n';
}

void OutputWriter::on_timepoint(const TimePoint& p)
{
  if (!series_.is_open()) return;
  if (pending_ && pending_->t_s != p.t_s) write_point(*pending_);
  pending_ = p; // several events at one instant: keep the state after the last one
}

void OutputWriter::write_point(const TimePoint& p)
{
  series_ << format_double(p.t_s) << ',' << format_double(p.device_power_w) << ','
          << format_double(p.node_power_w) << ',' << format_double(p.device_power_w + p.node_power_w) << ','
          << p.busy_devices << ',' << p.running_jobs << ',' << p.waiting_jobs << '\n';
}

void OutputWriter::finish()
{
  if (pending_ && series_.is_open()) write_point(*pending_);
  pending_.reset();
  jobs_.close();
  series_.close();
}

void write_summary_json(const Summary& s, const std::filesystem::path& file)
{
  std::ofstream f(file);
  if (!f) throw InputError(SourceLocation{file.string()}, "", "cannot open for writing");
  auto num = [&](const char* k, double v, bool last = false) {
    f << "  " << json_string(k) << ": " << format_double(v) << (last ? "\n" : ",\n");
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
  num("oom_events", static_cast<double>(s.oom_events));
  num("jct_mean_s", s.jct_mean_s);
  num("jct_p50_s", s.jct_p50_s);
  num("jct_p95_s", s.jct_p95_s);
  num("jct_p99_s", s.jct_p99_s);
  num("wait_mean_s", s.wait_mean_s);
  num("wait_p95_s", s.wait_p95_s);
  num("bounded_slowdown_mean", s.bounded_slowdown_mean);
  num("corun_slowdown_mean", s.corun_slowdown_mean);
  num("utilization", s.utilization);
  num("colocation_mean", s.colocation_mean);
  num("allocation_mean", s.allocation_mean);
  num("fragmented_mean", s.fragmented_mean);
  num("throughput_jobs_per_h", s.throughput_jobs_per_h);
  num("engine_events", static_cast<double>(s.engine_events));
  num("rate_updates", static_cast<double>(s.rate_updates));
  num("wall_s", s.wall_s, true);
  f << "}\n";
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
          (s.jobs_cancelled ? ", " + std::to_string(s.jobs_cancelled) + " cancelled" : std::string()) + ")");
  row("JCT mean / p95", fixed(s.jct_mean_s, 1) + " / " + fixed(s.jct_p95_s, 1) + " s");
  row("wait mean / p95", fixed(s.wait_mean_s, 1) + " / " + fixed(s.wait_p95_s, 1) + " s");
  row("co-run slowdown mean", fixed(s.corun_slowdown_mean, 3));
  row("bounded slowdown mean", fixed(s.bounded_slowdown_mean, 3));
  row("utilization", fixed(100.0 * s.utilization, 1) + " % of device-time busy");
  row("co-location mean", fixed(s.colocation_mean, 2) + " jobs per busy device");
  row("allocation", fixed(100.0 * s.allocation_mean, 1) + " % of device capacity requested (" +
                        fixed(100.0 * s.fragmented_mean, 1) + " % fragmented)");
  row("OOM events", std::to_string(s.oom_events));
  row("throughput", fixed(s.throughput_jobs_per_h, 2) + " jobs/h");
  os.flags(flags);
}

} // namespace colocsim
