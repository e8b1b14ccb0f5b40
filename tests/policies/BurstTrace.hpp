// The policies' scanning-reference tests' trace: bursts of 20 jobs (gaps under 60 s) separated by 3,000 s
// of nothing, longer than power-aware's idle_s, so nodes go off between bursts and each burst waits for
// boots. Single-device jobs and one in ten on 2 devices; light and compute-bound profiles of
// tests/data/sim/base.yaml. An LCG, so no library's random numbers enter the tests.
#pragma once
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace colocsim::test {

/// Writes `jobs` such jobs drawn from `seed` to a temporary native CSV named after `tag`; returns its path.
inline std::string write_burst_trace(const std::string& tag, std::uint64_t seed, int jobs)
{
  const auto path = std::filesystem::temp_directory_path() /
                    ("colocsim-" + tag + "-" + std::to_string(::getpid()) + ".csv");
  std::ofstream f(path);
  f << "id,submit_s,duration_s,devices,profile\n";
  std::uint64_t x = seed;
  auto next = [&] { return (x = x * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  double t = 0;
  for (int i = 0; i < jobs; ++i) {
    t += (i % 20 == 19) ? 3000 : static_cast<double>(next() % 60);
    const int devices = next() % 10 == 0 ? 2 : 1;
    f << "j" << i << "," << t << "," << 50 + next() % 900 << "," << devices << ","
      << (next() % 2 ? "light" : "busy") << "\n";
  }
  return path.string();
}

} // namespace colocsim::test
