// The kernel catalog: sizes, buffers, arguments and work accounting of each kernel in
// calibration/microbenchmark/kernels/. Quick sizes are tuned for pocl on a 2-core CPU: 3-10 ms per launch, so
// that a 0.25 s co-run window holds tens of launches and each launch is longer than the OS scheduler's
// time-slice granularity; the stream arrays (3 x 32 MB) exceed a CPU's last-level cache. The pointer-chase
// cycle (256 KiB) fits a core's private L2, so that its latency is the pinned core's alone: a 16 MB cycle
// lived in the last-level cache that the pinned core shares with the host's other cores (and, in a VM, other
// guests), and its solo time on the 2-core CI VM swung from 1.5 to 9.2 ms (0.022 to 0.14 µs per load, cache
// to DRAM) between repetitions minutes apart, its co-run slowdowns from 2.7 to 12 beside the same fma_fp32;
// the 256 KiB cycle measured 1.00-1.01 ms alone, 2.01-2.04 ms beside fma_fp32 and 2.45 ms beside triad in
// repeated runs (measured with 1/4 of today's steps; calibration/README.md). Full sizes target a Max 1550
// tile (reference §1.3: ~21 TF fp32, ~11 TF fp64, ~1 TB/s, 192 MiB L2), also a few ms per launch.
#include "calibration/microbenchmark/Kernels.hpp"

#include "base/Errors.hpp"
#include "calibration/microbenchmark/KernelBlobs.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <tuple>

namespace colocsim {

bool KernelConfig::operator<(const KernelConfig& o) const
{
  return std::tie(kernel, n, k, m) < std::tie(o.kernel, o.n, o.k, o.m);
}

namespace {

constexpr long long INT32_LIMIT = std::numeric_limits<std::int32_t>::max();

KernelConfig cfg(const char* name, long long n, long long k, long long m = 0)
{
  return KernelConfig{name, n, k, m};
}

} // namespace

const std::vector<KernelInfo>& kernel_catalog()
{
  static const std::vector<KernelInfo> catalog{
      {"fma_fp32", JobClass::C, "fp32 FMA chains, 16 per work-item (compute bound)", "work-items",
       "rounds (128 flops per work-item each)", "", cfg("fma_fp32", 16384, 144),
       cfg("fma_fp32", 1 << 21, 512)},
      {"fma_fp64", JobClass::C, "fp64 FMA chains, 16 per work-item (compute bound)", "work-items",
       "rounds (128 flops per work-item each)", "", cfg("fma_fp64", 16384, 144),
       cfg("fma_fp64", 1 << 21, 256)},
      {"triad", JobClass::MS, "STREAM triad a = b + s*c, fp64 (device-memory bound)", "elements per array",
       "", "", cfg("triad", 1 << 22, 0), cfg("triad", 1 << 27, 0)},
      {"copy", JobClass::MS, "STREAM copy c = a, fp64 (device-memory bound)", "elements per array", "", "",
       cfg("copy", 1 << 22, 0), cfg("copy", 1 << 27, 0)},
      {"l2_triad", JobClass::M, "triad over a cache-resident working set (light on device memory)",
       "elements per array (working set 24 n bytes)", "passes over the arrays per launch", "",
       cfg("l2_triad", 16384, 1024), cfg("l2_triad", 1 << 21, 128), true},
      {"pointer_chase", JobClass::L, "dependent loads through one random cycle (latency bound)",
       "chasers (work-items)", "steps per chaser", "cycle length in 4-byte elements (>= n)",
       cfg("pointer_chase", 16, 65536, 1 << 16), cfg("pointer_chase", 1024, 4096, 1 << 26)},
      {"intensity", JobClass::C, "k dependent FMAs per loaded element: k/4 flop/byte (roofline knob)",
       "elements", "FMAs per element (arithmetic intensity k/4 flop/byte)", "", cfg("intensity", 1 << 21, 16),
       cfg("intensity", 1 << 26, 16)},
      {"empty", JobClass::L, "does nothing (launch overhead)", "work-items", "", "", cfg("empty", 1, 0),
       cfg("empty", 1, 0)},
  };
  return catalog;
}

const KernelInfo& find_kernel(std::string_view name)
{
  std::vector<std::string> names;
  for (const auto& k : kernel_catalog()) {
    if (k.name == name) return k;
    names.push_back(k.name);
  }
  throw std::invalid_argument("unknown kernel '" + std::string(name) + "'; valid: " + join(names));
}

std::string check_kernel_config(const KernelConfig& c)
{
  const KernelInfo* info = nullptr;
  for (const auto& k : kernel_catalog())
    if (k.name == c.kernel) info = &k;
  if (info == nullptr) {
    try {
      find_kernel(c.kernel);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
  }
  const std::string label = c.kernel + ": ";
  if (c.n < 1 || c.n > INT32_LIMIT)
    return label + "n out of range (got " + std::to_string(c.n) + "); expected 1 <= n <= 2^31-1";
  if (c.k < 0 || c.k > INT32_LIMIT)
    return label + "k out of range (got " + std::to_string(c.k) + "); expected 0 <= k <= 2^31-1";
  if (c.m < 0 || c.m > INT32_LIMIT)
    return label + "m out of range (got " + std::to_string(c.m) + "); expected 0 <= m <= 2^31-1";
  if (c.kernel == "l2_triad" && c.n % 8 != 0)
    return label + "n must be a multiple of 8 (8 elements per work-item; got " + std::to_string(c.n) + ")";
  if (c.kernel == "pointer_chase" && c.m < c.n)
    return label + "m (cycle length) must be >= n (chasers) (got m=" + std::to_string(c.m) +
           ", n=" + std::to_string(c.n) + ")";
  if (c.kernel != "pointer_chase" && c.m != 0)
    return label + "m is unused by this kernel; expected m=0 (got " + std::to_string(c.m) + ")";
  return {};
}

KernelLaunch make_launch(const KernelConfig& c)
{
  if (auto problem = check_kernel_config(c); !problem.empty()) throw std::invalid_argument(problem);
  const auto n = static_cast<std::size_t>(c.n);
  const auto k = static_cast<double>(c.k);
  const double nd = static_cast<double>(c.n);
  auto buf = [](std::size_t index) { return KernelArg{ArgKind::BUFFER, index, 0}; };
  auto i32 = [](double v) { return KernelArg{ArgKind::INT32, 0, v}; };
  auto f32 = [](double v) { return KernelArg{ArgKind::FLOAT, 0, v}; };
  auto f64 = [](double v) { return KernelArg{ArgKind::DOUBLE, 0, v}; };

  KernelLaunch l;
  l.kernel = c.kernel;
  l.global_size = n;
  if (c.kernel == "fma_fp32") {
    l.buffers = {{n * 4, BufferInit::ZERO}};
    l.args = {buf(0), f32(0.999), f32(0.001), i32(k)};
    l.flops = 128.0 * k * nd;
    l.bytes = 4.0 * nd;
  } else if (c.kernel == "fma_fp64") {
    l.buffers = {{n * 8, BufferInit::ZERO}};
    l.args = {buf(0), f64(0.999), f64(0.001), i32(k)};
    l.flops = 128.0 * k * nd;
    l.bytes = 8.0 * nd;
    l.fp64 = true;
  } else if (c.kernel == "triad") {
    l.buffers = {{n * 8, BufferInit::ZERO}, {n * 8, BufferInit::RAMP_F64}, {n * 8, BufferInit::RAMP_F64}};
    l.args = {buf(0), buf(1), buf(2), f64(3.0)};
    l.flops = 2.0 * nd;
    l.bytes = 24.0 * nd;
    l.fp64 = true;
  } else if (c.kernel == "copy") {
    l.buffers = {{n * 8, BufferInit::ZERO}, {n * 8, BufferInit::RAMP_F64}};
    l.args = {buf(0), buf(1)};
    l.bytes = 16.0 * nd;
    l.fp64 = true;
  } else if (c.kernel == "l2_triad") {
    l.global_size = n / 8;
    l.buffers = {{n * 8, BufferInit::ZERO}, {n * 8, BufferInit::RAMP_F64}, {n * 8, BufferInit::RAMP_F64}};
    l.args = {buf(0), buf(1), buf(2), f64(3.0), i32(nd), i32(k)};
    l.flops = 2.0 * nd * k;
    l.bytes = 24.0 * nd * k;
    l.fp64 = true;
  } else if (c.kernel == "pointer_chase") {
    l.buffers = {{static_cast<std::size_t>(c.m) * 4, BufferInit::CYCLE_U32}, {n * 4, BufferInit::ZERO}};
    l.args = {buf(0), buf(1), i32(k)};
    l.bytes = 4.0 * nd * k;
  } else if (c.kernel == "intensity") {
    l.buffers = {{n * 4, BufferInit::ZERO}, {n * 4, BufferInit::RAMP_F32}};
    l.args = {buf(0), buf(1), f32(0.999), f32(0.001), i32(k)};
    l.flops = 2.0 * k * nd;
    l.bytes = 8.0 * nd;
  } else if (c.kernel == "empty") {
    // no buffers, no arguments
  }
  return l;
}

void fill_buffer(const BufferSpec& spec, std::span<std::byte> out)
{
  switch (spec.init) {
  case BufferInit::ZERO:
    std::fill(out.begin(), out.end(), std::byte{0});
    break;
  case BufferInit::RAMP_F32:
    for (std::size_t i = 0; i < out.size() / 4; ++i) {
      const float v = static_cast<float>(i % 1024) / 1024.0f;
      std::memcpy(out.data() + 4 * i, &v, 4);
    }
    break;
  case BufferInit::RAMP_F64:
    for (std::size_t i = 0; i < out.size() / 8; ++i) {
      const double v = static_cast<double>(i % 1024) / 1024.0;
      std::memcpy(out.data() + 8 * i, &v, 8);
    }
    break;
  case BufferInit::CYCLE_U32: {
    const std::size_t count = out.size() / 4;
    std::vector<std::uint32_t> next(count);
    for (std::size_t i = 0; i < count; ++i)
      next[i] = static_cast<std::uint32_t>(i);
    // Sattolo's algorithm: a random permutation with a single cycle, so every chaser visits the whole
    // buffer. splitmix64 with a fixed seed: the same layout in every process, run and standard library
    // (the modulo bias, < count / 2^64, is irrelevant here).
    std::uint64_t state = 20240611;
    auto splitmix64 = [&state] {
      std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      return z ^ (z >> 31);
    };
    for (std::size_t i = count; i > 1; --i)
      std::swap(next[i - 1], next[splitmix64() % (i - 1)]);
    std::memcpy(out.data(), next.data(), count * 4);
    break;
  }
  }
}

namespace {
const detail::KernelBlob& blob(std::string_view name)
{
  for (const auto& b : detail::kernel_blobs())
    if (b.name == name) return b;
  find_kernel(name); // throws with the list of valid names
  throw std::logic_error("kernel '" + std::string(name) + "' is in the catalog but was not embedded");
}
} // namespace

std::string_view kernel_source(std::string_view name)
{
  return blob(name).source;
}

std::span<const std::uint8_t> kernel_spirv(std::string_view name)
{
  const auto& b = blob(name);
  return {b.spirv, b.spirv_size};
}

std::string to_string(const KernelConfig& c)
{
  std::string s = c.kernel + " n=" + std::to_string(c.n);
  if (c.k != 0) s += " k=" + std::to_string(c.k);
  if (c.m != 0) s += " m=" + std::to_string(c.m);
  return s;
}

} // namespace colocsim
