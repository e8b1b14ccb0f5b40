// colocsim-plainloop: the plain C++ reference loop of BENCHMARKS.md ("A million jobs"). The work of
// colocsim-rawloop (sim/bench/RawLoop.cpp) without SimGrid: the same Poisson arrivals and lognormal
// durations (same generator, same seed, same draws), devices of speed 1 shared fairly by their residents
// (each of n residents progresses at 1/n, as SimGrid's default CPU sharing does), progress computed exactly
// between events, energy integrated exactly between events, the next completion taken from a heap. No
// actor, no activity, no solver: what a simulation of this shape costs when nothing but the arithmetic is
// left. Two placements:
//   --placement blind      job j on device j mod H, at once (what colocsim-rawloop does): the same
//                          checksum, makespan and peak as `colocsim-rawloop` to rounding (tests/sim/
//                          plainloop_check.py checks it, and checks both placements against a brute force)
//   --placement first-fit  at most --per-device jobs on a device (default 2), the first device with room,
//                          in submission order, waiting in a FIFO queue otherwise (the decision work
//                          `colocsim bench` does with first-fit, without its interference and power models)
// Energy: a device draws --idle-w alone and --busy-w while it has residents (defaults 0 and 1: the energy
// in joules is then the busy device-seconds), integrated between events.
// Prints key=value lines like colocsim-rawloop: wall_s, cpu_s, peak_rss_mb, makespan_s, checksum (Σ end
// times), peak_running, energy_j, busy_device_s.
//
//   colocsim-plainloop --jobs 1000000 --tiles 127488 [--load 1] [--duration 1800] [--seed 1]
//                      [--placement blind|first-fit] [--per-device 2] [--idle-w W] [--busy-w W]
#include "sim/bench/BenchCommon.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <functional>
#include <optional>
#include <queue>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using colocsim::bench::cpu_seconds;
using colocsim::bench::peak_rss_mb;

struct Options {
  long long jobs = 100000, tiles = 1000, seed = 1, per_device = 2;
  double load = 1.0, duration = 1800, idle_w = 0, busy_w = 1;
  bool first_fit = false;
  std::string jobs_out; // --jobs-out FILE: one line per job (for tests/sim/plainloop_check.py's brute force)
};

[[noreturn]] void usage(const std::string& why)
{
  std::fprintf(stderr,
               "colocsim-plainloop: %s\nusage: colocsim-plainloop [--jobs N] [--tiles N] [--load X] "
               "[--duration S] [--seed N] [--placement blind|first-fit] [--per-device N] [--idle-w W] "
               "[--busy-w W] [--jobs-out FILE]\n",
               why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv)
{
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") usage("the plain C++ reference loop (BENCHMARKS.md)");
    if (i + 1 >= argc) usage("option " + a + " needs a value");
    if (a == "--jobs-out") {
      o.jobs_out = argv[++i];
      continue;
    }
    if (a == "--placement") {
      const std::string p = argv[++i];
      if (p != "blind" && p != "first-fit")
        usage("option --placement expects blind or first-fit (got '" + p + "')");
      o.first_fit = p == "first-fit";
      continue;
    }
    char* end = nullptr;
    const double v = std::strtod(argv[++i], &end);
    const bool watts = a == "--idle-w" || a == "--busy-w";
    if (end == argv[i] || *end != '\0' || !std::isfinite(v) || v < 0 || (!watts && v == 0))
      usage("option " + a + " expects a " + (watts ? "finite number >= 0" : "positive number") + " (got '" +
            argv[i] + "')");
    const bool integer_option = a == "--jobs" || a == "--tiles" || a == "--seed" || a == "--per-device";
    if (integer_option && !(v == std::floor(v) && v < 9.2e18))
      usage("option " + a + " expects a positive whole number (got '" + argv[i] + "')");
    if (a == "--jobs")
      o.jobs = static_cast<long long>(v);
    else if (a == "--tiles")
      o.tiles = static_cast<long long>(v);
    else if (a == "--seed")
      o.seed = static_cast<long long>(v);
    else if (a == "--per-device")
      o.per_device = static_cast<long long>(v);
    else if (a == "--load")
      o.load = v;
    else if (a == "--duration")
      o.duration = v;
    else if (a == "--idle-w")
      o.idle_w = v;
    else if (a == "--busy-w")
      o.busy_w = v;
    else
      usage("unknown option '" + a + "'");
  }
  return o;
}

// A device shared fairly: every resident progresses at 1/n. Progress is kept as the service each resident
// has received since the device was last empty (`served`, the same for all of them); a resident that
// arrived when the device had served s and needs w finishes when served reaches s + w. The residents'
// finish thresholds are in a min-heap, so the next completion is the smallest threshold, reached at
// last + (threshold − served) · n. Exact between events: served grows linearly while n is constant.
struct Device {
  double served = 0, last = 0, energy_j = 0, busy_s = 0;
  // the residents' finish thresholds, each with its job's number
  std::priority_queue<std::pair<double, long long>, std::vector<std::pair<double, long long>>, std::greater<>>
      finish;
  std::uint64_t version = 0; // bumps whenever the next completion moves (lazy deletion in the event heap)

  std::size_t residents() const { return finish.size(); }
  void advance(double now, const Options& o)
  {
    const double dt = now - last;
    const auto n = static_cast<double>(residents());
    if (n > 0) {
      served += dt / n;
      busy_s += dt;
      energy_j += o.busy_w * dt;
    } else {
      energy_j += o.idle_w * dt;
    }
    last = now;
  }
  double next_completion() const
  {
    return last + (finish.top().first - served) * static_cast<double>(residents());
  }
};

struct Completion {
  double time;
  std::uint64_t version;
  std::size_t device;
  bool operator>(const Completion& c) const { return time > c.time || (time == c.time && device > c.device); }
};

struct Tally {
  double checksum = 0, makespan = 0;
  long long running = 0, peak_running = 0;
};

// One job's record, kept only with --jobs-out.
struct JobRecord {
  double arrival = 0, work = 0, start = 0, end = 0;
  std::size_t device = 0;
};

class PlainLoop {
public:
  explicit PlainLoop(const Options& o) : o_(o), devices_(static_cast<std::size_t>(o.tiles))
  {
    if (!o.jobs_out.empty()) records_.resize(static_cast<std::size_t>(o.jobs));
  }
  const std::vector<JobRecord>& records() const { return records_; }

  Tally run()
  {
    // the workload of colocsim-rawloop, draw for draw (sim/bench/BenchCommon.hpp)
    colocsim::bench::Workload w(static_cast<std::uint64_t>(o_.seed), o_.load, static_cast<double>(o_.tiles),
                                o_.duration);
    long long submitted = 0;
    colocsim::bench::Arrival arrival;
    if (o_.jobs > 0) arrival = w.next();
    // Events in time order; at equal times a completion goes first (it frees room for the arrival),
    // as in SimGrid, where an exec ending at t is noticed before an actor sleeping until t resumes.
    while (submitted < o_.jobs || !events_.empty()) {
      const bool arrival_due = submitted < o_.jobs;
      if (!events_.empty() && (!arrival_due || events_.top().time <= arrival.time)) {
        const Completion c = events_.top();
        events_.pop();
        Device& d = devices_[c.device];
        if (c.version != d.version) continue; // stale: the device's next completion moved since
        complete(c.device, c.time);
        continue;
      }
      if (!records_.empty()) {
        records_[static_cast<std::size_t>(submitted)].arrival = arrival.time;
        records_[static_cast<std::size_t>(submitted)].work = arrival.work;
      }
      arrive(arrival.time, arrival.work, submitted);
      if (++submitted < o_.jobs) arrival = w.next();
    }
    return tally_;
  }
  double end_time() const { return tally_.makespan; }
  void finish_energy(double end, double& energy_j, double& busy_s)
  {
    for (Device& d : devices_) {
      d.advance(end, o_);
      energy_j += d.energy_j;
      busy_s += d.busy_s;
    }
  }

private:
  void start(std::size_t dev, double now, double work, long long j)
  {
    Device& d = devices_[dev];
    d.advance(now, o_);
    d.finish.push({d.served + work, j});
    if (!records_.empty()) {
      records_[static_cast<std::size_t>(j)].start = now;
      records_[static_cast<std::size_t>(j)].device = dev;
    }
    reschedule(dev);
    ++tally_.running;
    tally_.peak_running = std::max(tally_.peak_running, tally_.running);
  }
  void reschedule(std::size_t dev)
  {
    Device& d = devices_[dev];
    ++d.version;
    if (d.residents() > 0) events_.push({d.next_completion(), d.version, dev});
  }
  void arrive(double now, double work, long long j)
  {
    if (!o_.first_fit) {
      start(static_cast<std::size_t>(j % o_.tiles), now, work, j);
      return;
    }
    if (queue_.empty()) {
      if (const auto dev = device_with_room()) {
        start(*dev, now, work, j);
        return;
      }
    }
    queue_.push_back({work, j});
  }
  void complete(std::size_t dev, double now)
  {
    Device& d = devices_[dev];
    d.advance(now, o_);
    if (!records_.empty()) records_[static_cast<std::size_t>(d.finish.top().second)].end = now;
    d.finish.pop();
    if (d.residents() == 0) d.served = 0; // keeps the thresholds small: no drift over a long run
    --tally_.running;
    tally_.checksum += now;
    tally_.makespan = std::max(tally_.makespan, now);
    if (o_.first_fit) note_room(dev);
    reschedule(dev);
    // FIFO: the head of the queue starts as soon as any device has room (first fit: the lowest index).
    while (o_.first_fit && !queue_.empty()) {
      const auto room = device_with_room();
      if (!room) break;
      const auto [work, j] = queue_.front();
      queue_.pop_front();
      start(*room, now, work, j);
    }
  }

  // First fit: the lowest-numbered device with fewer than per_device residents. Devices with room are kept
  // in a min-heap of indices (lazily: an index may be stale and is checked when it reaches the top).
  std::optional<std::size_t> device_with_room()
  {
    if (!room_init_) {
      for (std::size_t i = 0; i < devices_.size(); ++i)
        room_.push(i);
      room_init_ = true;
    }
    while (!room_.empty()) {
      const std::size_t i = room_.top();
      if (static_cast<long long>(devices_[i].residents()) < o_.per_device) {
        // it stays in the heap while it keeps room after the job starts; taken out when full
        if (static_cast<long long>(devices_[i].residents()) + 1 >= o_.per_device) room_.pop();
        return i;
      }
      room_.pop();
    }
    return std::nullopt;
  }
  void note_room(std::size_t dev)
  {
    // a device that was full gets room again: back in the heap (a duplicate is harmless: checked on top)
    if (static_cast<long long>(devices_[dev].residents()) + 1 == o_.per_device) room_.push(dev);
  }

  const Options& o_;
  std::vector<Device> devices_;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> events_;
  std::deque<std::pair<double, long long>> queue_; // waiting jobs: work and number
  std::vector<JobRecord> records_;
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> room_;
  bool room_init_ = false;
  Tally tally_;
};

} // namespace

int main(int argc, char** argv)
{
  const Options o = parse(argc, argv);
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  PlainLoop loop(o);
  const Tally t = loop.run();
  double energy_j = 0, busy_s = 0;
  loop.finish_energy(t.makespan, energy_j, busy_s);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (!o.jobs_out.empty()) {
    std::FILE* f = std::fopen(o.jobs_out.c_str(), "w");
    if (f == nullptr) usage("cannot write --jobs-out " + o.jobs_out);
    std::fprintf(f, "job,arrival_s,work,device,start_s,end_s\n");
    const auto& r = loop.records();
    for (std::size_t j = 0; j < r.size(); ++j)
      std::fprintf(f, "%zu,%.17g,%.17g,%zu,%.17g,%.17g\n", j, r[j].arrival, r[j].work, r[j].device,
                   r[j].start, r[j].end);
    if (std::fclose(f) != 0) usage("cannot write --jobs-out " + o.jobs_out);
  }
  std::printf("jobs=%lld\ntiles=%lld\nwall_s=%g\ncpu_s=%g\npeak_rss_mb=%g\nmakespan_s=%.6f\nchecksum=%.6f\n"
              "placement=%s\npeak_running=%lld\nenergy_j=%.6f\nbusy_device_s=%.6f\n",
              o.jobs, o.tiles, wall, cpu_seconds() - cpu0, peak_rss_mb(), t.makespan, t.checksum,
              o.first_fit ? "first-fit" : "blind", t.peak_running, energy_j, busy_s);
  return 0;
}
