#pragma once
// What the two reference loops of BENCHMARKS.md share (colocsim-rawloop, sim/bench/RawLoop.cpp; and
// colocsim-plainloop, sim/bench/PlainLoop.cpp): the workload, draw for draw, and the process's CPU time and
// peak RSS. Header-only and free of SimGrid and colocsim, so that the plain loop links nothing.
#include <sys/resource.h>

#include <cmath>
#include <cstdint>
#include <ctime>
#include <random>

namespace colocsim::bench {

inline double cpu_seconds()
{
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

inline double peak_rss_mb()
{
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0; // Linux: kilobytes
}

/// One job of the workload: it arrives at `time` and needs `work` (its duration at speed 1: flops at 1
/// flop/s).
struct Arrival {
  double time = 0, work = 0;
};

/// Job j arrives at the j-th point of a Poisson process of rate load · devices / duration and needs a
/// lognormal amount of work (σ = 1, mean = duration: the bench scenario's,
/// sim/scenarios/bench/scenario.yaml).
class Workload {
public:
  Workload(std::uint64_t seed, double load, double devices, double duration)
      : rng_(seed), gap_(load * devices / duration), length_(std::log(duration) - 0.5, 1.0)
  {
  }
  Arrival next()
  {
    t_ += gap_(rng_);
    const double work = length_(rng_);
    return {t_, work};
  }

private:
  std::mt19937_64 rng_;
  std::exponential_distribution<double> gap_;
  std::lognormal_distribution<double> length_;
  double t_ = 0;
};

} // namespace colocsim::bench
