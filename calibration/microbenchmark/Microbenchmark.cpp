// Parent and worker sides of the microbenchmark (see Microbenchmark.hpp for the protocol).
#include "calibration/microbenchmark/Microbenchmark.hpp"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <istream>
#include <ostream>
#include <sstream>

extern char** environ;

namespace colocsim {

namespace {

constexpr double READY_TIMEOUT_S = 600; // building a large pointer-chase cycle or a cold pocl cache is slow
constexpr double RESULT_GRACE_S = 120;  // a launch longer than this after the window is a hung device
constexpr double START_DELAY_S = 0.05;

long long now_ns()
{
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec;
}

void sleep_until_ns(long long t)
{
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(t / 1'000'000'000LL);
  ts.tv_nsec = static_cast<long>(t % 1'000'000'000LL);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

std::string iso_utc_now()
{
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<std::string> split_tabs(const std::string& line)
{
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto tab = line.find('\t', start);
    out.push_back(line.substr(start, tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return out;
}

std::string number(double v)
{
  std::ostringstream os;
  os << std::setprecision(9) << v;
  return os.str();
}

/// A worker process with pipes to its stdin and from its stdout.
struct Worker {
  pid_t pid = -1;
  int to = -1;   ///< its stdin
  int from = -1; ///< its stdout
  std::string buffer;
  std::string label;
  bool exited = false;
  int status = 0;

  void close_pipes()
  {
    if (to >= 0) close(to);
    if (from >= 0) close(from);
    to = from = -1;
  }
};

Worker spawn_worker(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                    const std::string& label)
{
  int in_pipe[2], out_pipe[2];
  if (pipe(in_pipe) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  if (pipe(out_pipe) != 0) {
    close(in_pipe[0]);
    close(in_pipe[1]);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1]})
    posix_spawn_file_actions_addclose(&actions, fd);

  // Environment: ours, with extra entries replacing same-named ones.
  std::vector<std::string> env_text;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const auto name = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(extra_env.begin(), extra_env.end(),
                                      [&](const std::string& x) { return x.substr(0, x.find('=')) == name; });
    if (!replaced) env_text.push_back(entry);
  }
  env_text.insert(env_text.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> envp, args;
  for (auto& s : env_text)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy)
    args.push_back(s.data());
  args.push_back(nullptr);

  Worker w;
  w.label = label;
  const int rc = posix_spawn(&w.pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(in_pipe[0]);
  close(out_pipe[1]);
  if (rc != 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    throw std::runtime_error("cannot start worker " + argv[0] + ": " + std::strerror(rc));
  }
  w.to = in_pipe[1];
  w.from = out_pipe[0];
  return w;
}

/// Next line from the worker, or nullopt at end of file. Throws on timeout.
std::optional<std::string> read_line(Worker& w, double deadline_s)
{
  while (true) {
    const auto nl = w.buffer.find('\n');
    if (nl != std::string::npos) {
      std::string line = w.buffer.substr(0, nl);
      w.buffer.erase(0, nl + 1);
      return line;
    }
    const double left = deadline_s - monotonic_s();
    if (left <= 0) throw std::runtime_error("worker " + w.label + " did not answer in time");
    pollfd p{w.from, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(std::min(left * 1000.0, 60000.0)) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char buf[4096];
    const ssize_t got = read(w.from, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return std::nullopt;
    w.buffer.append(buf, static_cast<std::size_t>(got));
  }
}

void reap(Worker& w)
{
  w.close_pipes();
  if (w.pid > 0 && !w.exited) {
    while (waitpid(w.pid, &w.status, 0) < 0 && errno == EINTR) {
    }
    w.exited = true;
  }
}

/// Kills and reaps every worker still running (on failure); only our own children, by pid.
void abort_workers(std::vector<Worker>& workers)
{
  for (auto& w : workers)
    if (w.pid > 0 && !w.exited) kill(w.pid, SIGKILL);
  for (auto& w : workers)
    reap(w);
}

/// "ERROR\tunavailable\tmessage" → exception of the right type.
[[noreturn]] void rethrow_worker_error(const Worker& w, const std::string& line)
{
  const auto f = split_tabs(line);
  const std::string msg = f.size() >= 3 ? f[2] : line;
  if (f.size() >= 2 && f[1] == "unavailable") throw BackendUnavailable(msg);
  throw std::runtime_error("worker " + w.label + " failed: " + msg);
}

struct WorkerResult {
  int reps = 0, samples = 0;
  double t_global = NAN, t_context = NAN, t_host = NAN, t_iter = NAN, cv = NAN, t_lo = NAN, t_hi = NAN,
         cpu = NAN;
};

WorkerResult parse_result(const std::string& line)
{
  WorkerResult r;
  for (const auto& field : split_tabs(line)) {
    const auto eq = field.find('=');
    if (eq == std::string::npos) continue;
    const auto key = field.substr(0, eq);
    const double v = field.size() > eq + 1 ? std::strtod(field.c_str() + eq + 1, nullptr) : NAN;
    if (key == "reps")
      r.reps = static_cast<int>(v);
    else if (key == "t_global")
      r.t_global = v;
    else if (key == "t_context")
      r.t_context = v;
    else if (key == "t_host")
      r.t_host = v;
    else if (key == "t_iter")
      r.t_iter = v;
    else if (key == "cv")
      r.cv = v;
    else if (key == "samples")
      r.samples = static_cast<int>(v);
    else if (key == "t_lo")
      r.t_lo = v;
    else if (key == "t_hi")
      r.t_hi = v;
    else if (key == "cpu")
      r.cpu = v;
  }
  return r;
}

std::vector<std::string> worker_argv(const std::vector<std::string>& prefix, const std::string& backend,
                                     const std::string& device, const PlannedJob& job,
                                     std::optional<double> sleep_s, int warmup, int queue, bool idle,
                                     int samples, std::optional<int> pin_cpu, std::optional<int> nice)
{
  std::vector<std::string> a = prefix;
  auto add = [&](const std::string& k, const std::string& v) {
    a.push_back(k);
    a.push_back(v);
  };
  add("--backend", backend);
  if (!device.empty()) add("--device", device);
  add("--kernel", job.kernel.kernel);
  add("--n", std::to_string(job.kernel.n));
  add("--k", std::to_string(job.kernel.k));
  add("--m", std::to_string(job.kernel.m));
  if (sleep_s)
    add("--sleep-s", number(*sleep_s));
  else
    add("--duty", number(job.duty));
  add("--warmup", std::to_string(warmup));
  add("--queue-index", std::to_string(queue));
  add("--samples", std::to_string(samples));
  if (pin_cpu) add("--pin-cpu", std::to_string(*pin_cpu));
  if (nice) add("--nice", std::to_string(*nice));
  if (idle) a.push_back("--idle");
  return a;
}

/// The highest-numbered CPU this process may run on (0 when the mask cannot be read).
int last_allowed_cpu()
{
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  int last = 0;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) last = c;
  return last;
}

/// Whether this process may run on `cpu`.
bool cpu_allowed(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  return cpu >= 0 && cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof set, &set) == 0 && CPU_ISSET(cpu, &set);
}

/// The cores this process may run on, e.g. "0, 1".
std::string allowed_cpus()
{
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "(unreadable affinity mask)";
  std::string list;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) list += (list.empty() ? "" : ", ") + std::to_string(c);
  return list;
}

/// CPU time (user + system) of every thread of this process so far, s.
double process_cpu_s()
{
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

} // namespace

std::vector<double> sub_window_means(const std::vector<double>& start_s, const std::vector<double>& iter_s,
                                     double window_s, int samples)
{
  const int n = std::max(1, samples);
  std::vector<std::pair<double, int>> parts(static_cast<std::size_t>(n)); // sum of iteration times, count
  for (std::size_t i = 0; i < start_s.size() && i < iter_s.size(); ++i) {
    const double x = window_s > 0 ? start_s[i] / window_s * n : 0.0;
    const int k = std::clamp(static_cast<int>(std::floor(x)), 0, n - 1);
    parts[static_cast<std::size_t>(k)].first += iter_s[i];
    ++parts[static_cast<std::size_t>(k)].second;
  }
  std::vector<double> out;
  for (const auto& [sum, count] : parts)
    if (count > 0) out.push_back(sum / count);
  return out;
}

double median(std::vector<double> xs)
{
  xs.erase(std::remove_if(xs.begin(), xs.end(), [](double x) { return std::isnan(x); }), xs.end());
  if (xs.empty()) return NAN;
  const auto mid = xs.begin() + static_cast<std::ptrdiff_t>(xs.size() / 2);
  std::nth_element(xs.begin(), mid, xs.end());
  if (xs.size() % 2 == 1) return *mid;
  const double hi = *mid;
  const double lo = *std::max_element(xs.begin(), mid);
  return 0.5 * (lo + hi);
}

Campaign::Campaign(CampaignOptions options) : options_(std::move(options))
{
  const auto& info = find_backend(options_.backend);
  if (!info.built)
    throw std::invalid_argument("backend '" + info.name + "' is not in this build: " + info.not_built);
  if (options_.device.empty()) options_.device = info.default_device;
  host_ = info.open_host(options_.device);
  caps_ = host_->capabilities();
  if (!caps_.cpu_device || (options_.pin_cpu && *options_.pin_cpu < 0)) {
    options_.pin_cpu.reset(); // GPUs: the device shares itself; -1: no pinning asked
    if (!caps_.cpu_device) options_.nice.reset();
  } else if (!options_.pin_cpu) {
    options_.pin_cpu = last_allowed_cpu();
  } else if (!cpu_allowed(*options_.pin_cpu)) {
    throw std::invalid_argument("--pin-cpu " + std::to_string(*options_.pin_cpu) +
                                ": this process may not run on that core; expected one of " + allowed_cpus() +
                                ", or none");
  }
  meter_ = host_->energy_meter(energy_why_not_);
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  hostname_ = name;
}

Campaign::~Campaign()
{
  if (host_) host_->restore_frequency();
}

std::string Campaign::energy_status() const
{
  return meter_ ? meter_->source() : "unavailable: " + energy_why_not_;
}

MeasurementRow Campaign::base_row(const PlannedRun& run) const
{
  MeasurementRow r;
  r.run_id = run.id;
  r.repetition = run.repetition;
  r.set = run.set;
  r.kind = std::string(to_string(run.kind));
  r.date = iso_utc_now();
  r.host = hostname_;
  r.backend = options_.backend;
  r.mode = run.mode;
  r.n_procs = static_cast<int>(run.jobs.size());
  r.freq_set_mhz = run.freq_mhz.value_or(MeasurementRow::UNAVAILABLE);
  r.window_s = options_.window_s;
  return r;
}

namespace {

/// Sleep and iteration time of solo runs, by (kernel, duty, frequency) (Campaign::solo_).
using SoloTimes = std::map<std::tuple<KernelConfig, double, double>, std::pair<double, double>>;

/// Every worker's READY line, split at tabs (READY, device, notes, sleep). Throws when a worker exits or
/// reports an error first.
std::vector<std::vector<std::string>> await_ready(std::vector<Worker>& workers)
{
  std::vector<std::vector<std::string>> ready;
  for (auto& w : workers) {
    const auto line = read_line(w, monotonic_s() + READY_TIMEOUT_S);
    if (!line)
      throw std::runtime_error("worker " + w.label + " exited before it was ready (see its messages above)");
    if (line->rfind("ERROR", 0) == 0) rethrow_worker_error(w, *line);
    if (line->rfind("READY", 0) != 0)
      throw std::runtime_error("worker " + w.label + ": unexpected '" + *line + "'");
    ready.push_back(split_tabs(*line));
  }
  return ready;
}

/// Every worker's result line after the window, then its exit (status 0, or std::runtime_error).
std::vector<WorkerResult> collect_results(std::vector<Worker>& workers, double window_s)
{
  std::vector<WorkerResult> results;
  for (auto& w : workers) {
    const auto line = read_line(w, monotonic_s() + window_s + RESULT_GRACE_S);
    if (!line)
      throw std::runtime_error("worker " + w.label + " exited without a result (see its messages above)");
    if (line->rfind("ERROR", 0) == 0) rethrow_worker_error(w, *line);
    results.push_back(parse_result(*line));
  }
  for (auto& w : workers) {
    reap(w);
    if (!WIFEXITED(w.status) || WEXITSTATUS(w.status) != 0)
      throw std::runtime_error(
          "worker " + w.label + " exited with status " +
          std::to_string(WIFEXITED(w.status) ? WEXITSTATUS(w.status) : 128 + WTERMSIG(w.status)));
  }
  return results;
}

/// The energy the meter read over the window into `row` (window, joules, watts), or a note why not.
void put_energy(MeasurementRow& row, EnergyMeter& meter, const std::optional<EnergySnapshot>& e0,
                const std::optional<EnergySnapshot>& e1)
{
  row.energy_source = meter.source();
  if (!e0 || !e1) {
    row.notes = "energy-read-failed";
    return;
  }
  if (const auto j = meter.joules_between(*e0, *e1)) {
    row.window_s = e1->host_time_s - e0->host_time_s;
    row.energy_j = *j;
    row.power_w = *j / row.window_s;
  } else {
    row.notes = "energy-counter-went-backwards";
  }
}

/// Job i's row: the run's `row` with the job, its co-runners, what its worker said when ready and its result.
MeasurementRow job_row(const MeasurementRow& row, const PlannedRun& run, std::size_t i,
                       const std::vector<std::string>& ready, const WorkerResult& res)
{
  MeasurementRow r = row;
  const auto& job = run.jobs[i];
  r.rank = static_cast<int>(i);
  r.device = ready.size() > 1 ? ready[1] : "";
  const std::string notes = ready.size() > 2 ? ready[2] : "";
  r.notes = row.notes.empty() ? notes : (notes.empty() ? row.notes : row.notes + ";" + notes);
  r.kernel = job.kernel.kernel;
  r.n = job.kernel.n;
  r.k = job.kernel.k;
  r.m = job.kernel.m;
  r.duty = job.duty;
  r.sleep_s = ready.size() > 3 ? std::strtod(ready[3].c_str(), nullptr) : MeasurementRow::UNAVAILABLE;
  std::string others;
  for (std::size_t o = 0; o < run.jobs.size(); ++o)
    if (o != i) others += (others.empty() ? "" : ";") + job_label(run.jobs[o]);
  r.co_runners = others;
  if (run.kind == RunKind::IDLE_CONTEXT) return r;
  r.reps = res.reps;
  r.t_global_s = res.t_global;
  r.t_context_s = res.t_context;
  r.t_host_s = res.t_host;
  r.t_iter_s = res.t_iter;
  r.t_iter_cv = res.cv;
  r.samples = res.samples;
  r.t_iter_lo_s = res.t_lo;
  r.t_iter_hi_s = res.t_hi;
  r.cpu_util = res.cpu;
  r.duty_measured = res.t_global / res.t_iter;
  const auto launch = make_launch(job.kernel);
  r.flops = launch.flops;
  r.bytes = launch.bytes;
  if (res.reps == 0)
    r.notes += std::string(r.notes.empty() ? "" : ";") + "no-launch-finished-in-window(lengthen --window)";
  return r;
}

/// One progress line: the run, its jobs, their iteration times and (co-runs) slowdowns against their solo
/// runs at the same frequency `f_key`, and the power.
void print_progress(std::ostream& p, const PlannedRun& run, std::size_t runs,
                    const std::vector<MeasurementRow>& rows, const SoloTimes& solo, double f_key,
                    double power_w)
{
  p << "[" << std::setw(4) << run.id << "/" << runs << "] " << to_string(run.kind) << " " << run.mode;
  if (run.freq_mhz) p << " @" << *run.freq_mhz << "MHz";
  for (std::size_t i = 0; i < run.jobs.size(); ++i)
    p << (i ? " + " : " ") << job_label(run.jobs[i]);
  if (run.kind == RunKind::SOLO || run.kind == RunKind::CORUN) {
    p << ": t_iter";
    for (const auto& r : rows)
      p << " " << std::setprecision(3) << r.t_iter_s * 1e3 << "ms";
    if (run.kind == RunKind::CORUN) {
      p << ", slowdown";
      for (const auto& r : rows) {
        const auto s = solo.find({KernelConfig{r.kernel, r.n, r.k, r.m}, r.duty, f_key});
        p << " " << std::setprecision(3) << (s != solo.end() ? r.t_iter_s / s->second.second : NAN);
      }
    }
  }
  if (!std::isnan(power_w)) p << ", " << std::setprecision(4) << power_w << " W";
  p << "\n" << std::flush;
}

/// What one measurement window gives: each worker's ready line and results, the energy counter at both ends
/// (none without a meter) and the device's clock halfway.
struct Window {
  std::vector<std::vector<std::string>> ready;
  std::vector<WorkerResult> results;
  std::optional<EnergySnapshot> e0, e1;
  std::optional<double> f_actual;
};

/// Waits until every worker is ready, sends them the window (GO start end), samples energy and clock across
/// it, then collects their results.
Window measure_window(std::vector<Worker>& workers, double window_s, EnergyMeter* meter, BackendHost& host)
{
  Window w;
  w.ready = await_ready(workers);
  const long long start = now_ns() + static_cast<long long>(START_DELAY_S * 1e9);
  const long long end = start + static_cast<long long>(window_s * 1e9);
  const std::string go = "GO " + std::to_string(start) + " " + std::to_string(end) + "\n";
  for (auto& worker : workers)
    if (write(worker.to, go.data(), go.size()) != static_cast<ssize_t>(go.size()))
      throw std::runtime_error("worker " + worker.label + " exited before the window");

  sleep_until_ns(start);
  w.e0 = meter ? meter->read() : std::nullopt;
  sleep_until_ns(start + (end - start) / 2);
  w.f_actual = host.actual_frequency_mhz();
  sleep_until_ns(end);
  w.e1 = meter ? meter->read() : std::nullopt;
  w.results = collect_results(workers, window_s);
  return w;
}

} // namespace

std::vector<MeasurementRow> Campaign::measure(const PlannedRun& run, std::size_t runs, std::ostream& csv)
{
  const double f_key = run.freq_mhz.value_or(0);
  auto env = host_->worker_environment(run.mode);
  if (options_.pin_cpu) env.push_back("POCL_MAX_PTHREAD_COUNT=1"); // one thread per process on the core
  std::vector<Worker> workers;
  try {
    for (std::size_t i = 0; i < run.jobs.size(); ++i) {
      const auto& job = run.jobs[i];
      std::optional<double> sleep;
      if (job.duty >= 1.0)
        sleep = 0.0;
      else if (run.kind == RunKind::CORUN)
        sleep = solo_.at({job.kernel, job.duty, f_key}).first; // check_plan: the solo came earlier
      const int queue = host_->queue_index(run.mode, static_cast<int>(i));
      workers.push_back(
          spawn_worker(worker_argv(options_.worker_command, options_.backend, options_.device, job, sleep,
                                   options_.warmup, queue, run.kind == RunKind::IDLE_CONTEXT,
                                   options_.samples, options_.pin_cpu, options_.nice),
                       env, job_label(job)));
    }
    const Window w = measure_window(workers, options_.window_s, meter_.get(), *host_);

    MeasurementRow row = base_row(run);
    row.freq_actual_mhz = w.f_actual.value_or(MeasurementRow::UNAVAILABLE);
    if (meter_) put_energy(row, *meter_, w.e0, w.e1);
    std::vector<MeasurementRow> rows;
    if (run.kind == RunKind::IDLE) rows.push_back(row);
    for (std::size_t i = 0; i < run.jobs.size(); ++i) {
      MeasurementRow r = job_row(row, run, i, w.ready[i], w.results[i]);
      if (run.kind == RunKind::SOLO && run.mode == caps_.modes.front())
        solo_.try_emplace({run.jobs[i].kernel, run.jobs[i].duty, f_key}, r.sleep_s, r.t_iter_s);
      rows.push_back(std::move(r));
    }
    for (const auto& r : rows)
      write_measurement_row(csv, r);
    csv.flush();
    if (options_.progress) print_progress(*options_.progress, run, runs, rows, solo_, f_key, row.power_w);
    return rows;
  } catch (...) {
    abort_workers(workers);
    throw;
  }
}

std::vector<MeasurementRow> Campaign::run(const std::vector<PlannedRun>& plan, std::ostream& csv)
{
  if (auto problem = check_plan(plan); !problem.empty()) throw std::invalid_argument("bad plan: " + problem);
  struct SigpipeGuard { // a worker that dies must not kill us when we write GO to it
    struct sigaction old {};
    SigpipeGuard()
    {
      struct sigaction ign {};
      ign.sa_handler = SIG_IGN;
      sigaction(SIGPIPE, &ign, &old);
    }
    ~SigpipeGuard() { sigaction(SIGPIPE, &old, nullptr); }
  } guard;

  write_measurement_header(csv);
  csv.flush();
  std::vector<MeasurementRow> all;
  std::optional<double> pinned;
  const auto t_begin = monotonic_s();
  for (const auto& run : plan) {
    if (run.freq_mhz != pinned) {
      if (run.freq_mhz)
        host_->set_frequency_mhz(*run.freq_mhz);
      else
        host_->restore_frequency();
      pinned = run.freq_mhz;
    }
    const auto rows = measure(run, plan.size(), csv);
    all.insert(all.end(), rows.begin(), rows.end());
  }
  if (pinned) host_->restore_frequency();
  if (options_.progress)
    *options_.progress << "measured " << plan.size() << " runs in " << std::setprecision(3)
                       << monotonic_s() - t_begin << " s\n";
  return all;
}

namespace {

/// Pinning and priority (before the backend starts its threads, which inherit both): what was done or
/// refused, as "k=v;..." notes for the READY line.
std::string isolate_worker(const WorkerOptions& o)
{
  std::string setup_notes;
  auto note = [&](const std::string& n) { setup_notes += (setup_notes.empty() ? "" : ";") + n; };
  if (o.pin_cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (*o.pin_cpu < CPU_SETSIZE) CPU_SET(*o.pin_cpu, &set);
    if (*o.pin_cpu < CPU_SETSIZE && sched_setaffinity(0, sizeof set, &set) == 0)
      note("pin=cpu" + std::to_string(*o.pin_cpu));
    else
      note("pin-refused(" + std::string(std::strerror(errno)) + ")");
  }
  if (o.nice) {
    // With autogroups (Linux, sched_autogroup_enabled), the scheduler first shares a CPU between sessions
    // and nice only orders threads inside one: a worker at nice -20 in the session of a loaded host still
    // got 23 % of its core here, like a plain spin loop. So each worker becomes its own session (its own
    // autogroup: workers share the core equally, as time-slice sharing supposes) and gives that autogroup
    // the priority; setpriority covers hosts without autogroups.
    setsid();
    std::ofstream group("/proc/self/autogroup");
    const bool grouped = group && (group << *o.nice << "\n") && group.flush();
    const bool niced = setpriority(PRIO_PROCESS, 0, *o.nice) == 0;
    if (grouped || niced)
      note("nice=" + std::to_string(*o.nice) + (grouped ? "(autogroup)" : ""));
    else
      note("nice-refused(" + std::string(std::strerror(errno)) + ")");
  }
  return setup_notes;
}

/// The protocol's "ERROR\tfailed\tMESSAGE" line (the message on one line).
void write_failed(std::ostream& out, const std::exception& e)
{
  std::string msg = e.what();
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  out << "ERROR\tfailed\t" << msg << "\n" << std::flush;
}

/// The warm-up launches, and the sleep after each kernel that gives the duty cycle: --sleep as given, or
/// for a duty cycle d < 1 the kernel's median time × (1 − d) / d.
double warm_up(const WorkerOptions& o, KernelRunner& runner)
{
  double sleep_s = o.sleep_s.value_or(0.0);
  if (o.idle) return sleep_s;
  std::vector<double> busy;
  const int warmup = o.sleep_s || o.duty >= 1.0 ? o.warmup : std::max(o.warmup, 8);
  for (int i = 0; i < warmup; ++i) {
    const double t0 = monotonic_s();
    runner.launch();
    busy.push_back(monotonic_s() - t0);
  }
  // Duty cycle d: the kernel (launch to completion) is a fraction d of each iteration when alone. The
  // first launches are slow (lazy compilation, page faults, clocks ramping up): use the second half.
  if (!o.sleep_s && o.duty < 1.0) {
    busy.erase(busy.begin(), busy.begin() + static_cast<std::ptrdiff_t>(busy.size() / 2));
    sleep_s = median(busy) * (1.0 - o.duty) / o.duty;
  }
  return sleep_s;
}

/// The timings of every iteration that ran entirely inside the measurement window.
struct WindowTimes {
  std::vector<double> global, context, host, iter, started;
};

/// Launch, sleep, repeat from `start` to `end` (ns, CLOCK_MONOTONIC); an idle worker only waits.
WindowTimes measure_window(const WorkerOptions& o, KernelRunner& runner, double sleep_s, long long start,
                           long long end)
{
  WindowTimes w;
  const auto sleep_ns = static_cast<long long>(sleep_s * 1e9);
  if (o.idle) {
    sleep_until_ns(end);
    return w;
  }
  while (true) {
    const long long t0 = now_ns();
    if (t0 >= end) break;
    const auto t = runner.launch();
    const long long t1 = now_ns();
    if (sleep_ns > 0) sleep_until_ns(t1 + sleep_ns);
    const long long t2 = sleep_ns > 0 ? now_ns() : t1;
    if (t2 > end) break; // not entirely inside the window
    w.global.push_back(t.global_s);
    w.context.push_back(t.context_s);
    w.host.push_back(static_cast<double>(t1 - t0) * 1e-9);
    w.iter.push_back(static_cast<double>(t2 - t0) * 1e-9);
    w.started.push_back(static_cast<double>(t0 - start) * 1e-9);
  }
  return w;
}

/// The protocol's RESULT line: medians, the coefficient of variation of the iterations, the mean iteration
/// times of `samples` sub-windows and their median, least and greatest, the CPU use.
void write_result(std::ostream& out, const WindowTimes& w, double seconds, int samples, double cpu_util)
{
  double cv = NAN;
  if (w.iter.size() >= 2) {
    double mean = 0, var = 0;
    for (double x : w.iter)
      mean += x;
    mean /= static_cast<double>(w.iter.size());
    for (double x : w.iter)
      var += (x - mean) * (x - mean);
    cv = std::sqrt(var / static_cast<double>(w.iter.size() - 1)) / mean;
  }
  const auto parts = sub_window_means(w.started, w.iter, seconds, samples);
  const double t_iter = parts.empty() ? NAN : median(parts);
  const double lo = parts.empty() ? NAN : *std::min_element(parts.begin(), parts.end());
  const double hi = parts.empty() ? NAN : *std::max_element(parts.begin(), parts.end());
  out << "RESULT\treps=" << w.iter.size() << "\tt_global=" << number(median(w.global))
      << "\tt_context=" << number(median(w.context)) << "\tt_host=" << number(median(w.host))
      << "\tt_iter=" << number(t_iter) << "\tcv=" << number(cv) << "\tsamples=" << parts.size()
      << "\tt_lo=" << number(lo) << "\tt_hi=" << number(hi) << "\tcpu=" << number(cpu_util) << "\n"
      << std::flush;
}

} // namespace

int run_worker(const WorkerOptions& o, std::istream& in, std::ostream& out)
{
  std::unique_ptr<KernelRunner> runner;
  const std::string setup_notes = isolate_worker(o);
  try {
    const auto& info = find_backend(o.backend);
    if (!info.built)
      throw BackendUnavailable("backend '" + o.backend + "' is not in this build: " + info.not_built);
    RunnerOptions ro;
    ro.device = o.device.empty() ? info.default_device : o.device;
    ro.launch = make_launch(o.kernel);
    ro.queue_index = o.queue_index;
    runner = info.open_runner(ro);
  } catch (const BackendUnavailable& e) {
    out << "ERROR\tunavailable\t" << e.what() << "\n" << std::flush;
    return EXIT_BACKEND_UNAVAILABLE;
  } catch (const std::exception& e) {
    write_failed(out, e);
    return 1;
  }

  try {
    const double sleep_s = warm_up(o, *runner);
    std::string notes = runner->notes();
    if (!setup_notes.empty()) notes += (notes.empty() ? "" : ";") + setup_notes;
    out << "READY\t" << runner->device_name() << "\t" << notes << "\t" << number(sleep_s) << "\n"
        << std::flush;

    std::string cmd;
    long long start = 0, end = 0;
    if (!(in >> cmd >> start >> end) || cmd != "GO") return 1; // parent gone: nothing to report
    sleep_until_ns(start);
    const double cpu0 = process_cpu_s();
    const WindowTimes w = measure_window(o, *runner, sleep_s, start, end);
    const double cpu_util =
        o.idle ? NAN : (process_cpu_s() - cpu0) / (static_cast<double>(now_ns() - start) * 1e-9);
    write_result(out, w, static_cast<double>(end - start) * 1e-9, o.samples, cpu_util);
    return 0;
  } catch (const std::exception& e) {
    write_failed(out, e);
    return 1;
  }
}

} // namespace colocsim
