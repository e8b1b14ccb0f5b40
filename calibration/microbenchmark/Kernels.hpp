#pragma once
// The microbenchmark's kernel catalog: one entry per OpenCL C kernel in calibration/microbenchmark/kernels/
// (compiled to SPIR-V at build time, embedded together with its source). An entry says what the kernel
// stresses (its JobClass), what its three size knobs n, k, m mean, and how to launch it: the buffers to
// allocate and fill, the arguments and the global size, plus the flops and bytes one launch performs (the
// denominators of the utilisations the fitter derives). Both backends (Level Zero, OpenCL) launch kernels
// only through a KernelLaunch, so they run the same work. Reference §2.6-§2.7 gives the kernel set.
#include "models/ResourceSignature.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace colocsim {

/// Sizes of one kernel instance; the meaning of each knob is per kernel (KernelInfo::n_help ...).
struct KernelConfig {
  std::string kernel;
  long long n = 0; ///< global work size or elements
  long long k = 0; ///< inner count: FMA rounds, passes, chase steps, intensity
  long long m = 0; ///< extra size (pointer_chase: cycle length); 0 where unused
  bool operator==(const KernelConfig&) const = default;
  bool operator<(const KernelConfig& o) const;
};

/// How a buffer's initial contents are made on the host before the run.
enum class BufferInit {
  ZERO,      ///< all bytes zero
  RAMP_F32,  ///< float  x[i] = (i mod 1024) / 1024
  RAMP_F64,  ///< double x[i] = (i mod 1024) / 1024
  CYCLE_U32, ///< uint32 next[]: one random cycle through all elements (Sattolo, fixed seed)
};

struct BufferSpec {
  std::size_t bytes = 0;
  BufferInit init = BufferInit::ZERO;
};

enum class ArgKind { BUFFER, INT32, FLOAT, DOUBLE };

struct KernelArg {
  ArgKind kind = ArgKind::INT32;
  std::size_t buffer = 0; ///< index into KernelLaunch::buffers (BUFFER)
  double value = 0;       ///< scalar value (INT32 holds an integer)
};

/// Everything a backend needs to run one kernel instance.
struct KernelLaunch {
  std::string kernel;
  std::size_t global_size = 1;
  std::vector<BufferSpec> buffers;
  std::vector<KernelArg> args;
  double flops = 0; ///< floating-point operations per launch
  double bytes = 0; ///< bytes moved to/from device memory (or cache, for l2_triad) per launch
  bool fp64 = false;
};

struct KernelInfo {
  std::string name;
  JobClass job_class = JobClass::C;
  std::string description;
  std::string n_help, k_help, m_help; ///< empty help = knob unused
  KernelConfig quick;                 ///< sizes for `--quick` (CPU/pocl, CI: a few ms per launch)
  KernelConfig full;                  ///< sizes for a Max 1550 tile (a few ms per launch)
  bool cache_resident = false;        ///< its bytes stay in cache: no device-memory bandwidth (l2_triad)
};

/// The catalog, in a fixed order.
const std::vector<KernelInfo>& kernel_catalog();

/// The entry named `name`; throws std::invalid_argument "unknown kernel 'x'; valid: a, b" otherwise.
const KernelInfo& find_kernel(std::string_view name);

/// Empty if `config` is valid for its kernel, else what is wrong and what was expected.
std::string check_kernel_config(const KernelConfig& config);

/// The launch description (throws std::invalid_argument when check_kernel_config fails).
KernelLaunch make_launch(const KernelConfig& config);

/// Fills a host buffer according to spec.init (deterministic).
void fill_buffer(const BufferSpec& spec, std::span<std::byte> out);

/// OpenCL C source of the kernel (embedded at build time).
std::string_view kernel_source(std::string_view name);

/// SPIR-V module of the kernel (embedded at build time); empty when this build had no SPIR-V toolchain.
std::span<const std::uint8_t> kernel_spirv(std::string_view name);

/// "triad n=1048576 k=0 m=0" style label for messages.
std::string to_string(const KernelConfig& config);

} // namespace colocsim
