// The kernel catalog and the kernels themselves: work accounting by hand, size validation, the embedded
// OpenCL C and SPIR-V (magic number, one entry point per kernel), the single-cycle pointer-chase layout,
// and — on any OpenCL platform present (pocl here) — every kernel run at a tiny size through the OpenCL
// backend with its results compared to a host computation.
#include "calibration/microbenchmark/Backend.hpp"
#include "calibration/microbenchmark/Kernels.hpp"
#include "tests/CatchCompat.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

using namespace colocsim;
using colocsim::test::WithinRel;

TEST_CASE("work accounting of each kernel", "[calibration][kernels]")
{
  const auto fma = make_launch({"fma_fp32", 1024, 10, 0});
  CHECK(fma.flops == 128.0 * 10 * 1024); // 16 chains × 4 FMAs × 2 flops per round
  CHECK(fma.global_size == 1024);
  CHECK_FALSE(fma.fp64);
  const auto triad = make_launch({"triad", 1000, 0, 0});
  CHECK(triad.bytes == 24000.0);
  CHECK(triad.flops == 2000.0);
  CHECK(triad.buffers.size() == 3);
  const auto l2 = make_launch({"l2_triad", 800, 5, 0});
  CHECK(l2.global_size == 100); // 8 elements per work-item
  CHECK(l2.bytes == 24.0 * 800 * 5);
  const auto chase = make_launch({"pointer_chase", 4, 100, 64});
  CHECK(chase.buffers[0].bytes == 64 * 4);
  CHECK(chase.bytes == 4.0 * 4 * 100);
  const auto intensity = make_launch({"intensity", 256, 16, 0});
  CHECK(intensity.flops / intensity.bytes == 16.0 / 4.0); // k/4 flop/byte
  CHECK(make_launch({"empty", 1, 0, 0}).args.empty());
  CHECK(find_kernel("l2_triad").cache_resident);
  CHECK(find_kernel("triad").job_class == JobClass::MS);
  CHECK(find_kernel("pointer_chase").job_class == JobClass::L);
}

TEST_CASE("kernel sizes are validated", "[calibration][kernels]")
{
  CHECK(check_kernel_config({"triad", 1 << 20, 0, 0}).empty());
  CHECK_THAT(check_kernel_config({"triad", 0, 0, 0}), Catch::Matchers::ContainsSubstring("n out of range"));
  CHECK_THAT(check_kernel_config({"l2_triad", 10, 1, 0}),
             Catch::Matchers::ContainsSubstring("multiple of 8"));
  CHECK_THAT(check_kernel_config({"pointer_chase", 8, 1, 4}),
             Catch::Matchers::ContainsSubstring("must be >= n"));
  CHECK_THAT(check_kernel_config({"copy", 8, 0, 4}), Catch::Matchers::ContainsSubstring("m is unused"));
  CHECK_THAT(check_kernel_config({"nope", 8, 0, 0}),
             Catch::Matchers::ContainsSubstring("unknown kernel 'nope'"));
  CHECK_THROWS_AS(make_launch({"triad", -1, 0, 0}), std::invalid_argument);
  for (const auto& k : kernel_catalog()) {
    CHECK(check_kernel_config(k.quick).empty());
    CHECK(check_kernel_config(k.full).empty());
  }
}

TEST_CASE("the quick pointer chase stays in a core's private L2", "[calibration][kernels]")
{
  // The workers of a CPU device share one pinned core; what they must not share is the last-level cache
  // of the host's other cores. The quick cycle: m = 65536 elements x 4 bytes = 256 KiB, the smallest
  // private L2 of current x86 cores (Intel client cores since Skylake have 256 KiB-2 MiB, AMD Zen 512 KiB
  // and up). A 16 MB cycle (the earlier size) made the solo time swing 6x on the CI VM (Kernels.cpp).
  // Steps: 16 chasers x 65536 = 1,048,576 dependent loads, a few ms at L2 latency (about 4 ms measured),
  // so that a launch still outlasts the scheduler's 4 ms tick at HZ=250.
  const auto& quick = find_kernel("pointer_chase").quick;
  const auto launch = make_launch(quick);
  std::size_t cycle_bytes = 0;
  for (const auto& b : launch.buffers)
    cycle_bytes = std::max(cycle_bytes, b.bytes);
  CHECK(cycle_bytes <= 256u * 1024u);
  CHECK(quick.n * quick.k >= 1'000'000);
}

TEST_CASE("embedded sources and SPIR-V modules", "[calibration][kernels]")
{
  for (const auto& k : kernel_catalog()) {
    INFO(k.name);
    CHECK_THAT(std::string(kernel_source(k.name)),
               Catch::Matchers::ContainsSubstring("__kernel void " + k.name + "("));
    const auto spv = kernel_spirv(k.name);
    if (spv.empty()) {
      WARN("this build has no SPIR-V toolchain; " << k.name << " has no module");
      continue;
    }
    REQUIRE(spv.size() > 20);
    std::uint32_t magic = 0;
    std::memcpy(&magic, spv.data(), 4);
    CHECK(magic == 0x07230203u); // SPIR-V magic number, little-endian words
    // The entry point's name is in the module as a literal string.
    const std::string bytes(reinterpret_cast<const char*>(spv.data()), spv.size());
    CHECK(bytes.find(k.name) != std::string::npos);
  }
}

TEST_CASE("the pointer-chase buffer is one cycle through every element", "[calibration][kernels]")
{
  const std::size_t count = 1000;
  std::vector<std::byte> raw(count * 4);
  fill_buffer({count * 4, BufferInit::CYCLE_U32}, raw);
  std::vector<std::uint32_t> next(count);
  std::memcpy(next.data(), raw.data(), raw.size());
  std::set<std::uint32_t> seen;
  std::uint32_t p = 0;
  for (std::size_t i = 0; i < count; ++i) {
    seen.insert(p);
    p = next[p];
  }
  CHECK(p == 0);               // back at the start after exactly `count` steps
  CHECK(seen.size() == count); // and every element visited on the way
}

namespace {

template <typename T> std::vector<T> as(const std::vector<std::byte>& raw)
{
  std::vector<T> v(raw.size() / sizeof(T));
  std::memcpy(v.data(), raw.data(), v.size() * sizeof(T));
  return v;
}

template <typename T> T fma_chains(std::size_t gid, T a, T b, int rounds)
{
  T x[16];
  x[0] = static_cast<T>(gid & 1023) * static_cast<T>(1e-3);
  for (int c = 1; c < 16; ++c)
    x[c] = x[0] + static_cast<T>(0.01 * c);
  for (int r = 0; r < rounds * 4; ++r)
    for (auto& v : x)
      v = std::fma(v, a, b);
  return ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7])) +
         ((x[8] + x[9]) + (x[10] + x[11])) + ((x[12] + x[13]) + (x[14] + x[15]));
}

double ramp(std::size_t i)
{
  return static_cast<double>(i % 1024) / 1024.0;
}

} // namespace

TEST_CASE("every kernel computes the right result on OpenCL", "[calibration][kernels][opencl]")
{
  const auto& info = find_backend("opencl");
  if (!info.built) {
    WARN("OpenCL backend not in this build");
    return;
  }
  auto run = [&](const KernelConfig& c) -> std::unique_ptr<KernelRunner> {
    RunnerOptions o;
    o.device = info.default_device;
    o.launch = make_launch(c);
    try {
      auto r = info.open_runner(o);
      const auto t = r->launch();
      CHECK(t.global_s >= 0);
      CHECK(std::isnan(t.context_s)); // OpenCL has no per-context time
      return r;
    } catch (const BackendUnavailable& e) {
      WARN("no OpenCL platform: " << e.what());
      return nullptr;
    }
  };
  auto fma32 = run({"fma_fp32", 64, 3, 0});
  if (!fma32) return;
  CHECK_THAT(fma32->notes(), Catch::Matchers::ContainsSubstring("program="));
  const auto y32 = as<float>(fma32->read_buffer(0));
  for (std::size_t i : {0u, 1u, 63u})
    CHECK_THAT(y32[i], WithinRel(fma_chains<float>(i, 0.999f, 0.001f, 3), 1e-5f));

  const auto y64 = as<double>(run({"fma_fp64", 64, 3, 0})->read_buffer(0));
  for (std::size_t i : {0u, 5u})
    CHECK_THAT(y64[i], WithinRel(fma_chains<double>(i, 0.999, 0.001, 3), 1e-12));

  const auto triad = as<double>(run({"triad", 2048, 0, 0})->read_buffer(0));
  for (std::size_t i : {1u, 1500u})
    CHECK_THAT(triad[i], WithinRel(4.0 * ramp(i), 1e-12)); // b + 3c with b = c = ramp

  const auto copy = as<double>(run({"copy", 2048, 0, 0})->read_buffer(0));
  CHECK(copy[1029] == ramp(1029));

  // 3 passes: the last one writes b + (3 + 2)·c = 6·ramp.
  const auto l2 = as<double>(run({"l2_triad", 64, 3, 0})->read_buffer(0));
  CHECK_THAT(l2[63], WithinRel(6.0 * ramp(63), 1e-12));

  auto chase = run({"pointer_chase", 4, 10, 64});
  const auto next = as<std::uint32_t>(chase->read_buffer(0));
  const auto ends = as<std::uint32_t>(chase->read_buffer(1));
  for (std::uint32_t start = 0; start < 4; ++start) {
    std::uint32_t p = start;
    for (int s = 0; s < 10; ++s)
      p = next[p];
    CHECK(ends[start] == p);
  }

  const auto y = as<float>(run({"intensity", 256, 5, 0})->read_buffer(0));
  float v = static_cast<float>(ramp(7));
  for (int j = 0; j < 5; ++j)
    v = std::fma(v, 0.999f, 0.001f);
  CHECK_THAT(y[7], WithinRel(v, 1e-6f));

  CHECK(run({"empty", 1, 0, 0}) != nullptr);
}
