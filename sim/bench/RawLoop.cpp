// colocsim-rawloop: the raw-SimGrid reference loop of BENCHMARKS.md ("A million jobs"). What SimGrid 3.32
// alone costs for the shape of run `colocsim bench` makes, with none of colocsim: no scenario, no policy, no
// interference or power model, no outputs. A star zone of H hosts (one per tile, speed 1 flop/s, SimGrid's
// default fair sharing), a submitter actor that sleeps until each Poisson arrival (rate load · H / mean
// duration, as `colocsim bench --load`) and creates one actor per job, which executes the job's duration in
// flops on host (job mod H) and ends. Job actors get the engine's stacks (contexts/stack-size 8 KiB, guard
// pages off: sim/Engine.cpp make_engine). Durations are lognormal with the bench scenario's mean and
// sigma (sim/scenarios/bench/scenario.yaml: 1800 s, σ = 1). Prints key=value lines like `colocsim bench`:
// wall_s, cpu_s, peak_rss_mb, makespan_s, and a checksum (Σ end times) that is the same for a seed.
// It links SimGrid alone, so cpu_seconds and peak_rss_mb below repeat cli/Cli.cpp's on purpose.
//
// --style chooses who owns and waits for the jobs' execs (BENCHMARKS.md, "Without an actor per job"): actor
// (the default, above), pool (job actors reused), sharded (owner actors with pools of pre-inited execs and a
// doorbell), split (owner actors that share the arrivals). Every style simulates the same run: same checksum,
// makespan and peak_running (the largest number of jobs running at once); tests/sim/rawloop_styles.py checks.
//
//   colocsim-rawloop --jobs 1000000 --tiles 127488 [--load 1] [--duration 1800] [--seed 1] [--stack-kib 8]
//                    [--style actor|pool|sharded|split] [--per-owner 32] [--owners 16384]
//                    [--owner-stack-kib 16] [--cfg=SIMGRID-OPTION ...]
#include "sim/bench/BenchCommon.hpp"

#include <simgrid/s4u.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;
using colocsim::bench::cpu_seconds;
using colocsim::bench::peak_rss_mb;
using colocsim::bench::Workload;

namespace {

enum class Style { ACTOR, POOL, SHARDED, SPLIT };

struct Options {
  long long jobs = 100000, tiles = 1000, seed = 1, stack_kib = 8, owners = 16384, per_owner = 32,
            owner_stack_kib = 16;
  std::vector<std::string> simgrid_cfg; // --cfg=... passed on to SimGrid (e.g. --cfg=contexts/guard-size:1)
  double load = 1.0, duration = 1800;
  Style style = Style::ACTOR;
  std::string style_name = "actor";
};

[[noreturn]] void usage(const std::string& why)
{
  std::fprintf(stderr,
               "colocsim-rawloop: %s\nusage: colocsim-rawloop [--jobs N] [--tiles N] [--load X] "
               "[--duration S] [--seed N] [--stack-kib N] [--style actor|pool|sharded|split] "
               "[--per-owner M] [--owners K] [--owner-stack-kib N] [--cfg=SIMGRID-OPTION...]\n",
               why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv)
{
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") usage("the raw-SimGrid reference loop (BENCHMARKS.md)");
    if (a.rfind("--cfg=", 0) == 0) {
      o.simgrid_cfg.push_back(a);
      continue;
    }
    if (i + 1 >= argc) usage("option " + a + " needs a value");
    if (a == "--style") {
      o.style_name = argv[++i];
      if (o.style_name == "actor")
        o.style = Style::ACTOR;
      else if (o.style_name == "pool")
        o.style = Style::POOL;
      else if (o.style_name == "sharded")
        o.style = Style::SHARDED;
      else if (o.style_name == "split")
        o.style = Style::SPLIT;
      else
        usage("option --style expects actor, pool, sharded or split (got '" + o.style_name + "')");
      continue;
    }
    char* end = nullptr;
    const double v = std::strtod(argv[++i], &end);
    if (end == argv[i] || *end != '\0' || !(v > 0))
      usage("option " + a + " expects a positive number (got '" + argv[i] + "')");
    const bool integer_option = a != "--load" && a != "--duration";
    if (integer_option && !(v == std::floor(v) && v < 9.2e18))
      usage("option " + a + " expects a positive whole number (got '" + argv[i] + "')");
    if (a == "--jobs")
      o.jobs = static_cast<long long>(v);
    else if (a == "--tiles")
      o.tiles = static_cast<long long>(v);
    else if (a == "--seed")
      o.seed = static_cast<long long>(v);
    else if (a == "--stack-kib")
      o.stack_kib = static_cast<long long>(v);
    else if (a == "--owners")
      o.owners = static_cast<long long>(v);
    else if (a == "--owner-stack-kib")
      o.owner_stack_kib = static_cast<long long>(v);
    else if (a == "--per-owner")
      o.per_owner = static_cast<long long>(v);
    else if (a == "--load")
      o.load = v;
    else if (a == "--duration")
      o.duration = v;
    else
      usage("unknown option '" + a + "'");
  }
  return o;
}

// The workload, the same for every style (sim/bench/BenchCommon.hpp): job j arrives at the j-th point of a
// Poisson process and runs `work` flops (its duration at 1 flop/s, lognormal) on host j mod H.
using colocsim::bench::Arrival;
Workload make_workload(const Options& o)
{
  return Workload(static_cast<std::uint64_t>(o.seed), o.load, static_cast<double>(o.tiles), o.duration);
}

// What every style reports: Σ end times (the checksum the styles must agree on), the makespan and the
// largest number of jobs running at once.
struct Tally {
  double checksum = 0, makespan = 0;
  long long running = 0, peak_running = 0, owners = 0;
  void start()
  {
    ++running;
    peak_running = std::max(peak_running, running);
  }
  void end()
  {
    --running;
    const double now = sg4::Engine::get_clock();
    checksum += now;
    makespan = std::max(makespan, now);
  }
};

// actor: one actor per job (what sim/Engine.cpp does): created at the arrival, executes, ends.
void run_actor(const Options& o, const std::vector<sg4::Host*>& hosts, Tally& tally)
{
  sg4::Actor::init("submitter", hosts.front())->set_stacksize(8 * 1024)->start([&] {
    Workload w = make_workload(o);
    for (long long j = 0; j < o.jobs; ++j) {
      const Arrival a = w.next();
      sg4::this_actor::sleep_until(a.time);
      tally.start();
      sg4::Actor::create("job", hosts[static_cast<std::size_t>(j % o.tiles)], [flops = a.work, &tally] {
        sg4::this_actor::execute(flops);
        tally.end();
      });
    }
  });
}

// pool: job actors reused. A job actor that ends its job parks itself (suspend) on an idle list; the
// submitter hands the next arrival to a parked actor (resume) and creates one only when none is parked.
struct Worker {
  sg4::Actor* actor = nullptr;
  sg4::Host* host = nullptr;
  double flops = 0;
  bool stop = false;
};

void run_pool(const Options& o, const std::vector<sg4::Host*>& hosts, Tally& tally)
{
  auto workers = std::make_shared<std::deque<Worker>>();
  auto idle = std::make_shared<std::vector<Worker*>>();
  auto submitting = std::make_shared<bool>(true);
  sg4::Actor::init("submitter", hosts.front())
      ->set_stacksize(8 * 1024)
      ->start([&o, &hosts, &tally, workers, idle, submitting] {
        Workload w = make_workload(o);
        for (long long j = 0; j < o.jobs; ++j) {
          const Arrival a = w.next();
          sg4::this_actor::sleep_until(a.time);
          tally.start();
          sg4::Host* host = hosts[static_cast<std::size_t>(j % o.tiles)];
          if (!idle->empty()) {
            Worker* k = idle->back();
            idle->pop_back();
            k->host = host;
            k->flops = a.work;
            k->actor->resume();
            continue;
          }
          Worker* k = &workers->emplace_back(Worker{nullptr, host, a.work, false});
          k->actor = sg4::Actor::create("worker", hosts.front(), [k, &tally, idle, submitting] {
                       while (true) {
                         sg4::Exec::init()->set_host(k->host)->set_flops_amount(k->flops)->start()->wait();
                         tally.end();
                         if (!*submitting) return;
                         idle->push_back(k);
                         sg4::this_actor::suspend();
                         if (k->stop) return;
                       }
                     }).get();
        }
        *submitting = false;
        for (Worker* k : *idle) {
          k->stop = true;
          k->actor->resume();
        }
        idle->clear();
      });
}

// sharded: no actor per job. Owner actors each own at most M in-flight execs (an exec belongs to the actor
// that calls Exec::init(), and SimGrid 3.32 removes a finished exec from its owner's std::list, O(M)).
// Each owner keeps a pool of execs it has inited; the submitter takes one, sets host and flops, starts it
// and rings the owner's doorbell: cancels the huge exec the owner has running on its own private host,
// which wakes the owner out of Exec::wait_any (CancelException) to wait again with the new exec included.
struct Owner {
  sg4::Host* bell_host = nullptr;
  std::vector<sg4::ExecPtr> pool;    // inited by this owner, not started
  std::vector<sg4::ExecPtr> running; // [0]: the doorbell; then the started execs
  sg4::ExecPtr bell;
  std::vector<sg4::ExecPtr> cancelled; // rung doorbells, kept alive until the owner's next wake-up
  bool rung = false, closing = false, in_free = false;
};

struct Shards {
  std::deque<Owner> owners;
  std::set<std::size_t> free; // owners with a pooled exec, lowest index first
  long long per_owner = 128;
};

constexpr double BELL_FLOPS = 1e300; // never ends: the doorbell only ever ends cancelled

void owner_loop(Shards& s, std::size_t me, Tally& tally)
{
  Owner& ow = s.owners[me];
  ow.running.emplace_back(); // running[0]: the doorbell, the jobs' execs after it
  while (true) {
    // Refill the pool (inited here, so owned here) up to M execs in flight or pooled.
    while (static_cast<long long>(ow.pool.size() + ow.running.size() - 1) < s.per_owner)
      ow.pool.push_back(sg4::Exec::init());
    if (!ow.in_free && !ow.closing && !ow.pool.empty()) {
      s.free.insert(me);
      ow.in_free = true;
    }
    if (ow.closing && ow.running.size() == 1) {
      if (ow.bell) ow.bell->cancel();
      return;
    }
    if (!ow.bell) {
      ow.bell = sg4::Exec::init()->set_host(ow.bell_host)->set_flops_amount(BELL_FLOPS);
      ow.bell->start();
      ow.running[0] = ow.bell;
      ow.rung = false;
    }
    ssize_t i = -1;
    try {
      i = sg4::Exec::wait_any(ow.running);
    } catch (const simgrid::CancelException&) {
      i = 0;
    }
    ow.cancelled.clear();
    if (i == 0) { // rung: the submitter started execs of this pool (or closes)
      ow.cancelled.push_back(ow.bell);
      ow.bell = nullptr;
      continue;
    }
    if (i < 0) std::abort(); // no timeout was given
    tally.end();
    ow.running[static_cast<std::size_t>(i)] = ow.running.back();
    ow.running.pop_back();
  }
}

void ring(Owner& ow)
{
  if (ow.rung || !ow.bell) return;
  ow.rung = true;
  ow.bell->cancel();
}

void run_sharded(const Options& o, const std::vector<sg4::Host*>& hosts, const std::vector<sg4::Host*>& bells,
                 Tally& tally)
{
  auto s = std::make_shared<Shards>();
  s->per_owner = o.per_owner;
  sg4::Actor::init("submitter", hosts.front())
      ->set_stacksize(8 * 1024)
      ->start([&o, &hosts, &bells, &tally, s] {
        // A new owner, on its own doorbell host; it fills its pool when it first runs, at this same date.
        auto add_owner = [&o, &bells, &tally, s] {
          const std::size_t id = s->owners.size();
          if (id >= bells.size()) {
            std::fprintf(stderr, "colocsim-rawloop: more than %zu owners needed\n", bells.size());
            std::exit(2);
          }
          s->owners.emplace_back().bell_host = bells[id];
          sg4::Actor::init("owner", bells[id])
              ->set_stacksize(static_cast<std::size_t>(o.owner_stack_kib) * 1024)
              ->start([s, id, &tally] { owner_loop(*s, id, tally); });
          ++tally.owners;
        };
        add_owner();
        Workload w = make_workload(o);
        for (long long j = 0; j < o.jobs; ++j) {
          const Arrival a = w.next();
          sg4::this_actor::sleep_until(a.time);
          while (s->free.empty()) // a new owner has not run yet (two arrivals at one date)
            sg4::this_actor::yield();
          const std::size_t id = *s->free.begin();
          Owner& ow = s->owners[id];
          sg4::ExecPtr e = ow.pool.back();
          ow.pool.pop_back();
          if (ow.pool.empty()) {
            s->free.erase(s->free.begin());
            ow.in_free = false;
            if (s->free.empty()) add_owner(); // ready before the next arrival
          }
          e->set_host(hosts[static_cast<std::size_t>(j % o.tiles)])->set_flops_amount(a.work);
          e->start();
          tally.start();
          ow.running.push_back(e);
          ring(ow);
        }
        for (Owner& ow : s->owners) {
          ow.closing = true;
          ring(ow);
        }
      });
}

// split: no actor per job and no submitter. K owner actors (default 16,384: 16 KiB stacks, 256 MB) share the
// arrivals (job j goes to owner j mod K); each starts its own jobs' execs (so owns them) and waits for the
// first of its execs to end or its next arrival to come: Exec::wait_any_for(running, next arrival − now). An
// owner has about concurrency/K execs.
class SharedArrivals { // arrivals generated once, in order, buffered until taken (at most about K ahead)
public:
  explicit SharedArrivals(const Options& o) : w_(make_workload(o)) {}
  const Arrival& get(long long j)
  {
    while (base_ + static_cast<long long>(buf_.size()) <= j)
      buf_.push_back({w_.next(), false});
    return buf_[static_cast<std::size_t>(j - base_)].a;
  }
  void take(long long j)
  {
    buf_[static_cast<std::size_t>(j - base_)].taken = true;
    while (!buf_.empty() && buf_.front().taken) {
      buf_.pop_front();
      ++base_;
    }
  }

private:
  struct Slot {
    Arrival a;
    bool taken;
  };
  Workload w_;
  std::deque<Slot> buf_;
  long long base_ = 0;
};

void run_split(const Options& o, const std::vector<sg4::Host*>& hosts, Tally& tally)
{
  auto arrivals = std::make_shared<SharedArrivals>(o);
  const long long k_owners = std::min(o.owners, o.jobs);
  tally.owners = k_owners;
  for (long long k = 0; k < k_owners; ++k) {
    sg4::Actor::init("owner", hosts.front())
        ->set_stacksize(static_cast<std::size_t>(o.owner_stack_kib) * 1024)
        ->start([&o, &hosts, &tally, arrivals, k, k_owners] {
          std::vector<sg4::ExecPtr> running;
          long long next = k;
          while (next < o.jobs || !running.empty()) {
            if (next < o.jobs) {
              const Arrival a = arrivals->get(next);
              if (a.time <= sg4::Engine::get_clock() || running.empty()) {
                sg4::this_actor::sleep_until(a.time);
                arrivals->take(next);
                running.push_back(sg4::Exec::init()
                                      ->set_host(hosts[static_cast<std::size_t>(next % o.tiles)])
                                      ->set_flops_amount(a.work));
                running.back()->start();
                tally.start();
                next += k_owners;
                continue;
              }
            }
            const double timeout = next < o.jobs ? arrivals->get(next).time - sg4::Engine::get_clock() : -1.0;
            const ssize_t i = sg4::Exec::wait_any_for(running, timeout);
            if (i < 0 || static_cast<std::size_t>(i) >= running.size()) continue; // the next arrival is due
            tally.end();
            running[static_cast<std::size_t>(i)] = running.back();
            running.pop_back();
          }
        });
  }
}

} // namespace

int main(int argc, char** argv)
{
  const Options o = parse(argc, argv);
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  std::string stack = "--cfg=contexts/stack-size:" + std::to_string(o.stack_kib);
  std::string arg0 = "colocsim-rawloop", log1 = "--log=root.thres:warning",
              log2 = "--log=xbt_cfg.thres:warning", guard = "--cfg=contexts/guard-size:0";
  std::vector<char*> args{arg0.data(), log1.data(), log2.data(), stack.data(), guard.data()};
  std::vector<std::string> cfg = o.simgrid_cfg; // after the defaults, so they override them
  for (std::string& c : cfg)
    args.push_back(c.data());
  args.push_back(nullptr);
  int sg_argc = static_cast<int>(args.size()) - 1;
  sg4::Engine engine(&sg_argc, args.data());

  auto* zone = sg4::create_star_zone("raw");
  std::vector<sg4::Host*> hosts;
  hosts.reserve(static_cast<std::size_t>(o.tiles));
  std::string name;
  for (long long h = 0; h < o.tiles; ++h) {
    name.assign(1, 'd').append(std::to_string(h)); // (GCC 12 -Wrestrict false positive on "d" + to_string)
    hosts.push_back(zone->create_host(name, 1.0)->seal());
  }
  // sharded: one doorbell host per owner (a private host, so a doorbell never shares a tile); at most one
  // owner per M jobs.
  std::vector<sg4::Host*> bells;
  if (o.style == Style::SHARDED)
    for (long long b = 0; b <= std::min(o.jobs / o.per_owner, 100000LL); ++b)
      bells.push_back(zone->create_host("bell" + std::to_string(b), 1.0)->seal());
  zone->seal();

  Tally tally;
  switch (o.style) {
  case Style::ACTOR:
    run_actor(o, hosts, tally);
    break;
  case Style::POOL:
    run_pool(o, hosts, tally);
    break;
  case Style::SHARDED:
    run_sharded(o, hosts, bells, tally);
    break;
  case Style::SPLIT:
    run_split(o, hosts, tally);
    break;
  }
  const auto sim0 = std::chrono::steady_clock::now();
  engine.run();
  const auto sim1 = std::chrono::steady_clock::now();
  const double wall = std::chrono::duration<double>(sim1 - wall0).count();
  const double sim_wall = std::chrono::duration<double>(sim1 - sim0).count();
  std::printf("jobs=%lld\ntiles=%lld\nwall_s=%g\ncpu_s=%g\npeak_rss_mb=%g\nmakespan_s=%.6f\nchecksum=%.6f\n"
              "style=%s\npeak_running=%lld\nowners=%lld\nsimulation_wall_s=%g\nevents_per_s=%g\n",
              o.jobs, o.tiles, wall, cpu_seconds() - cpu0, peak_rss_mb(), tally.makespan, tally.checksum,
              o.style_name.c_str(), tally.peak_running, tally.owners, sim_wall,
              2.0 * static_cast<double>(o.jobs) / sim_wall);
  std::fflush(stdout);
  // Skip SimGrid's teardown walk over every host (the time is measured above; colocsim bench times it
  // apart as teardown).
  std::_Exit(0);
}
