#pragma once
// Per-job random draws that depend only on (seed, purpose, job id): the same job gets the same draw
// whatever came before it in the trace, on every platform and standard library (FNV-1a over the id,
// then the splitmix64 finaliser; no std::*_distribution). Used by the seeded profile draw and by the
// sampling and inflation transforms, so that a window or a sample never changes another job's draw.
#include <cstdint>
#include <string_view>

namespace colocsim {

inline std::uint64_t fnv1a64(std::string_view text)
{
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

inline std::uint64_t splitmix64(std::uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// A number in [0, 1) from the top 53 bits of a hash of (seed, salt, id).
inline double unit_draw(std::uint64_t seed, std::string_view salt, std::string_view id)
{
  const std::uint64_t h = splitmix64(seed ^ splitmix64(fnv1a64(salt) ^ splitmix64(fnv1a64(id))));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

} // namespace colocsim
