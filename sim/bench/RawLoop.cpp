// colocsim-rawloop: the raw-SimGrid reference loop of BENCHMARKS.md ("A million jobs"). What SimGrid 3.32
// alone costs for the shape of run `colocsim bench` makes, with none of colocsim: no scenario, no policy, no
// interference or power model, no outputs. A star zone of H hosts (one per tile, speed 1 flop/s, SimGrid's
// default fair sharing), a submitter actor that sleeps until each Poisson arrival (rate load · H / mean
// duration, as `colocsim bench --load`) and creates one actor per job, which executes the job's duration in
// flops on host (job mod H) and ends. Job actors get the engine's stacks (contexts/stack-size 8 KiB, guard
// pages off: sim/Engine.cpp make_engine). Durations are lognormal with the bench scenario's mean and
// sigma (sim/scenarios/bench/scenario.yaml: 1800 s, σ = 1). Prints key=value lines like `colocsim bench`:
// wall_s, cpu_s, peak_rss_mb, makespan_s, and a checksum (Σ end times) that is the same for a seed.
// It links SimGrid alone, so cpu_seconds and peak_rss_mb below repeat sim/cli/Cli.cpp's on purpose.
//
//   colocsim-rawloop --jobs 1000000 --tiles 127488 [--load 1] [--duration 1800] [--seed 1] [--stack-kib 8]
#include <simgrid/s4u.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

double cpu_seconds()
{
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double peak_rss_mb()
{
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0; // Linux: kilobytes
}

struct Options {
  long long jobs = 100000, tiles = 1000, seed = 1, stack_kib = 8;
  double load = 1.0, duration = 1800;
};

[[noreturn]] void usage(const std::string& why)
{
  std::fprintf(stderr,
               "colocsim-rawloop: %s\nusage: colocsim-rawloop [--jobs N] [--tiles N] [--load X] "
               "[--duration S] [--seed N] [--stack-kib N]\n",
               why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv)
{
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") usage("the raw-SimGrid reference loop (BENCHMARKS.md)");
    if (i + 1 >= argc) usage("option " + a + " needs a value");
    char* end = nullptr;
    const double v = std::strtod(argv[++i], &end);
    if (end == argv[i] || *end != '\0' || !(v > 0))
      usage("option " + a + " expects a positive number (got '" + argv[i] + "')");
    if (a == "--jobs")
      o.jobs = static_cast<long long>(v);
    else if (a == "--tiles")
      o.tiles = static_cast<long long>(v);
    else if (a == "--seed")
      o.seed = static_cast<long long>(v);
    else if (a == "--stack-kib")
      o.stack_kib = static_cast<long long>(v);
    else if (a == "--load")
      o.load = v;
    else if (a == "--duration")
      o.duration = v;
    else
      usage("unknown option '" + a + "'");
  }
  return o;
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
  std::vector<char*> args{arg0.data(), log1.data(), log2.data(), stack.data(), guard.data(), nullptr};
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
  zone->seal();

  double checksum = 0, makespan = 0;
  const double rate = o.load * static_cast<double>(o.tiles) / o.duration;
  const double sigma = 1.0;
  const double mu = std::log(o.duration) - sigma * sigma / 2; // mean of the lognormal = duration
  sg4::Actor::init("submitter", hosts.front())->set_stacksize(8 * 1024)->start([&] {
    std::mt19937_64 rng(static_cast<std::uint64_t>(o.seed));
    std::exponential_distribution<double> gap(rate);
    std::lognormal_distribution<double> length(mu, sigma);
    double t = 0;
    for (long long j = 0; j < o.jobs; ++j) {
      t += gap(rng);
      const double flops = length(rng);
      sg4::this_actor::sleep_until(t);
      sg4::Actor::create("job", hosts[static_cast<std::size_t>(j % o.tiles)], [flops, &checksum, &makespan] {
        sg4::this_actor::execute(flops);
        const double end = sg4::Engine::get_clock();
        checksum += end;
        makespan = std::max(makespan, end);
      });
    }
  });
  engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::printf("jobs=%lld\ntiles=%lld\nwall_s=%g\ncpu_s=%g\npeak_rss_mb=%g\nmakespan_s=%.6f\nchecksum=%.6f\n",
              o.jobs, o.tiles, wall, cpu_seconds() - cpu0, peak_rss_mb(), makespan, checksum);
  std::fflush(stdout);
  // Skip SimGrid's teardown walk over every host (the time is measured above; colocsim bench times it
  // apart as teardown).
  std::_Exit(0);
}
